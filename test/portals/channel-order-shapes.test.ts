/**
 * Channel orders in shapes the vendors' contracts allow but the sandbox's sales do not make on
 * their own: each test reshapes a sandbox order as the contract permits (the sandbox checks its
 * answers against the contract, and the suite asserts no violation), imports it, and reads what
 * the seller sees through the API.
 * - eBay (sell_fulfillment_v1_oas3.json): `Amount.currency` is optional ("Default: the default
 *   currency of the eBay marketplace that hosts the listing"); `Order.program.fulfillmentProgram`
 *   is "only returned for paid orders being fulfilled by eBay or an eBay fulfillment partner";
 *   `LineItem.lineItemId` is optional (no field of the LineItem is required).
 * - Kaufland (seller-api-v2.openapi.json): `OrderDetails.fulfillment_type` is
 *   `fulfilled_by_kaufland` or `fulfilled_by_merchant`.
 * - Shopify (admin_schema_2025-01.json): `Order.test`, "Test orders are made using the Shopify
 *   Bogus Gateway or a payment provider with test mode enabled".
 */
import { expect } from 'chai';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { importOrders } from '../../lib/order-import/order-import.service';
import { kauflandOf } from '../../sandbox/kaufland.sandbox';
import type { EbayOrder } from '../../sandbox/ebay-state.sandbox';
import { channelLoopForSuite, Sandbox } from '../fleet/support';
import { createStock, stockQuantity } from '../order/helpers';
import { newSeller, Seller } from '../support/api';
import { kauflandItem } from './kaufland-support';
import { kontorOrder, sandboxPost, taskTexts } from './channel-support';

describe('channel orders in every shape the contracts allow', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  channelLoopForSuite((loop) => ({ sandbox } = loop));

  const post = (path: string, body: unknown) => sandboxPost(sandbox, path, body);

  /** Every Amount of an eBay order (any depth) without its currency, as the contract allows. */
  function withoutCurrencies(value: unknown): void {
    if (Array.isArray(value)) value.forEach(withoutCurrencies);
    else if (value && typeof value === 'object') {
      const o = value as Record<string, unknown>;
      if (typeof o.value === 'string') delete o.currency;
      Object.values(o).forEach(withoutCurrencies);
    }
  }

  async function ebaySale(seller: Seller, sku: string, price: string) {
    const { id: ebayId } = await createPortalAccount(seller.id, { name: 'eBay shop', platform: 'auction_a' });
    const sale = async (p: string) => {
      const { order_id } = (await post('/_sandbox/ebay/orders', { portal_account: ebayId, lines: [{ sku, quantity: 2, price: p }] })) as { order_id: string };
      return { id: order_id, order: sandbox.state.ebay.orders.get(order_id)!.order as EbayOrder };
    };
    return { ebayId: Number(ebayId), first: await sale(price), sale };
  }

  it('when an eBay order names no currency in its amounts, then it is imported in its marketplace’s currency and the other orders of the page are imported too', async () => {
    const seller = await newSeller();
    await createStock(seller, 'SH-EBAY-CUR', 10);
    const { ebayId, first, sale } = await ebaySale(seller, 'SH-EBAY-CUR', '12.50');
    const second = await sale('9.00');
    withoutCurrencies(first.order);
    for (const l of first.order.lineItems ?? []) Object.assign(l, { listingMarketplaceId: 'EBAY_GB', purchaseMarketplaceId: 'EBAY_GB' });

    const run = await importOrders({ accountId: seller.id, portalAccountId: ebayId }, 'sh-ebay-cur');
    expect(run.orders).to.deep.include({ created: 2 });
    const order = (await kontorOrder(seller, first.id))!;
    expect(order.currency_id).to.equal('GBP');
    expect(order.line[0]).to.deep.include({ quantity: '2', price: '12.50' });
    expect(order.paid_amount).to.equal('25.00');
    expect((await kontorOrder(seller, second.id))!.paid_amount).to.equal('18.00');
  });

  it('when an eBay order names neither a currency nor a marketplace, then only that order is refused with a task, the others are imported', async () => {
    const seller = await newSeller();
    await createStock(seller, 'SH-EBAY-NONE', 10);
    const { ebayId, first, sale } = await ebaySale(seller, 'SH-EBAY-NONE', '12.50');
    const second = await sale('9.00');
    withoutCurrencies(first.order);

    const run = await importOrders({ accountId: seller.id, portalAccountId: ebayId }, 'sh-ebay-none');
    expect(run.orders).to.deep.include({ created: 1, refused: 1 });
    expect(await kontorOrder(seller, first.id)).to.equal(undefined);
    expect((await kontorOrder(seller, second.id))!.currency_id).to.equal('EUR');
    expect((await taskTexts(seller)).join('\n')).to.contain(`Order not imported: auction_a order ${first.id}`);
  });

  it('when eBay fulfils an order from its own warehouse (fulfillmentProgram EBAY), then it takes no stock from the seller, asks for no link and says eBay ships it', async () => {
    const seller = await newSeller();
    const stockId = await createStock(seller, 'SH-EBAY-FBE', 10);
    const { ebayId, first } = await ebaySale(seller, 'SH-EBAY-FBE', '12.50');
    first.order.program = { fulfillmentProgram: { fulfilledBy: 'EBAY' } };

    const run = await importOrders({ accountId: seller.id, portalAccountId: ebayId }, 'sh-ebay-fbe');
    expect(run.orders).to.deep.include({ created: 1 });
    const order = (await kontorOrder(seller, first.id))!;
    expect(order.line[0]).to.deep.include({ sku: 'SH-EBAY-FBE', quantity: '2', price: '12.50' });
    expect(order.line[0]!.stock_align_id ?? null).to.equal(null);
    expect(order.paid_amount).to.equal('25.00');
    expect(order.history.join('\n')).to.contain('the channel ships this order from its own warehouse');
    // document 2's market_d_fba is Amazon's: an eBay order does not fill it.
    expect(order.shipping).to.deep.include({ market_d_fba: { country_iso2: null, center_id: null } });
    expect(await stockQuantity(seller, stockId)).to.equal(10);
    expect((await taskTexts(seller)).join('\n')).not.to.contain('not linked to stock');
  });

  it('when eBay names no lineItemId on an order’s two lines, then both are imported with their own quantity and price, and a refund of one later lowers the paid amount and moves no line', async () => {
    const seller = await newSeller();
    const lamp = await createStock(seller, 'SH-EBAY-NOID-A', 10);
    const bulb = await createStock(seller, 'SH-EBAY-NOID-B', 10);
    const { id: ebayId } = await createPortalAccount(seller.id, { name: 'eBay shop', platform: 'auction_a' });
    const { order_id: id } = (await post('/_sandbox/ebay/orders', {
      portal_account: ebayId,
      lines: [
        { sku: 'SH-EBAY-NOID-A', quantity: 1, price: '20.00' },
        { sku: 'SH-EBAY-NOID-B', quantity: 3, price: '5.00' },
      ],
    })) as { order_id: string };
    const order = sandbox.state.ebay.orders.get(id)!.order as EbayOrder;
    for (const item of order.lineItems!) delete item.lineItemId;

    const first = await importOrders({ accountId: seller.id, portalAccountId: Number(ebayId) }, 'sh-ebay-noid-1');
    expect(first.orders).to.deep.include({ created: 1 });
    const imported = (await kontorOrder(seller, id))!;
    const lines = imported.line.map((l) => [l.sku, l.quantity, l.price]);
    expect(lines).to.deep.equal([
      ['SH-EBAY-NOID-A', '1', '20.00'],
      ['SH-EBAY-NOID-B', '3', '5.00'],
    ]);
    const ids = imported.line.map((l) => l.transaction_id);
    expect(new Set(ids).size, JSON.stringify(ids)).to.equal(2);
    expect(ids).not.to.include('');
    expect(imported.paid_amount).to.equal('35.00');
    expect([await stockQuantity(seller, lamp), await stockQuantity(seller, bulb)]).to.deep.equal([9, 7]);

    // The seller refunds the second line (Seller Hub: a line without an id is named by its place).
    await post(`/_sandbox/ebay/orders/${id}/refund`, { line_index: 1, amount: '15.00' });
    expect(order.lineItems![1]!.refunds).to.have.length(1);
    const second = await importOrders({ accountId: seller.id, portalAccountId: Number(ebayId) }, 'sh-ebay-noid-2');
    expect(second.orders).to.deep.include({ updated: 1 });
    const after = (await kontorOrder(seller, id))!;
    expect(after.line.map((l) => [l.sku, l.quantity, l.price])).to.deep.equal(lines);
    expect(after.line.map((l) => l.transaction_id)).to.deep.equal(ids);
    expect(after.paid_amount).to.equal('20.00');
    expect([await stockQuantity(seller, lamp), await stockQuantity(seller, bulb)]).to.deep.equal([9, 7]);
  });

  it('when Kaufland fulfils an order (fulfilled_by_kaufland), then it takes no stock from the seller, asks for no link and says Kaufland ships it', async () => {
    const { seller, portalAccountId, stockId, list } = await kauflandItem('SH-KL-FBK');
    expect((await list()).state).to.equal('completed');
    const placed = (await post('/_sandbox/kaufland/orders', {
      portal_account: portalAccountId,
      lines: [{ id_offer: 'SH-KL-FBK', quantity: 1, price: '24.90' }],
      fulfillment_type: 'fulfilled_by_kaufland',
    })) as { id_order: string };
    expect(kauflandOf(sandbox.state).orders.get(placed.id_order)).to.deep.include({ fulfillment_type: 'fulfilled_by_kaufland' });

    const run = await importOrders({ accountId: seller.id, portalAccountId: Number(portalAccountId) }, 'sh-kl-fbk');
    expect(run.orders).to.deep.include({ created: 1 });
    const order = (await kontorOrder(seller, placed.id_order))!;
    expect(order.line[0]).to.deep.include({ sku: 'SH-KL-FBK', quantity: '1', price: '24.90' });
    expect(order.line[0]!.stock_align_id ?? null).to.equal(null);
    expect(order.history.join('\n')).to.contain('the channel ships this order from its own warehouse');
    expect(await stockQuantity(seller, stockId)).to.equal(10);
    expect((await taskTexts(seller)).join('\n')).not.to.contain('not linked to stock');
  });

  it('when a Shopify order is a test checkout (Order.test), then it is not imported: no order, no stock taken, while the store’s real orders are', async () => {
    const seller = await newSeller();
    const stockId = await createStock(seller, 'SH-SHOP-TEST', 10);
    const { id: shopId } = await createPortalAccount(seller.id, { name: 'Shopify store', platform: 'webshop' });
    const place = async (test: boolean) => {
      const placed = await post('/_sandbox/shopify/orders', { portal_account: shopId, test, lines: [{ sku: 'SH-SHOP-TEST', quantity: 2, price: '19.90' }] });
      return String(placed.id).split('/').pop()!;
    };
    const testOrder = await place(true);
    const real = await place(false);

    const run = await importOrders({ accountId: seller.id, portalAccountId: Number(shopId) }, 'sh-shop-test');
    expect(run.orders).to.deep.include({ created: 1 });
    expect(await kontorOrder(seller, testOrder)).to.equal(undefined);
    expect((await kontorOrder(seller, real))!.line[0]).to.deep.include({ sku: 'SH-SHOP-TEST', quantity: '2' });
    expect(await stockQuantity(seller, stockId)).to.equal(8);

    // A later change of the test order (refunded, say) does not bring it in either.
    await post(`/_sandbox/shopify/orders/${testOrder}/refund`, {});
    await importOrders({ accountId: seller.id, portalAccountId: Number(shopId) }, 'sh-shop-test-2');
    expect(await kontorOrder(seller, testOrder)).to.equal(undefined);
    expect(await stockQuantity(seller, stockId)).to.equal(8);
  });
});
