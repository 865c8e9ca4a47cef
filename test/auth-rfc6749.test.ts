import crypto from 'node:crypto';
import { expect } from 'chai';
import { ClientCredentials } from 'simple-oauth2';
import { createClient } from '../lib/auth/client.service';
import { createSeller } from '../lib/account/account.service';
import { apiBase, call } from './support/api';
import { authorizeClient, openAuthorize } from './support/authorize';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const form = { 'Content-Type': 'application/x-www-form-urlencoded' };

/** token.php and resource requests held to RFC 6749 (2.3, 3.2, 5.2) and RFC 6750 (3.1), as OAuth client libraries send them. */
describe('token.php and bearer tokens by RFC 6749 / RFC 6750', () => {
  describe('RFC 6749 2.3.1: credentials in the Basic header, form-urlencoded before base64', () => {
    // Characters the encoding changes: ':' '%' '+' ' ' (simple-oauth2 takes printable ASCII only;
    // non-ASCII is encoded by hand below, as IdentityModel's Rfc6749 style does).
    const password = `p:a%s+s &-${crypto.randomBytes(4).toString('hex')}`;
    const nonAscii = `pé:ß%${crypto.randomBytes(4).toString('hex')}`;
    const encoded = (s: string) => new URLSearchParams({ s }).toString().slice(2);
    let login: string;

    before(async () => {
      login = `rfc_${crypto.randomBytes(5).toString('hex')}`;
      await createSeller(login, password);
      await createSeller(`${login}_u`, nonAscii);
    });

    it('when simple-oauth2 (strict encoding, its default) asks for a seller token, then it gets one that works', async () => {
      const library = new ClientCredentials({
        client: { id: login, secret: password },
        auth: { tokenHost: await apiBase(), tokenPath: '/v1.1/token.php' },
      });
      const token = await library.getToken({ scope: 'order_r' });
      expect(token.token.scope).to.equal('order_r');
      expect((await call('order/', { token: token.token.access_token as string })).status).to.equal(200);
    });

    it('when the same credentials come unencoded (document 1, curl -u), then they work too; a wrong password fails either way', async () => {
      const raw = await call('token.php', { headers: { Authorization: basic(login, password), ...form }, body: 'grant_type=client_credentials' });
      expect(raw.status).to.equal(200);
      for (const wrong of [basic(login, `${password}x`), basic(encoded(login), encoded(`${password}x`))]) {
        const res = await call('token.php', { headers: { Authorization: wrong, ...form }, body: 'grant_type=client_credentials' });
        expect(res.status).to.equal(401);
        expect(res.body.error![0]!.error).to.equal('invalid_client');
        expect(res.body.access_token).to.equal(undefined);
      }
    });

    it('when a non-ASCII password comes form-urlencoded (UTF-8 percent-encoded), or as UTF-8 unencoded, then the token comes', async () => {
      for (const header of [basic(encoded(`${login}_u`), encoded(nonAscii)), basic(`${login}_u`, nonAscii)]) {
        const res = await call('token.php', { headers: { Authorization: header, ...form }, body: 'grant_type=client_credentials' });
        expect(res.status).to.equal(200);
        expect(res.body.access_token).to.be.a('string');
      }
    });
  });

  describe('RFC 6749 2.3 and 5.2: one way of authenticating per request', () => {
    const redirectUri = 'https://rfc.example.com/cb';
    let client: { client_id: string; client_secret: string };
    let login: string;
    const password = 'rfc-password-1';

    before(async () => {
      login = `rfc_${crypto.randomBytes(5).toString('hex')}`;
      await createSeller(login, password);
      client = await createClient('RFC client', redirectUri);
    });

    it('when a seller sends Basic and client_secret (or password) in the body, then 400 invalid_request and no token', async () => {
      const cases: [string, string][] = [
        [`grant_type=client_credentials&client_id=${login}&client_secret=${password}`, 'client_secret'],
        [`grant_type=client_credentials&password=${password}`, 'password'],
      ];
      for (const [body, field] of cases) {
        const res = await call('token.php', { headers: { Authorization: basic(login, password), ...form }, body });
        expect(res.status).to.equal(400);
        expect(res.body.error![0]).to.deep.include({ error: 'invalid_request', field });
        // 6e81945's field is inside the Error_type item: the answer's own keys stay document 1's envelope (README: RFC 6749 5.2).
        expect(Object.keys(res.body).sort()).to.deep.equal(['ack', 'error', 'error_description']);
      }
    });

    it('when a client sends Basic with a body client_id naming another client, then 400 invalid_request and the code stays usable', async () => {
      const { code } = await authorizeClient({ clientId: client.client_id, login, password, tick: ['order_r'] });
      const other = await call('token.php', {
        headers: { Authorization: basic(client.client_id, client.client_secret), ...form },
        body: `grant_type=authorization_code&code=${code}&client_id=kc_someone_else`,
      });
      expect(other.status).to.equal(400);
      expect(other.body.error![0]).to.deep.include({ error: 'invalid_request', field: 'client_id' });
      // The same client_id beside Basic is what RFC 6749 4.1.3 asks of a public client and some libraries send anyway.
      const same = await call('token.php', {
        headers: { Authorization: basic(client.client_id, client.client_secret), ...form },
        body: `grant_type=authorization_code&code=${code}&client_id=${client.client_id}`,
      });
      expect(same.status).to.equal(200);
      expect(same.body.scope).to.equal('order_r');
    });

    it("when a seller sends Basic with the body's client_id its own and username another login, then 400 invalid_request naming username and no token", async () => {
      const other = `${login}_other`;
      await createSeller(other, password);
      const res = await call('token.php', {
        headers: { Authorization: basic(login, password), ...form },
        body: `grant_type=client_credentials&client_id=${login}&username=${other}`,
      });
      expect(res.status, res.text).to.equal(400);
      expect(res.body.error![0]).to.deep.include({ error: 'invalid_request', field: 'username' });
      expect(res.body.access_token).to.equal(undefined);
      const own = await call('token.php', {
        headers: { Authorization: basic(login, password), ...form },
        body: `grant_type=client_credentials&client_id=${login}&username=${login}`,
      });
      expect(own.status, own.text).to.equal(200);
    });

    it('when a client sends its own credentials with grant_type=client_credentials, then 400 unauthorized_client and no token; a wrong secret is invalid_client', async () => {
      const own = await call('token.php', {
        headers: { Authorization: basic(client.client_id, client.client_secret), ...form },
        body: 'grant_type=client_credentials',
      });
      expect(own.status).to.equal(400);
      expect(own.body.error![0]!.error).to.equal('unauthorized_client');
      expect(own.body.access_token).to.equal(undefined);
      const wrong = await call('token.php', {
        headers: { Authorization: basic(client.client_id, 'not-the-secret'), ...form },
        body: 'grant_type=client_credentials',
      });
      expect(wrong.status).to.equal(401);
      expect(wrong.body.error![0]!.error).to.equal('invalid_client');
    });

    it('when the credentials come only in the body (client_id and client_secret), then the token comes', async () => {
      const res = await call('token.php', { headers: form, body: `grant_type=client_credentials&client_id=${login}&client_secret=${password}&scope=order_r` });
      expect(res.status).to.equal(200);
      expect(res.body.scope).to.equal('order_r');
    });
  });

  describe('RFC 6749 3.2 and 5.2: parameters', () => {
    let login: string;
    const password = 'rfc-password-2';
    before(async () => {
      login = `rfc_${crypto.randomBytes(5).toString('hex')}`;
      await createSeller(login, password);
    });

    it('when grant_type is one token.php does not know, then 400 unsupported_grant_type naming grant_type', async () => {
      for (const grant of ['password', 'urn:ietf:params:oauth:grant-type:device_code']) {
        const res = await call('token.php', { headers: { Authorization: basic(login, password), ...form }, body: `grant_type=${encodeURIComponent(grant)}` });
        expect(res.status).to.equal(400);
        expect(res.body.error![0]).to.deep.include({ error: 'unsupported_grant_type', field: 'grant_type' });
      }
    });

    it('when a library adds a parameter token.php does not know (audience, resource), then it is ignored and the token comes', async () => {
      const res = await call('token.php', {
        headers: { Authorization: basic(login, password), ...form },
        body: 'grant_type=client_credentials&scope=order_r&audience=kontor&resource=https%3A%2F%2Fapi.example',
      });
      expect(res.status).to.equal(200);
      expect(res.body.scope).to.equal('order_r');
    });
  });

  describe('RFC 6750 3.1: the challenge of a resource request', () => {
    it('when a request has no credentials, then 401 with a Bearer challenge and no error code', async () => {
      const res = await call('order/');
      expect(res.status).to.equal(401);
      expect(res.body.error![0]!.error).to.equal('missing_token');
      expect(res.headers.get('www-authenticate')).to.equal('Bearer realm="kontor"');
    });

    it('when the token is unknown, then the challenge says invalid_token', async () => {
      const res = await call('order/', { token: 'kat_unknown' });
      expect(res.status).to.equal(401);
      expect(res.headers.get('www-authenticate')).to.equal('Bearer error="invalid_token"');
    });
  });

  describe('RFC 6749 4.1.2.1: errors of the authorization request', () => {
    it('when response_type is missing, then the client gets invalid_request with its state; another value is unsupported_response_type', async () => {
      const client = await createClient('RFC page client', 'https://rfc-page.example.com/cb');
      const missing = await openAuthorize({ client_id: client.client_id, state: 'st 1' });
      expect(missing.status).to.equal(303);
      const target = new URL(missing.headers.get('location')!);
      expect(target.origin + target.pathname).to.equal('https://rfc-page.example.com/cb');
      expect(target.searchParams.get('error')).to.equal('invalid_request');
      expect(target.searchParams.get('state')).to.equal('st 1');
      expect(target.searchParams.get('code')).to.equal(null);
      const other = await openAuthorize({ client_id: client.client_id, state: 'st 2', response_type: 'token' });
      expect(new URL(other.headers.get('location')!).searchParams.get('error')).to.equal('unsupported_response_type');
    });
  });
});
