/**
 * A client's stock cia handlers go with its client access (event_handler.client_access_id), and
 * their names leave the items' cia.event.target[] as they do at DELETE admin/event/handler/{id}/
 * (lib/event README, "A deleted stock cia handler leaves the items"). Before, the cascade deleted
 * the handlers and the items kept naming them: GET stock/{id}/ showed a target no client could
 * find, and another client's handler created with the same target_name received the items' events
 * though the seller never named it for them.
 */
import type { Job, Worker } from 'bullmq';
import { expect } from 'chai';
import { createClient } from '../../lib/auth/client.service';
import { disableClient, disableLogin, setPassword } from '../../lib/auth/credential-lockout.service';
import { ciaProcessors } from '../../lib/cia/cia.processor';
import { db } from '../../lib/db/knex';
import { startWorker } from '../../lib/queue/worker';
import { call, newSeller, Seller, tokenFor } from '../support/api';
import { authorizeClient } from '../support/authorize';
import { boundClient } from '../support/bound-client';
import { useEventsWorker } from './events-worker';
import { waitFor } from './servers';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

type Emitted = { id: number; result: { runs: { handler_id: number }[] } };

describe("a client's stock cia handlers leave the items' cia.event.target[] when its access goes", function () {
  this.timeout(60000);
  let cia: Worker | undefined;
  // Registered before the events worker's hooks, so it closes before its queues do.
  after(async () => {
    await cia?.close();
  });
  const setting = useEventsWorker('ftgt');
  before(async () => {
    // The cia worker turns an item's quantity change into the cia event of its targets.
    cia = await startWorker('cia', ciaProcessors, { skipEvictionCheck: true, registerShutdown: false, concurrency: 2 });
  });

  const stockCia = (url: string, targetName: string) => ({
    event_handler: { type: { id: 'cia' }, section: 'stock', action: { id: 'notification', required: { url, format: 'post', target_name: targetName } } },
  });
  const createHandler = async (token: string, url: string, targetName: string) => {
    const res = await call('admin/event/handler/', { token, body: stockCia(url, targetName) });
    expect(res.status, res.text).to.equal(201);
    return res.body.event_handler_id as number;
  };
  const createItem = async (seller: Seller, target: string[]) => {
    const res = await call('stock/', { token: seller.token, body: { stock: { name: 'cup', quantity: 3, cia: { event: { is_active: true, target } } } } });
    expect(res.status, res.text).to.equal(201);
    return String(res.body.stock_id);
  };
  const targetsOf = async (token: string, stockId: string) => {
    const res = await call(`stock/${stockId}/`, { token });
    expect(res.status, res.text).to.equal(200);
    return (res.body.stock as { cia?: { event?: { target?: string[] } } }).cia?.event?.target;
  };
  const accessOf = async (seller: Seller, clientId: string) => {
    const accesses = (await call('admin/client_access/', { token: seller.token })).body.client_access as { id: number; client: { id: string } }[];
    return accesses.find((a) => a.client.id === clientId)!.id;
  };
  /** The seller's event.emit rows after `afterId` completed with a run of `handlerId`. */
  const emittedWith = (seller: Seller, afterId: number, handlerId: number) =>
    waitFor(async () => {
      const rows = (await db()('outbox')
        .where({ account_id: seller.id, job_name: 'event.emit', state: 'completed' })
        .where('id', '>', afterId)
        .orderBy('id')
        .select('id', 'result')) as Emitted[];
      const found = rows.filter((r) => r.result.runs.some((run) => run.handler_id === handlerId));
      return found.length ? found : undefined;
    }, `the cia event with a run of handler ${handlerId}`);

  it("when the seller revokes a client's access, then its stock cia handler's names leave the item, and another client's handler given the same target_name receives none of the item's cia events", async () => {
    const seller = await newSeller();
    const base = setting.receiver.base;
    const clientA = await boundClient(seller, `ftgt-a-${seller.id}`, 'all', 'admin_r admin_w stock_r');
    const handlerA = await createHandler(clientA.token, `${base}/a/${seller.id}`, 'erp');
    const own = await createHandler(seller.token, `${base}/own/${seller.id}`, 'own');
    const stockId = await createItem(seller, ['erp', String(handlerA), 'own']);
    // Before: the client's handler receives the item's cia event.
    await waitFor(async () => setting.receiver.received.some((r) => r.path === `/a/${seller.id}`), "the client's cia notification");

    const revoked = await call(`admin/client_access/${await accessOf(seller, clientA.clientId)}/`, { token: seller.token, method: 'DELETE' });
    expect(revoked.status, revoked.text).to.equal(200);
    expect((await call(`admin/event/handler/${handlerA}/`, { token: seller.token })).status).to.equal(404);
    expect(await targetsOf(seller.token, stockId)).to.deep.equal(['own']);

    // Another client takes the target_name the revoked one had.
    const clientB = await boundClient(seller, `ftgt-b-${seller.id}`, 'all', 'admin_r admin_w stock_r');
    await createHandler(clientB.token, `${base}/b/${seller.id}`, 'erp');
    const [{ id: before }] = (await db()('outbox').max({ id: 'id' })) as [{ id: number }];
    const changed = await call(`stock/${stockId}/`, { token: seller.token, body: { stock: { quantity: 5 } } });
    expect(changed.status, changed.text).to.equal(200);

    const [emitted] = await emittedWith(seller, before, own);
    expect(emitted!.result.runs.map((r) => r.handler_id)).to.deep.equal([own]);
    await waitFor(
      async () => setting.receiver.received.some((r) => r.path === `/own/${seller.id}` && (JSON.parse(r.body) as { quantity: number }).quantity === 5),
      "the seller's own cia notification of quantity 5",
    );
    expect(setting.receiver.received.filter((r) => r.path === `/b/${seller.id}`)).to.deep.equal([]);
    expect(await targetsOf(seller.token, stockId)).to.deep.equal(['own']);
  });

  /** A client of the seller with a stock cia handler named 'erp' and by its id in a new item, beside the seller's own 'own'. */
  const namedByAnItem = async (seller: Seller, name: string, token: string) => {
    const handler = await createHandler(token, `${setting.receiver.base}/${name}`, 'erp');
    await createHandler(seller.token, `${setting.receiver.base}/own-${name}`, 'own');
    const stockId = await createItem(seller, ['erp', String(handler), 'own']);
    return { handler, stockId };
  };

  it("when the operator disables the client (kontor client disable), then its handler's names leave the seller's items", async () => {
    const seller = await newSeller();
    const client = await boundClient(seller, `ftgt-dis-${seller.id}`, 'all', 'admin_r admin_w stock_r');
    const { stockId } = await namedByAnItem(seller, `dis-${seller.id}`, client.token);
    expect((await disableClient(client.clientId)).revoked_client_accesses).to.equal(1);
    expect(await targetsOf(seller.token, stockId)).to.deep.equal(['own']);
  });

  it("when the operator disables the seller's login (kontor user disable), then its clients' handlers' names leave the items", async () => {
    const seller = await newSeller();
    const client = await boundClient(seller, `ftgt-login-${seller.id}`, 'all', 'admin_r admin_w stock_r');
    const { stockId } = await namedByAnItem(seller, `login-${seller.id}`, client.token);
    await disableLogin(seller.login);
    await setPassword(seller.login, 'ftgt-new-password-1');
    expect(await targetsOf(await tokenFor(seller.login, 'ftgt-new-password-1'), stockId)).to.deep.equal(['own']);
  });

  it("when the client's authorization code is presented again (its chain revoked as leaked), then its handler's names leave the items", async () => {
    const seller = await newSeller();
    const client = await createClient(`ftgt-replay-${seller.id}`, `https://ftgt-replay-${seller.id}.example.com/cb`);
    const { code } = await authorizeClient({
      clientId: client.client_id,
      login: seller.login,
      password: seller.password,
      query: { scope: 'admin_r admin_w stock_r' },
      portalAccount: 'all',
    });
    const exchange = () =>
      call('token.php', { headers: { Authorization: basic(client.client_id, client.client_secret) }, body: { grant_type: 'authorization_code', code } });
    const first = await exchange();
    expect(first.status, first.text).to.equal(200);
    const { stockId } = await namedByAnItem(seller, `replay-${seller.id}`, first.body.access_token as string);
    const again = await exchange();
    expect(again.status, again.text).to.equal(400);
    expect(again.body.error?.[0]?.error).to.equal('invalid_grant');
    expect(await targetsOf(seller.token, stockId)).to.deep.equal(['own']);
  });

  it("when the client access expires and the cleanup sweeps it, then its handler's names leave the items", async () => {
    const seller = await newSeller();
    const client = await boundClient(seller, `ftgt-exp-${seller.id}`, 'all', 'admin_r admin_w stock_r');
    const { handler, stockId } = await namedByAnItem(seller, `exp-${seller.id}`, client.token);
    const past = db().raw("now() - interval '1 hour'");
    for (const table of ['access_token', 'refresh_token'])
      await db()(table).where({ account_id: seller.id }).whereNotNull('oauth_client_id').update({ expires_at: past });

    await ciaProcessors['expired.cleanup']({ name: 'expired.cleanup', data: { tick: 'test' } } as Job);
    expect((await call(`admin/event/handler/${handler}/`, { token: seller.token })).status).to.equal(404);
    expect(await targetsOf(seller.token, stockId)).to.deep.equal(['own']);
  });
});
