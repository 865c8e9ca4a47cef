import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { importChannelOrder } from '../../lib/order-import/channel-order.import';
import { orderImportRepository } from '../../lib/order-import/order-import.repository';
import { call, newSeller, query, Seller } from '../support/api';
import { clientToken } from '../support/bound-client';
import { ciaJobs, createStock, readOrder, stockQuantity } from '../order/helpers';
import { change, channelOrder, importNow, jobEnd, jsonAuctionAccount, withImportWorkerAndChannel } from './support';

interface TaskView {
  title: string;
  text: string;
  reference: { section: string; id: string };
}

async function tasks(seller: Seller, token = seller.token): Promise<TaskView[]> {
  const res = await call(`task/?${query({ pagination: { limit: 100 } })}`, { token });
  expect(res.status, res.text).to.equal(200);
  return res.body.task as TaskView[];
}

/** The Kontor orders made of a channel order (by the import's key, then read through the API). */
async function ordersOf(seller: Seller, externalOrderId: string): Promise<string[]> {
  const rows = await db()('sales_order').select('id').where({ account_id: seller.id, external_order_id: externalOrderId });
  return rows.map((r) => r.id);
}

describe('order import: channel orders become Kontor orders, exactly once', () => {
  const channel = withImportWorkerAndChannel();

  it('when a channel sold an item, then the import creates the order with customer, lines, payment and stock link, takes stock once and triggers CIA', async () => {
    const seller = await newSeller();
    const mug = await createStock(seller, 'SKU-MUG', 10);
    const portalAccountId = await jsonAuctionAccount(seller, channel);
    const ciaBefore = await ciaJobs(seller, mug);
    const sold = channelOrder();
    channel.orders.push(sold);
    const job = await importNow(seller, portalAccountId);
    expect(job.state, job.error).to.equal('completed');
    expect(job.result).to.deep.include({ portal_account_id: portalAccountId, pages: 1 });
    expect((job.result as { orders: Record<string, number> }).orders).to.include({ created: 1 });
    const [orderId] = await ordersOf(seller, sold.external_order_id);
    const order = await readOrder(seller, orderId!);
    expect(order).to.deep.include({
      platform: 'auction_a',
      external_order_id: sold.external_order_id,
      portal_account_id: portalAccountId,
      paid_amount: '29.90',
    });
    expect(order.customer).to.deep.include({ username: 'mug_lover_77', email: 'buyer@example.com' });
    expect(order.customer.address).to.deep.include({ name: 'Jürgen Müller', city: 'Berlin', country_iso2: 'DE' });
    expect(order.shipping).to.deep.include({ fee: '4.90', method: 'DHL Paket' });
    expect((order.shipping.address as Record<string, unknown>).city).to.equal('München');
    expect(order.status).to.deep.include({ is_paid: true, is_shipped: false, is_cancelled: false });
    expect(order.line).to.have.length(1);
    expect(order.line[0]).to.deep.include({
      transaction_id: sold.line[0]!.transaction_id,
      sku: 'SKU-MUG',
      quantity: '2',
      price: '12.50',
      stock_align_id: `ID_${mug}`,
    });
    expect(await stockQuantity(seller, mug)).to.equal(8);
    // The sale reaches every other channel: one cia.adjust of the item, as POST order/ writes.
    expect(await ciaJobs(seller, mug)).to.equal(ciaBefore + 1);
  });

  it('when the same channel order is fetched again with new payment, shipment and cancellation, then the one order takes them and stock moves only by the cancellation', async () => {
    const seller = await newSeller();
    const mug = await createStock(seller, 'SKU-MUG', 10);
    const portalAccountId = await jsonAuctionAccount(seller, channel);
    const unpaid = channelOrder({ paid_amount: '0.00', status: { is_paid: false, is_shipped: false, is_cancelled: false } });
    const toCancel = channelOrder();
    channel.orders.push(unpaid, toCancel);
    expect((await importNow(seller, portalAccountId)).state).to.equal('completed');
    expect(await stockQuantity(seller, mug)).to.equal(6);

    change(unpaid, { paid_amount: '29.90', status: { is_paid: true, is_shipped: true, is_cancelled: false } });
    change(toCancel, { status: { is_paid: true, is_shipped: false, is_cancelled: true } });
    const second = await importNow(seller, portalAccountId);
    expect(second.state, second.error).to.equal('completed');
    expect((second.result as { orders: Record<string, number> }).orders).to.include({ created: 0, updated: 2 });

    const [paidId, ...morePaid] = await ordersOf(seller, unpaid.external_order_id);
    const [cancelledId, ...moreCancelled] = await ordersOf(seller, toCancel.external_order_id);
    expect([...morePaid, ...moreCancelled]).to.deep.equal([]);
    const paid = await readOrder(seller, paidId!);
    expect(paid.paid_amount).to.equal('29.90');
    expect(paid.status).to.deep.include({ is_paid: true, is_shipped: true });
    expect(paid.line).to.have.length(1);
    expect(JSON.stringify(paid.history)).to.contain(`auction_a order ${unpaid.external_order_id} (portal account ${portalAccountId}): paid 29.90, shipped`);
    const cancelled = await readOrder(seller, cancelledId!);
    expect(cancelled.status).to.deep.include({ is_cancelled: true });
    // The cancellation put its 2 back; the payment and the shipment took nothing.
    expect(await stockQuantity(seller, mug)).to.equal(8);

    // Nothing changed at the channel: the overlap fetches both again and changes nothing.
    const third = await importNow(seller, portalAccountId);
    expect((third.result as { orders: Record<string, number> }).orders).to.include({ created: 0, updated: 0, unchanged: 2 });
    expect(await stockQuantity(seller, mug)).to.equal(8);
    expect(await ordersOf(seller, unpaid.external_order_id)).to.have.length(1);
  });

  it('when the channel names its currency in lower case ("eur", stored EUR), then a later payment is applied, not held back as given in another currency', async () => {
    const seller = await newSeller();
    await createStock(seller, 'SKU-MUG', 10);
    const portalAccountId = await jsonAuctionAccount(seller, channel);
    const unpaid = channelOrder({ currency_id: 'eur', paid_amount: '0.00', status: { is_paid: false, is_shipped: false, is_cancelled: false } });
    channel.orders.push(unpaid);
    expect((await importNow(seller, portalAccountId)).state).to.equal('completed');
    change(unpaid, { paid_amount: '29.90', status: { is_paid: true, is_shipped: false, is_cancelled: false } });
    const second = await importNow(seller, portalAccountId);
    expect(second.state, second.error).to.equal('completed');
    const [id] = await ordersOf(seller, unpaid.external_order_id);
    const paid = await readOrder(seller, id!);
    expect(paid.currency_id).to.equal('EUR');
    expect(paid.paid_amount).to.equal('29.90');
    expect(JSON.stringify(paid.history)).not.to.contain('not applied');
  });

  it('when more orders changed than one page holds, then every page is fetched', async () => {
    const seller = await newSeller();
    const portalAccountId = await jsonAuctionAccount(seller, channel);
    channel.orders.push(channelOrder(), channelOrder(), channelOrder(), channelOrder(), channelOrder());
    const job = await importNow(seller, portalAccountId);
    expect(job.result).to.deep.include({ pages: 3 });
    expect(Number((await db()('sales_order').where({ account_id: seller.id }).count({ n: '*' }))[0]!.n)).to.equal(5);
  });

  it('when a fetch follows another, then it asks from 10 minutes before the previous one began; one from a later time keeps the watermark', async () => {
    const seller = await newSeller();
    const portalAccountId = await jsonAuctionAccount(seller, channel);
    const asked = () => {
      const last = channel.received.filter((r) => r.headers['x-portal-account'] === String(portalAccountId)).at(-1)!;
      return Date.parse(new URL(last.path, 'http://x').searchParams.get('modified_since')!);
    };
    const before = Date.now();
    await importNow(seller, portalAccountId);
    // A first fetch: the last 30 days.
    expect(before - asked()).to.be.within(30 * 86_400_000 - 60_000, 30 * 86_400_000 + 60_000);
    const watermark = ((await orderImportRepository.account(seller.id, portalAccountId))!.orders_fetched_until as Date).getTime();
    await importNow(seller, portalAccountId);
    expect(asked()).to.equal(watermark - 600_000);
    const second = ((await orderImportRepository.account(seller.id, portalAccountId))!.orders_fetched_until as Date).getTime();
    const later = await call(`admin/portal_account/${portalAccountId}/order_import/`, {
      token: seller.token,
      body: { order_import: { modified_since: new Date(Date.now() + 3_600_000).toISOString() } },
    });
    expect(later.status).to.equal(202);
    expect((await jobEnd(seller, later.body.job_id as string)).state).to.equal('completed');
    // It left the hour before its start unfetched: the next regular fetch still starts from the second one.
    expect(((await orderImportRepository.account(seller.id, portalAccountId))!.orders_fetched_until as Date).getTime()).to.equal(second);
  });

  it('when two fetchers import the same channel order at once, then there is one Kontor order and stock is taken once', async () => {
    const seller = await newSeller();
    const mug = await createStock(seller, 'SKU-MUG', 10);
    const portalAccountId = await jsonAuctionAccount(seller, channel);
    const account = (await orderImportRepository.account(seller.id, portalAccountId))!;
    const ciaBefore = await ciaJobs(seller, mug);
    const sold = channelOrder();
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => importChannelOrder(account, 'auction_a', structuredClone(sold))));
    expect(outcomes.filter((o) => o === 'created')).to.have.length(1);
    expect(outcomes.filter((o) => o === 'unchanged')).to.have.length(4);
    expect(await ordersOf(seller, sold.external_order_id)).to.have.length(1);
    expect(await stockQuantity(seller, mug)).to.equal(8);
    expect(await ciaJobs(seller, mug)).to.equal(ciaBefore + 1);
  });

  /** The channel's usual order with one more line, imported for the seller through a JSON auction_a account: the Kontor order and each line's SKU and stock link. */
  async function importedWithLine(seller: Seller, extra: { sku: string; name: string; price: string }) {
    const portalAccountId = await jsonAuctionAccount(seller, channel);
    const sold = channelOrder();
    sold.line.push({ transaction_id: `${sold.external_order_id}-L2`, quantity: 1, ...extra });
    channel.orders.push(sold);
    expect((await importNow(seller, portalAccountId)).state).to.equal('completed');
    const [orderId] = await ordersOf(seller, sold.external_order_id);
    const order = await readOrder(seller, orderId!);
    return { orderId, links: order.line.map((l) => [l.sku, l.stock_align_id ?? null]) };
  }

  it('when a line names a SKU no stock item has, then the order is imported with that line unlinked and the seller gets a task', async () => {
    const seller = await newSeller();
    const mug = await createStock(seller, 'SKU-MUG', 10);
    const { orderId, links } = await importedWithLine(seller, { sku: 'SKU-UNKNOWN', name: 'Plate', price: '4.90' });
    expect(links).to.deep.equal([
      ['SKU-MUG', `ID_${mug}`],
      ['SKU-UNKNOWN', null],
    ]);
    const [task, ...more] = await tasks(seller);
    expect(more).to.deep.equal([]);
    expect(task!.reference).to.deep.include({ section: 'order', id: orderId });
    expect(task!.text).to.contain('SKU SKU-UNKNOWN matches no stock item');
    expect(await stockQuantity(seller, mug)).to.equal(8);
  });

  it('when a line names the SKU of a variation main, then the order is imported with that line unlinked and the seller is asked to link the variant; the main’s quantity does not move', async () => {
    const seller = await newSeller();
    const mug = await createStock(seller, 'SKU-MUG', 10);
    const shirt = await call('stock/', {
      token: seller.token,
      body: {
        stock: {
          name: 'Shirt',
          sku: 'SKU-SHIRT',
          quantity: 5,
          variation: {
            specifics_set: { name_value: [{ name: 'size', value: ['S', 'M'] }] },
            sub: [{ create_quantity: 3, specifics: { name_value: [{ name: 'size', value: ['S'] }] } }],
          },
        },
      },
    });
    expect(shirt.status, shirt.text).to.equal(201);
    const main = Number(shirt.body.stock_id);
    const { links } = await importedWithLine(seller, { sku: 'SKU-SHIRT', name: 'Shirt', price: '19.90' });
    expect(links).to.deep.equal([
      ['SKU-MUG', `ID_${mug}`],
      ['SKU-SHIRT', null],
    ]);
    const [task] = await tasks(seller);
    expect(task!.text).to.contain('SKU SKU-SHIRT names a variation main, whose variants hold the stock');
    expect(await stockQuantity(seller, main)).to.equal(5);
    expect(await stockQuantity(seller, mug)).to.equal(8);
  });

  it('when a line names the SKU of an auction_a lister entry, then it is linked to that item', async () => {
    const seller = await newSeller();
    const res = await call('stock/', {
      token: seller.token,
      body: { stock: { name: 'Vase', sku: 'MASTER-1', quantity: 5, auction_a: [{ sku: 'EBAY-VASE' }] } },
    });
    expect(res.status, res.text).to.equal(201);
    const vase = Number(res.body.stock_id);
    const portalAccountId = await jsonAuctionAccount(seller, channel);
    const sold = channelOrder({ line: [{ transaction_id: 'T-1', sku: 'EBAY-VASE', name: 'Vase', quantity: 1, price: '20.00' }] });
    channel.orders.push(sold);
    expect((await importNow(seller, portalAccountId)).state).to.equal('completed');
    const order = await readOrder(seller, (await ordersOf(seller, sold.external_order_id))[0]!);
    expect(order.line[0]).to.deep.include({ stock_align_id: `ID_${vase}` });
    expect(await stockQuantity(seller, vase)).to.equal(4);
  });

  it('when the channel refuses the fetch (revoked refresh token), then the job fails once naming the portal account, the seller gets a task, and the scheduler leaves the account alone', async () => {
    const seller = await newSeller();
    const portalAccountId = await jsonAuctionAccount(seller, channel, 'Auction DE');
    channel.refuse = 'invalid_grant: the refresh token was revoked';
    const job = await importNow(seller, portalAccountId);
    expect(job.state).to.equal('failed');
    expect(job.attempts).to.equal(1);
    expect(job.error).to.contain(`portal account "Auction DE" (id ${portalAccountId}, auction_a)`).and.contain('invalid_grant');
    const [task] = await tasks(seller);
    expect(task!.title).to.equal('Order import refused: Auction DE');
    expect(task!.text).to.contain('connect it again');
    const connected = await orderImportRepository.connected(['auction_a']);
    expect(connected.map((a) => a.id)).to.not.include(portalAccountId);
  });

  it('when the channel refuses the fetch, then the task belongs to that portal account: a client bound to another portal account does not see it, one bound to this one does', async () => {
    const seller = await newSeller();
    const portalAccountId = await jsonAuctionAccount(seller, channel, 'Auction AT');
    channel.refuse = 'invalid_grant: the refresh token was revoked';
    expect((await importNow(seller, portalAccountId)).state).to.equal('failed');
    const other = await clientToken(seller, 'import-task-other', seller.portalAccountId, 'task_r');
    const own = await clientToken(seller, 'import-task-own', portalAccountId, 'task_r');
    expect((await tasks(seller)).map((t) => t.title)).to.deep.equal(['Order import refused: Auction AT']);
    expect(await tasks(seller, other), 'the other portal account’s client').to.deep.equal([]);
    expect((await tasks(seller, own)).map((t) => t.title)).to.deep.equal(['Order import refused: Auction AT']);
  });
});
