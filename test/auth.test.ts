import { expect } from 'chai';
import { config, setConfig } from '../config';
import { createClient } from '../lib/auth/client.service';
import { db } from '../lib/db/knex';
import { apiBase, call, newSeller, Seller, tokenFor } from './support/api';
import { authorizeClient, openAuthorize, sendForm } from './support/authorize';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('authentication (document 1, Authentication)', () => {
  let seller: Seller;
  before(async () => {
    seller = await newSeller();
  });

  describe('seller login: POST token.php with grant_type=client_credentials', () => {
    it('when login and password are right (form body), then an access token with RFC 6749 fields comes back', async () => {
      const res = await call('token.php', {
        headers: { Authorization: basic(seller.login, seller.password), 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials',
      });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ ack: 'success', token_type: 'Bearer', expires: 3600, expires_in: 3600 });
      expect(res.body.access_token).to.be.a('string').with.length.within(20, 160);
      expect((res.body.scope as string).split(' ')).to.include.members(['order_r', 'stock_w', 'admin_r']);
    });

    it('when the body is JSON, then it works the same', async () => {
      const res = await call('token.php', { headers: { Authorization: basic(seller.login, seller.password) }, body: { grant_type: 'client_credentials' } });
      expect(res.status).to.equal(200);
      const read = await call('admin/user/', { token: res.body.access_token as string });
      expect(read.status).to.equal(200);
      expect((read.body.user as { id: number }).id).to.equal(seller.id);
    });

    it('when the password is wrong or the login unknown, then 401 invalid_client, the same for both', async () => {
      const wrong = await call('token.php', { headers: { Authorization: basic(seller.login, 'nope-nope') }, body: { grant_type: 'client_credentials' } });
      const unknown = await call('token.php', { headers: { Authorization: basic('nobody_here', 'nope-nope') }, body: { grant_type: 'client_credentials' } });
      for (const res of [wrong, unknown]) {
        expect(res.status).to.equal(401);
        expect(res.body.error![0]!.error).to.equal('invalid_client');
      }
      expect(wrong.body.error_description).to.equal(unknown.body.error_description);
    });

    it('when grant_type is missing or unknown, then 400 names it', async () => {
      const res = await call('token.php', { headers: { Authorization: basic(seller.login, seller.password) }, body: { grant_type: 'password' } });
      expect(res.status).to.equal(400);
      expect(res.body.error![0]!.field).to.equal('grant_type');
    });

    it('when a narrower scope is asked, then the token has only it and other commands get 403', async () => {
      const token = await tokenFor(seller.login, seller.password, 'stock_r');
      const res = await call('admin/user/', { token });
      expect(res.status).to.equal(403);
      expect(res.body.error![0]!.error).to.equal('insufficient_scope');
      const reference = await call('system/currency/', { token });
      expect(reference.status).to.equal(200);
    });

    it('when an unknown scope is asked, then 400 invalid_scope', async () => {
      const res = await call('token.php', {
        headers: { Authorization: basic(seller.login, seller.password) },
        body: { grant_type: 'client_credentials', scope: 'all_the_things' },
      });
      expect(res.status).to.equal(400);
      expect(res.body.error![0]!.error).to.equal('invalid_scope');
    });
  });

  describe('bearer tokens on resource requests', () => {
    it('when no token is sent, then 401 missing_token with WWW-Authenticate', async () => {
      const res = await call('admin/user/');
      expect(res.status).to.equal(401);
      expect(res.body.error![0]!.error).to.equal('missing_token');
      expect(res.headers.get('www-authenticate')).to.match(/^Bearer/);
    });

    it('when the token is unknown, then 401 invalid_token', async () => {
      const res = await call('admin/user/', { token: 'kat_made-up' });
      expect(res.status).to.equal(401);
      expect(res.body.error![0]!.error).to.equal('invalid_token');
    });

    it('when the token has expired, then 401 invalid_token', async () => {
      const original = config();
      setConfig({ ...original, accessTokenTtlSeconds: 1 });
      try {
        const token = await tokenFor(seller.login, seller.password);
        expect((await call('admin/user/', { token })).status).to.equal(200);
        await new Promise((resolve) => setTimeout(resolve, 1100));
        const res = await call('admin/user/', { token });
        expect(res.status).to.equal(401);
        expect(res.body.error![0]!.error).to.equal('invalid_token');
      } finally {
        setConfig(original);
      }
    });

    it('when tokens are stored, then only their hash is in the database', async () => {
      const token = await tokenFor(seller.login, seller.password);
      const rows = await db()('access_token').where({ account_id: seller.id });
      expect(rows.some((r) => r.token_hash === token)).to.equal(false);
      expect(JSON.stringify(rows)).not.to.contain(token);
      const account = (await db()('account').where({ id: seller.id }).first())!;
      expect(account.password_hash).to.match(/^scrypt\$/);
      expect(account.password_hash).not.to.contain(seller.password);
    });
  });

  describe('tenants', () => {
    it("when a seller asks for another seller's portal account, then 404 exactly as for an absent one", async () => {
      const other = await newSeller();
      const foreign = await call(`admin/portal_account/${other.portalAccountId}/`, { token: seller.token });
      const absent = await call('admin/portal_account/999999999/', { token: seller.token });
      expect(foreign.status).to.equal(404);
      expect(absent.status).to.equal(404);
      expect(foreign.body.error![0]!.error).to.equal(absent.body.error![0]!.error);
      const own = await call(`admin/portal_account/${seller.portalAccountId}/`, { token: seller.token });
      expect(own.body.portal_account).to.deep.equal({ id: seller.portalAccountId, is_default: true, name: seller.login });
    });

    it('when the word default is used, then the default portal account answers', async () => {
      const res = await call('admin/portal_account/default/', { token: seller.token });
      expect(res.status).to.equal(200);
      expect((res.body.portal_account as { id: number }).id).to.equal(seller.portalAccountId);
      const list = await call('admin/portal_account/', { token: seller.token });
      expect(list.body.portal_account).to.deep.equal([{ id: seller.portalAccountId, is_default: true, name: seller.login }]);
    });

    it("when portal_account_id names another seller's or no account, then 400 names it; the own one is taken", async () => {
      const other = await newSeller();
      for (const id of [other.portalAccountId, 999999999]) {
        const res = await call(`admin/user/?portal_account_id=${id}`, { token: seller.token });
        expect(res.status).to.equal(400);
        expect(res.body.error![0]).to.include({ error: 'unknown_portal_account', field: 'portal_account_id' });
      }
      const post = await call('admin/user/', { token: seller.token, body: { portal_account_id: other.portalAccountId, user: { settings: { x: 1 } } } });
      expect(post.status).to.equal(400);
      expect(post.body.error![0]!.field).to.equal('portal_account_id');
      expect((await call(`admin/user/?portal_account_id=${seller.portalAccountId}`, { token: seller.token })).status).to.equal(200);
      expect((await call('admin/user/?portal_account_id=default', { token: seller.token })).status).to.equal(200);
    });

    it("when a seller's user record is read, then it is their own and carries only their data", async () => {
      const other = await newSeller();
      const mine = await call('admin/user/', { token: seller.token });
      const theirs = await call('admin/user/', { token: other.token });
      expect((mine.body.user as { id: number }).id).to.equal(seller.id);
      expect((theirs.body.user as { id: number }).id).to.equal(other.id);
    });

    it('when the token lacks email_r and account_address_r, then those fields are left out with a warning', async () => {
      const token = await tokenFor(seller.login, seller.password, 'admin_r');
      const res = await call('admin/user/', { token });
      expect(res.status).to.equal(200);
      expect(res.body.ack).to.equal('warning');
      expect(res.body.user).not.to.have.any.keys('email', 'address', 'is_banking_active');
      expect(res.body.warning!.map((w) => w.field)).to.have.members(['user.email', 'user.address', 'user.is_banking_active']);
    });
  });

  describe('third-party clients: authorize.php, authorization_code and refresh_token', () => {
    // Refresh tokens issued here live 20 days: each is in its last month, when a refresh replaces
    // it (document 1, v1.1.10; before that month it is kept: test/auth-refresh-lifetime.test.ts).
    let saved: ReturnType<typeof config>;
    before(() => {
      saved = config();
      setConfig({ ...saved, refreshTokenTtlSeconds: 20 * 86400 });
    });
    after(() => setConfig(saved));

    it('when a seller authorizes a client, then the code buys a refresh token, and each refresh (in its last month) replaces the old one', async () => {
      const client = await createClient('Test ERP', 'https://erp.example.com/callback');
      const page = await fetch(`${await apiBase()}/v1.1/authorize.php?response_type=code&client_id=${client.client_id}&state=42&scope=order_r%20stock_r`);
      expect(page.status).to.equal(200);
      expect(await page.text()).to.contain('Test ERP');

      const { code, location: target } = await authorizeClient({
        clientId: client.client_id,
        login: seller.login,
        password: seller.password,
        query: { state: '42', scope: 'order_r stock_r' },
      });
      expect(target.origin + target.pathname).to.equal('https://erp.example.com/callback');
      expect(target.searchParams.get('state')).to.equal('42');

      const exchange = await call('token.php', {
        headers: { Authorization: basic(client.client_id, client.client_secret) },
        body: { grant_type: 'authorization_code', code },
      });
      expect(exchange.status).to.equal(200);
      expect(exchange.body.scope).to.equal('order_r stock_r');
      const refresh = exchange.body.refresh_token as string;
      expect(refresh).to.be.a('string').with.length.below(161);
      expect((await call('admin/user/', { token: exchange.body.access_token as string })).status).to.equal(403);

      const renewed = await call('token.php', {
        body: { grant_type: 'refresh_token', refresh_token: refresh, client_id: client.client_id, client_secret: client.client_secret },
      });
      expect(renewed.status).to.equal(200);
      expect(renewed.body.refresh_token).to.be.a('string').and.not.equal(refresh);
      const reused = await call('token.php', {
        body: { grant_type: 'refresh_token', refresh_token: refresh, client_id: client.client_id, client_secret: client.client_secret },
      });
      expect(reused.status).to.equal(400);

      const badSecret = await call('token.php', {
        body: { grant_type: 'refresh_token', refresh_token: renewed.body.refresh_token, client_id: client.client_id, client_secret: 'wrong' },
      });
      expect(badSecret.status).to.equal(401);

      // The code presented again: refused, and the tokens issued for it revoked (RFC 6749 4.1.2; issue 31).
      const again = await call('token.php', {
        headers: { Authorization: basic(client.client_id, client.client_secret) },
        body: { grant_type: 'authorization_code', code },
      });
      expect(again.status).to.equal(400);
      expect(again.body.error![0]!.error).to.equal('invalid_grant');
      const revoked = await call('token.php', {
        body: { grant_type: 'refresh_token', refresh_token: renewed.body.refresh_token, client_id: client.client_id, client_secret: client.client_secret },
      });
      expect(revoked.status).to.equal(400);
    });

    it('when a replaced refresh token is presented again, then invalid_grant, and the current refresh token and access token of that authorization are revoked too (RFC 9700)', async () => {
      const client = await createClient('Leaky ERP', 'https://leaky.example.com/cb');
      const consent = { clientId: client.client_id, login: seller.login, password: seller.password, query: { scope: 'stock_r' } };
      const { code } = await authorizeClient(consent);
      const refresh = (token: unknown) =>
        call('token.php', { body: { grant_type: 'refresh_token', refresh_token: token, client_id: client.client_id, client_secret: client.client_secret } });
      const exchange = await call('token.php', {
        headers: { Authorization: basic(client.client_id, client.client_secret) },
        body: { grant_type: 'authorization_code', code },
      });
      expect(exchange.status).to.equal(200);
      const first = exchange.body.refresh_token as string;
      const renewed = await refresh(first);
      expect(renewed.status).to.equal(200);
      const current = renewed.body.refresh_token as string;
      const access = renewed.body.access_token as string;
      expect((await call('stock/', { token: access })).status).to.equal(200);

      const replay = await refresh(first);
      expect(replay.status).to.equal(400);
      expect(replay.body.error![0]!.error).to.equal('invalid_grant');
      const afterReplay = await refresh(current);
      expect(afterReplay.status).to.equal(400);
      expect(afterReplay.body.error![0]!.error).to.equal('invalid_grant');
      expect((await call('stock/', { token: access })).status).to.equal(401);
      expect((await call('stock/', { token: exchange.body.access_token as string })).status).to.equal(401);

      // Another authorization of the same seller and client is a chain of its own and keeps working.
      const { code: otherCode } = await authorizeClient(consent);
      const otherExchange = await call('token.php', {
        headers: { Authorization: basic(client.client_id, client.client_secret) },
        body: { grant_type: 'authorization_code', code: otherCode },
      });
      expect((await refresh(otherExchange.body.refresh_token)).status).to.equal(200);
    });

    it('when a refresh asks for a scope beyond the grant, then 400 and the refresh token stays usable', async () => {
      const client = await createClient('Narrow ERP', 'https://narrow.example.com/cb');
      const { code } = await authorizeClient({ clientId: client.client_id, login: seller.login, password: seller.password, query: { scope: 'stock_r' } });
      const exchange = await call('token.php', {
        headers: { Authorization: basic(client.client_id, client.client_secret) },
        body: { grant_type: 'authorization_code', code },
      });
      const body = (scope?: string) => ({
        grant_type: 'refresh_token',
        refresh_token: exchange.body.refresh_token,
        client_id: client.client_id,
        client_secret: client.client_secret,
        ...(scope ? { scope } : {}),
      });
      const wider = await call('token.php', { body: body('order_w') });
      expect(wider.status).to.equal(400);
      expect(wider.body.error![0]!.error).to.equal('invalid_scope');
      const renewed = await call('token.php', { body: body() });
      expect(renewed.status).to.equal(200);
      expect(renewed.body.scope).to.equal('stock_r');
    });

    it('when the seller enters a wrong password on the authorize page, then no code is given', async () => {
      const client = await createClient('Other ERP', 'https://other.example.com/cb');
      const page = await openAuthorize({ response_type: 'code', client_id: client.client_id, scope: 'order_r' });
      const res = await sendForm(page, { login: seller.login, password: 'wrong-password', scope_item: 'order_r', decision: 'allow' });
      expect(res.status).to.equal(400);
      expect(res.headers.get('location')).to.equal(null);
      expect(res.html).to.contain('The login or password is wrong');
    });
  });
});
