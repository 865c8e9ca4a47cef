/**
 * market_d orders imported from the sandbox's Amazon (Orders API v2026-01-01) by the order_import
 * job: Pending orders completed when they leave Pending, AFN orders taking no stock, and the
 * calls per imported order counted in the sandbox's request log.
 */
import { expect } from 'chai';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { db } from '../../lib/db/knex';
import { orderImportProcessors } from '../../lib/order-import/order-import.processor';
import { amazonOf } from '../../sandbox/amazon.sandbox';
import type { NewAmazonOrder } from '../../sandbox/amazon-orders.sandbox';
import type { SandboxRequest } from '../../sandbox/sandbox.app';
import { Sandbox, sandboxKeepingContract } from '../fleet/support';
import { call, newSeller, query, Seller } from '../support/api';
import { startQueueWorker } from '../support/queue-worker';
import { createStock, readOrder, stockQuantity } from '../order/helpers';
import { importNow } from './support';

describe('order import of market_d: Amazon orders through the Orders API v2026-01-01', () => {
  let sandbox: Sandbox;
  let worker: { stop(): Promise<void> } | undefined;
  // Every request the adapters sent keeps to Amazon's published contracts.
  sandboxKeepingContract('amazon', (started) => (sandbox = started));
  before(async () => {
    worker = await startQueueWorker('order_import', orderImportProcessors, 'import');
  });
  after(async () => {
    await worker?.stop();
  });
  /** A market_d portal account of the seller: Amazon's SP-API connector, the sandbox's development identity. */
  const amazonAccount = async (seller: Seller) => (await createPortalAccount(seller.id, { name: 'Amazon.de', platform: 'market_d' })).id as number;
  const place = async (portalAccountId: number, order: Omit<NewAmazonOrder, 'portal_account'>) => {
    const res = await fetch(`${sandbox.url}/_sandbox/amazon/orders`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ portal_account: portalAccountId, ...order }),
    });
    return (await res.json()) as { order_id: string; order_item_ids: string[] };
  };
  /** The sandbox's request log for market_d, as GET /_sandbox/requests?portal=market_d gives it. */
  const requests = async (portalAccountId: number): Promise<SandboxRequest[]> =>
    ((await (await fetch(`${sandbox.url}/_sandbox/requests?portal=market_d`)).json()) as SandboxRequest[]).filter(
      (r) => r.portalAccount === String(portalAccountId),
    );
  const orderOf = async (seller: Seller, externalOrderId: string) => {
    const rows = await db()('sales_order').select('id').where({ account_id: seller.id, external_order_id: externalOrderId });
    expect(rows, `one Kontor order of ${externalOrderId}`).to.have.length(1);
    return readOrder(seller, rows[0]!.id);
  };
  const counts = (job: { result?: Record<string, unknown> }) => (job.result as { orders: Record<string, number> }).orders;

  it('when an Amazon order is first seen Pending, then it is imported unpaid and takes its stock; once Unshipped, its prices, shipping, address, totals and invoice_amount are completed and written to the history', async () => {
    const seller = await newSeller();
    const mug = await createStock(seller, 'AZ-MUG', 10);
    const pot = await createStock(seller, 'AZ-POT', 5);
    const portalAccountId = await amazonAccount(seller);
    const sold = await place(portalAccountId, {
      status: 'PENDING',
      lines: [
        { sku: 'AZ-MUG', quantity: 2, price: '12.50', shipping: '3.90' },
        { sku: 'AZ-POT', quantity: 1, price: '30.00' },
      ],
      buyer: { name: 'Petra Pending', street: 'Ringstraße 5', zip: '50667', city: 'Köln', phone: '+49 221 555' },
    });
    const first = await importNow(seller, portalAccountId);
    expect(first.state, first.error).to.equal('completed');
    expect(counts(first)).to.include({ created: 1 });
    const pending = await orderOf(seller, sold.order_id);
    expect(pending.status).to.deep.include({ is_paid: false, is_shipped: false });
    expect(pending.line.map((l) => [l.sku, l.quantity, l.price])).to.deep.equal([
      ['AZ-MUG', '2', '0.00'],
      ['AZ-POT', '1', '0.00'],
    ]);
    expect(pending.invoice_amount).to.equal('0.00');
    expect(pending.invoice_number).to.equal(null);
    // The sale reaches the stock at once, Pending or not.
    expect(await stockQuantity(seller, mug)).to.equal(8);
    expect(await stockQuantity(seller, pot)).to.equal(4);

    await fetch(`${sandbox.url}/_sandbox/amazon/orders/${sold.order_id}/status`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ status: 'UNSHIPPED' }),
    });
    const second = await importNow(seller, portalAccountId);
    expect(second.state, second.error).to.equal('completed');
    expect(counts(second)).to.include({ created: 0, updated: 1 });
    const completed = await orderOf(seller, sold.order_id);
    expect(completed.id).to.equal(pending.id);
    expect(completed.line.map((l) => [l.sku, l.quantity, l.price, l.transaction_id])).to.deep.equal([
      ['AZ-MUG', '2', '12.50', sold.order_item_ids[0]],
      ['AZ-POT', '1', '30.00', sold.order_item_ids[1]],
    ]);
    expect(completed.shipping).to.deep.include({ fee: '3.90' });
    expect(completed.shipping.address).to.deep.include({ name: 'Petra Pending', street: 'Ringstraße 5', zip: '50667', city: 'Köln', country_iso2: 'DE' });
    expect(completed.customer.address).to.deep.include({ street: 'Ringstraße 5', city: 'Köln' });
    expect(completed.customer).to.deep.include({ phone_1: '+49 221 555' });
    expect(completed.customer.email).to.match(/@marketplace\.amazon\.de$/);
    expect(completed.invoice_amount).to.equal('58.90');
    expect(completed.paid_amount).to.equal('58.90');
    expect(completed.status).to.deep.include({ is_paid: true, is_shipped: false });
    expect(completed.invoice_number).to.not.equal(null);
    expect(JSON.stringify(completed.history)).to.contain(
      `market_d order ${sold.order_id} (portal account ${portalAccountId}): prices, shipping and address completed (invoice amount 0.00 -> 58.90), paid 58.90`,
    );
    // Completing moved no stock.
    expect(await stockQuantity(seller, mug)).to.equal(8);
    expect(await stockQuantity(seller, pot)).to.equal(4);

    // Shipped at Amazon: the phone is suppressed then (CustomerAddress.phone), which is no new data to note.
    await fetch(`${sandbox.url}/_sandbox/amazon/orders/${sold.order_id}/status`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ status: 'SHIPPED' }),
    });
    expect(counts(await importNow(seller, portalAccountId))).to.include({ updated: 1 });
    const shipped = await orderOf(seller, sold.order_id);
    expect(shipped.status).to.deep.include({ is_shipped: true });
    expect(shipped.customer).to.deep.include({ phone_1: '+49 221 555' });
    expect(JSON.stringify(shipped.history)).to.not.contain('not applied');

    // Items came with searchOrders: no item call per order (issue 30 point 7: at most 1.1), nothing of the deprecated v0.
    const log = await requests(portalAccountId);
    const itemCalls = log.filter((r) => /^\/orders\/(2026-01-01\/orders\/[^/]+|v0\/orders\/[^/]+\/orderItems)$/.test(r.path)).length;
    expect(itemCalls / 1).to.be.at.most(1.1);
    expect(log.filter((r) => r.path.startsWith('/orders/v0/'))).to.deep.equal([]);
    expect(log.filter((r) => r.path === '/orders/2026-01-01/orders').map((r) => r.status)).to.deep.equal([200, 200, 200]);
  });

  it('when Amazon lists searchOrders by creation time and its first page happens to be ascending in update time, then every order of the fetch is imported: the Unshipped order after that page takes its stock too', async () => {
    const seller = await newSeller();
    const cup = await createStock(seller, 'AZ-PAGE', 10);
    const portalAccountId = await amazonAccount(seller);
    // The reviewer's case: A 10:00 updated 10:30, B 10:01 -> 10:31, C 10:02 -> 10:05, two a page (the sandbox lists by createdTime).
    const base = Date.now() - 60 * 60_000;
    const sold: string[] = [];
    for (const [created, updated] of [
      [0, 30],
      [1, 31],
      [2, 5],
    ] as const) {
      const { order_id } = await place(portalAccountId, { status: 'UNSHIPPED', lines: [{ sku: 'AZ-PAGE', quantity: 1, price: '5.00' }] });
      const o = amazonOf(sandbox.state).orders.get(order_id)!;
      o.createdTime = new Date(base + created * 60_000).toISOString();
      o.lastUpdatedTime = new Date(base + updated * 60_000).toISOString();
      sold.push(order_id);
    }
    amazonOf(sandbox.state).pageSize = 2;
    let job: Awaited<ReturnType<typeof importNow>>;
    try {
      job = await importNow(seller, portalAccountId);
    } finally {
      amazonOf(sandbox.state).pageSize = 100;
    }
    expect(job.state, job.error).to.equal('completed');
    expect(counts(job)).to.include({ created: 3 });
    for (const id of sold) expect((await orderOf(seller, id)).status).to.deep.include({ is_paid: true, is_shipped: false });
    expect(await stockQuantity(seller, cup)).to.equal(7);
    // The second page is the first query's, by its token.
    const searches = (await requests(portalAccountId)).filter((r) => r.path === '/orders/2026-01-01/orders');
    expect(searches).to.have.length(2);
    expect(searches[1]!.query!.paginationToken).to.be.a('string');
    expect(searches[1]!.query!.lastUpdatedAfter).to.equal(searches[0]!.query!.lastUpdatedAfter);
  });

  it('when an invoiced order changes its address at Amazon, then Kontor keeps its data and notes the change in the history', async () => {
    const seller = await newSeller();
    await createStock(seller, 'AZ-CUP', 3);
    const portalAccountId = await amazonAccount(seller);
    const sold = await place(portalAccountId, { status: 'UNSHIPPED', lines: [{ sku: 'AZ-CUP', quantity: 1, price: '9.90' }] });
    expect(counts(await importNow(seller, portalAccountId))).to.include({ created: 1 });
    const invoiced = await orderOf(seller, sold.order_id);
    expect(invoiced.invoice_number).to.not.equal(null);

    const order = amazonOf(sandbox.state).orders.get(sold.order_id)!;
    order.address.city = 'Bonn';
    order.lastUpdatedTime = new Date(Date.now() + 1000).toISOString();
    expect(counts(await importNow(seller, portalAccountId))).to.include({ updated: 1 });
    const kept = await orderOf(seller, sold.order_id);
    expect((kept.shipping.address as Record<string, unknown>).city).to.equal('Köln');
    expect(kept.invoice_amount).to.equal('9.90');
    expect(JSON.stringify(kept.history)).to.contain('not applied, as the order is already shipped, invoiced or cancelled here');
  });

  it('when the data Amazon completes breaks Order_type, then the order keeps its data and the seller gets a task', async () => {
    const seller = await newSeller();
    await createStock(seller, 'AZ-LONG', 3);
    const portalAccountId = await amazonAccount(seller);
    // A country Order_type cannot take (CustomerAddress.countryCode is a plain string in the contract);
    // a long text no longer breaks it, as the import cuts texts to Order_type's lengths (b75fe98).
    const sold = await place(portalAccountId, { status: 'PENDING', lines: [{ sku: 'AZ-LONG', quantity: 1, price: '9.90' }], buyer: { country_iso2: 'DEU' } });
    expect(counts(await importNow(seller, portalAccountId))).to.include({ created: 1 });
    await fetch(`${sandbox.url}/_sandbox/amazon/orders/${sold.order_id}/status`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ status: 'UNSHIPPED' }),
    });
    expect(counts(await importNow(seller, portalAccountId))).to.include({ refused: 1 });
    const kept = await orderOf(seller, sold.order_id);
    expect(kept.invoice_amount).to.equal('0.00');
    const tasks = await call(`task/?${query({ pagination: { limit: 100 } })}`, { token: seller.token });
    expect(JSON.stringify(tasks.body.task)).to.contain(`Order not imported: market_d order ${sold.order_id}`).and.contain('country_iso2');
  });

  it('when an order is fulfilled by Amazon (AFN), then it takes no stock from the seller, fills shipping.market_d_fba and asks for no link', async () => {
    const seller = await newSeller();
    const mug = await createStock(seller, 'AZ-FBA', 6);
    const portalAccountId = await amazonAccount(seller);
    const sold = await place(portalAccountId, { status: 'UNSHIPPED', fulfilled_by: 'AMAZON', lines: [{ sku: 'AZ-FBA', quantity: 2, price: '15.00' }] });
    const job = await importNow(seller, portalAccountId);
    expect(job.state, job.error).to.equal('completed');
    expect(counts(job)).to.include({ created: 1 });
    const order = await orderOf(seller, sold.order_id);
    expect(order.shipping).to.deep.include({ market_d_fba: { country_iso2: 'DE', center_id: null } });
    expect(order.line[0]).to.deep.include({ sku: 'AZ-FBA', quantity: '2', price: '15.00' });
    expect(order.line[0]!.stock_align_id ?? null).to.equal(null);
    expect(order.paid_amount).to.equal('30.00');
    // Amazon ships from its own stock: the seller's warehouse keeps its 6, and no task asks for a link.
    expect(await stockQuantity(seller, mug)).to.equal(6);
    const tasks = await call(`task/?${query({ pagination: { limit: 100 } })}`, { token: seller.token });
    expect(JSON.stringify(tasks.body.task)).to.not.contain(order.id);
  });
});
