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
 */
import { expect } from 'chai';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { db } from '../../lib/db/knex';
import { importOrders } from '../../lib/order-import/order-import.service';
import { channelLoopForSuite, Sandbox } from '../fleet/support';
import { createStock, readOrder, stockQuantity } from '../order/helpers';
import { newSeller, Seller } from '../support/api';

describe('channel order money: what the seller received, as the contracts describe it', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  channelLoopForSuite((loop) => ({ sandbox } = loop));

  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${sandbox.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    const json = (await res.json()) as Record<string, unknown>;
    expect(res.status, JSON.stringify(json)).to.be.oneOf([200, 201]);
    return json;
  };

  /** The Kontor order the import made of a channel order, or undefined. */
  async function kontorOrder(seller: Seller, externalOrderId: string) {
    const row = (await db()('sales_order').first('id').where({ account_id: seller.id, external_order_id: externalOrderId })) as { id: string } | undefined;
    return row ? readOrder(seller, row.id) : undefined;
  }

  /** An eBay order placed at the sandbox's eBay (POST /_sandbox/ebay/orders) for a new eBay account of the seller. */
  async function ebayOrder(seller: Seller, body: Record<string, unknown>) {
    const { id: ebayId } = await createPortalAccount(seller.id, { name: 'eBay shop', platform: 'auction_a' });
    const { order_id: id } = (await post('/_sandbox/ebay/orders', { portal_account: ebayId, ...body })) as { order_id: string };
    return { ebayId: Number(ebayId), id, order: sandbox.state.ebay.orders.get(id)!.order };
  }

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
});
