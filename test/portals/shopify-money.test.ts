/**
 * Shopify orders whose lines add up to what the buyer paid, to the cent, each line with its VAT
 * rate, read by the import and seen through GET order/{id}/ as a client reads it: lines, prices,
 * rates, invoice_amount, paid_amount, paid in full (document 1, states rule 2: any paid_amount
 * other than invoice_amount is only partially paid). The sandbox plays the shapes the contract
 * (admin_schema_2025-01.json) allows and checks every request against it:
 * - `LineItem.discountedUnitPriceAfterAllDiscountsSet`, "The approximate unit price": a discount
 *   spread over a line's units is rounded per unit; the exact amount is `originalTotalSet` less the
 *   line's `discountAllocations` (`allocatedAmountSet`, "including discounts allocated to refunded
 *   and removed quantities"), read only for orders with a discount and a line of several units.
 * - `Order.taxLines`, "all tax lines applied to line items on the order ... the total price for
 *   all tax lines with the same `rate` and `title`", and `LineItem.taxable`: a tax-included
 *   order's one rate without reading each line's `taxLines`; an order of several rates has them read.
 */
import { expect } from 'chai';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { importOrders } from '../../lib/order-import/order-import.service';
import { orderNode, shopifyOf } from '../../sandbox/shopify.sandbox';
import { channelLoopForSuite, Sandbox } from '../fleet/support';
import { createStock, orderEvents, stockQuantity } from '../order/helpers';
import { newSeller, Seller } from '../support/api';
import { kontorOrder, sandboxPost, taskTexts } from './channel-support';
import { db } from '../../lib/db/knex';

describe('Shopify order money: lines exact to the cent and their tax rates, through GET order/{id}/', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  channelLoopForSuite((loop) => ({ sandbox } = loop));

  /** A Shopify order placed at the sandbox's store (POST /_sandbox/shopify/orders) for a new webshop account of the seller. */
  async function shopifyOrder(seller: Seller, body: Record<string, unknown>) {
    const { id: shopId } = await createPortalAccount(seller.id, { name: 'Shopify store', platform: 'webshop' });
    const placed = (await sandboxPost(sandbox, '/_sandbox/shopify/orders', { portal_account: shopId, ...body })) as { id: string };
    return { shopId: Number(shopId), id: placed.id.split('/').pop()!, order: shopifyOf(sandbox.state).orders.get(placed.id)! };
  }

  /** The queries the import sent the store beyond the orders page for its lines' exact totals or tax lines (order-amounts.ts), oldest first. */
  const lineReads = (shopId: number) =>
    sandbox.state.requests
      .filter((r) => r.portal === 'webshop' && r.portalAccount === String(shopId))
      .map((r) => String((r.body as { query?: unknown }).query))
      .filter((q) => q.includes('KontorOrderLineAmounts'));

  describe('tax rates of a store whose prices include tax (taxesIncluded true, every EU store)', () => {
    it('when a store’s prices include tax (taxesIncluded true, a German store) at one rate, then the prices stay gross and each line gets its rate from the order’s tax lines, with no query more', async () => {
      const seller = await newSeller();
      await createStock(seller, 'TX-SHOP-DE', 10);
      await createStock(seller, 'TX-SHOP-CARD', 10);
      const { shopId, id, order } = await shopifyOrder(seller, {
        lines: [
          { sku: 'TX-SHOP-DE', quantity: 2, price: '19.90', tax_lines: [{ title: 'DE MwSt', rate: 0.19 }] },
          { sku: 'TX-SHOP-CARD', quantity: 1, price: '5.00', taxable: false },
        ],
        shipping: '4.90',
        shipping_tax_lines: [{ title: 'DE MwSt', rate: 0.19 }],
      });
      expect(order.taxesIncluded).to.equal(true);
      // Included: the tax is the part of the gross price the rate names (39.80 / 1.19 * 0.19).
      expect(order.lines[0]!.taxLines).to.deep.equal([{ title: 'DE MwSt', rate: 0.19, amount: '6.35' }]);
      expect(order.lines.map((l) => l.taxable)).to.deep.equal([true, false]);

      await importOrders({ accountId: seller.id, portalAccountId: shopId }, 'tx-shop-2');
      const imported = (await kontorOrder(seller, id))!;
      expect(imported.line.map((l) => [l.sku, l.quantity, l.price, l.tax])).to.deep.equal([
        ['TX-SHOP-DE', '2', '19.90', '19.00'],
        ['TX-SHOP-CARD', '1', '5.00', '0.00'],
      ]);
      expect(imported.shipping.fee).to.equal('4.90');
      expect(imported.invoice_amount).to.equal('49.70');
      expect(imported.paid_amount).to.equal('49.70');
      expect(imported.status.is_paid).to.equal(true);
      // Order.taxLines on the page told the rate: the lines' tax lines were not read.
      expect(lineReads(shopId)).to.deep.equal([]);
    });

    it('when a tax-included order holds two VAT rates and an untaxed line, then each line gets its own rate from its tax lines, read by one query', async () => {
      const seller = await newSeller();
      await createStock(seller, 'TX-SHOP-19', 10);
      await createStock(seller, 'TX-SHOP-BOOK', 10);
      await createStock(seller, 'TX-SHOP-FREE', 10);
      const { shopId, id } = await shopifyOrder(seller, {
        lines: [
          { sku: 'TX-SHOP-19', quantity: 2, price: '19.90', tax_lines: [{ title: 'DE MwSt', rate: 0.19 }] },
          { sku: 'TX-SHOP-BOOK', quantity: 1, price: '12.00', tax_lines: [{ title: 'DE MwSt ermäßigt', rate: 0.07 }] },
          { sku: 'TX-SHOP-FREE', quantity: 1, price: '3.00', taxable: false },
        ],
        shipping: '4.90',
      });
      await importOrders({ accountId: seller.id, portalAccountId: shopId }, 'tx-shop-3');
      const imported = (await kontorOrder(seller, id))!;
      expect(imported.line.map((l) => [l.sku, l.quantity, l.price, l.tax])).to.deep.equal([
        ['TX-SHOP-19', '2', '19.90', '19.00'],
        ['TX-SHOP-BOOK', '1', '12.00', '7.00'],
        ['TX-SHOP-FREE', '1', '3.00', '0.00'],
      ]);
      expect(imported.invoice_amount).to.equal('59.70');
      expect(imported.paid_amount).to.equal('59.70');
      expect(imported.status.is_paid).to.equal(true);
      expect(lineReads(shopId).map((q) => [q.includes('taxLines'), q.includes('originalTotalSet')])).to.deep.equal([[true, false]]);
    });

    it('when a taxable line of a one-rate order was charged no tax, then the order’s tax line does not hold it and the lines’ own tax lines give it 0.00', async () => {
      const seller = await newSeller();
      await createStock(seller, 'TX-SHOP-TAXED', 10);
      await createStock(seller, 'TX-SHOP-EXEMPT', 10);
      const { shopId, id, order } = await shopifyOrder(seller, {
        lines: [
          { sku: 'TX-SHOP-TAXED', quantity: 1, price: '23.80', tax_lines: [{ title: 'DE MwSt', rate: 0.19 }] },
          { sku: 'TX-SHOP-EXEMPT', quantity: 1, price: '20.00', taxable: true },
        ],
        shipping: '0.00',
      });
      expect(order.lines.map((l) => [l.taxable, l.taxLines.length])).to.deep.equal([
        [true, 1],
        [true, 0],
      ]);
      await importOrders({ accountId: seller.id, portalAccountId: shopId }, 'tx-shop-4');
      const imported = (await kontorOrder(seller, id))!;
      expect(imported.line.map((l) => [l.sku, l.price, l.tax])).to.deep.equal([
        ['TX-SHOP-TAXED', '23.80', '19.00'],
        ['TX-SHOP-EXEMPT', '20.00', '0.00'],
      ]);
      expect(imported.invoice_amount).to.equal('43.80');
      expect(imported.paid_amount).to.equal('43.80');
      expect(lineReads(shopId)).to.have.length(1);
    });
  });

  describe('discounts spread over a line’s units', () => {
    it('when a discount code is spread over a line of 3 units (a tax-included store), then the line carries the exact amount and the cents its unit price cannot hold go to the shipping fee: fully paid', async () => {
      const seller = await newSeller();
      const stockA = await createStock(seller, 'DC-SHOP-A', 10);
      await createStock(seller, 'DC-SHOP-B', 10);
      const { shopId, id, order } = await shopifyOrder(seller, {
        lines: [
          { sku: 'DC-SHOP-A', quantity: 3, price: '10.00', tax_lines: [{ title: 'DE MwSt', rate: 0.19 }] },
          { sku: 'DC-SHOP-B', quantity: 1, price: '15.00', tax_lines: [{ title: 'DE MwSt', rate: 0.19 }] },
        ],
        discount_code: { code: 'SPRING', amount: '1.00' },
        shipping: '4.90',
      });
      // The contract's shape: the code's 1.00 allocated across the lines (0.67 and 0.33), the
      // unit price after all discounts "approximate" (10.00 - 0.22 = 9.78: 29.34 for the 29.33 paid).
      expect(order.discountApplications).to.deep.equal([{ index: 1, code: 'SPRING', amount: '1.00', targetSelection: 'ALL' }]);
      expect(order.lines.map((l) => l.allocations)).to.deep.equal([[{ amount: '0.67', application: 1 }], [{ amount: '0.33', application: 1 }]]);

      const run = await importOrders({ accountId: seller.id, portalAccountId: shopId }, 'dc-shop-1');
      expect(run.orders).to.deep.include({ created: 1 });
      const imported = (await kontorOrder(seller, id))!;
      // A: 30.00 - 0.67 = 29.33 over 3 units is 9.77 each, 0.02 left to the shipping; B: 14.67.
      expect(imported.line.map((l) => [l.sku, l.quantity, l.price, l.tax])).to.deep.equal([
        ['DC-SHOP-A', '3', '9.77', '19.00'],
        ['DC-SHOP-B', '1', '14.67', '19.00'],
      ]);
      expect(imported.shipping.fee).to.equal('4.92');
      expect(imported.invoice_amount).to.equal('48.90');
      expect(imported.paid_amount).to.equal('48.90');
      expect(imported.status.is_paid).to.equal(true);
      expect(await stockQuantity(seller, stockA)).to.equal(7);
      // One query more, for the exact totals; the order's one rate needed no tax lines read.
      expect(lineReads(shopId).map((q) => [q.includes('originalTotalSet'), q.includes('taxLines')])).to.deep.equal([[true, false]]);
    });

    it('when a US store’s discount code is spread over 3 units, then the exact net total plus its tax is the gross line, read in one query with the taxes: fully paid', async () => {
      const seller = await newSeller();
      await createStock(seller, 'DC-SHOP-US', 10);
      const { shopId, id, order } = await shopifyOrder(seller, {
        currency: 'USD',
        taxes_included: false,
        lines: [{ sku: 'DC-SHOP-US', quantity: 3, price: '9.99', tax_lines: [{ title: 'CA State Tax', rate: 0.0625 }] }],
        discount_code: { code: 'TENOFF', amount: '1.00' },
        shipping: '5.00',
      });
      // 29.97 - 1.00 = 28.97 net (the page's unit price 9.66 says 28.98), tax 6.25 % of it 1.81.
      expect(order.lines[0]!.taxLines).to.deep.equal([{ title: 'CA State Tax', rate: 0.0625, amount: '1.81' }]);

      await importOrders({ accountId: seller.id, portalAccountId: shopId }, 'dc-shop-2');
      const imported = (await kontorOrder(seller, id))!;
      // 28.97 + 1.81 = 30.78 over 3 units: 10.26 each, nothing left.
      expect(imported.line.map((l) => [l.sku, l.quantity, l.price, l.tax])).to.deep.equal([['DC-SHOP-US', '3', '10.26', '6.25']]);
      expect(imported.shipping.fee).to.equal('5.00');
      expect(imported.invoice_amount).to.equal('35.78');
      expect(imported.paid_amount).to.equal('35.78');
      expect(imported.status.is_paid).to.equal(true);
      expect(lineReads(shopId).map((q) => [q.includes('originalTotalSet'), q.includes('taxLines')])).to.deep.equal([[true, true]]);
    });
  });

  describe('duties and additional fees the buyer pays on top (Order.dutiesIncluded, Order.additionalFees)', () => {
    it('when a GBP store charges an import’s duties on top of its prices and an additional fee, beside line and order discounts and a shipping discount, then the shipping fee carries them and the order is fully paid at what the buyer paid', async () => {
      const seller = await newSeller();
      const stockA = await createStock(seller, 'DU-SHOP-A', 10);
      const stockB = await createStock(seller, 'DU-SHOP-B', 10);
      const { shopId, id, order } = await shopifyOrder(seller, {
        currency: 'GBP',
        lines: [
          { sku: 'DU-SHOP-A', quantity: 2, price: '25.00', discount: '3.00', duty: '4.35', tax_lines: [{ title: 'GB VAT', rate: 0.2 }] },
          { sku: 'DU-SHOP-B', quantity: 3, price: '10.00', duty: '1.20', tax_lines: [{ title: 'GB VAT', rate: 0.2 }] },
        ],
        discount_code: { code: 'WELCOME5', amount: '5.00' },
        shipping: '8.00',
        shipping_discount: '2.00',
        additional_fees: [{ name: 'Retail Delivery Fee', amount: '0.28' }],
      });
      // The contract's shape: the duties on their lines (LineItem.duties) and not in the prices
      // (dutiesIncluded false), the fee on the order; both are in what the buyer paid: lines
      // 50.00 - 3.00 + 30.00 - 5.00 = 72.00, shipping 6.00, duties 5.55, fee 0.28.
      expect(order.dutiesIncluded).to.equal(false);
      expect(order.lines.map((l) => l.duty)).to.deep.equal(['4.35', '1.20']);

      const run = await importOrders({ accountId: seller.id, portalAccountId: shopId }, 'du-shop-1');
      expect(run.orders).to.deep.include({ created: 1 });
      const imported = (await kontorOrder(seller, id))!;
      expect(imported.currency_id).to.equal('GBP');
      // The code's 5.00 across 47.00 and 30.00: 3.06 and 1.94. A: 43.94 over 2 is 21.97; B: 28.06 over 3 is 9.35, 0.01 left.
      expect(imported.line.map((l) => [l.sku, l.quantity, l.price, l.tax])).to.deep.equal([
        ['DU-SHOP-A', '2', '21.97', '20.00'],
        ['DU-SHOP-B', '3', '9.35', '20.00'],
      ]);
      // 6.00 shipping after its discount + 5.55 duties + 0.28 fee + the 0.01 line B's unit price cannot hold.
      expect(imported.shipping.fee).to.equal('11.84');
      expect(imported.invoice_amount).to.equal('83.83');
      expect(imported.paid_amount).to.equal('83.83');
      expect(imported.status.is_paid).to.equal(true);
      expect(await stockQuantity(seller, stockA)).to.equal(8);
      expect(await stockQuantity(seller, stockB)).to.equal(7);
    });

    it('when a store’s prices include the duties (dutiesIncluded true), then nothing is added on top of them and the order is fully paid', async () => {
      const seller = await newSeller();
      await createStock(seller, 'DU-SHOP-IN', 10);
      const { shopId, id } = await shopifyOrder(seller, {
        currency: 'GBP',
        duties_included: true,
        lines: [{ sku: 'DU-SHOP-IN', quantity: 2, price: '30.00', duty: '2.40', tax_lines: [{ title: 'GB VAT', rate: 0.2 }] }],
        shipping: '5.00',
      });

      await importOrders({ accountId: seller.id, portalAccountId: shopId }, 'du-shop-2');
      const imported = (await kontorOrder(seller, id))!;
      expect(imported.line.map((l) => [l.sku, l.quantity, l.price])).to.deep.equal([['DU-SHOP-IN', '2', '30.00']]);
      expect(imported.shipping.fee).to.equal('5.00');
      expect(imported.invoice_amount).to.equal('65.00');
      expect(imported.paid_amount).to.equal('65.00');
      expect(imported.status.is_paid).to.equal(true);
    });

    it('when the store has cancelled a unit and given its duty back with it (a refund with refundDuties) before the order is imported, then the shipping fee holds only the duties left and the order is fully paid', async () => {
      const seller = await newSeller();
      const stock = await createStock(seller, 'DU-SHOP-RF', 10);
      await createStock(seller, 'DU-SHOP-RG', 10);
      const { shopId, id, order } = await shopifyOrder(seller, {
        currency: 'GBP',
        lines: [
          { sku: 'DU-SHOP-RF', quantity: 2, price: '25.00', duty: '4.00' },
          { sku: 'DU-SHOP-RG', quantity: 1, price: '10.00', duty: '1.00' },
        ],
        shipping: '5.00',
      });
      // One unit of the first line cancelled (CANCEL: unfulfilled, back to stock) before the first
      // fetch, its price and its half of the line's duty refunded: the buyer paid 70.00 and kept 43.00.
      const line = order.lines[0]!.id.split('/').pop();
      await sandboxPost(sandbox, `/_sandbox/shopify/orders/${id}/refund`, { line, quantity: 1, restock_type: 'CANCEL', amount: '27.00', duty: '2.00' });
      expect(order.lines[0]!.dutyRefunded).to.equal('2.00');

      await importOrders({ accountId: seller.id, portalAccountId: shopId }, 'du-shop-r1');
      const imported = (await kontorOrder(seller, id))!;
      expect(imported.line.map((l) => [l.sku, l.quantity, l.price])).to.deep.equal([
        ['DU-SHOP-RF', '1', '25.00'],
        ['DU-SHOP-RG', '1', '10.00'],
      ]);
      // 5.00 shipping + the 3.00 duties left (4.00 - 2.00 + 1.00).
      expect(imported.shipping.fee).to.equal('8.00');
      expect(imported.invoice_amount).to.equal('43.00');
      expect(imported.paid_amount).to.equal('43.00');
      expect(imported.status.is_paid).to.equal(true);
      expect(await stockQuantity(seller, stock)).to.equal(9);
    });
  });

  describe('taxes on the duties and an additional fee (Duty.taxLines, AdditionalFee.taxLines)', () => {
    it('when a store whose prices exclude tax charges tax on a line’s duty and on an additional fee, then the shipping fee carries them with the duty and fee, and the order is fully paid at what the buyer paid', async () => {
      const seller = await newSeller();
      await createStock(seller, 'DT-SHOP-US', 10);
      const { shopId, id, order } = await shopifyOrder(seller, {
        currency: 'USD',
        taxes_included: false,
        lines: [{ sku: 'DT-SHOP-US', quantity: 2, price: '25.00', tax_lines: [{ title: 'CO State Tax', rate: 0.08 }], duty: '5.00', duty_tax: '0.40' }],
        additional_fees: [{ name: 'Retail Delivery Fee', amount: '0.27', tax: '0.02' }],
        shipping: '10.00',
        shipping_tax_lines: [{ title: 'CO State Tax', rate: 0.08 }],
      });
      // 50.00 + 4.00 tax, 10.00 + 0.80 shipping, 5.00 duty + 0.40 its tax, 0.27 fee + 0.02 its tax.
      expect(orderNode(shopifyOf(sandbox.state), order).totalPriceSet.presentmentMoney.amount).to.equal('70.49');

      await importOrders({ accountId: seller.id, portalAccountId: shopId }, 'dt-shop-1');
      const imported = (await kontorOrder(seller, id))!;
      expect(imported.line.map((l) => [l.sku, l.quantity, l.price, l.tax])).to.deep.equal([['DT-SHOP-US', '2', '27.00', '8.00']]);
      expect(imported.shipping.fee).to.equal('16.49');
      expect(imported.invoice_amount).to.equal('70.49');
      expect(imported.paid_amount).to.equal('70.49');
      expect(imported.status.is_paid).to.equal(true);
      // Read with the lines' taxes, in the one query of the order's lines.
      expect(lineReads(shopId).map((q) => [q.includes('duties'), q.includes('additionalFees')])).to.deep.equal([[true, true]]);
    });

    it('when such a store includes the duties in its prices (dutiesIncluded) and charges an additional fee, then only the fee’s tax joins the shipping fee, not the duties’ (found by a reviewer of 2a93db1)', async () => {
      const seller = await newSeller();
      await createStock(seller, 'DT-SHOP-INC', 10);
      const { shopId, id, order } = await shopifyOrder(seller, {
        currency: 'USD',
        taxes_included: false,
        duties_included: true,
        lines: [{ sku: 'DT-SHOP-INC', quantity: 2, price: '25.00', tax_lines: [{ title: 'CO State Tax', rate: 0.08 }], duty: '5.00', duty_tax: '0.40' }],
        additional_fees: [{ name: 'Retail Delivery Fee', amount: '0.27', tax: '0.02' }],
        shipping: '10.00',
        shipping_tax_lines: [{ title: 'CO State Tax', rate: 0.08 }],
      });
      // 50.00 + 4.00 tax, 10.00 + 0.80 shipping, 0.27 fee + 0.02 its tax; the duty and its tax are in the prices.
      expect(orderNode(shopifyOf(sandbox.state), order).totalPriceSet.presentmentMoney.amount).to.equal('65.09');

      await importOrders({ accountId: seller.id, portalAccountId: shopId }, 'dt-shop-inc-1');
      const imported = (await kontorOrder(seller, id))!;
      expect(imported.shipping.fee).to.equal('11.09');
      expect([imported.invoice_amount, imported.paid_amount]).to.deep.equal(['65.09', '65.09']);
      // The duties are not asked (their taxes are not on top): the fees' only, 100 lines a page.
      expect(lineReads(shopId).map((q) => [q.includes('duties'), q.includes('additionalFees')])).to.deep.equal([[false, true]]);
    });
  });

  describe('a refund of the shipping (Refund.refundShippingLines; ShippingLine.currentDiscountedPriceSet "after applying refunds")', () => {
    it('when a paid order, imported and invoiced, has its shipping refunded at the store, then its shipping fee falls to what is left and it stays fully paid at the lower amount', async () => {
      const seller = await newSeller();
      await createStock(seller, 'SR-SHOP-DE', 10);
      const { shopId, id } = await shopifyOrder(seller, {
        lines: [{ sku: 'SR-SHOP-DE', quantity: 2, price: '19.90', tax_lines: [{ title: 'DE MwSt', rate: 0.19 }] }],
        shipping: '4.90',
      });
      await importOrders({ accountId: seller.id, portalAccountId: shopId }, 'sr-shop-1');
      const before = (await kontorOrder(seller, id))!;
      expect([before.shipping.fee, before.invoice_amount, before.paid_amount, before.invoice_number !== null]).to.deep.equal(['4.90', '44.70', '44.70', true]);

      // The merchant gives the buyer the shipping back (a late parcel): 4.90, the order's payment falls by it.
      await sandboxPost(sandbox, `/_sandbox/shopify/orders/${id}/refund`, { shipping: '4.90' });
      await importOrders({ accountId: seller.id, portalAccountId: shopId }, 'sr-shop-2');
      const after = (await kontorOrder(seller, id))!;
      expect(after.line.map((l) => [l.sku, l.quantity, l.price])).to.deep.equal([['SR-SHOP-DE', '2', '19.90']]);
      expect(after.shipping.fee).to.equal('0.00');
      expect(after.invoice_amount).to.equal('39.80');
      expect(after.paid_amount).to.equal('39.80');
      expect(after.status.is_paid).to.equal(true);
      expect(after.history.join('\n')).to.contain('shipping fee 4.90 -> 0.00').and.not.contain('not applied');
    });

    it('when a US store (prices without tax) refunds part of a taxed shipping, then the fee is the shipping and tax kept, the refunded tax read from the refund', async () => {
      const seller = await newSeller();
      await createStock(seller, 'SR-SHOP-US', 10);
      const { shopId, id, order } = await shopifyOrder(seller, {
        currency: 'USD',
        taxes_included: false,
        lines: [{ sku: 'SR-SHOP-US', quantity: 1, price: '20.00', tax_lines: [{ title: 'NY State Tax', rate: 0.08 }] }],
        shipping: '10.00',
        shipping_tax_lines: [{ title: 'NY State Tax', rate: 0.08 }],
      });
      expect(order.shippingTaxLines.map((x) => x.amount)).to.deep.equal(['0.80']);
      await importOrders({ accountId: seller.id, portalAccountId: shopId }, 'sr-shop-us-1');
      expect((await kontorOrder(seller, id))!.shipping.fee).to.equal('10.80');

      // 4.00 of the shipping and its 0.32 tax given back: the buyer paid 32.40 and kept 28.08.
      await sandboxPost(sandbox, `/_sandbox/shopify/orders/${id}/refund`, { shipping: '4.00' });
      await importOrders({ accountId: seller.id, portalAccountId: shopId }, 'sr-shop-us-2');
      const after = (await kontorOrder(seller, id))!;
      expect(after.line.map((l) => [l.price, l.tax])).to.deep.equal([['21.60', '8.00']]);
      expect(after.shipping.fee).to.equal('6.48');
      expect(after.invoice_amount).to.equal('28.08');
      expect(after.paid_amount).to.equal('28.08');
      expect(after.status.is_paid).to.equal(true);
    });

    it('when the order’s invoice was issued before the shipping is refunded, then the fee falls and the history names the invoice, which stays, and the credit note to make (found by a reviewer of 2a93db1)', async () => {
      const seller = await newSeller();
      await createStock(seller, 'SR-SHOP-INV', 10);
      const { shopId, id } = await shopifyOrder(seller, { lines: [{ sku: 'SR-SHOP-INV', quantity: 1, price: '30.00' }], shipping: '5.00' });
      await importOrders({ accountId: seller.id, portalAccountId: shopId }, 'sr-shop-inv-1');
      const before = (await kontorOrder(seller, id))!;
      // The invoice job archived the invoice of 35.00 (it sets bill_url; the invoice row never changes).
      await db()('sales_order').where({ account_id: seller.id, external_order_id: id }).update({ bill_url: 'https://kontor.example/v1.1/order/x/invoice/' });
      await sandboxPost(sandbox, `/_sandbox/shopify/orders/${id}/refund`, { shipping: '5.00' });
      await importOrders({ accountId: seller.id, portalAccountId: shopId }, 'sr-shop-inv-2');
      const after = (await kontorOrder(seller, id))!;
      expect([after.shipping.fee, after.invoice_amount, after.paid_amount]).to.deep.equal(['0.00', '30.00', '30.00']);
      expect(after.history.join('\n')).to.contain(
        `shipping fee 5.00 -> 0.00, invoice ${before.invoice_number} stays as issued (invoice amount 35.00 -> 30.00): make a credit note of 5.00`,
      );
    });

    it('when the shipping is refunded after the order was shipped here, then the fee stays and the history asks for a credit note', async () => {
      const seller = await newSeller();
      await createStock(seller, 'SR-SHOP-SENT', 10);
      const { shopId, id } = await shopifyOrder(seller, { lines: [{ sku: 'SR-SHOP-SENT', quantity: 1, price: '30.00' }], shipping: '5.00' });
      await importOrders({ accountId: seller.id, portalAccountId: shopId }, 'sr-shop-sent-1');
      await db()('sales_order').where({ account_id: seller.id, external_order_id: id }).update({ is_shipped: true });
      await sandboxPost(sandbox, `/_sandbox/shopify/orders/${id}/refund`, { shipping: '5.00' });
      await importOrders({ accountId: seller.id, portalAccountId: shopId }, 'sr-shop-sent-2');
      const after = (await kontorOrder(seller, id))!;
      expect([after.shipping.fee, after.invoice_amount, after.paid_amount]).to.deep.equal(['5.00', '35.00', '30.00']);
      expect(after.history.join('\n')).to.contain(
        'shipping fee 5.00 -> 0.00 at the channel (shipping given back), but the order is shipped here: not applied (make a credit note)',
      );
    });
  });

  describe('the buyer’s currency (Shopify Markets: Order.presentmentCurrencyCode beside the shop’s currencyCode)', () => {
    it('when a Swiss buyer pays a euro store in CHF, then the order is imported in CHF at what the buyer paid, lines exact to the cent, and is fully paid', async () => {
      const seller = await newSeller();
      const stockA = await createStock(seller, 'FX-SHOP-A', 10);
      await createStock(seller, 'FX-SHOP-B', 10);
      const { shopId, id, order } = await shopifyOrder(seller, {
        presentment: { currency: 'CHF', rate: '1.07' },
        lines: [
          { sku: 'FX-SHOP-A', quantity: 3, price: '19.90', discount: '1.00', tax_lines: [{ title: 'CH MWST', rate: 0.081 }] },
          { sku: 'FX-SHOP-B', quantity: 1, price: '12.50', tax_lines: [{ title: 'CH MWST', rate: 0.081 }] },
        ],
        shipping: '7.00',
      });
      // The contract's shape: the shop's currency is EUR (currencyCode, "The shop currency when the
      // order was placed"), the buyer paid in CHF ("The payment CurrencyCode of the customer"); every
      // MoneyBag has both, the shop's the buyer's converted, each amount on its own.
      expect(order.currencyCode).to.equal('EUR');
      expect(order.presentment).to.deep.equal({ currencyCode: 'CHF', rate: 1.07 });

      const run = await importOrders({ accountId: seller.id, portalAccountId: shopId }, 'fx-shop-1');
      expect(run.orders).to.deep.include({ created: 1 });
      const imported = (await kontorOrder(seller, id))!;
      // The buyer's invoice: the currency and amounts the buyer was charged (58.70 over 3 is 19.56, 0.02 to the fee).
      expect(imported.currency_id).to.equal('CHF');
      expect(imported.line.map((l) => [l.sku, l.quantity, l.price, l.tax])).to.deep.equal([
        ['FX-SHOP-A', '3', '19.56', '8.10'],
        ['FX-SHOP-B', '1', '12.50', '8.10'],
      ]);
      expect(imported.shipping.fee).to.equal('7.02');
      expect(imported.invoice_amount).to.equal('78.20');
      expect(imported.paid_amount).to.equal('78.20');
      expect(imported.status.is_paid).to.equal(true);
      expect(await stockQuantity(seller, stockA)).to.equal(7);
    });

    it('when a Kuwaiti buyer pays in KWD, a currency of three decimals, then the order is imported at what the buyer paid rounded to the cent, lines and fee adding up to it, and is fully paid', async () => {
      const seller = await newSeller();
      await createStock(seller, 'KW-SHOP-A', 10);
      await createStock(seller, 'KW-SHOP-B', 10);
      const { shopId, id, order } = await shopifyOrder(seller, {
        presentment: { currency: 'KWD', rate: '3.05' },
        lines: [
          { sku: 'KW-SHOP-A', quantity: 3, price: '4.995' },
          { sku: 'KW-SHOP-B', quantity: 1, price: '2.750' },
        ],
        shipping: '1.250',
      });
      // The buyer paid 3 x 4.995 + 2.750 + 1.250 = 18.985 KWD, to the fils.
      const served = orderNode(shopifyOf(sandbox.state), order);
      expect(served.netPaymentSet.presentmentMoney).to.deep.equal({ amount: '18.985', currencyCode: 'KWD' });
      expect(served.lineItems({}).nodes[0]!.discountedUnitPriceAfterAllDiscountsSet.presentmentMoney.amount).to.equal('4.995');

      const run = await importOrders({ accountId: seller.id, portalAccountId: shopId }, 'kw-shop-1');
      expect(run.orders).to.deep.include({ created: 1 });
      const imported = (await kontorOrder(seller, id))!;
      expect(imported.currency_id).to.equal('KWD');
      // Kontor's amounts have two places: 14.985 over 3 is 4.99 a unit, the 0.015 left joins the fee
      // (1.250 + 0.015 = 1.265, rounded half away from zero as the payment is: 1.27).
      expect(imported.line.map((l) => [l.sku, l.quantity, l.price])).to.deep.equal([
        ['KW-SHOP-A', '3', '4.99'],
        ['KW-SHOP-B', '1', '2.75'],
      ]);
      expect(imported.shipping.fee).to.equal('1.27');
      expect(imported.invoice_amount).to.equal('18.99');
      expect(imported.paid_amount).to.equal('18.99');
      expect(imported.status.is_paid).to.equal(true);
      expect(await orderEvents(seller)).to.include(`paid_in_full:${imported.id}`);
    });

    it('when an order imported in the shop’s currency (before the buyer’s was read) is refunded in part at the store, then its amounts stay as they are and its history says why', async () => {
      const seller = await newSeller();
      await createStock(seller, 'FX-SHOP-OLD', 10);
      const { shopId, id } = await shopifyOrder(seller, {
        presentment: { currency: 'CHF', rate: '1.07' },
        lines: [{ sku: 'FX-SHOP-OLD', quantity: 1, price: '20.00' }],
        shipping: '5.00',
      });
      await importOrders({ accountId: seller.id, portalAccountId: shopId }, 'fx-shop-old-1');
      // As the import made it before it read the buyer's currency: the order in the shop's EUR.
      await db()('sales_order').where({ account_id: seller.id, external_order_id: id }).update({ currency_id: 'EUR' });
      await sandboxPost(sandbox, `/_sandbox/shopify/orders/${id}/refund`, { amount: '10.00' });

      await importOrders({ accountId: seller.id, portalAccountId: shopId }, 'fx-shop-old-2');
      const order = (await kontorOrder(seller, id))!;
      // Not the buyer's CHF 15.00 as EUR: the seller checks the order at the store.
      expect(order.currency_id).to.equal('EUR');
      expect(order.paid_amount).to.equal('25.00');
      expect(order.line.map((l) => l.price)).to.deep.equal(['20.00']);
      expect(order.history.join('\n')).to.contain('amounts in CHF, not in its EUR');
    });

    it('when a test asks the sandbox for a buyer’s currency it cannot show, then it is refused 400 naming presentment and places nothing', async () => {
      const seller = await newSeller();
      const { id: shopId } = await createPortalAccount(seller.id, { name: 'Shopify store', platform: 'webshop' });
      for (const presentment of [{ currency: 'chf', rate: '1.07' }, { currency: 'CHF', rate: '0' }, { currency: 'CHF', rate: 'x' }, 'CHF']) {
        const before = shopifyOf(sandbox.state).orders.size;
        const res = await fetch(`${sandbox.url}/_sandbox/shopify/orders`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ portal_account: shopId, lines: [{ sku: 'FX-SHOP-C' }], presentment }),
        });
        expect(res.status).to.equal(400);
        expect(((await res.json()) as { error: string }).error).to.contain('presentment');
        expect(shopifyOf(sandbox.state).orders.size).to.equal(before);
      }
    });
  });

  describe('a tip the buyer gave at checkout (a LineItem in Order.nonFulfillableLineItems, Order.totalTipReceivedSet)', () => {
    it('when the buyer of a paid order tipped, then the tip is no line, not on the invoice nor in paid_amount: the order is fully paid and no task asks to link the tip to stock', async () => {
      const seller = await newSeller();
      const stock = await createStock(seller, 'TIP-SHOP-A', 10);
      const { shopId, id, order } = await shopifyOrder(seller, {
        lines: [{ sku: 'TIP-SHOP-A', quantity: 2, price: '19.90', tax_lines: [{ title: 'DE MwSt', rate: 0.19 }] }],
        shipping: '4.90',
        tip: '5.00',
      });
      // The contract's shape: the tip is a line of its own, no SKU, nothing to ship or fulfil, in no
      // fulfillment order, and the buyer paid it with the goods (39.80 + 4.90 + 5.00).
      expect(order.lines.map((l) => [l.name, l.price, l.tip === true])).to.deep.equal([
        ['TIP-SHOP-A', '19.90', false],
        ['Tip', '5.00', true],
      ]);
      expect(order.fulfillmentOrders.flatMap((fo) => fo.lines.map((l) => l.lineId))).to.deep.equal([order.lines[0]!.id]);

      const run = await importOrders({ accountId: seller.id, portalAccountId: shopId }, 'tip-shop-1');
      expect(run.orders).to.deep.include({ created: 1 });
      const imported = (await kontorOrder(seller, id))!;
      expect(imported.line.map((l) => [l.sku, l.quantity, l.price, l.tax])).to.deep.equal([['TIP-SHOP-A', '2', '19.90', '19.00']]);
      expect(imported.shipping.fee).to.equal('4.90');
      expect(imported.invoice_amount).to.equal('44.70');
      expect(imported.paid_amount).to.equal('44.70');
      expect(imported.status.is_paid).to.equal(true);
      expect((await taskTexts(seller)).join('\n')).not.to.contain('not linked to stock');
      expect(await stockQuantity(seller, stock)).to.equal(8);
    });

    it('when the buyer tipped on an order not paid yet, then the tip is still no line and the order is unpaid', async () => {
      const seller = await newSeller();
      await createStock(seller, 'TIP-SHOP-B', 10);
      const { shopId, id } = await shopifyOrder(seller, {
        lines: [{ sku: 'TIP-SHOP-B', quantity: 1, price: '12.00' }],
        shipping: '3.00',
        tip: '2.50',
        paid: false,
      });

      await importOrders({ accountId: seller.id, portalAccountId: shopId }, 'tip-shop-2');
      const imported = (await kontorOrder(seller, id))!;
      expect(imported.line.map((l) => [l.sku, l.price])).to.deep.equal([['TIP-SHOP-B', '12.00']]);
      expect(imported.invoice_amount).to.equal('15.00');
      expect(imported.paid_amount).to.equal(null);
      expect(imported.status.is_paid).to.equal(false);
      expect((await taskTexts(seller)).join('\n')).not.to.contain('not linked to stock');
    });

    it('when a tip is given as an amount the contract cannot hold, then the sandbox answers 400 naming tip and places nothing', async () => {
      const seller = await newSeller();
      const { id: shopId } = await createPortalAccount(seller.id, { name: 'Shopify store', platform: 'webshop' });
      for (const tip of ['0.00', '5', -1]) {
        const before = shopifyOf(sandbox.state).orders.size;
        const res = await fetch(`${sandbox.url}/_sandbox/shopify/orders`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ portal_account: shopId, lines: [{ sku: 'TIP-SHOP-C' }], tip }),
        });
        expect(res.status).to.equal(400);
        expect(((await res.json()) as { error: string }).error).to.contain('tip');
        expect(shopifyOf(sandbox.state).orders.size).to.equal(before);
      }
    });
  });
});
