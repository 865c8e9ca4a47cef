import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { importNewOrders } from '../../lib/order-import/channel-page.import';
import { orderImportRepository } from '../../lib/order-import/order-import.repository';
import { call, newSeller, query, Seller } from '../support/api';
import { whileDatabaseRefuses } from '../support/db-refusal';
import { ciaJobs, createStock, movements, stockQuantity } from '../order/helpers';
import { channelOrder, importNow, jsonAuctionAccount, withImportWorkerAndChannel } from './support';

interface Row {
  id: string;
  number: string;
  external_order_id: string;
  created_at: Date;
}

/** The seller's Kontor orders, by number. */
async function orders(seller: Seller): Promise<Row[]> {
  return db()('sales_order').select('id', 'number', 'external_order_id', 'created_at').where({ account_id: seller.id }).orderBy('number') as Promise<Row[]>;
}

const counts = (job: { result?: Record<string, unknown> }) => (job.result as { orders: Record<string, number> }).orders;

describe('order import: a page of new channel orders in one transaction', () => {
  const channel = withImportWorkerAndChannel(10);

  it('when a page holds several new orders, then they are created in one transaction with consecutive numbers, take stock once each, and a re-fetch creates none again', async () => {
    const seller = await newSeller();
    const mug = await createStock(seller, 'SKU-MUG', 20);
    const portalAccountId = await jsonAuctionAccount(seller, channel);
    const ciaBefore = await ciaJobs(seller, mug);
    const sold = [channelOrder(), channelOrder(), channelOrder(), channelOrder()];
    sold[2]!.line.push({ transaction_id: `${sold[2]!.external_order_id}-L2`, sku: 'SKU-NONE', name: 'Plate', quantity: 1, price: '4.90' });
    channel.orders.push(...sold);

    const first = await importNow(seller, portalAccountId);
    expect(first.state, first.error).to.equal('completed');
    expect(counts(first)).to.include({ created: 4, refused: 0 });
    const rows = await orders(seller);
    expect(rows.map((r) => r.external_order_id)).to.have.members(sold.map((o) => o.external_order_id));
    expect(rows.map((r) => Number(r.number))).to.deep.equal([1, 2, 3, 4]);
    // One transaction: every order has its start as created_at.
    expect(new Set(rows.map((r) => r.created_at.getTime())).size).to.equal(1);
    expect(await stockQuantity(seller, mug)).to.equal(12);
    expect((await movements(seller, mug)).filter((m) => m.order_id !== null).map((m) => m.order_id)).to.have.members(rows.map((r) => r.id));
    expect(await ciaJobs(seller, mug)).to.be.greaterThan(ciaBefore);
    const keys = (await db()('channel_order').select('external_order_id', 'order_id').where({ account_id: seller.id })) as {
      external_order_id: string;
      order_id: string;
    }[];
    expect(keys.map((k) => [k.external_order_id, k.order_id])).to.have.deep.members(rows.map((r) => [r.external_order_id, r.id]));
    // The unlinked line of the third order: one task naming that order.
    const task = await call(`task/?${query({ pagination: { limit: 100 } })}`, { token: seller.token });
    const tasks = task.body.task as { reference: { section: string; id: string }; text: string }[];
    const third = rows.find((r) => r.external_order_id === sold[2]!.external_order_id)!;
    expect(tasks.map((t) => t.reference)).to.deep.equal([{ section: 'order', id: third.id }]);

    const again = await importNow(seller, portalAccountId);
    expect(counts(again)).to.include({ created: 0, unchanged: 4 });
    expect(await orders(seller)).to.have.length(4);
    expect(await stockQuantity(seller, mug)).to.equal(12);
  });

  it('when the database refuses one order of a page, then the others are imported, the job fails for a retry, and a later fetch imports that order once', async () => {
    const seller = await newSeller();
    const mug = await createStock(seller, 'SKU-MUG', 20);
    const portalAccountId = await jsonAuctionAccount(seller, channel);
    const sold = [channelOrder(), channelOrder(), channelOrder()];
    channel.orders.push(...sold);
    const refusedId = sold[1]!.external_order_id;

    // A refusal only the database knows of: the page's set-based INSERT fails as a whole.
    const job = await whileDatabaseRefuses('sales_order', `external_order_id IS DISTINCT FROM '${refusedId}'`, () => importNow(seller, portalAccountId));
    expect(job.state).to.equal('failed');
    expect(job.error).to.contain('test_refusal');
    expect((await orders(seller)).map((r) => r.external_order_id)).to.have.members([sold[0]!.external_order_id, sold[2]!.external_order_id]);
    expect(await stockQuantity(seller, mug)).to.equal(16);
    // Its key was not kept: nothing stands in the way of the next fetch.
    expect(await db()('channel_order').where({ account_id: seller.id, external_order_id: refusedId }).first()).to.equal(undefined);

    const later = await importNow(seller, portalAccountId);
    expect(later.state, later.error).to.equal('completed');
    expect(counts(later)).to.include({ created: 1, unchanged: 2 });
    const rows = await orders(seller);
    expect(rows.map((r) => r.external_order_id)).to.have.members(sold.map((o) => o.external_order_id));
    expect(rows).to.have.length(3);
    expect(await stockQuantity(seller, mug)).to.equal(14);
  });

  it('when the orders domain refuses one order of a page by a rule, then the others are imported, the seller gets a task and the key is free again', async () => {
    const seller = await newSeller();
    const portalAccountId = await jsonAuctionAccount(seller, channel);
    const odd = channelOrder({ currency_id: 'QQQ' });
    channel.orders.push(channelOrder(), odd, channelOrder());
    const job = await importNow(seller, portalAccountId);
    expect(job.state, job.error).to.equal('completed');
    expect(counts(job)).to.include({ created: 2, refused: 1 });
    expect((await orders(seller)).map((r) => Number(r.number))).to.deep.equal([1, 2]);
    expect(await db()('channel_order').where({ account_id: seller.id, external_order_id: odd.external_order_id }).first()).to.equal(undefined);
    const task = await call(`task/?${query({ pagination: { limit: 100 } })}`, { token: seller.token });
    const refusals = (task.body.task as { title: string }[]).map((t) => t.title).filter((t) => t.startsWith('Order not imported'));
    expect(refusals).to.deep.equal([`Order not imported: auction_a order ${odd.external_order_id} (portal account ${portalAccountId})`]);
  });

  it('when two fetchers import the same page at once, then each channel order is one Kontor order and stock is taken once', async () => {
    const seller = await newSeller();
    const mug = await createStock(seller, 'SKU-MUG', 20);
    const portalAccountId = await jsonAuctionAccount(seller, channel);
    const account = (await orderImportRepository.account(seller.id, portalAccountId))!;
    const page = [channelOrder(), channelOrder(), channelOrder()];
    const outcomes = await Promise.all(Array.from({ length: 3 }, () => importNewOrders(account, 'auction_a', structuredClone(page))));
    expect(outcomes.flat().filter((o) => o === 'created')).to.have.length(3);
    expect(outcomes.flat().filter((o) => o === 'unchanged')).to.have.length(6);
    expect(await orders(seller)).to.have.length(3);
    expect(await stockQuantity(seller, mug)).to.equal(14);
  });
});
