/**
 * The money of Amazon orders as the Orders API v2026-01-01 describes it (orders_2026-01-01.json),
 * imported so that an order Amazon calls paid is fully paid in Kontor (document 1, states rule 2:
 * any paid_amount other than invoice_amount is only partially paid: no paid_in_full, no shipment).
 * Each test makes the order at the sandbox's Amazon in the contract's shape (the sandbox checks its
 * answers against the contract; the suite asserts no violation), imports it, and reads what the
 * seller sees through the API. As channel-order-money.test.ts does for the other channels.
 * - `proceeds.grandTotal` is "the total amount that the seller receives from the sale of the
 *   order"; on Amazon.com the items' TAX is added on top of ITEM (the contract's examples: item
 *   proceedsTotal 100.00 = ITEM 99.98 + TAX 0.02; order 154.99 = ITEM 149.97 + TAX 0.02 +
 *   DELIVERY_TIP 5.00), and the item's `tax.taxCollections[].model` MARKETPLACE_FACILITATOR means
 *   "Tax is withheld and remitted to the taxing authority by Amazon on behalf of the seller".
 * - DELIVERY_TIP "is charged separately and not attributed to a specific item".
 * - The contract's IOSS example: an item whose VAT Amazon collects, with no TAX proceeds.
 * - ItemProceedsBreakdown's other types GIFT_WRAP, COD_FEE and OTHER ("aggregated across all order
 *   items"), a DISCOUNT's detailed subtypes beyond ITEM and SHIPPING, and TAX on top of net prices
 *   without MARKETPLACE_FACILITATOR (the contract's only collection model): the seller's to remit.
 */
import { expect } from 'chai';
import { importOrders } from '../../lib/order-import/order-import.service';
import { includedData } from '../../lib/portals/amazon/orders-2026';
import { amazonOf } from '../../sandbox/amazon.sandbox';
import { order2026 } from '../../sandbox/amazon-orders.sandbox';
import { channelLoopForSuite, jobEnd, Sandbox } from '../fleet/support';
import { createStock, orderEvents, stockQuantity } from '../order/helpers';
import { call, newSeller, Seller } from '../support/api';
import { amazonSandboxOrder, kontorOrder, sandboxPost } from './channel-support';

describe('channel order money of Amazon: what the seller received, as the Orders API describes it', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  channelLoopForSuite((loop) => ({ sandbox } = loop));

  const post = (path: string, body: unknown) => sandboxPost(sandbox, path, body);

  /**
   * An Amazon order placed at the sandbox's Amazon (POST /_sandbox/amazon/orders) for a new market_d
   * account of the seller in the marketplace given (its refresh token names the account, as the
   * sandbox's development identity does), and the order as searchOrders answers it with Kontor's data sets.
   */
  async function amazonOrder(seller: Seller, marketplaceId: string, body: Record<string, unknown>) {
    const { amazonId, orderId: id } = await amazonSandboxOrder(sandbox, seller, marketplaceId, body);
    const served = order2026(amazonOf(sandbox.state).orders.get(id)!, new Set(includedData)) as {
      proceeds: { grandTotal: unknown; breakdowns: unknown[] };
      orderItems: { proceeds: { proceedsTotal: unknown; breakdowns: unknown[] }; tax?: unknown }[];
    };
    return { amazonId, id, served };
  }

  describe('Amazon tax it withholds (marketplace facilitator) and delivery tips', () => {
    it('when Amazon collected US sales tax as marketplace facilitator and the buyer tipped, then the order is imported fully paid at the invoice amount (grandTotal less that tax and the tip)', async () => {
      const seller = await newSeller();
      const dot = await createStock(seller, 'MF-US-DOT', 10);
      await createStock(seller, 'MF-US-TV', 10);
      // The contract's US example: ITEM 149.97 + TAX 0.02 + DELIVERY_TIP 5.00 = 154.99.
      const { amazonId, id, served } = await amazonOrder(seller, 'ATVPDKIKX0DER', {
        currency: 'USD',
        delivery_tip: '5.00',
        lines: [
          { sku: 'MF-US-DOT', quantity: 2, price: '49.99', tax: '0.02' },
          { sku: 'MF-US-TV', quantity: 1, price: '49.99' },
        ],
      });
      expect(served.proceeds.grandTotal).to.deep.equal({ amount: '154.99', currencyCode: 'USD' });
      expect(served.proceeds.breakdowns).to.deep.include({ type: 'DELIVERY_TIP', status: 'FINALIZED', subtotal: { amount: '5.00', currencyCode: 'USD' } });
      expect(served.proceeds.breakdowns).to.deep.include({ type: 'TAX', subtotal: { amount: '0.02', currencyCode: 'USD' } });
      expect(served.orderItems[0]!.proceeds.proceedsTotal).to.deep.equal({ amount: '100.00', currencyCode: 'USD' });
      expect(served.orderItems[0]!.proceeds.breakdowns).to.deep.include({
        type: 'TAX',
        subtotal: { amount: '0.02', currencyCode: 'USD' },
        detailedBreakdowns: [{ subtype: 'ITEM', value: { amount: '0.02', currencyCode: 'USD' } }],
      });
      expect(served.orderItems[0]!.tax).to.deep.equal({ taxCollections: [{ model: 'MARKETPLACE_FACILITATOR', responsibleParty: 'Amazon Services, Inc.' }] });

      const run = await importOrders({ accountId: seller.id, portalAccountId: amazonId }, 'mf-us-1');
      expect(run.orders).to.deep.include({ created: 1 });
      const imported = (await kontorOrder(seller, id))!;
      expect(imported.line.map((l) => [l.sku, l.quantity, l.price])).to.deep.equal([
        ['MF-US-DOT', '2', '49.99'],
        ['MF-US-TV', '1', '49.99'],
      ]);
      expect(imported.invoice_amount).to.equal('149.97');
      expect(imported.paid_amount).to.equal('149.97');
      expect(imported.status.is_paid).to.equal(true);
      expect(await stockQuantity(seller, dot)).to.equal(8);
    });

    it('when an Amazon.de order’s VAT is the seller’s (not withheld), then it is imported as before: paid at its grandTotal, the VAT inside the gross prices', async () => {
      const seller = await newSeller();
      await createStock(seller, 'VAT-DE-1', 10);
      const { amazonId, id, served } = await amazonOrder(seller, 'A1PA6795UKMFR9', {
        currency: 'EUR',
        lines: [{ sku: 'VAT-DE-1', quantity: 2, price: '23.80', shipping: '4.90' }],
      });
      expect(served.proceeds.grandTotal).to.deep.equal({ amount: '52.50', currencyCode: 'EUR' });
      expect(served.orderItems[0]!.tax).to.equal(undefined);

      await importOrders({ accountId: seller.id, portalAccountId: amazonId }, 'vat-de-1');
      const imported = (await kontorOrder(seller, id))!;
      expect(imported.invoice_amount).to.equal('52.50');
      expect(imported.paid_amount).to.equal('52.50');
      expect(imported.status.is_paid).to.equal(true);
    });

    it('when Amazon collected the VAT of an import to the EU (IOSS, marketplace facilitator), then the order is imported fully paid at the invoice amount', async () => {
      const seller = await newSeller();
      await createStock(seller, 'IOSS-DE-1', 10);
      const { amazonId, id, served } = await amazonOrder(seller, 'A1PA6795UKMFR9', {
        currency: 'EUR',
        lines: [{ sku: 'IOSS-DE-1', quantity: 2, price: '62.50', ioss: true }],
      });
      // The contract's IOSS example: no TAX proceeds, the item's tax names the scheme and Amazon as collector.
      expect(served.proceeds.grandTotal).to.deep.equal({ amount: '125.00', currencyCode: 'EUR' });
      expect(served.orderItems[0]!.tax).to.deep.equal({
        taxCalculationBreakdowns: [{ reportingScheme: 'IOSS' }],
        taxCollections: [{ model: 'MARKETPLACE_FACILITATOR', responsibleParty: 'Amazon Services Europe S.a.r.L.' }],
      });

      await importOrders({ accountId: seller.id, portalAccountId: amazonId }, 'ioss-de-1');
      const imported = (await kontorOrder(seller, id))!;
      expect(imported.invoice_amount).to.equal('125.00');
      expect(imported.paid_amount).to.equal('125.00');
    });
  });

  describe('item charges besides the price (gift wrap, cash on delivery, other) and tax the seller collects itself', () => {
    it('when an Amazon.de buyer paid gift wrap (less its discount), a COD fee and other charges, then the lines hold the wrap and other charges, the fee the COD fee and the rounding cents, and the order is paid in full once delivered (cash on delivery)', async () => {
      const seller = await newSeller();
      const wrapped = await createStock(seller, 'GW-DE-1', 10);
      const { amazonId, id, served } = await amazonOrder(seller, 'A1PA6795UKMFR9', {
        currency: 'EUR',
        lines: [
          {
            sku: 'GW-DE-1',
            quantity: 3,
            price: '10.00',
            promotion_discount: '1.00',
            gift_wrap: '5.00',
            gift_wrap_discount: '1.00',
            other: '0.50',
            shipping: '4.90',
            cod_fee: '2.00',
          },
        ],
      });
      // ITEM 30.00 + SHIPPING 4.90 + GIFT_WRAP 5.00 + COD_FEE 2.00 + OTHER 0.50 - DISCOUNT 2.00 (ITEM 1.00, GIFT_WRAP 1.00).
      expect(served.proceeds.grandTotal).to.deep.equal({ amount: '40.40', currencyCode: 'EUR' });
      expect(served.orderItems[0]!.proceeds.proceedsTotal).to.deep.equal({ amount: '40.40', currencyCode: 'EUR' });
      for (const [type, amount] of [
        ['GIFT_WRAP', '5.00'],
        ['COD_FEE', '2.00'],
        ['OTHER', '0.50'],
      ]) {
        expect(served.orderItems[0]!.proceeds.breakdowns).to.deep.include({ type, subtotal: { amount, currencyCode: 'EUR' } });
        expect(served.proceeds.breakdowns).to.deep.include({ type, subtotal: { amount, currencyCode: 'EUR' } });
      }
      expect(served.orderItems[0]!.proceeds.breakdowns).to.deep.include({
        type: 'DISCOUNT',
        subtotal: { amount: '-2.00', currencyCode: 'EUR' },
        detailedBreakdowns: [
          { subtype: 'ITEM', value: { amount: '-1.00', currencyCode: 'EUR' } },
          { subtype: 'SHIPPING', value: { amount: '0.00', currencyCode: 'EUR' } },
          { subtype: 'GIFT_WRAP', value: { amount: '-1.00', currencyCode: 'EUR' } },
        ],
      });

      const run = await importOrders({ accountId: seller.id, portalAccountId: amazonId }, 'gw-de-1');
      expect(run.orders).to.deep.include({ created: 1 });
      const imported = (await kontorOrder(seller, id))!;
      // The line: 30.00 - 1.00 + 5.00 - 1.00 + 0.50 = 33.50 over 3 units, 11.16 each; the 0.02 left over joins the fee.
      expect(imported.line.map((l) => [l.sku, l.quantity, l.price, l.tax ?? null])).to.deep.equal([['GW-DE-1', '3', '11.16', null]]);
      // 4.90 shipping + 2.00 COD fee + 0.02.
      expect(imported.shipping.fee).to.equal('6.92');
      expect(imported.invoice_amount).to.equal('40.40');
      // The COD fee's order is paid at the door (channel-order-cod-amazon.test.ts): unpaid until Amazon shows it delivered.
      expect(imported.paid_amount).to.equal(null);
      expect(await stockQuantity(seller, wrapped)).to.equal(7);
      const shipped = await call(`order/${imported.id}/send_mit/`, {
        token: seller.token,
        body: { send_mit: { deliverer: 'DHL', code: ['00340434161094042557'], date: '2026-11-25' } },
      });
      expect(shipped.status, shipped.text).to.equal(202);
      expect((await jobEnd(seller.token, shipped.body.job_id as string)).state).to.equal('completed');
      await post(`/_sandbox/amazon/orders/${id}/package_status`, { status: 'DELIVERED' });
      await importOrders({ accountId: seller.id, portalAccountId: amazonId }, 'gw-de-2');
      const paid = (await kontorOrder(seller, id))!;
      expect(paid.invoice_amount).to.equal('40.40');
      expect(paid.paid_amount).to.equal('40.40');
      expect(paid.status.is_paid).to.equal(true);
      expect(await orderEvents(seller)).to.include(`paid_in_full:${imported.id}`);
    });

    it('when a promotion does not divide by the units, then the unit price is rounded down and the cents left over are in the shipping fee, so the order is paid in full', async () => {
      const seller = await newSeller();
      await createStock(seller, 'PR-DE-1', 10);
      const { amazonId, id, served } = await amazonOrder(seller, 'A1PA6795UKMFR9', {
        currency: 'EUR',
        lines: [{ sku: 'PR-DE-1', quantity: 3, price: '10.00', promotion_discount: '1.00' }],
      });
      expect(served.proceeds.grandTotal).to.deep.equal({ amount: '29.00', currencyCode: 'EUR' });

      await importOrders({ accountId: seller.id, portalAccountId: amazonId }, 'pr-de-1');
      const imported = (await kontorOrder(seller, id))!;
      // 29.00 over 3 units: 9.66 each (28.98) and 0.02 in the fee; 9.67 each billed 29.01 for 29.00 paid.
      expect(imported.line.map((l) => [l.quantity, l.price])).to.deep.equal([['3', '9.66']]);
      expect(imported.shipping.fee).to.equal('0.02');
      expect(imported.invoice_amount).to.equal('29.00');
      expect(imported.paid_amount).to.equal('29.00');
      expect(await orderEvents(seller)).to.include(`paid_in_full:${imported.id}`);
    });

    it('when Amazon names no unit price and the item amount does not divide by the units, then the cents left over are in the shipping fee, so the order is paid in full', async () => {
      const seller = await newSeller();
      await createStock(seller, 'NP-DE-1', 10);
      const { amazonId, id, served } = await amazonOrder(seller, 'A1PA6795UKMFR9', {
        currency: 'EUR',
        lines: [{ sku: 'NP-DE-1', quantity: 3, item_amount: '10.00', shipping: '4.90' }],
      });
      // ItemProduct.price is optional: the item's amount is only its ITEM proceeds.
      expect((served.orderItems[0] as unknown as { product: Record<string, unknown> }).product).not.to.have.property('price');
      expect(served.orderItems[0]!.proceeds.breakdowns).to.deep.include({ type: 'ITEM', subtotal: { amount: '10.00', currencyCode: 'EUR' } });
      expect(served.proceeds.grandTotal).to.deep.equal({ amount: '14.90', currencyCode: 'EUR' });

      await importOrders({ accountId: seller.id, portalAccountId: amazonId }, 'np-de-1');
      const imported = (await kontorOrder(seller, id))!;
      // 10.00 over 3 units: 3.33 each (9.99), the 0.01 left over in the fee (4.90 + 0.01).
      expect(imported.line.map((l) => [l.quantity, l.price])).to.deep.equal([['3', '3.33']]);
      expect(imported.shipping.fee).to.equal('4.91');
      expect(imported.invoice_amount).to.equal('14.90');
      expect(imported.paid_amount).to.equal('14.90');
      expect(imported.status.is_paid).to.equal(true);
      expect(await orderEvents(seller)).to.include(`paid_in_full:${imported.id}`);
    });

    it('when Amazon withheld US sales tax on an item and its gift wrap, then the line holds the gift wrap, not the tax, and the order is paid in full', async () => {
      const seller = await newSeller();
      await createStock(seller, 'GW-US-1', 10);
      const { amazonId, id, served } = await amazonOrder(seller, 'ATVPDKIKX0DER', {
        currency: 'USD',
        lines: [{ sku: 'GW-US-1', quantity: 2, price: '49.99', tax: '0.02', gift_wrap: '3.98', gift_wrap_tax: '0.30' }],
      });
      // ITEM 99.98 + GIFT_WRAP 3.98 + TAX 0.32 (ITEM 0.02, GIFT_WRAP 0.30), withheld by Amazon.
      expect(served.proceeds.grandTotal).to.deep.equal({ amount: '104.28', currencyCode: 'USD' });
      expect(served.orderItems[0]!.proceeds.breakdowns).to.deep.include({
        type: 'TAX',
        subtotal: { amount: '0.32', currencyCode: 'USD' },
        detailedBreakdowns: [
          { subtype: 'ITEM', value: { amount: '0.02', currencyCode: 'USD' } },
          { subtype: 'GIFT_WRAP', value: { amount: '0.30', currencyCode: 'USD' } },
        ],
      });
      expect(served.orderItems[0]!.tax).to.deep.equal({ taxCollections: [{ model: 'MARKETPLACE_FACILITATOR', responsibleParty: 'Amazon Services, Inc.' }] });

      await importOrders({ accountId: seller.id, portalAccountId: amazonId }, 'gw-us-1');
      const imported = (await kontorOrder(seller, id))!;
      expect(imported.line.map((l) => [l.quantity, l.price, l.tax ?? null])).to.deep.equal([['2', '51.98', null]]);
      expect(imported.shipping.fee ?? null).to.be.oneOf([null, '0.00']);
      expect(imported.invoice_amount).to.equal('103.96');
      expect(imported.paid_amount).to.equal('103.96');
      expect(imported.status.is_paid).to.equal(true);
      expect(await orderEvents(seller)).to.include(`paid_in_full:${imported.id}`);
    });

    it('when a US seller collects the sales tax itself (no marketplace facilitator), then the lines are gross with the rate, the shipping fee holds its tax and the rounding cents, and the order is paid in full at grandTotal', async () => {
      const seller = await newSeller();
      await createStock(seller, 'ST-US-1', 10);
      const { amazonId, id, served } = await amazonOrder(seller, 'ATVPDKIKX0DER', {
        currency: 'USD',
        tax_collected_by: 'SELLER',
        // New York City's 8.875 %: 5.325 on 60.00, 0.53 on the 5.99 shipping.
        lines: [{ sku: 'ST-US-1', quantity: 3, price: '20.00', tax: '5.33', shipping: '5.99', shipping_tax: '0.53' }],
      });
      expect(served.proceeds.grandTotal).to.deep.equal({ amount: '71.85', currencyCode: 'USD' });
      expect(served.orderItems[0]!.proceeds.proceedsTotal).to.deep.equal({ amount: '71.85', currencyCode: 'USD' });
      expect(served.orderItems[0]!.proceeds.breakdowns).to.deep.include({
        type: 'TAX',
        subtotal: { amount: '5.86', currencyCode: 'USD' },
        detailedBreakdowns: [
          { subtype: 'ITEM', value: { amount: '5.33', currencyCode: 'USD' } },
          { subtype: 'SHIPPING', value: { amount: '0.53', currencyCode: 'USD' } },
        ],
      });
      expect(served.orderItems[0]!.tax).to.equal(undefined);

      await importOrders({ accountId: seller.id, portalAccountId: amazonId }, 'st-us-1');
      const imported = (await kontorOrder(seller, id))!;
      // 60.00 + 5.33 = 65.33 over 3 units: 21.77 each (65.31), the rate 5.33 of 60.00 (8.88 %); the 0.02 left joins the fee.
      expect(imported.line.map((l) => [l.quantity, l.price, l.tax])).to.deep.equal([['3', '21.77', '8.88']]);
      // 5.99 + 0.53 tax + 0.02.
      expect(imported.shipping.fee).to.equal('6.54');
      expect(imported.invoice_amount).to.equal('71.85');
      expect(imported.paid_amount).to.equal('71.85');
      expect(imported.status.is_paid).to.equal(true);
      expect(await orderEvents(seller)).to.include(`paid_in_full:${imported.id}`);
    });
  });
});
