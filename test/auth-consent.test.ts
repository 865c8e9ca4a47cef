import crypto from 'node:crypto';
import { expect } from 'chai';
import { createPortalAccount } from '../lib/admin/portal-account-admin.service';
import { createClient } from '../lib/auth/client.service';
import { db } from '../lib/db/knex';
import { apiBase, call, newSeller, Seller } from './support/api';
import { authorizeClient, openAuthorize, sendForm } from './support/authorize';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

const pkce = () => {
  const verifier = crypto.randomBytes(32).toString('base64url');
  return { verifier, challenge: crypto.createHash('sha256').update(verifier).digest('base64url') };
};

describe('authorize.php: the consent page (issue 16.1; RFC 6749 4.1, RFC 7636)', () => {
  let seller: Seller;
  let client: { client_id: string; client_secret: string };
  const redirectUri = 'https://erp.example.com/oauth/callback';
  const exchange = (code: string, extra: Record<string, string> = {}) =>
    call('token.php', {
      headers: { Authorization: basic(client.client_id, client.client_secret) },
      body: { grant_type: 'authorization_code', code, ...extra },
    });
  const open = (query: Record<string, string> = {}) => openAuthorize({ response_type: 'code', client_id: client.client_id, ...query });

  before(async () => {
    seller = await newSeller();
    client = await createClient('Acme ERP', redirectUri);
  });

  describe('what the page shows', () => {
    it("when opened, then it names the client and the redirect host, and shows each requested scope with system/scope/'s title and description, ticked", async () => {
      const page = await open({ scope: 'order_r stock_w', state: 'xyz' });
      expect(page.status).to.equal(200);
      expect(page.html).to.contain('Acme ERP').and.to.contain('erp.example.com').and.to.contain('name="viewport"');
      const listed = (await call('system/scope/', { token: seller.token })).body.scope as { id: string; title: string; description: string }[];
      for (const id of ['order_r', 'stock_w']) {
        const scope = listed.find((s) => s.id === id)!;
        expect(page.html).to.contain(scope.title).and.to.contain(scope.description);
        expect(page.html).to.contain(`name="scope_item" value="${id}" checked`);
      }
      expect(page.html).not.to.contain('value="bank_w"');
      expect(page.hidden).to.include({ client_id: client.client_id, state: 'xyz', scope: 'order_r stock_w', response_type: 'code' });
      expect(page.hidden.csrf).to.have.length(43);
    });

    it('when opened, then it cannot be framed, is not cached, and sends no CORS header; the API keeps its CORS', async () => {
      const page = await open();
      expect(page.headers.get('content-security-policy')).to.contain("frame-ancestors 'none'");
      expect(page.headers.get('x-frame-options')).to.equal('DENY');
      expect(page.headers.get('cache-control')).to.equal('no-store');
      expect(page.headers.get('access-control-allow-origin')).to.equal(null);
      expect(page.cookie).to.match(/^kontor_authorize_csrf=/);
      const cookie = page.headers.get('set-cookie')!;
      expect(cookie).to.contain('HttpOnly').and.to.contain('SameSite=Strict');
      const preflight = await fetch(`${await apiBase()}/v1.1/authorize.php`, {
        method: 'OPTIONS',
        headers: { Origin: 'https://evil.example.com', 'Access-Control-Request-Method': 'POST' },
      });
      expect([...preflight.headers.keys()].filter((name) => name.startsWith('access-control-'))).to.deep.equal([]);
      const api = await call('system/currency/', { token: seller.token });
      expect(api.headers.get('access-control-allow-origin')).to.equal('*');
    });

    it('when the client is unknown or the redirect_uri is not exactly the registered one, then an error page and no redirect', async () => {
      const unknown = await openAuthorize({ response_type: 'code', client_id: 'kc_nobody' });
      expect(unknown.status).to.equal(400);
      expect(unknown.headers.get('location')).to.equal(null);
      for (const uri of [`${redirectUri}/evil`, 'https://evil.example.com/oauth/callback', `${redirectUri}?x=1`, redirectUri.toUpperCase()]) {
        const res = await open({ redirect_uri: uri });
        expect(res.status, uri).to.equal(400);
        expect(res.headers.get('location')).to.equal(null);
        expect(res.html).to.contain('not registered');
      }
      expect((await open({ redirect_uri: redirectUri })).status).to.equal(200);
    });

    it('when response_type, scope or PKCE parameters are wrong, then the error goes back to the client with state', async () => {
      const cases: [Record<string, string>, string][] = [
        [{ response_type: 'token' }, 'unsupported_response_type'],
        [{ scope: 'order_r all_the_things' }, 'invalid_scope'],
        [{ code_challenge: pkce().challenge, code_challenge_method: 'plain' }, 'invalid_request'],
        [{ code_challenge: pkce().challenge }, 'invalid_request'],
        [{ code_challenge: 'short', code_challenge_method: 'S256' }, 'invalid_request'],
        [{ code_challenge_method: 'S256' }, 'invalid_request'],
      ];
      for (const [query, error] of cases) {
        const res = await open({ state: 's1', ...query });
        expect(res.status, JSON.stringify(query)).to.equal(303);
        const target = new URL(res.headers.get('location')!);
        expect(target.origin + target.pathname).to.equal(redirectUri);
        expect(target.searchParams.get('error')).to.equal(error);
        expect(target.searchParams.get('state')).to.equal('s1');
        expect(target.searchParams.get('code')).to.equal(null);
      }
    });
  });

  describe('deciding', () => {
    it('when the seller ticks some of the requested scopes, then the token has exactly those', async () => {
      const { code, location } = await authorizeClient({
        clientId: client.client_id,
        login: seller.login,
        password: seller.password,
        query: { scope: 'order_r order_w stock_r', state: 'abc' },
        tick: ['order_r', 'stock_r', 'bank_w'],
      });
      expect(location.searchParams.get('state')).to.equal('abc');
      const token = await exchange(code);
      expect(token.status).to.equal(200);
      expect(token.body.scope).to.equal('order_r stock_r');
      expect((await call('order/', { token: token.body.access_token as string, method: 'POST', body: { order: {} } })).status).to.equal(403);
    });

    it('when the seller presses Deny, at either step, or ticks nothing, then access_denied with state and no code', async () => {
      const codes = () => db()('authorization_code').where({ account_id: seller.id }).count<{ count: string }[]>('* as count');
      const before = (await codes())[0]!.count;
      const page = await open({ scope: 'order_r', state: 'st' });
      const deny = await sendForm(page, { decision: 'deny' });
      const untick = await sendForm(page, { login: seller.login, password: seller.password, decision: 'allow' });
      const step2 = await sendForm(page, { login: seller.login, password: seller.password, scope_item: 'order_r', decision: 'allow' });
      const denyLater = await sendForm(step2, { portal_account: 'all', decision: 'deny' });
      for (const res of [deny, untick, denyLater]) {
        expect(res.status).to.equal(303);
        const target = new URL(res.headers.get('location')!);
        expect(target.searchParams.get('error')).to.equal('access_denied');
        expect(target.searchParams.get('state')).to.equal('st');
        expect(target.searchParams.has('code')).to.equal(false);
      }
      expect((await codes())[0]!.count).to.equal(before);
    });

    it('when the password is wrong, then the form again with only the requested scopes, ticked as the seller ticked them, the login kept and no password', async () => {
      const page = await open({ scope: 'order_r stock_r task_r' });
      const res = await sendForm(page, { login: seller.login, password: 'not-the-password', scope_item: ['stock_r', 'admin_w'], decision: 'allow' });
      expect(res.status).to.equal(400);
      expect(res.headers.get('location')).to.equal(null);
      expect(res.html).to.contain('The login or password is wrong');
      const boxes = [...res.html.matchAll(/name="scope_item" value="([^"]+)"( checked)?/g)].map((m) => `${m[1]}${m[2] ? '+' : '-'}`);
      expect(boxes).to.deep.equal(['order_r-', 'stock_r+', 'task_r-']);
      expect(res.html).to.contain(`value="${seller.login}"`);
      expect(res.html).not.to.contain('not-the-password');
    });

    it('when the form comes without the page cookie or with another CSRF value, then nothing is granted and the form comes again', async () => {
      const page = await open({ scope: 'order_r' });
      const fields = { login: seller.login, password: seller.password, scope_item: 'order_r', decision: 'allow' };
      const noCookie = await sendForm({ ...page, cookie: '' }, fields);
      const otherValue = await sendForm({ ...page, hidden: { ...page.hidden, csrf: crypto.randomBytes(32).toString('base64url') } }, fields);
      for (const res of [noCookie, otherValue]) {
        expect(res.status).to.equal(403);
        expect(res.headers.get('location')).to.equal(null);
        expect(res.html).to.contain('expired');
        expect(res.hidden.consent).to.equal(undefined);
      }
      // A consent ticket of one browser is worthless with another's cookie.
      const step2 = await sendForm(page, fields);
      const stranger = await open({ scope: 'order_r' });
      const stolen = await sendForm(
        { ...step2, cookie: stranger.cookie, hidden: { ...step2.hidden, csrf: stranger.hidden.csrf! } },
        { portal_account: 'all', decision: 'allow' },
      );
      expect(stolen.status).to.equal(400);
      expect(stolen.headers.get('location')).to.equal(null);
      const mine = await sendForm(step2, { portal_account: 'all', decision: 'allow' });
      expect(mine.status).to.equal(303);
      // Used once.
      expect((await sendForm(step2, { portal_account: 'all', decision: 'allow' })).status).to.equal(400);
    });

    it("when the seller signs in, then the next step lists their portal accounts and all accounts; another seller's id is refused", async () => {
      const other = await newSeller();
      const shop = await createPortalAccount(seller.id, { name: 'Second shop', platform: 'shop_g' });
      const page = await open({ scope: 'order_r' });
      const step2 = await sendForm(page, { login: seller.login, password: seller.password, scope_item: 'order_r', decision: 'allow' });
      expect(step2.status).to.equal(200);
      expect(step2.html).to.contain(`name="portal_account" value="${seller.portalAccountId}" checked`);
      expect(step2.html).to.contain(`name="portal_account" value="${shop.id}">`).and.to.contain('Second shop');
      expect(step2.html).to.contain('name="portal_account" value="all"');
      expect(step2.html).to.contain(`Signed in as <strong>${seller.login}</strong>`).and.to.contain('<li>Read orders</li>');
      const foreign = await sendForm(step2, { portal_account: String(other.portalAccountId), decision: 'allow' });
      expect(foreign.status).to.equal(400);
      expect(foreign.html).to.contain('Choose one of your portal accounts');
      const ok = await sendForm(foreign, { portal_account: String(seller.portalAccountId), decision: 'allow' });
      expect(ok.status).to.equal(303);
    });
  });

  describe('PKCE at token.php (RFC 7636)', () => {
    it('when the code was issued with an S256 challenge, then only the right code_verifier buys the token', async () => {
      const { verifier, challenge } = pkce();
      const consent = {
        clientId: client.client_id,
        login: seller.login,
        password: seller.password,
        query: { code_challenge: challenge, code_challenge_method: 'S256' },
      };
      const missing = await exchange((await authorizeClient(consent)).code);
      expect(missing.status).to.equal(400);
      expect(missing.body.error![0]!.error).to.equal('invalid_grant');
      const wrong = await exchange((await authorizeClient(consent)).code, { code_verifier: pkce().verifier });
      expect(wrong.status).to.equal(400);
      expect(wrong.body.error![0]!.error).to.equal('invalid_grant');
      const right = await exchange((await authorizeClient(consent)).code, { code_verifier: verifier });
      expect(right.status).to.equal(200);
      expect(right.body.refresh_token).to.be.a('string');
    });

    it('when a code without challenge comes with a code_verifier, then invalid_grant (no PKCE downgrade)', async () => {
      const { code } = await authorizeClient({ clientId: client.client_id, login: seller.login, password: seller.password });
      const res = await exchange(code, { code_verifier: pkce().verifier });
      expect(res.status).to.equal(400);
      expect(res.body.error![0]!.error).to.equal('invalid_grant');
    });

    it('when the authorization request named redirect_uri, then token.php needs the same one', async () => {
      const consent = { clientId: client.client_id, login: seller.login, password: seller.password, query: { redirect_uri: redirectUri } };
      const without = await exchange((await authorizeClient(consent)).code);
      expect(without.status).to.equal(400);
      const other = await exchange((await authorizeClient(consent)).code, { redirect_uri: `${redirectUri}x` });
      expect(other.status).to.equal(400);
      expect((await exchange((await authorizeClient(consent)).code, { redirect_uri: redirectUri })).status).to.equal(200);
    });
  });

  it('when openapi.json is read, then authorize.php is described with its PKCE parameters', async () => {
    const doc = (await (await fetch(`${await apiBase()}/v1.1/openapi.json`)).json()) as { paths: Record<string, { get: { parameters: { name: string }[] } }> };
    expect(doc.paths['/authorize.php']!.get.parameters.map((p) => p.name)).to.include.members(['code_challenge', 'code_challenge_method']);
  });
});
