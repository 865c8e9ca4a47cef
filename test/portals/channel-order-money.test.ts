/**
 * The money of channel orders as the vendors' contracts describe it, imported so that an order
 * the channel calls fully paid is fully paid in Kontor (document 1, states rule 2: any
 * paid_amount other than invoice_amount is only partially paid, so no paid_in_full and no
 * shipment). Each test makes the order at the sandbox in the contract's shape (the sandbox checks
 * its answers against the contract; the suite asserts no violation), imports it, and reads what
 * the seller sees through the API.
 * - eBay (sell_fulfillment_v1_oas3.json): 'Collect and Remit' tax is inside
 *   `paymentSummary.payments[].amount` and `totalDueSeller` (Payment.amount), shown per line in
 *   `ebayCollectAndRemitTaxes`; refund amounts are "the seller's net amount ... eBay-collected tax
 *   will not be included"; `pricingSummary.adjustment` is a price change after the sale, in the
 *   order's total but on no line.
 * - Shopify (admin_schema_2025-01.json): `Order.taxesIncluded`, "Whether taxes are included in the
 *   subtotal price of the order"; `LineItem.taxLines`, "The taxes charged for the line item";
 *   `TaxLine.priceSet`, "The amount of tax ... after discounts and before returns", and `rate`,
 *   "The proportion of the line item price that the tax represents as a decimal";
 *   `ShippingLine.discountedPriceSet`: "If the parent order.taxesIncluded field is true, then this
 *   price includes taxes. If not, it's the pre-tax price."
 * - Kaufland (seller-api-v2.openapi.json): `OrderUnit.eco_fee` and `packaging_fee` (integer cents,
 *   nullable) beside `price` and `shipping_rate`; OrderUnitStatus `returned_paid`.
 */
import { expect } from 'chai';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { importOrders } from '../../lib/order-import/order-import.service';
import { kauflandOf } from '../../sandbox/kaufland.sandbox';
import { shopifyOf } from '../../sandbox/shopify.sandbox';
import { channelLoopForSuite, Sandbox } from '../fleet/support';
import { createStock, stockQuantity } from '../order/helpers';
import { newSeller, Seller } from '../support/api';
import { kauflandItem } from './kaufland-support';
import { ebaySandboxOrder, kontorOrder, sandboxPost } from './channel-support';

describe('channel order money: what the seller received, as the contracts describe it', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  channelLoopForSuite((loop) => ({ sandbox } = loop));

  const post = (path: string, body: unknown) => sandboxPost(sandbox, path, body);

  const ebayOrder = (seller: Seller, body: Record<string, unknown>) => ebaySandboxOrder(sandbox, seller, body);

  describe('eBay Collect and Remit tax', () => {
    it('when eBay collected VAT from the buyer, then the order is imported fully paid at the seller’s amount (the payment less that tax)', async () => {
      const seller = await newSeller();
      const stockId = await createStock(seller, 'CR-EBAY-1', 10);
      const { ebayId, id, order } = await ebayOrder(seller, {
        currency: 'EUR',
        lines: [{ sku: 'CR-EBAY-1', quantity: 2, price: '12.50', collect_and_remit_tax: '4.75' }],
      });
      // The contract's shape: the tax on the line twice (taxes, ebayCollectAndRemitTaxes) and inside the payment.
      expect(order.ebayCollectAndRemitTax).to.equal(true);
      expect(order.lineItems![0]!.ebayCollectAndRemitTaxes).to.deep.equal([
        { taxType: 'VAT', amount: { value: '4.75', currency: 'EUR' }, collectionMethod: 'NET' },
      ]);
      expect(order.lineItems![0]!.taxes).to.deep.equal([{ amount: { value: '4.75', currency: 'EUR' } }]);
      expect(order.paymentSummary!.payments![0]!.amount).to.deep.equal({ value: '29.75', currency: 'EUR' });
      expect(order.paymentSummary!.totalDueSeller).to.deep.equal({ value: '29.75', currency: 'EUR' });
      expect(order.pricingSummary!.total).to.deep.equal({ value: '25.00', currency: 'EUR' });

      const run = await importOrders({ accountId: seller.id, portalAccountId: ebayId }, 'cr-ebay-1');
      expect(run.orders).to.deep.include({ created: 1 });
      const imported = (await kontorOrder(seller, id))!;
      expect(imported.line[0]).to.deep.include({ sku: 'CR-EBAY-1', quantity: '2', price: '12.50' });
      expect(imported.invoice_amount).to.equal('25.00');
      expect(imported.paid_amount).to.equal('25.00');
      expect(imported.status.is_paid).to.equal(true);
      expect(await stockQuantity(seller, stockId)).to.equal(8);
    });

    it('when eBay collected US sales tax on one of two lines, then only that tax is taken off the payment', async () => {
      const seller = await newSeller();
      await createStock(seller, 'CR-EBAY-2A', 10);
      await createStock(seller, 'CR-EBAY-2B', 10);
      const { ebayId, id } = await ebayOrder(seller, {
        currency: 'USD',
        lines: [
          { sku: 'CR-EBAY-2A', quantity: 1, price: '40.00', collect_and_remit_tax: '3.30', collect_and_remit_type: 'STATE_SALES_TAX' },
          { sku: 'CR-EBAY-2B', quantity: 3, price: '5.00' },
        ],
      });
      await importOrders({ accountId: seller.id, portalAccountId: ebayId }, 'cr-ebay-2');
      const imported = (await kontorOrder(seller, id))!;
      expect(imported.invoice_amount).to.equal('55.00');
      expect(imported.paid_amount).to.equal('55.00');
    });

    it('when the seller refunds a line, then the rest, of an order with collected tax, then the paid amount falls by the seller’s net refunds to nothing', async () => {
      const seller = await newSeller();
      await createStock(seller, 'CR-EBAY-3A', 10);
      await createStock(seller, 'CR-EBAY-3B', 10);
      const { ebayId, id, order } = await ebayOrder(seller, {
        currency: 'GBP',
        lines: [
          { sku: 'CR-EBAY-3A', quantity: 1, price: '20.00', collect_and_remit_tax: '4.00' },
          { sku: 'CR-EBAY-3B', quantity: 1, price: '15.00', collect_and_remit_tax: '3.00' },
        ],
      });
      await importOrders({ accountId: seller.id, portalAccountId: ebayId }, 'cr-ebay-3a');
      expect((await kontorOrder(seller, id))!.paid_amount).to.equal('35.00');

      // A line refund is the seller's net: 15.00 (the buyer gets the 3.00 tax back from eBay too).
      await post(`/_sandbox/ebay/orders/${id}/refund`, { line_item_id: order.lineItems![1]!.lineItemId, amount: '15.00' });
      const second = await importOrders({ accountId: seller.id, portalAccountId: ebayId }, 'cr-ebay-3b');
      expect(second.orders).to.deep.include({ updated: 1 });
      const partly = (await kontorOrder(seller, id))!;
      expect(partly.paid_amount).to.equal('20.00');
      expect(partly.status.is_paid).to.equal(true);

      await post(`/_sandbox/ebay/orders/${id}/refund`, {});
      expect(sandbox.state.ebay.orders.get(id)!.order).to.deep.include({ orderPaymentStatus: 'FULLY_REFUNDED' });
      await importOrders({ accountId: seller.id, portalAccountId: ebayId }, 'cr-ebay-3c');
      expect((await kontorOrder(seller, id))!.paid_amount).to.equal('0.00');
    });
  });

  describe('eBay price adjustment after the sale', () => {
    it('when eBay lowered the order’s price after the sale (pricingSummary.adjustment), then the lines carry it and the order is fully paid', async () => {
      const seller = await newSeller();
      await createStock(seller, 'ADJ-EBAY-A', 10);
      await createStock(seller, 'ADJ-EBAY-B', 10);
      const { ebayId, id, order } = await ebayOrder(seller, {
        currency: 'EUR',
        adjustment: '-3.50',
        lines: [
          { sku: 'ADJ-EBAY-A', quantity: 1, price: '20.00' },
          { sku: 'ADJ-EBAY-B', quantity: 2, price: '7.50' },
        ],
      });
      expect(order.pricingSummary).to.deep.include({ adjustment: { value: '-3.50', currency: 'EUR' }, total: { value: '31.50', currency: 'EUR' } });

      await importOrders({ accountId: seller.id, portalAccountId: ebayId }, 'adj-ebay-1');
      const imported = (await kontorOrder(seller, id))!;
      // Shared by the lines' cost: 20.00 takes 2.00 of it, 15.00 takes 1.50 (0.75 a unit).
      expect(imported.line.map((l) => [l.sku, l.quantity, l.price])).to.deep.equal([
        ['ADJ-EBAY-A', '1', '18.00'],
        ['ADJ-EBAY-B', '2', '6.75'],
      ]);
      expect(imported.invoice_amount).to.equal('31.50');
      expect(imported.paid_amount).to.equal('31.50');
      expect(imported.status.is_paid).to.equal(true);
    });
  });

  describe('Shopify stores whose prices exclude tax', () => {
    /** A Shopify order placed at the sandbox's store (POST /_sandbox/shopify/orders) for a new webshop account of the seller. */
    async function shopifyOrder(seller: Seller, body: Record<string, unknown>) {
      const { id: shopId } = await createPortalAccount(seller.id, { name: 'Shopify store', platform: 'webshop' });
      const placed = (await post('/_sandbox/shopify/orders', { portal_account: shopId, ...body })) as { id: string };
      return { shopId: Number(shopId), id: placed.id.split('/').pop()!, order: shopifyOf(sandbox.state).orders.get(placed.id)! };
    }

    it('when a US store sells net of tax (taxesIncluded false), then the lines and shipping are imported gross and the order is fully paid at what the buyer paid', async () => {
      const seller = await newSeller();
      const stockA = await createStock(seller, 'TX-SHOP-A', 10);
      await createStock(seller, 'TX-SHOP-B', 10);
      const { shopId, id, order } = await shopifyOrder(seller, {
        currency: 'USD',
        taxes_included: false,
        lines: [
          {
            sku: 'TX-SHOP-A',
            quantity: 2,
            price: '20.00',
            tax_lines: [
              { title: 'CA State Tax', rate: 0.0625 },
              { title: 'Los Angeles County Tax', rate: 0.01 },
            ],
          },
          { sku: 'TX-SHOP-B', quantity: 3, price: '9.99', tax_lines: [{ title: 'CA State Tax', rate: 0.0625 }] },
        ],
        shipping: '5.00',
        shipping_tax_lines: [{ title: 'CA State Tax', rate: 0.0625 }],
      });
      // The contract's shape: net prices, the tax on each line (and the shipping line) as amounts with their rate.
      expect(order).to.deep.include({ taxesIncluded: false, currencyCode: 'USD' });
      expect(order.lines.map((l) => l.taxLines)).to.deep.equal([
        [
          { title: 'CA State Tax', rate: 0.0625, amount: '2.50' },
          { title: 'Los Angeles County Tax', rate: 0.01, amount: '0.40' },
        ],
        [{ title: 'CA State Tax', rate: 0.0625, amount: '1.87' }],
      ]);
      expect(order.shippingTaxLines).to.deep.equal([{ title: 'CA State Tax', rate: 0.0625, amount: '0.31' }]);

      const run = await importOrders({ accountId: seller.id, portalAccountId: shopId }, 'tx-shop-1');
      expect(run.orders).to.deep.include({ created: 1 });
      const imported = (await kontorOrder(seller, id))!;
      // A: 20.00 + 2.90 / 2 = 21.45, state and county 7.25 %. B: 9.99 + 1.87 / 3 = 10.61 (0.62 a
      // unit, a cent left over); shipping 5.00 + 0.31 + the cent B's units could not carry.
      expect(imported.line.map((l) => [l.sku, l.quantity, l.price, l.tax])).to.deep.equal([
        ['TX-SHOP-A', '2', '21.45', '7.25'],
        ['TX-SHOP-B', '3', '10.61', '6.25'],
      ]);
      expect(imported.shipping.fee).to.equal('5.32');
      expect(imported.invoice_amount).to.equal('80.05');
      expect(imported.paid_amount).to.equal('80.05');
      expect(imported.status.is_paid).to.equal(true);
      expect(imported.currency_id).to.equal('USD');
      expect(await stockQuantity(seller, stockA)).to.equal(8);
    });

    it('when a store’s prices include tax (taxesIncluded true, a German store), then its prices are imported as they are, each line with its rate (shopify-money.test.ts has the cases)', async () => {
      const seller = await newSeller();
      await createStock(seller, 'TX-SHOP-DE', 10);
      const { shopId, id, order } = await shopifyOrder(seller, {
        lines: [{ sku: 'TX-SHOP-DE', quantity: 2, price: '19.90', tax_lines: [{ title: 'DE MwSt', rate: 0.19 }] }],
        shipping: '4.90',
        shipping_tax_lines: [{ title: 'DE MwSt', rate: 0.19 }],
      });
      expect(order.taxesIncluded).to.equal(true);
      // Included: the tax is the part of the gross price the rate names (39.80 / 1.19 * 0.19).
      expect(order.lines[0]!.taxLines).to.deep.equal([{ title: 'DE MwSt', rate: 0.19, amount: '6.35' }]);

      await importOrders({ accountId: seller.id, portalAccountId: shopId }, 'tx-shop-2');
      const imported = (await kontorOrder(seller, id))!;
      expect(imported.line[0]).to.deep.include({ sku: 'TX-SHOP-DE', quantity: '2', price: '19.90', tax: '19.00' });
      expect(imported.shipping.fee).to.equal('4.90');
      expect(imported.invoice_amount).to.equal('44.70');
      expect(imported.paid_amount).to.equal('44.70');
    });
  });

  describe('Kaufland fees and returns', () => {
    it('when Kaufland charges an eco fee and a packaging fee on the order units, then each unit’s line carries them and the order is fully paid', async () => {
      const { seller, portalAccountId, list } = await kauflandItem('FEE-KL-1');
      expect((await list()).state).to.equal('completed');
      const placed = (await post('/_sandbox/kaufland/orders', {
        portal_account: portalAccountId,
        lines: [{ id_offer: 'FEE-KL-1', quantity: 2, price: '24.90', shipping: '3.90', eco_fee: '0.50', packaging_fee: '0.20' }],
      })) as { id_order: string; id_order_units: number[] };
      // On each order unit (OrderUnit, GET /order-units), not on OrderDetails' units, as the contract names them.
      const units = placed.id_order_units.map((id) => kauflandOf(sandbox.state).orderUnits.get(id)!);
      expect(units.map((u) => [u.price, u.eco_fee, u.packaging_fee])).to.deep.equal([
        [2490, 50, 20],
        [2490, 50, 20],
      ]);

      await importOrders({ accountId: seller.id, portalAccountId: Number(portalAccountId) }, 'fee-kl-1');
      const imported = (await kontorOrder(seller, placed.id_order))!;
      expect(imported.line.map((l) => [l.sku, l.quantity, l.price])).to.deep.equal([
        ['FEE-KL-1', '1', '25.60'],
        ['FEE-KL-1', '1', '25.60'],
      ]);
      expect(imported.shipping.fee).to.equal('3.90');
      expect(imported.invoice_amount).to.equal('55.10');
      expect(imported.paid_amount).to.equal('55.10');
    });

    it('when an order unit is returned and its money paid back (returned_paid), then its money leaves the paid amount while the line stays shipped, and the history tells the seller once to book the piece in (nothing said a piece came back)', async () => {
      const { seller, portalAccountId, stockId, list } = await kauflandItem('RET-KL-1');
      expect((await list()).state).to.equal('completed');
      const placed = (await post('/_sandbox/kaufland/orders', {
        portal_account: portalAccountId,
        lines: [{ id_offer: 'RET-KL-1', quantity: 2, price: '24.90', shipping: '3.90' }],
      })) as { id_order: string; id_order_units: number[] };
      const [first, second] = placed.id_order_units;
      for (const unit of [first, second]) await post(`/_sandbox/kaufland/order-units/${unit}/status`, { status: 'sent' });
      await importOrders({ accountId: seller.id, portalAccountId: Number(portalAccountId) }, 'ret-kl-1');
      expect((await kontorOrder(seller, placed.id_order))!.paid_amount).to.equal('53.70');

      // The second piece comes back (returned: still the buyer's money), then is paid back.
      await post(`/_sandbox/kaufland/order-units/${second}/status`, { status: 'returned' });
      await importOrders({ accountId: seller.id, portalAccountId: Number(portalAccountId) }, 'ret-kl-2');
      expect((await kontorOrder(seller, placed.id_order))!.paid_amount).to.equal('53.70');
      await post(`/_sandbox/kaufland/order-units/${second}/status`, { status: 'returned_paid' });
      await importOrders({ accountId: seller.id, portalAccountId: Number(portalAccountId) }, 'ret-kl-3');
      const partly = (await kontorOrder(seller, placed.id_order))!;
      expect(partly.paid_amount).to.equal('28.80');
      expect(partly.status.is_paid).to.equal(true);
      expect(partly.status.is_shipped).to.equal(true);
      expect(partly.line.map((l) => l.quantity)).to.deep.equal(['1', '1']);
      expect(await stockQuantity(seller, stockId)).to.equal(8);
      const told = partly.history.filter((h) => /returned/.test(h));
      expect(told).to.have.length(1);
      expect(told[0]).to.match(/line 2 quantity 1 -> 0 at the channel, but the order is shipped here: not applied.*line 2: 1 returned .*book them in here/);

      // Both paid back: nothing is paid any more (as Shopify's REFUNDED, eBay's FULLY_REFUNDED).
      await post(`/_sandbox/kaufland/order-units/${first}/status`, { status: 'returned_paid' });
      await importOrders({ accountId: seller.id, portalAccountId: Number(portalAccountId) }, 'ret-kl-4');
      const refunded = (await kontorOrder(seller, placed.id_order))!;
      expect(refunded.paid_amount).to.equal('0.00');
      expect(refunded.status.is_paid).to.equal(false);
      // The first piece told now; the second not again.
      const returns = refunded.history.flatMap((h) => h.match(/line \d: 1 returned/g) ?? []);
      expect(returns).to.deep.equal(['line 2: 1 returned', 'line 1: 1 returned']);
      expect(await stockQuantity(seller, stockId)).to.equal(8);
    });

    it('when an order is first imported after a unit was returned and paid back (returned_paid), then its shipping rate leaves the shipping fee with its line, and the order is paid in full (the fee kept it: invoice 28.80 against 24.90 paid, only partially paid)', async () => {
      const { seller, portalAccountId, stockId, list } = await kauflandItem('RET-KL-2');
      expect((await list()).state).to.equal('completed');
      const placed = (await post('/_sandbox/kaufland/orders', {
        portal_account: portalAccountId,
        lines: [{ id_offer: 'RET-KL-2', quantity: 2, price: '24.90', shipping: '3.90' }],
      })) as { id_order: string; id_order_units: number[] };
      const [first, second] = placed.id_order_units;
      for (const unit of [first, second]) await post(`/_sandbox/kaufland/order-units/${unit}/status`, { status: 'sent' });
      await post(`/_sandbox/kaufland/order-units/${first}/status`, { status: 'returned_paid' });
      await importOrders({ accountId: seller.id, portalAccountId: Number(portalAccountId) }, 'ret-kl-5');
      const imported = (await kontorOrder(seller, placed.id_order))!;
      expect(imported.line.map((l) => l.quantity)).to.deep.equal(['0', '1']);
      expect([imported.shipping.fee, imported.invoice_amount, imported.paid_amount]).to.deep.equal(['0.00', '24.90', '24.90']);
      expect(imported.status).to.deep.include({ is_paid: true, is_shipped: true });
      // One piece left the warehouse for good; the one that came back was never taken.
      expect(await stockQuantity(seller, stockId)).to.equal(9);
    });
  });
});
