import { expect } from 'chai';
import { config, setConfig } from '../config';
import { createPortalAccount } from '../lib/admin/portal-account-admin.service';
import { createClient } from '../lib/auth/client.service';
import { apiBase, call, newSeller, query, Seller, withConcurrentCalls } from './support/api';
import { authorizeClient } from './support/authorize';
import { kontor } from './support/cli';
import { freePort, runEntry, Running } from './support/process';
import { waitFor } from './fleet/support';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

interface ClientTokens {
  access: string;
  refresh: string;
}

/** A client authorized through the consent page for one portal account (or all). */
async function authorizedClient(
  seller: Seller,
  client: { client_id: string; client_secret: string },
  portalAccount: number | 'all',
  scope: string,
): Promise<ClientTokens> {
  const { code } = await authorizeClient({ clientId: client.client_id, login: seller.login, password: seller.password, query: { scope }, portalAccount });
  const res = await call('token.php', {
    headers: { Authorization: basic(client.client_id, client.client_secret) },
    body: { grant_type: 'authorization_code', code },
  });
  expect(res.status, res.text).to.equal(200);
  return { access: res.body.access_token as string, refresh: res.body.refresh_token as string };
}

const order = (email: string) => ({ order: { customer: { email }, line: [{ id: 1, name: 'Mug', price: '10.00', quantity: 1 }] } });

describe('grants bound to portal accounts (issue 16.2; document 1, Authentication 5)', () => {
  let seller: Seller;
  let shopB: number;
  let orderA: string;
  let orderB: string;
  let bound: ClientTokens;
  let everything: ClientTokens;
  let client: { client_id: string; client_secret: string };
  const saved = config();
  const scope = 'order_r order_w bank_w admin_r admin_w';

  before(async () => {
    setConfig({ ...saved, orderSearchMinAgeSeconds: 0 });
    seller = await newSeller();
    shopB = (await createPortalAccount(seller.id, { name: 'Shop B', platform: 'shop_g' })).id;
    const a = await call('order/', { token: seller.token, body: order('a@example.com') });
    const b = await call('order/', { token: seller.token, body: { ...order('b@example.com'), portal_account_id: shopB } });
    expect([a.status, b.status]).to.deep.equal([201, 201]);
    orderA = a.body.order_id as string;
    orderB = b.body.order_id as string;
    client = await createClient('Shop B connector', 'https://connector.example.com/cb');
    bound = await authorizedClient(seller, client, shopB, scope);
    everything = await authorizedClient(seller, await createClient('Accounting', 'https://accounting.example.com/cb'), 'all', scope);
  });
  after(() => setConfig(saved));

  it("when a client bound to portal account B reads, searches or lists history, then it sees B's orders only; A's are 404 as absent ones", async () => {
    expect((await call(`order/${orderB}/`, { token: bound.access })).status).to.equal(200);
    const foreign = await call(`order/${orderA}/`, { token: bound.access });
    const absent = await call('order/99999_2026_11/', { token: bound.access });
    expect(foreign.status).to.equal(404);
    expect(foreign.body.error![0]!.error).to.equal(absent.body.error![0]!.error);
    expect((await call(`order/${orderA}/history/`, { token: bound.access })).status).to.equal(404);
    const search = await call('order/', { token: bound.access });
    expect((search.body.order as { id: string }[]).map((o) => o.id)).to.deep.equal([orderB]);
    const byId = await call(`order/?${query({ filter: { id: [orderA, orderB] } })}`, { token: bound.access });
    expect((byId.body.order as { id: string }[]).map((o) => o.id)).to.deep.equal([orderB]);
  });

  it('when it writes A (update, history, delete, send_mit, order/list/, credit note), then 404 and A is unchanged', async () => {
    const before = await call(`order/${orderA}/`, { token: seller.token });
    expect((await call(`order/${orderA}/`, { token: bound.access, body: { order: { infos: 'hijacked' } } })).status).to.equal(404);
    expect((await call(`order/${orderA}/history/`, { token: bound.access, body: { text: 'hijacked' } })).status).to.equal(404);
    expect((await call(`order/${orderA}/`, { token: bound.access, method: 'DELETE' })).status).to.equal(404);
    expect((await call(`order/${orderA}/send_mit/`, { token: bound.access, body: {} })).status).to.equal(404);
    const list = await call('order/list/', { token: bound.access, body: { order: [{ id: orderA, infos: 'hijacked' }] } });
    expect(list.status).to.equal(207);
    expect((list.body.response as { code: number }[])[0]!.code).to.equal(404);
    const credit = await call('order/', { token: bound.access, body: { order: { ...order('c@example.com').order, credit: { main_id: orderA } } } });
    expect(credit.status).to.equal(404);
    expect(credit.body.error![0]!.field).to.equal('order.credit.main_id');
    expect((await call(`order/${orderA}/`, { token: seller.token })).body).to.deep.equal(before.body);
  });

  it('when it creates an order, then the order is in B; naming portal account A is refused', async () => {
    const made = await call('order/', { token: bound.access, body: order('new@example.com') });
    expect(made.status).to.equal(201);
    expect((await call(`order/${made.body.order_id}/`, { token: bound.access })).status).to.equal(200);
    const namingA = await call('order/', { token: bound.access, body: { ...order('x@example.com'), portal_account_id: seller.portalAccountId } });
    expect(namingA.status).to.equal(400);
    expect(namingA.body.error![0]).to.include({ error: 'unknown_portal_account', field: 'portal_account_id' });
    expect((await call(`order/?portal_account_id=${shopB}`, { token: bound.access })).status).to.equal(200);
  });

  it("when its bank transfer names A's order, then A is not paid by it", async () => {
    const transfer = await call('bank/transfer/', {
      token: bound.access,
      body: { bank: { transfer_date: '2026-11-20T10:00:00Z', sender: 'Anna', subject: `order ${orderA}`, amount: '10.00' } },
    });
    expect(transfer.status, transfer.text).to.equal(201);
    expect(transfer.body.is_order_paid).to.equal('0');
    const a = await call(`order/${orderA}/`, { token: seller.token });
    expect((a.body.order as { status: { is_paid: boolean } }).status.is_paid).to.equal(false);
  });

  it('when a client was granted all portal accounts, or the seller uses their own token, then every order is theirs', async () => {
    for (const token of [everything.access, seller.token]) {
      expect((await call(`order/${orderA}/`, { token })).status).to.equal(200);
      expect((await call(`order/${orderB}/`, { token })).status).to.equal(200);
    }
    const search = await call('order/', { token: everything.access });
    expect((search.body.order as { id: string }[]).map((o) => o.id)).to.include.members([orderA, orderB]);
  });

  it('when a refresh token of the bound access is exchanged, then the new token is still bound to B', async () => {
    const renewed = await call('token.php', {
      headers: { Authorization: basic(client.client_id, client.client_secret) },
      body: { grant_type: 'refresh_token', refresh_token: bound.refresh },
    });
    expect(renewed.status).to.equal(200);
    bound = { access: renewed.body.access_token as string, refresh: renewed.body.refresh_token as string };
    expect((await call(`order/${orderA}/`, { token: bound.access })).status).to.equal(404);
    expect((await call(`order/${orderB}/`, { token: bound.access })).status).to.equal(200);
  });
});

describe('client accesses: the seller lists and revokes them (issue 16.2)', () => {
  let seller: Seller;
  let client: { client_id: string; client_secret: string };
  const refresh = (token: string) =>
    call('token.php', {
      headers: { Authorization: basic(client.client_id, client.client_secret) },
      body: { grant_type: 'refresh_token', refresh_token: token },
    });
  type Access = {
    id: number;
    client: { id: string; name: string };
    scope: string[];
    portal_account_id: number | null;
    is_cross_account: boolean;
    created: string;
    refreshed: string | null;
    expires: string;
  };
  const accesses = async (token: string) => {
    const res = await call('admin/client_access/', { token });
    expect(res.status, res.text).to.equal(200);
    return res.body.client_access as Access[];
  };

  before(async () => {
    seller = await newSeller();
    client = await createClient('Revocable ERP', 'https://revocable.example.com/cb');
  });

  it('when the seller lists client accesses, then each shows client, scopes, portal account and dates; a client sees only its own', async () => {
    const mine = await authorizedClient(seller, client, seller.portalAccountId, 'order_r admin_r');
    const other = await authorizedClient(seller, await createClient('Other ERP', 'https://other.example.com/cb'), 'all', 'admin_r');
    const list = await accesses(seller.token);
    const byClient = Object.fromEntries(list.map((a) => [a.client.name, a]));
    expect(byClient['Revocable ERP']).to.include({ portal_account_id: seller.portalAccountId, is_cross_account: false, refreshed: null });
    expect(byClient['Revocable ERP']!.scope).to.deep.equal(['order_r', 'admin_r']);
    expect(byClient['Revocable ERP']!.client.id).to.equal(client.client_id);
    expect(byClient['Other ERP']).to.include({ portal_account_id: null, is_cross_account: true });
    expect(new Date(byClient['Other ERP']!.expires).getTime()).to.be.above(Date.now());
    expect((await accesses(mine.access)).map((a) => a.client.name)).to.deep.equal(['Revocable ERP']);
    expect((await accesses(other.access)).map((a) => a.client.name)).to.deep.equal(['Other ERP']);
    expect(await accesses((await newSeller()).token)).to.deep.equal([]);
    const renewed = await refresh(mine.refresh);
    expect(renewed.status).to.equal(200);
    expect((await accesses(seller.token)).find((a) => a.client.name === 'Revocable ERP')!.refreshed).to.be.a('string');
  });

  it('when the seller revokes an access, then its refresh and access tokens stop at once; other accesses go on; a second revoke or a foreign id is 404', async () => {
    const victim = await authorizedClient(seller, client, 'all', 'order_r');
    const bystander = await authorizedClient(seller, client, 'all', 'order_r');
    expect((await call('order/', { token: victim.access })).status).to.equal(200);
    const id = (await accesses(seller.token)).at(-2)!.id;
    const revoked = await call(`admin/client_access/${id}/`, { token: seller.token, method: 'DELETE' });
    expect(revoked.status, revoked.text).to.equal(200);
    expect((await call('order/', { token: victim.access })).status).to.equal(401);
    const again = await refresh(victim.refresh);
    expect(again.status).to.equal(400);
    expect(again.body.error![0]!.error).to.equal('invalid_grant');
    expect((await call('order/', { token: bystander.access })).status).to.equal(200);
    expect((await call(`admin/client_access/${id}/`, { token: seller.token, method: 'DELETE' })).status).to.equal(404);
    const stranger = await newSeller();
    const bystanderId = (await accesses(seller.token)).at(-1)!.id;
    expect((await call(`admin/client_access/${bystanderId}/`, { token: stranger.token, method: 'DELETE' })).status).to.equal(404);
    expect((await call('admin/client_access/abc/', { token: seller.token, method: 'DELETE' })).status).to.equal(404);
  });

  it('when the seller restricts an access, then its tokens lose the rights and the other portal accounts at once, and the refresh keeps them lost', async () => {
    const shopB = (await createPortalAccount(seller.id, { name: 'Restrict B', platform: 'shop_g' })).id;
    const inA = await call('order/', { token: seller.token, body: order('restrict-a@example.com') });
    const inB = await call('order/', { token: seller.token, body: { ...order('restrict-b@example.com'), portal_account_id: shopB } });
    expect([inA.status, inB.status]).to.deep.equal([201, 201]);
    const tokens = await authorizedClient(seller, client, 'all', 'order_r order_w admin_r');
    const id = (await accesses(seller.token)).at(-1)!.id;
    const readB = () => call(`order/${inB.body.order_id as string}/`, { token: tokens.access });
    expect((await readB()).status).to.equal(200);

    const res = await call(`admin/client_access/${id}/`, {
      token: seller.token,
      body: { client_access: { scope: ['order_r'], portal_account_id: seller.portalAccountId } },
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.equal({ ack: 'success', client_access_id: id });
    expect((await accesses(seller.token)).at(-1)).to.deep.include({
      id,
      scope: ['order_r'],
      portal_account_id: seller.portalAccountId,
      is_cross_account: false,
    });
    // the access token in the client's hands, at once
    expect((await readB()).status).to.equal(404);
    expect((await call(`order/${inA.body.order_id as string}/`, { token: tokens.access })).status).to.equal(200);
    const write = await call('order/', { token: tokens.access, body: order('restrict-w@example.com') });
    expect(write.status).to.equal(403);
    expect((await call('admin/client_access/', { token: tokens.access })).status).to.equal(403);
    // and every token a refresh gives
    const renewed = await refresh(tokens.refresh);
    expect(renewed.status, renewed.text).to.equal(200);
    expect(renewed.body.scope).to.equal('order_r');
    expect((await call(`order/${inB.body.order_id as string}/`, { token: renewed.body.access_token as string })).status).to.equal(404);
  });

  it('when a restriction would widen the access or move a bound one, then 400 names the field and nothing changes; a foreign id is 404', async () => {
    const tokens = await authorizedClient(seller, client, seller.portalAccountId, 'order_r admin_r');
    const id = (await accesses(seller.token)).at(-1)!.id;
    const before = (await accesses(seller.token)).at(-1);
    const wider = await call(`admin/client_access/${id}/`, { token: seller.token, body: { client_access: { scope: ['order_r', 'order_w'] } } });
    expect(wider.status).to.equal(400);
    expect(wider.body.error![0]).to.include({ error: 'invalid_field', field: 'client_access.scope' });
    expect(wider.text).to.contain('order_w was not granted');
    const other = (await createPortalAccount(seller.id, { name: 'Restrict C', platform: 'shop_g' })).id;
    const moved = await call(`admin/client_access/${id}/`, { token: seller.token, body: { client_access: { portal_account_id: other } } });
    expect(moved.status).to.equal(400);
    expect(moved.body.error![0]).to.include({ field: 'client_access.portal_account_id' });
    const unknownScope = await call(`admin/client_access/${id}/`, { token: seller.token, body: { client_access: { scope: ['nothing_r'] } } });
    expect(unknownScope.status).to.equal(400);
    expect(unknownScope.body.error![0]!.field).to.match(/^client_access\.scope/);
    expect((await accesses(seller.token)).at(-1)).to.deep.equal(before);
    expect((await call('order/', { token: tokens.access })).status).to.equal(200);
    const stranger = await newSeller();
    const foreign = await call(`admin/client_access/${id}/`, { token: stranger.token, body: { client_access: { scope: ['order_r'] } } });
    expect(foreign.status).to.equal(404);
    const unowned = await authorizedClient(seller, client, 'all', 'order_r');
    const unownedId = (await accesses(seller.token)).at(-1)!.id;
    const notMine = await call(`admin/client_access/${unownedId}/`, {
      token: seller.token,
      body: { client_access: { portal_account_id: stranger.portalAccountId } },
    });
    expect(notMine.status).to.equal(400);
    expect(notMine.body.error![0]).to.include({ error: 'unknown_portal_account', field: 'client_access.portal_account_id' });
    expect((await call('order/', { token: unowned.access })).status).to.equal(200);
  });

  it('when a token lacks admin_w or admin_r, then 403; OPTIONS and openapi.json list the routes', async () => {
    const readOnly = await authorizedClient(seller, client, 'all', 'admin_r');
    const id = (await accesses(seller.token)).at(-1)!.id;
    const res = await call(`admin/client_access/${id}/`, { token: readOnly.access, method: 'DELETE' });
    expect(res.status).to.equal(403);
    const noAdmin = await authorizedClient(seller, client, 'all', 'order_r');
    expect((await call('admin/client_access/', { token: noAdmin.access })).status).to.equal(403);
    const options = await call('admin/client_access/1/', { method: 'OPTIONS', token: seller.token });
    expect(options.headers.get('allow')).to.contain('DELETE');
    const doc = (await (await fetch(`${await apiBase()}/v1.1/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    expect(doc.paths['/admin/client_access/']).to.have.property('get');
    expect(doc.paths['/admin/client_access/{client_access_id}/']).to.have.property('delete');
  });

  it('when support uses kontor client-access list and revoke, then the access is gone', async () => {
    const tokens = await authorizedClient(seller, client, seller.portalAccountId, 'order_r');
    const listed = await kontor('client-access', 'list', '--login', seller.login);
    expect(listed.code, listed.err).to.equal(0);
    const all = JSON.parse(listed.out).client_access as Access[];
    const id = all.at(-1)!.id;
    expect(all.at(-1)!.portal_account_id).to.equal(seller.portalAccountId);
    const revoke = await kontor('client-access', 'revoke', '--login', seller.login, '--id', String(id));
    expect(revoke.code, revoke.err).to.equal(0);
    expect(JSON.parse(revoke.out)).to.deep.equal({ revoked: id });
    expect((await call('order/', { token: tokens.access })).status).to.equal(401);
    const twice = await kontor('client-access', 'revoke', '--login', seller.login, '--id', String(id));
    expect(twice.code).to.equal(1);
    expect(twice.err).to.contain('does not exist');
    expect((await kontor('client-access', 'revoke', '--login', seller.login, '--id', 'x')).code).to.equal(1);
  });

  describe('in another web process', function () {
    this.timeout(60000);
    let web: Running;
    let other = '';
    before(async () => {
      const port = await freePort();
      // Calls of one account through two processes: one finishes its answer before it frees its slot.
      const env = {
        PORT: String(port),
        DATABASE_URL: config().databaseUrl,
        QUEUE_PREFIX: config().queuePrefix,
        LOG_LEVEL: 'info',
        CONCURRENT_CALLS_PER_ACCOUNT: '100',
      };
      web = runEntry('server/index.ts', env);
      await web.waitFor(/api listening/);
      other = `http://127.0.0.1:${port}`;
    });
    after(async () => {
      await web.stop();
    });

    it('when an access is revoked here, then its token, cached by the other process a moment ago, is refused there as soon as the notice arrives', () =>
      withConcurrentCalls(100, async () => {
        const tokens = await authorizedClient(seller, client, 'all', 'order_r');
        // Two reads: the second is answered from the other process's token cache.
        for (let i = 0; i < 2; i++) expect((await call('order/', { token: tokens.access, base: other })).status).to.equal(200);
        const id = (await accesses(seller.token)).at(-1)!.id;
        expect((await call(`admin/client_access/${id}/`, { token: seller.token, method: 'DELETE' })).status).to.equal(200);
        // The other process hears of it by the database's notice, delivered at commit: milliseconds,
        // but not ordered before a request already on its way there.
        await waitFor('the token refused in the other process', async () => (await call('order/', { token: tokens.access, base: other })).status === 401, 2000);
        expect((await call('order/', { token: tokens.access, base: other })).status).to.equal(401);
        expect(web.output()).not.to.contain(tokens.access);
      }));
  });
});
