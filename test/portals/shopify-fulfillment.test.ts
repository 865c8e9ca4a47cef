/**
 * send_mit at a Shopify store whose order is split into several fulfillment orders (locations,
 * holds, schedules), against the sandbox playing fulfillmentCreate as admin_schema_2025-01.json
 * describes it: one order, one location, fulfillable statuses only, no more than remains.
 */
import { expect } from 'chai';
import { config } from '../../config';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { db } from '../../lib/db/knex';
import { isPermanent } from '../../lib/errors';
import { importOrders } from '../../lib/order-import/order-import.service';
import { sendMitHoldWait } from '../../lib/order/send-mit-hold';
import type { PortalTarget, Shipment } from '../../lib/portals/portal.type';
import { appLines, FulfillmentOrderRead, linesInNoFulfillmentOrder, sellerLines, trackingAddition } from '../../lib/portals/shopify/fulfillment-plan';
import { WebshopAdapter } from '../../lib/portals/webshop.adapter';
import type { SandboxRequest } from '../../sandbox/sandbox.app';
import type { FulfillmentOrderPlan } from '../../sandbox/shopify-fulfillment.sandbox';
import { shopifyOf } from '../../sandbox/shopify.sandbox';
import { channelLoopForSuite, jobEnd, Sandbox, waitFor } from '../fleet/support';
import { call, newSeller } from '../support/api';
import { readOrder } from '../order/helpers';
import { failure } from '../support/failure';
import { shopifyStoreForEach, postToSandbox } from './shopify-support';

const adapter = new WebshopAdapter();

interface StoredOrder {
  lines: { id: string; sku: string; quantity: number; fulfilled: number }[];
  fulfillments: { tracking: unknown; lines: { id: string; quantity: number }[] }[];
  fulfillmentOrders: { id: string; locationId: string; status: string }[];
}
type FulfillmentInput = { lineItemsByFulfillmentOrder: { fulfillmentOrderId: string; fulfillmentOrderLineItems: { id: string; quantity: number }[] }[] };

describe('webshop at Shopify: send_mit over several fulfillment orders (locations, holds, schedules)', () => {
  let sandbox: Sandbox;
  let account: number;
  let target: PortalTarget;
  shopifyStoreForEach((store) => ({ sandbox, account, target } = store));

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) => postToSandbox(sandbox, path, body, headers);
  /** An order of these SKUs (one unit each unless said) split as the plan says; its number. */
  const place = async (lines: { sku: string; quantity?: number }[], fulfillmentOrders: FulfillmentOrderPlan[]) => {
    const placed = await post('/_sandbox/shopify/orders', { portal_account: account, lines, fulfillment_orders: fulfillmentOrders });
    expect(placed.status, JSON.stringify(placed.body)).to.equal(201);
    return String(placed.body.id).split('/').pop()!;
  };
  const stored = async (id: string) => (await (await fetch(`${sandbox.url}/_sandbox/shopify/orders/${id}`)).json()) as StoredOrder;
  const calls = (operation: string): SandboxRequest[] =>
    sandbox.state.requests.filter(
      (r) => r.portal === 'webshop' && r.portalAccount === String(account) && String((r.body as { query?: string }).query).includes(operation),
    );
  const sent = (): FulfillmentInput[] =>
    calls('mutation KontorFulfillment(').map((r) => (r.body as { variables: { fulfillment: FulfillmentInput } }).variables.fulfillment);
  const ship = (id: string): Shipment => ({ orderId: '1', externalOrderId: id, carrier: 'DHL', trackingCode: '00340434161094042557' });
  const graphql = (query: string, variables: Record<string, unknown>) =>
    post('/admin/api/2025-01/graphql.json', { query, variables }, { 'X-Shopify-Access-Token': `shpat_sandbox_${account}` });

  it('an order at two locations gets one fulfillmentCreate per location, each with its own fulfillment orders and the tracking, and is fulfilled whole', async () => {
    const id = await place(
      [{ sku: 'A', quantity: 2 }, { sku: 'B' }, { sku: 'C' }],
      [
        { location: 1, lines: [{ line: 0 }, { line: 2 }] },
        { location: 2, lines: [{ line: 1 }] },
      ],
    );
    const before = await stored(id);
    await adapter.markShipped(target, ship(id), 's1');
    const after = await stored(id);
    expect(after.lines.map((l) => l.fulfilled)).to.deep.equal([2, 1, 1]);
    expect(sent().map((f) => f.lineItemsByFulfillmentOrder.map((g) => g.fulfillmentOrderId))).to.deep.equal([
      [before.fulfillmentOrders[0]!.id],
      [before.fulfillmentOrders[1]!.id],
    ]);
    expect(after.fulfillments.map((f) => [f.tracking, f.lines.length])).to.deep.equal([
      [{ number: '00340434161094042557', company: 'DHL', companyRecognised: true }, 2],
      [{ number: '00340434161094042557', company: 'DHL', companyRecognised: true }, 1],
    ]);
    await adapter.markShipped(target, ship(id), 's1');
    expect(sent()).to.have.length(2);
  });

  it("a shipment naming only lines the store routed to a fulfilment app that keeps the stock is refused naming them and the app: nothing is fulfilled, no tracking goes on the app's fulfilment", async () => {
    const made = await post('/_sandbox/shopify/locations', {
      portal_account: account,
      locations: [{ name: 'Versandlager' }, { name: 'ShipBob', fulfillment_service: true }],
    });
    const shipBob = (made.body as unknown as { id: string }[])[1]!.id;
    const id = await place([{ sku: 'OWN' }, { sku: 'APP', quantity: 2 }], [{ location: Number(shipBob.split('/').pop()), lines: [{ line: 1 }] }]);
    const lineIds = (await stored(id)).lines.map((l) => l.id.split('/').pop()!);
    const refused = await adapter.markShipped(target, { ...ship(id), lines: [{ transactionId: lineIds[1]!, quantity: 2 }] }, 's1').catch((err: unknown) => err);
    expect(isPermanent(refused)).to.equal(true);
    expect((refused as Error).message).to.equal(
      `webshop (Shopify) order ${id}: the store routed 2 x APP at ShipBob, a fulfilment app that ships from the stock it keeps and fulfils them itself; Kontor fulfils only the lines at the seller's locations`,
    );
    expect(sent()).to.deep.equal([]);
    expect(calls('KontorFulfillmentTracking')).to.deep.equal([]);
    // The whole order: only the seller's line is fulfilled, ShipBob's left to ShipBob.
    await adapter.markShipped(target, ship(id), 's2');
    expect((await stored(id)).lines.map((l) => l.fulfilled)).to.deep.equal([1, 0]);
  });

  it('an order of 12 fulfillment orders (more than a page of them) is fulfilled whole', async () => {
    const skus = Array.from({ length: 12 }, (_, i) => ({ sku: `P${i}` }));
    const id = await place(
      skus,
      skus.map((_s, i) => ({ lines: [{ line: i }] })),
    );
    await adapter.markShipped(target, ship(id), 's1');
    expect((await stored(id)).lines.every((l) => l.fulfilled === 1)).to.equal(true);
    expect(calls('query KontorFulfillmentOrders(')).to.have.length(2);
    expect(sent()[0]!.lineItemsByFulfillmentOrder).to.have.length(12);
  });

  it('a fulfillment order ON_HOLD: the open lines are fulfilled and the send fails retryable naming the held ones; once the store releases the hold, the retry sends only those', async () => {
    const id = await place(
      [{ sku: 'OPEN-1' }, { sku: 'HELD-1', quantity: 2 }],
      [{ lines: [{ line: 0 }] }, { status: 'ON_HOLD', hold_reason: 'HIGH_RISK_OF_FRAUD', lines: [{ line: 1 }] }],
    );
    const held = (await stored(id)).fulfillmentOrders[1]!.id.split('/').pop()!;
    const err = await failure(adapter.markShipped(target, ship(id), 's1'));
    expect(isPermanent(err), err.message).to.equal(false);
    expect(err.message).to.include(`fulfillment order ${held} on hold (HIGH_RISK_OF_FRAUD): 2 x HELD-1`);
    expect((await stored(id)).lines.map((l) => l.fulfilled)).to.deep.equal([1, 0]);
    // Still held: the retry sends nothing new, and fails the same way.
    expect(isPermanent(await failure(adapter.markShipped(target, ship(id), 's1')))).to.equal(false);
    expect(sent()).to.have.length(1);

    expect((await post(`/_sandbox/shopify/fulfillment_orders/${held}/release_hold`, {})).status).to.equal(200);
    await adapter.markShipped(target, ship(id), 's1');
    const after = await stored(id);
    expect(after.lines.map((l) => l.fulfilled)).to.deep.equal([1, 2]);
    expect(after.fulfillments.map((f) => f.lines.map((l) => l.quantity))).to.deep.equal([[1], [2]]);
    await adapter.markShipped(target, ship(id), 's1');
    expect(sent()).to.have.length(2);
  });

  it('SCHEDULED: a pre-order (no date) is opened and fulfilled; a later delivery (fulfillAt ahead) is left for its date', async () => {
    const id = await place(
      [{ sku: 'NOW' }, { sku: 'PRE' }, { sku: 'LATER' }],
      [
        { lines: [{ line: 0 }] },
        { status: 'SCHEDULED', fulfill_at: null, lines: [{ line: 1 }] },
        { status: 'SCHEDULED', fulfill_at: new Date(Date.now() + 30 * 86400_000).toISOString(), lines: [{ line: 2 }] },
      ],
    );
    const preOrder = (await stored(id)).fulfillmentOrders[1]!.id;
    await adapter.markShipped(target, ship(id), 's1');
    expect(calls('mutation KontorFulfillmentOrderOpen(').map((r) => (r.body as { variables: { id: string } }).variables.id)).to.deep.equal([preOrder]);
    const after = await stored(id);
    expect(after.lines.map((l) => l.fulfilled)).to.deep.equal([1, 1, 0]);
    expect(after.fulfillmentOrders.map((f) => f.status)).to.deep.equal(['OPEN', 'OPEN', 'SCHEDULED']);
  });

  it('the sandbox refuses a fulfillmentCreate over two locations, a held fulfillment order and more than remains, and changes nothing', async () => {
    const id = await place(
      [{ sku: 'A' }, { sku: 'B' }, { sku: 'C' }],
      [
        { location: 1, lines: [{ line: 0 }] },
        { location: 2, lines: [{ line: 1 }] },
        { location: 1, status: 'ON_HOLD', lines: [{ line: 2 }] },
      ],
    );
    const fos = (await stored(id)).fulfillmentOrders.map((f) => f.id);
    const create = `mutation Create($fulfillment: FulfillmentInput!) { fulfillmentCreate(fulfillment: $fulfillment) { fulfillment { id } userErrors { field message } } }`;
    const answer = async (groups: { fulfillmentOrderId: string; fulfillmentOrderLineItems?: { id: string; quantity: number }[] }[]) =>
      ((await graphql(create, { fulfillment: { lineItemsByFulfillmentOrder: groups } })).body.data as { fulfillmentCreate: unknown }).fulfillmentCreate;
    expect(await answer([{ fulfillmentOrderId: fos[0]! }, { fulfillmentOrderId: fos[1]! }])).to.deep.equal({
      fulfillment: null,
      userErrors: [{ field: ['fulfillment', 'lineItemsByFulfillmentOrder'], message: 'All fulfillment orders must be assigned to a single location.' }],
    });
    expect(await answer([{ fulfillmentOrderId: fos[2]! }])).to.deep.equal({
      fulfillment: null,
      userErrors: [
        {
          field: ['fulfillment', 'lineItemsByFulfillmentOrder'],
          message: `Fulfillment order ${fos[2]!.split('/').pop()} has an unfulfillable status= on_hold.`,
        },
      ],
    });
    const line = `gid://shopify/FulfillmentOrderLineItem/${Number(fos[0]!.split('/').pop()) * 100}`;
    expect(await answer([{ fulfillmentOrderId: fos[0]!, fulfillmentOrderLineItems: [{ id: line, quantity: 2 }] }])).to.deep.equal({
      fulfillment: null,
      userErrors: [{ field: ['fulfillment'], message: 'Invalid fulfillment order line item quantity requested.' }],
    });
    expect((await stored(id)).lines.map((l) => l.fulfilled)).to.deep.equal([0, 0, 0]);
  });

  it('an order older than 60 days, which Shopify shows an app only with read_all_orders (Order): send_mit and a cancellation are refused saying so, nothing is sent; a token granted it ships the order', async () => {
    const id = await place([{ sku: 'A' }], [{ location: 1, lines: [{ line: 0 }] }]);
    const order = shopifyOf(sandbox.state).orders.get(`gid://shopify/Order/${id}`)!;
    order.createdAt = new Date(Date.now() - 61 * 24 * 3600 * 1000).toISOString();
    const why = /shows Kontor no order \d+: it has none, or the order is older than 60 days, .*read_all_orders/;
    for (const refused of [await failure(adapter.markShipped(target, ship(id), 's1')), await failure(adapter.cancelOrder(target, id, 'Cancelled in Kontor'))]) {
      expect(refused.message).to.match(why);
      expect(isPermanent(refused)).to.equal(true);
    }
    expect(sent()).to.deep.equal([]);
    expect(order.cancelledAt).to.equal(null);

    const granted = String(
      (
        await post('/_sandbox/shopify/tokens', {
          portal_account: String(account),
          scopes: 'read_orders,read_all_orders,write_merchant_managed_fulfillment_orders',
        })
      ).body.access_token,
    );
    await adapter.markShipped({ ...target, credentials: { shop_domain: 'alt-60.myshopify.com', access_token: granted } }, ship(id), 's3');
    expect((await stored(id)).lines.map((l) => l.fulfilled)).to.deep.equal([1]);
  });
});

describe('webshop at Shopify: a send_mit job over a held fulfillment order, through the API and the mail worker', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  channelLoopForSuite((loop) => ({ sandbox } = loop));
  // Waits of a fifth of a second, rising to half a second (a minute to an hour in service).
  const savedWait = { ...sendMitHoldWait };
  beforeEach(() => Object.assign(sendMitHoldWait, { firstMs: 200, maxMs: 500 }));
  afterEach(() => Object.assign(sendMitHoldWait, savedWait));

  /** A seller's imported Shopify order of an open line (FO-OPEN) and 2 x FO-HELD on hold (AWAITING_PAYMENT), sent with send_mit. */
  async function heldOrderSent() {
    const seller = await newSeller();
    const { id: portalAccountId } = await createPortalAccount(seller.id, { name: 'Shopify store', platform: 'webshop' });
    for (const sku of ['FO-OPEN', 'FO-HELD']) {
      const created = await call('stock/', { token: seller.token, body: { stock: { name: sku, sku, quantity: 10, price: '9.90' } } });
      expect(created.status, created.text).to.equal(201);
    }
    const placed = await fetch(`${sandbox.url}/_sandbox/shopify/orders`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        portal_account: portalAccountId,
        lines: [{ sku: 'FO-OPEN' }, { sku: 'FO-HELD', quantity: 2 }],
        fulfillment_orders: [{ lines: [{ line: 0 }] }, { status: 'ON_HOLD', hold_reason: 'AWAITING_PAYMENT', lines: [{ line: 1 }] }],
      }),
    });
    expect(placed.status).to.equal(201);
    const gid = ((await placed.json()) as { id: string }).id;
    const shopifyOrder = shopifyOf(sandbox.state).orders.get(gid)!;
    const held = shopifyOrder.fulfillmentOrders[1]!.id.split('/').pop()!;
    expect((await importOrders({ accountId: seller.id, portalAccountId }, 'fo-1')).orders).to.deep.include({ created: 1 });
    const row = (await db()('sales_order')
      .first('id')
      .where({ account_id: seller.id, external_order_id: gid.split('/').pop() })) as { id: string };
    const shipped = await call(`order/${row.id}/send_mit/`, {
      token: seller.token,
      body: { send_mit: { deliverer: 'DHL', code: ['00340434161094042557'], date: '2026-11-25', is_mail: false } },
    });
    expect(shipped.status, shipped.text).to.equal(202);
    const jobId = shipped.body.job_id as string;
    /** The store's reads of the order's fulfillment orders: one a try or wait. */
    const looks = () =>
      sandbox.state.requests.filter(
        (r: SandboxRequest) => r.portalAccount === String(portalAccountId) && String((r.body as { query?: string }).query).includes('KontorFulfillmentOrders'),
      ).length;
    const job = async () => (await call(`job/${jobId}/`, { token: seller.token })).body.job as { state: string; error?: string; attempts: number };
    const release = async () =>
      expect((await fetch(`${sandbox.url}/_sandbox/shopify/fulfillment_orders/${held}/release_hold`, { method: 'POST' })).status).to.equal(200);
    return { seller, row, shopifyOrder, held, jobId, looks, job, release };
  }

  it('when part of the order is on hold, then the open lines are fulfilled and the job waits naming the hold; once the store releases it, the retry fulfils the rest once and the job completes', async () => {
    const { seller, row, shopifyOrder, held, jobId, job, release } = await heldOrderSent();
    // Read between two looks at the store (during one the job is running).
    const waiting = await waitFor('the job to wait for the hold', async () => {
      const j = await job();
      return j.error && j.state === 'queued' ? j : undefined;
    });
    expect(waiting.error).to.include(`fulfillment order ${held} on hold (AWAITING_PAYMENT): 2 x FO-HELD`);
    expect(shopifyOrder.lines.map((l) => l.fulfilled)).to.deep.equal([1, 0]);
    expect((await readOrder(seller, row.id)).status).to.deep.include({ is_shipped: false });

    await release();
    const end = await jobEnd(seller.token, jobId);
    expect(end.state, end.error).to.equal('completed');
    expect(end.result).to.deep.include({ platform_status: 'ok', is_shipped: true });
    expect(shopifyOrder.lines.map((l) => l.fulfilled)).to.deep.equal([1, 2]);
    expect(shopifyOrder.fulfillments.map((f) => f.lines.map((l) => l.quantity))).to.deep.equal([[1], [2]]);
    expect(shopifyOrder.fulfillments.map((f) => f.tracking.number)).to.deep.equal(['00340434161094042557', '00340434161094042557']);
  });

  it("a hold outlasting the job's tries: the job keeps waiting (no try spent, the order not shipped, GET job names the hold); released, it fulfils the held lines once and only then marks the order shipped", async () => {
    const { seller, row, shopifyOrder, held, jobId, looks, job, release } = await heldOrderSent();
    // More looks at the store than the job has tries (5 in this suite): each a wait, none a try.
    await waitFor('the job to look more often than it has tries', () => looks() > config().jobAttempts + 1, 20000);
    const waiting = await waitFor('the job between two looks', async () => {
      const j = await job();
      return j.state === 'queued' ? j : undefined;
    });
    expect(waiting).to.deep.include({ state: 'queued', attempts: 0 });
    expect(waiting.error).to.include(`fulfillment order ${held} on hold (AWAITING_PAYMENT): 2 x FO-HELD`);
    expect(waiting.error).to.match(/waiting for the store to release it/);
    expect((await readOrder(seller, row.id)).status).to.deep.include({ is_shipped: false });
    expect(shopifyOrder.lines.map((l) => l.fulfilled)).to.deep.equal([1, 0]);

    await release();
    const end = await jobEnd(seller.token, jobId);
    expect(end.state, end.error).to.equal('completed');
    expect(end.result).to.deep.include({ platform_status: 'ok', is_shipped: true, shipment: [{ code: '00340434161094042557', ok: true }] });
    expect(shopifyOrder.fulfillments.map((f) => f.lines.map((l) => l.quantity))).to.deep.equal([[1], [2]]);
    const order = await readOrder(seller, row.id);
    expect(order.status).to.deep.include({ is_shipped: true });
    expect(order.shipping).to.deep.include({ platform_status: 'ok' });
  });

  it('a hold never released: after the bound the job fails naming the hold, and the order is not marked shipped', async () => {
    Object.assign(sendMitHoldWait, { boundMs: 1500 });
    const { seller, row, shopifyOrder, held, jobId } = await heldOrderSent();
    const end = await jobEnd(seller.token, jobId);
    expect(end.state).to.equal('failed');
    expect(end.error).to.include(`fulfillment order ${held} on hold (AWAITING_PAYMENT): 2 x FO-HELD`);
    expect(end.error).to.match(/still held after [\d.]+ days: send_mit again once the store has released it/);
    expect((await readOrder(seller, row.id)).status).to.deep.include({ is_shipped: false });
    expect(shopifyOrder.lines.map((l) => l.fulfilled)).to.deep.equal([1, 0]);
  });
});

describe('webshop at Shopify: which lines a fulfilment app ships (appLines)', () => {
  const fo = (lines: [string, number][], service: { serviceName: string; inventoryManagement: boolean } | null): FulfillmentOrderRead => ({
    id: 'gid://shopify/FulfillmentOrder/1',
    status: 'OPEN',
    fulfillAt: null,
    assignedLocation: { location: { id: 'gid://shopify/Location/9', fulfillmentService: service } },
    fulfillmentHolds: [],
    lines: lines.map(([line, quantity], i) => ({ id: `fol${i}`, totalQuantity: quantity, remainingQuantity: quantity, sku: null, lineItem: { id: line } })),
  });
  const line = (id: string, quantity = 1, nonFulfillableQuantity = 0) => ({ id, quantity, nonFulfillableQuantity });
  const shipBob = { serviceName: 'ShipBob', inventoryManagement: true };

  it("a line at an app keeping the stock is the app's; one split with the seller's location, or at an app leaving the stock to the merchant, is the seller's; a line in no fulfillment order (the order not routed yet) is the seller's", () => {
    const orders = [
      fo(
        [
          ['A', 1],
          ['B', 1],
        ],
        shipBob,
      ),
      fo(
        [
          ['B', 1],
          ['C', 1],
        ],
        null,
      ),
      fo([['D', 1]], { serviceName: 'Print', inventoryManagement: false }),
    ];
    const lines = [line('A'), line('B', 2), line('C'), line('D'), line('E'), line('F', 1, 1)];
    expect([...appLines(lines, orders)]).to.deep.equal([['A', 'ShipBob']]);
    // An order read before Shopify routed it has no fulfillment order yet: no line is an app's.
    expect([...appLines(lines, [])]).to.deep.equal([]);
    // The lines a token lacking read_third_party_fulfillment_orders cannot place: those Shopify fulfils in none read.
    expect(linesInNoFulfillmentOrder(lines, orders).map((l) => l.id)).to.deep.equal(['E']);
  });

  it("a line is whose its fulfillment orders fulfil it: one the merchant cancelled, or that cannot be completed, at the seller's location leaves it the app's where it is open; units fulfilled at the seller's keep it the seller's", () => {
    const at = (status: string, service: typeof shipBob | null, total: number, remaining: number, line = 'A'): FulfillmentOrderRead => ({
      ...fo([[line, total]], service),
      status,
      lines: [{ id: 'fol', totalQuantity: total, remainingQuantity: remaining, sku: null, lineItem: { id: line } }],
    });
    const lines = [line('A', 2)];
    // a424004 counted every unit listed: the cancelled fulfillment order at the warehouse kept A the seller's.
    expect([...appLines(lines, [at('CANCELLED', null, 2, 2), at('OPEN', shipBob, 2, 2)])]).to.deep.equal([['A', 'ShipBob']]);
    expect([...appLines(lines, [at('INCOMPLETE', null, 2, 2), at('ON_HOLD', shipBob, 2, 2)])]).to.deep.equal([['A', 'ShipBob']]);
    expect([...appLines(lines, [at('SCHEDULED', shipBob, 2, 2)])]).to.deep.equal([['A', 'ShipBob']]);
    // One unit left from the warehouse (closed there), the other is at ShipBob: split, the seller's.
    expect([...appLines(lines, [at('CLOSED', null, 1, 0), at('OPEN', shipBob, 1, 1)])]).to.deep.equal([]);
    // Fulfilled by ShipBob, closed: still the app's.
    expect([...appLines(lines, [at('CLOSED', shipBob, 2, 0)])]).to.deep.equal([['A', 'ShipBob']]);
  });

  it("a line is the seller's (sellerLines, given back after it was an app's) only where units of it are held at the seller's locations and none at an app's: a line whose fulfillment orders were all cancelled, or in none, is neither", () => {
    const at = (status: string, service: typeof shipBob | null, total: number, remaining: number, line = 'A'): FulfillmentOrderRead => ({
      ...fo([[line, total]], service),
      status,
      lines: [{ id: 'fol', totalQuantity: total, remainingQuantity: remaining, sku: null, lineItem: { id: line } }],
    });
    const lines = [line('A', 2)];
    // Moved back from ShipBob (fulfillmentOrderMove) or its INCOMPLETE one moved to the warehouse: OPEN there.
    expect([...sellerLines(lines, [at('OPEN', null, 2, 2)])]).to.deep.equal(['A']);
    expect([...sellerLines(lines, [at('INCOMPLETE', shipBob, 2, 2), at('OPEN', null, 2, 2)])]).to.deep.equal(['A']);
    // Still the app's, or split with it: not given back.
    expect([...sellerLines(lines, [at('OPEN', shipBob, 2, 2)])]).to.deep.equal([]);
    expect([...sellerLines(lines, [at('OPEN', null, 1, 1), at('OPEN', shipBob, 1, 1)])]).to.deep.equal([]);
    // Cancelled everywhere (the order cancelled), or not routed yet: nobody's to ship, not taken as the seller's.
    expect([...sellerLines(lines, [at('CANCELLED', null, 2, 2)])]).to.deep.equal([]);
    expect([...sellerLines(lines, [])]).to.deep.equal([]);
  });
});

describe("webshop at Shopify: a tracking number is never added to a fulfilment app's parcel (trackingAddition)", () => {
  const location = (service: { serviceName: string; inventoryManagement: boolean } | null) => ({ id: 'gid://shopify/Location/9', fulfillmentService: service });
  const shipBob = location({ serviceName: 'ShipBob', inventoryManagement: true });
  it("only the app's fulfilments: refused as the app's; the seller's latest beside it takes the number", () => {
    const apps = { id: 'gid://shopify/Fulfillment/7', status: 'SUCCESS', trackingInfo: [{ number: 'APP1', company: 'DHL' }], location: shipBob };
    expect(trackingAddition([apps], 'DHL1', 'DHL')).to.deep.equal({ action: 'apps', fulfillments: [{ id: apps.id, app: 'ShipBob' }] });
    const own = { id: 'gid://shopify/Fulfillment/5', status: 'SUCCESS', trackingInfo: [], location: location(null) };
    expect(trackingAddition([own, apps], 'DHL1', 'DHL')).to.deep.include({ action: 'update', fulfillmentId: own.id, numbers: ['DHL1'] });
    // A number the app's parcel carries already: nothing to do.
    expect(trackingAddition([apps], 'APP1', 'DHL')).to.deep.include({ action: 'none' });
  });
});
