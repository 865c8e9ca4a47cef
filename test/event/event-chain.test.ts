import { expect } from 'chai';
import { config, setConfig } from '../../config';
import { db } from '../../lib/db/knex';
import { call, newSeller, Seller } from '../support/api';
import { useEventsWorker } from './events-worker';
import { waitFor } from './servers';

async function createHandler(seller: Seller, handler: Record<string, unknown>): Promise<number> {
  const res = await call('admin/event/handler/', { token: seller.token, body: { event_handler: handler } });
  expect(res.status, res.text).to.equal(201);
  return res.body.event_handler_id as number;
}

/** A handler that sets (or clears) one order flag on an order event. */
const flagHandler = (seller: Seller, type: string, flag: string, value: boolean) =>
  createHandler(seller, { type: { id: type }, section: 'order', action: { id: 'order_flag', required: { flag, value: String(value) } } });

const notificationHandler = (seller: Seller, type: string, url: string) =>
  createHandler(seller, { type: { id: type }, section: 'order', action: { id: 'notification', required: { url, format: 'post', target_name: 'erp' } } });

interface OutboxRow {
  job_id: string;
  job_name: string;
  payload: { handlerId?: number; type?: string; cause?: { chain: number[] } };
  state: string | null;
  result: { skipped?: { handler_id: number; reason: string }[] } | null;
}

const rowsOf = async (seller: Seller) =>
  (await db()('outbox').where({ account_id: seller.id }).orderBy('id').select('job_id', 'job_name', 'payload', 'state', 'result')) as OutboxRow[];

/**
 * Waits until the seller's events have run out: every outbox row finished and no new one for a
 * second. Handlers that trigger each other for ever never get there (the wait times out).
 */
async function settled(seller: Seller): Promise<OutboxRow[]> {
  let seen = -1;
  let quietSince = Date.now();
  return waitFor(async () => {
    const rows = await rowsOf(seller);
    if (rows.length !== seen || rows.some((r) => r.state === null)) {
      seen = rows.length;
      quietSince = Date.now();
      return undefined;
    }
    return Date.now() - quietSince > 1000 ? rows : undefined;
  }, "the seller's events to run out");
}

const runsOf = (rows: OutboxRow[], handlerId: number) => rows.filter((r) => r.job_name === 'event.run' && r.payload.handlerId === handlerId);

async function createOrder(seller: Seller, order: Record<string, unknown> = {}): Promise<string> {
  const res = await call('order/', { token: seller.token, body: { order: { customer: { email: 'buyer@example.com' }, ...order } } });
  expect(res.status, res.text).to.equal(201);
  return res.body.order_id as string;
}

async function statusOf(seller: Seller, orderId: string): Promise<Record<string, boolean>> {
  const res = await call(`order/${orderId}/`, { token: seller.token });
  expect(res.status, res.text).to.equal(200);
  return (res.body.order as { status: Record<string, boolean> }).status;
}

async function tasksOf(seller: Seller): Promise<{ title: string; text: string; reference: unknown }[]> {
  const res = await call('task/', { token: seller.token });
  expect(res.status, res.text).to.equal(200);
  return (res.body.task ?? []) as { title: string; text: string; reference: unknown }[];
}

describe('event handlers whose actions trigger each other (events worker)', function () {
  this.timeout(60000);
  // One job at a time: the runs go in the outbox's order, so which handler wrote last is known.
  const setting = useEventsWorker('chain', { settings: () => ({ jobBackoffMs: 50, jobAttempts: 3 }), concurrency: 1 });

  afterEach(() => setConfig({ ...config(), eventChainMaxDepth: setting.original.eventChainMaxDepth }));

  it("when two handlers on order changed set a flag in opposite directions, then the chain ends once each ran on the other's change, and the seller gets one task", async () => {
    const seller = await newSeller();
    const orderId = await createOrder(seller);
    const park = await flagHandler(seller, 'changed', 'is_parked', true);
    const unpark = await flagHandler(seller, 'changed', 'is_parked', false);

    const res = await call(`order/${orderId}/`, { token: seller.token, body: { order: { status: { is_parked: true } } } });
    expect(res.status, res.text).to.equal(200);
    const rows = await settled(seller);

    // The client's change: park finds it parked (no write), unpark clears it; unpark's change: park parks again;
    // park's change (caused through unpark's): neither runs again.
    expect(runsOf(rows, park)).to.have.length(2);
    expect(runsOf(rows, unpark)).to.have.length(1);
    expect((await statusOf(seller, orderId)).is_parked).to.equal(true);
    const last = rows.find((r) => r.job_name === 'event.emit' && r.payload.cause?.chain.join() === `${unpark},${park}`);
    expect(last, JSON.stringify(rows.map((r) => r.payload))).to.not.equal(undefined);
    expect(last!.result!.skipped!.map((s) => s.handler_id).sort()).to.deep.equal([park, unpark].sort());
    const tasks = await tasksOf(seller);
    expect(tasks, JSON.stringify(tasks)).to.have.length(1);
    expect(tasks[0]!.text).to.contain(`Event handler ${unpark} (changed: clear is_parked) was not run`).and.to.contain(`through event handler ${park}`);
    expect(tasks[0]!.reference).to.deep.equal({ section: 'order', id: orderId });

    // The same on another order: the chain ends again, and the seller is not told twice.
    const second = await createOrder(seller);
    expect((await call(`order/${second}/`, { token: seller.token, body: { order: { status: { is_parked: true } } } })).status).to.equal(200);
    const after = await settled(seller);
    expect(runsOf(after, park)).to.have.length(4);
    expect(runsOf(after, unpark)).to.have.length(2);
    expect(await tasksOf(seller)).to.have.length(1);
  });

  it('when a handler on order changed sets a flag, then its own change does not run it again', async () => {
    const seller = await newSeller();
    const orderId = await createOrder(seller);
    const park = await flagHandler(seller, 'changed', 'is_parked', true);

    const res = await call(`order/${orderId}/`, { token: seller.token, body: { order: { infos: 'call the buyer' } } });
    expect(res.status, res.text).to.equal(200);
    const rows = await settled(seller);

    expect(runsOf(rows, park)).to.have.length(1);
    expect((await statusOf(seller, orderId)).is_parked).to.equal(true);
    const own = rows.find((r) => r.job_name === 'event.emit' && r.payload.cause?.chain.join() === `${park}`);
    expect(own, JSON.stringify(rows.map((r) => r.payload))).to.not.equal(undefined);
    expect(own!.result!.skipped).to.deep.equal([{ handler_id: park, reason: `caused by this handler's own action (chain: handler ${park})` }]);
    // Reacting to its own change is no mistake: nothing to tell the seller.
    expect(await tasksOf(seller)).to.have.length(0);
  });

  it("when one handler's action causes an event another handler takes, then the chain runs, and notifications hear every change", async () => {
    const seller = await newSeller();
    const pack = await flagHandler(seller, 'created', 'is_packed', true);
    const ship = await flagHandler(seller, 'packed', 'is_shipped', true);
    const arrive = await flagHandler(seller, 'shipped', 'is_arrived', true);
    const path = `/changed/${seller.id}`;
    await notificationHandler(seller, 'changed', `${setting.receiver.base}${path}`);

    const orderId = await createOrder(seller);
    const rows = await settled(seller);

    expect(await statusOf(seller, orderId)).to.include({ is_packed: true, is_shipped: true, is_arrived: true });
    for (const id of [pack, ship, arrive]) expect(runsOf(rows, id), `handler ${id}`).to.have.length(1);
    // Each action's change, the third one (caused by three handlers) too.
    await waitFor(async () => setting.receiver.received.filter((r) => r.path === path).length === 3, 'the three changed notifications');
    expect(await tasksOf(seller)).to.have.length(0);
  });

  it('when a chain of handlers goes deeper than EVENT_CHAIN_MAX_DEPTH, then the next action is not run, notifications still are, and the seller is told once', async () => {
    setConfig({ ...config(), eventChainMaxDepth: 2 });
    const seller = await newSeller();
    await flagHandler(seller, 'created', 'is_packed', true);
    await flagHandler(seller, 'packed', 'is_shipped', true);
    const arrive = await flagHandler(seller, 'shipped', 'is_arrived', true);
    const path = `/shipped/${seller.id}`;
    await notificationHandler(seller, 'shipped', `${setting.receiver.base}${path}`);

    const orderId = await createOrder(seller);
    const rows = await settled(seller);

    expect(await statusOf(seller, orderId)).to.include({ is_packed: true, is_shipped: true, is_arrived: false });
    expect(runsOf(rows, arrive)).to.have.length(0);
    const shipped = rows.find((r) => r.job_name === 'event.emit' && r.payload.type === 'shipped')!;
    expect(shipped.result!.skipped).to.deep.equal([
      { handler_id: arrive, reason: "caused by a chain of 2 handlers' actions, the most one chain may have (EVENT_CHAIN_MAX_DEPTH 2): not run" },
    ]);
    await waitFor(async () => setting.receiver.received.filter((r) => r.path === path).length === 1, 'the shipped notification');
    const tasks = await tasksOf(seller);
    expect(tasks, JSON.stringify(tasks)).to.have.length(1);
    expect(tasks[0]!.text).to.contain(`Event handler ${arrive} (shipped: set is_arrived) was not run`);

    await createOrder(seller);
    await settled(seller);
    expect(await tasksOf(seller)).to.have.length(1);
  });
});
