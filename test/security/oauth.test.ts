/**
 * Issue 31, finding 7: the OAuth points of the review (RFC 9207, RFC 6749 4.1.2 / 5.1 / 3.1.2,
 * RFC 9700 2.1), the authorization page's refusal of control characters, failed logins in the
 * log, and the CLI's password kept out of the process list.
 */
import { expect } from 'chai';
import { config } from '../../config';
import { createClient } from '../../lib/auth/client.service';
import { call, newSeller, Seller, tokenFor } from '../support/api';
import { apiBase } from '../support/api';
import { authorizeClient, openAuthorize, sendForm } from '../support/authorize';
import { kontor, kontorWithInput } from '../support/cli';
import { capturedLog } from './log-capture';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const form = { 'Content-Type': 'application/x-www-form-urlencoded' };

describe('OAuth and login hardening (issue 31, finding 7)', () => {
  let seller: Seller;
  let client: { client_id: string; client_secret: string };
  const redirectUri = 'https://erp.example.com/oauth/callback';

  before(async () => {
    seller = await newSeller();
    client = await createClient('Acme ERP', redirectUri);
  });

  const exchange = (code: string) =>
    call('token.php', { headers: { Authorization: basic(client.client_id, client.client_secret) }, body: { grant_type: 'authorization_code', code } });

  describe('RFC 9207: iss in the authorization response', () => {
    it('when the seller allows, then the redirect carries iss, the service URL, beside code and state', async () => {
      const { location } = await authorizeClient({ clientId: client.client_id, login: seller.login, password: seller.password, query: { state: 's-1' } });
      expect(location.searchParams.get('iss')).to.equal(config().publicUrl);
      expect(location.searchParams.get('state')).to.equal('s-1');
      expect(location.searchParams.get('code')).to.be.a('string');
    });

    it('when the request is answered with an error at the redirect URI, then that redirect carries iss too', async () => {
      const page = await openAuthorize({ response_type: 'token', client_id: client.client_id, state: 's-2' });
      expect(page.status).to.equal(303);
      const location = new URL(page.headers.get('location')!);
      expect(location.searchParams.get('error')).to.equal('unsupported_response_type');
      expect(location.searchParams.get('iss')).to.equal(config().publicUrl);
    });

    it('when the seller denies, then the access_denied redirect carries iss', async () => {
      const page = await openAuthorize({ response_type: 'code', client_id: client.client_id });
      const denied = await sendForm(page, { decision: 'deny', scope_item: 'order_r' });
      expect(denied.status).to.equal(303);
      const location = new URL(denied.headers.get('location')!);
      expect(location.searchParams.get('error')).to.equal('access_denied');
      expect(location.searchParams.get('iss')).to.equal(config().publicUrl);
    });
  });

  describe('RFC 6749 4.1.2: a replayed authorization code', () => {
    it('when a used code is presented again, then invalid_grant and the tokens issued for it are revoked', async () => {
      const { code } = await authorizeClient({ clientId: client.client_id, login: seller.login, password: seller.password, query: { scope: 'order_r' } });
      const first = await exchange(code);
      expect(first.status, first.text).to.equal(200);
      const access = first.body.access_token as string;
      expect((await call('order/', { token: access })).status).to.equal(200);
      const replay = await exchange(code);
      expect(replay.status).to.equal(400);
      expect(replay.body.error![0]!.error).to.equal('invalid_grant');
      expect((await call('order/', { token: access })).status).to.equal(401);
      const refresh = await call('token.php', {
        headers: { Authorization: basic(client.client_id, client.client_secret) },
        body: { grant_type: 'refresh_token', refresh_token: first.body.refresh_token },
      });
      expect(refresh.status).to.equal(400);
      expect(refresh.body.error![0]!.error).to.equal('invalid_grant');
    });

    it('when an unknown code is presented, then invalid_grant and nothing else of the client is touched', async () => {
      const { code } = await authorizeClient({ clientId: client.client_id, login: seller.login, password: seller.password, query: { scope: 'order_r' } });
      const good = await exchange(code);
      expect((await exchange('kac_not-a-code')).status).to.equal(400);
      expect((await call('order/', { token: good.body.access_token as string })).status).to.equal(200);
    });
  });

  describe('RFC 6749 5.1: token answers are not cached', () => {
    it('when token.php issues tokens (client_credentials, authorization_code, refresh_token), then Cache-Control: no-store and Pragma: no-cache', async () => {
      const own = await call('token.php', { headers: { Authorization: basic(seller.login, seller.password), ...form }, body: 'grant_type=client_credentials' });
      const { code } = await authorizeClient({ clientId: client.client_id, login: seller.login, password: seller.password, query: { scope: 'order_r' } });
      const byCode = await exchange(code);
      const refreshed = await call('token.php', {
        headers: { Authorization: basic(client.client_id, client.client_secret) },
        body: { grant_type: 'refresh_token', refresh_token: byCode.body.refresh_token },
      });
      for (const res of [own, byCode, refreshed]) {
        expect(res.status, res.text).to.equal(200);
        expect(res.headers.get('cache-control')).to.equal('no-store');
        expect(res.headers.get('pragma')).to.equal('no-cache');
      }
    });
  });

  describe('client registration (RFC 9700 2.1, RFC 6749 3.1.2)', () => {
    it('when a redirect URI is plain http to another host, or has a fragment, then registration is refused', async () => {
      for (const uri of ['http://erp.example.com/cb', 'https://erp.example.com/cb#top', 'https://erp.example.com/cb#', 'ftp://erp.example.com/cb']) {
        let refused: unknown;
        await createClient('Bad', uri).catch((err: unknown) => (refused = err));
        expect(refused, uri).to.be.instanceOf(Error);
      }
    });

    it('when a redirect URI is https, or http to a loopback address, then the client is registered', async () => {
      for (const uri of ['https://erp.example.com/cb?x=1', 'http://127.0.0.1:8765/cb', 'http://[::1]:8765/cb', 'http://localhost/cb']) {
        expect((await createClient('Good', uri)).client_id, uri).to.match(/^kc_/);
      }
    });

    it('when kontor client create is given an http redirect URI to another host, then it exits 1 naming the rule', async () => {
      const res = await kontor('client', 'create', '--name', 'Plain', '--redirect-uri', 'http://erp.example.com/cb');
      expect(res.code).to.equal(1);
      expect(res.err).to.match(/^kontor: redirect URI must be https/);
    });
  });

  describe('authorize.php with control characters', () => {
    for (const value of ['%00', '%01', 'kc_x%0Ay', '%7F']) {
      it(`when client_id is ${value}, then 400 with an error page, not 500`, async () => {
        const res = await fetch(`${await apiBase()}/v1.1/authorize.php?response_type=code&client_id=${value}`, { redirect: 'manual' });
        expect(res.status).to.equal(400);
        expect(res.headers.get('content-type')).to.contain('text/html');
      });
    }

    it('when a known client sends state with a NUL, then 400 with an error page', async () => {
      const res = await fetch(`${await apiBase()}/v1.1/authorize.php?response_type=code&client_id=${client.client_id}&state=a%00b`, { redirect: 'manual' });
      expect(res.status).to.equal(400);
    });
  });

  describe('failed logins in the log', () => {
    it('when a seller login fails at token.php, then a warn line names the login and address, never the password', async () => {
      const password = 'Wrong-Password-4711';
      const { lines, text } = await capturedLog(async () => {
        const res = await call('token.php', { headers: { Authorization: basic(seller.login, password), ...form }, body: 'grant_type=client_credentials' });
        expect(res.status).to.equal(401);
      });
      const line = lines.find((l) => l.login_failed === 'token.php');
      expect(line, text).to.include({ login: seller.login, level: 40 });
      expect(line!.address).to.be.a('string');
      expect(text).to.not.contain(password);
    });

    it('when the consent page gets a wrong password, then a warn line names authorize.php, never the password', async () => {
      const password = 'Consent-Wrong-0815';
      const { lines, text } = await capturedLog(async () => {
        const page = await openAuthorize({ response_type: 'code', client_id: client.client_id });
        const again = await sendForm(page, { login: seller.login, password, scope_item: 'order_r', decision: 'allow' });
        expect(again.status).to.equal(400);
      });
      expect(
        lines.find((l) => l.login_failed === 'authorize.php'),
        text,
      ).to.include({ login: seller.login });
      expect(text).to.not.contain(password);
    });

    it('when a client secret is wrong at token.php, then a warn line names the client_id, never the secret', async () => {
      const secret = 'not-the-client-secret-42';
      const { lines, text } = await capturedLog(async () => {
        const res = await call('token.php', {
          headers: { Authorization: basic(client.client_id, secret) },
          body: { grant_type: 'refresh_token', refresh_token: 'x' },
        });
        expect(res.status).to.equal(401);
      });
      expect(
        lines.find((l) => l.login_failed === 'token.php' && l.client_id === client.client_id),
        text,
      ).to.not.equal(undefined);
      expect(text).to.not.contain(secret);
    });
  });

  describe('secrets off the command line', () => {
    it('when kontor user create reads the password from standard input, then the seller logs in with it', async () => {
      const login = `stdin_${Date.now()}`;
      const password = `pw-stdin-${Date.now()}`;
      const res = await kontorWithInput(`${password}\n`, 'user', 'create', '--login', login, '--password-stdin');
      expect(res.code, res.err).to.equal(0);
      expect(await tokenFor(login, password)).to.be.a('string');
    });

    it('when both --password and --password-stdin are given, then it exits 1; --password alone still works', async () => {
      const both = await kontorWithInput('x\n', 'user', 'create', '--login', `both_${Date.now()}`, '--password', 'pw-flag-12345', '--password-stdin');
      expect(both.code).to.equal(1);
      const login = `flag_${Date.now()}`;
      const flag = await kontor('user', 'create', '--login', login, '--password', 'pw-flag-12345');
      expect(flag.code, flag.err).to.equal(0);
      expect(await tokenFor(login, 'pw-flag-12345')).to.be.a('string');
    });
  });
});
