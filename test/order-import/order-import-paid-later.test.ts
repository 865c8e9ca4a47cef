/**
 * A known channel order priced or paid after its import, through a channel speaking the JSON
 * connector's dialect (ChannelOrder as it is): the channel's new prices are taken while the Kontor
 * order is neither shipped, invoiced nor cancelled, even when the channel already shows it shipped,
 * and contact the channel stopped showing then stays; an order the channel shows paid without an
 * amount is paid in full (lib/order-import README, "Data completed later" and "Known").
 */
import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { newSeller, Seller } from '../support/api';
import { createStock, orderEvents, readOrder } from '../order/helpers';
import { change, channelOrder, importNow, jsonAuctionAccount, withImportWorkerAndChannel } from './support';

describe('order import: a known order priced or paid after its import', () => {
  const channel = withImportWorkerAndChannel();

  const orderOf = async (seller: Seller, externalOrderId: string) => {
    const rows = await db()('sales_order').select('id').where({ account_id: seller.id, external_order_id: externalOrderId });
    expect(rows).to.have.length(1);
    return readOrder(seller, rows[0]!.id);
  };
  const counts = (job: { result?: Record<string, unknown> }) => (job.result as { orders: Record<string, number> }).orders;
  const unpaid = { is_paid: false, is_shipped: false, is_cancelled: false };

  it('when the channel shows the order shipped and paid with prices it changed, and no longer shows the phone and the addresses, then the prices are taken, the payment fits them, and the contact stays', async () => {
    const seller = await newSeller();
    await createStock(seller, 'SKU-MUG', 10);
    const portalAccountId = await jsonAuctionAccount(seller, channel);
    const sold = channelOrder({ paid_amount: '0.00', status: unpaid });
    sold.customer.phone_1 = '+49 30 1234';
    channel.orders.push(sold);
    expect(counts(await importNow(seller, portalAccountId))).to.include({ created: 1 });
    const before = await orderOf(seller, sold.external_order_id);
    expect(before.invoice_amount).to.equal('29.90');

    // Prices lowered before payment; shown paid and shipped by the next read, without the buyer's phone
    // and e-mail, without the billing address, and with the delivery address down to its city.
    change(sold, {
      line: [{ ...sold.line[0]!, price: '10.00' }],
      paid_amount: '24.90',
      status: { is_paid: true, is_shipped: true, is_cancelled: false },
      customer: { username: 'mug_lover_77', address: {} },
      shipping: { fee: '4.90', method: 'DHL Paket', address: { zip: '80331', city: 'München', country_iso2: 'DE' } },
    });
    const second = await importNow(seller, portalAccountId);
    expect(second.state, second.error).to.equal('completed');
    expect(counts(second)).to.include({ updated: 1 });
    const order = await orderOf(seller, sold.external_order_id);
    expect(order.line.map((l) => [l.quantity, l.price])).to.deep.equal([['2', '10.00']]);
    expect({ invoice_amount: order.invoice_amount, paid_amount: order.paid_amount }).to.deep.equal({ invoice_amount: '24.90', paid_amount: '24.90' });
    expect(order.status).to.deep.include({ is_paid: true, is_shipped: true });
    expect(order.customer).to.deep.include({ email: 'buyer@example.com', phone_1: '+49 30 1234' });
    expect(order.customer.address).to.deep.include({ name: 'Jürgen Müller', street: 'Hauptstr. 1', zip: '10115', city: 'Berlin', country_iso2: 'DE' });
    expect(order.shipping.address).to.deep.include({ name: 'Anna Müller', street: 'Nebenweg 2', zip: '80331', city: 'München', country_iso2: 'DE' });
    expect(await orderEvents(seller)).to.include(`paid_in_full:${order.id}`);
  });

  it('when the channel state was kept before it held is_paid, then the first read showing the order paid without an amount pays it in full, once', async () => {
    const seller = await newSeller();
    await createStock(seller, 'SKU-MUG', 10);
    const portalAccountId = await jsonAuctionAccount(seller, channel);
    const sold = channelOrder({ paid_amount: '0.00', status: unpaid });
    channel.orders.push(sold);
    expect(counts(await importNow(seller, portalAccountId))).to.include({ created: 1 });
    // As a row kept before is_paid was: without it.
    await db()('channel_order')
      .where({ account_id: seller.id, external_order_id: sold.external_order_id })
      .update({ channel_state: db().raw("channel_state - 'is_paid'") as unknown as string });

    change(sold, { status: { is_paid: true, is_shipped: false, is_cancelled: false } });
    expect(counts(await importNow(seller, portalAccountId))).to.include({ updated: 1 });
    const paid = await orderOf(seller, sold.external_order_id);
    expect({ paid_amount: paid.paid_amount, is_paid: paid.status.is_paid }).to.deep.equal({ paid_amount: '29.90', is_paid: true });
    expect(paid.invoice_number).to.not.equal(null);
    expect(paid.history.at(-1)).to.contain('paid 29.90 in full (the channel names no amount)');

    // Read again, changed otherwise (shipped): not paid a second time.
    change(sold, { status: { is_paid: true, is_shipped: true, is_cancelled: false } });
    expect(counts(await importNow(seller, portalAccountId))).to.include({ updated: 1 });
    const shipped = await orderOf(seller, sold.external_order_id);
    expect(shipped.paid_amount).to.equal('29.90');
    expect(shipped.history.filter((h) => h.includes('in full'))).to.have.length(1);
  });

  it('when the channel shows an order paid whose lines are still 0.00, then no money is booked on it and the history says why', async () => {
    const seller = await newSeller();
    await createStock(seller, 'SKU-MUG', 10);
    const portalAccountId = await jsonAuctionAccount(seller, channel);
    const free = channelOrder({ paid_amount: '0.00', status: unpaid, shipping: { address: {} } });
    free.line = [{ ...free.line[0]!, price: '0.00' }];
    const priced = channelOrder({ paid_amount: '0.00', status: unpaid, shipping: { address: {} } });
    priced.line = [{ ...priced.line[0]!, price: '0.00' }];
    channel.orders.push(free, priced);
    expect(counts(await importNow(seller, portalAccountId))).to.include({ created: 2 });

    // Paid without an amount, still without prices; and paid 25.00 on lines still 0.00 (their prices not given).
    change(free, { status: { is_paid: true, is_shipped: false, is_cancelled: false } });
    change(priced, { paid_amount: '25.00', status: { is_paid: true, is_shipped: false, is_cancelled: false } });
    await importNow(seller, portalAccountId);
    for (const [sold, said] of [
      [free, "paid at the channel without an amount, but the order's lines are still 0.00: not paid here"],
      [priced, "paid 25.00 at the channel, but the order's lines are still 0.00: not booked"],
    ] as const) {
      const order = await orderOf(seller, sold.external_order_id);
      expect({ paid_amount: order.paid_amount, is_paid: order.status.is_paid, invoice_number: order.invoice_number }).to.deep.equal({
        paid_amount: null,
        is_paid: false,
        invoice_number: null,
      });
      expect(order.history.at(-1)).to.contain(said);
    }
  });
});
