/**
 * A Kaufland order unit whose `GET /order-units/{id_order_unit}` answers 404 ("Resource not found",
 * a documented answer of seller-api-v2.openapi.json) while the order still names it: its eco_fee
 * and packaging_fee (named on OrderUnit, not on OrderDetails' units) are then not known, and a
 * later read keeps the line's price with its fees, as the import set it. Read through the API
 * (GET order/{id}/, GET stock/{id}/); the sandbox plays the 404
 * (POST /_sandbox/kaufland/order-units/:id/unreadable).
 */
import { expect } from 'chai';
import { importOrders } from '../../lib/order-import/order-import.service';
import { channelLoopForSuite, Sandbox } from '../fleet/support';
import { stockQuantity } from '../order/helpers';
import { channelChangeHelpers } from './channel-changes-support';
import { kauflandItem } from './kaufland-support';

describe('Kaufland: a later read while an order unit cannot be shown', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  channelLoopForSuite((loop) => ({ sandbox } = loop));

  const { post, kontorOrder } = channelChangeHelpers(() => sandbox);

  /** A Kaufland order of 2 pieces at 20.00 with an eco fee of 1.50 and a packaging fee of 0.50 each. */
  async function withFees(sku: string, status: 'open' | 'need_to_be_sent') {
    const item = await kauflandItem(sku);
    expect((await item.list()).state).to.equal('completed');
    const placed = (await post('/_sandbox/kaufland/orders', {
      portal_account: item.portalAccountId,
      lines: [{ id_offer: sku, quantity: 2, price: '20.00', eco_fee: '1.50', packaging_fee: '0.50' }],
      status,
    })) as { id_order: string; id_order_units: number[] };
    return { ...item, portalAccountId: Number(item.portalAccountId), placed, units: placed.id_order_units };
  }

  /** After this, the order's first unit changes and the second does not: a fetch from here reads the second by id. */
  async function laterWindow() {
    await new Promise((r) => setTimeout(r, 1100));
    return new Date().toISOString();
  }

  const notFoundReads = (unit: number) =>
    sandbox.state.requests.filter((r) => r.portal === 'market_e' && r.method === 'GET' && r.path === `/v2/order-units/${unit}` && r.status === 404).length;

  const prices = (order: { line: Record<string, unknown>[] }) => order.line.map((l) => [l.quantity, l.price]);

  it('when the unpaid order is read again while one unit cannot be shown, then that line keeps the price with its fees and only the real change applies', async () => {
    const { seller, portalAccountId, stockId, placed, units } = await withFees('LR-KL-404', 'open');
    const first = await importOrders({ accountId: seller.id, portalAccountId }, 'lr-kl-404-1');
    expect(first.orders).to.deep.include({ created: 1 });
    const imported = await kontorOrder(seller, placed.id_order);
    expect(prices(imported)).to.deep.equal([
      ['1', '22.00'],
      ['1', '22.00'],
    ]);
    expect(imported.invoice_amount).to.equal('44.00');
    expect(await stockQuantity(seller, stockId)).to.equal(8);

    const since = await laterWindow();
    await post(`/_sandbox/kaufland/order-units/${units[1]}/unreadable`, { unreadable: true });
    await post(`/_sandbox/kaufland/order-units/${units[0]}/status`, { status: 'cancelled' });
    const second = await importOrders({ accountId: seller.id, portalAccountId, since }, 'lr-kl-404-2');
    expect(second.orders).to.deep.include({ updated: 1 });
    expect(notFoundReads(units[1]!)).to.equal(1);
    const order = await kontorOrder(seller, placed.id_order);
    expect(prices(order)).to.deep.equal([
      ['0', '22.00'],
      ['1', '22.00'],
    ]);
    expect(order.invoice_amount).to.equal('22.00');
    expect(order.history.at(-1)).to.match(/: line 1 quantity 1 -> 0$/);
    expect(await stockQuantity(seller, stockId)).to.equal(9);

    // Shown again: the same price, nothing changes.
    await post(`/_sandbox/kaufland/order-units/${units[1]}/unreadable`, { unreadable: false });
    const third = await importOrders({ accountId: seller.id, portalAccountId, since }, 'lr-kl-404-3');
    expect(third.orders.updated ?? 0).to.equal(0);
    const after = await kontorOrder(seller, placed.id_order);
    expect(prices(after)).to.deep.equal(prices(order));
    expect(after.history).to.have.length(order.history.length);
  });

  it('when the paid order is read again while one unit cannot be shown, then its paid amount and prices stay and it stays paid in full', async () => {
    const { seller, portalAccountId, placed, units } = await withFees('LR-KL-404P', 'need_to_be_sent');
    await importOrders({ accountId: seller.id, portalAccountId }, 'lr-kl-404p-1');
    const imported = await kontorOrder(seller, placed.id_order);
    expect([imported.invoice_amount, imported.paid_amount]).to.deep.equal(['44.00', '44.00']);

    const since = await laterWindow();
    await post(`/_sandbox/kaufland/order-units/${units[1]}/unreadable`, { unreadable: true });
    await post(`/_sandbox/kaufland/order-units/${units[0]}/status`, { status: 'sent' });
    await importOrders({ accountId: seller.id, portalAccountId, since }, 'lr-kl-404p-2');
    expect(notFoundReads(units[1]!)).to.equal(1);
    const order = await kontorOrder(seller, placed.id_order);
    expect(prices(order)).to.deep.equal([
      ['1', '22.00'],
      ['1', '22.00'],
    ]);
    expect([order.invoice_amount, order.paid_amount]).to.deep.equal(['44.00', '44.00']);
    expect(order.status).to.deep.include({ is_paid: true });
    expect(order.history).to.have.length(imported.history.length);
  });

  it('when a new order is first read while one unit cannot be shown, then that line comes in without its fees, the history says so, and a later read that shows them completes the price', async () => {
    const { seller, portalAccountId, placed, units } = await withFees('LR-KL-404N', 'open');
    const since = await laterWindow();
    await post(`/_sandbox/kaufland/order-units/${units[1]}/unreadable`, { unreadable: true });
    await post(`/_sandbox/kaufland/order-units/${units[0]}/status`, { status: 'open' });
    const first = await importOrders({ accountId: seller.id, portalAccountId, since }, 'lr-kl-404n-1');
    expect(first.orders).to.deep.include({ created: 1 });
    const imported = await kontorOrder(seller, placed.id_order);
    expect(prices(imported)).to.deep.equal([
      ['1', '22.00'],
      ['1', '20.00'],
    ]);
    expect(imported.history.join('\n')).to.contain('line 2: the channel could not show its whole price');

    await post(`/_sandbox/kaufland/order-units/${units[1]}/unreadable`, { unreadable: false });
    const second = await importOrders({ accountId: seller.id, portalAccountId, since }, 'lr-kl-404n-2');
    expect(second.orders).to.deep.include({ updated: 1 });
    const order = await kontorOrder(seller, placed.id_order);
    expect(prices(order)).to.deep.equal([
      ['1', '22.00'],
      ['1', '22.00'],
    ]);
    expect(order.history.at(-1)).to.contain('prices, shipping and address completed (invoice amount 42.00 -> 44.00)');
  });
});
