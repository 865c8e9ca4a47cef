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
 */
import { expect } from 'chai';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { connectPortalAccount } from '../../lib/admin/portal-account-connect.service';
import { importOrders } from '../../lib/order-import/order-import.service';
import { includedData } from '../../lib/portals/amazon/orders-2026';
import { amazonOf } from '../../sandbox/amazon.sandbox';
import { order2026 } from '../../sandbox/amazon-orders.sandbox';
import { channelLoopForSuite, Sandbox } from '../fleet/support';
import { createStock, stockQuantity } from '../order/helpers';
import { newSeller, Seller } from '../support/api';
import { kontorOrder, sandboxPost } from './channel-support';

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
    const { id: amazonId } = await createPortalAccount(seller.id, { name: 'Amazon', platform: 'market_d' });
    await connectPortalAccount(seller.id, {
      portalAccountId: Number(amazonId),
      connector: 'amazon_sp',
      baseUrl: sandbox.url,
      credentials: { client_id: 'c', client_secret: 's', refresh_token: `Atzr|sandbox-${amazonId}`, seller_id: `S${amazonId}`, marketplace_id: marketplaceId },
    });
    const { order_id: id } = (await post('/_sandbox/amazon/orders', { portal_account: amazonId, marketplace_id: marketplaceId, pending_ms: 0, ...body })) as {
      order_id: string;
    };
    const served = order2026(amazonOf(sandbox.state).orders.get(id)!, new Set(includedData)) as {
      proceeds: { grandTotal: unknown; breakdowns: unknown[] };
      orderItems: { proceeds: { proceedsTotal: unknown; breakdowns: unknown[] }; tax?: unknown }[];
    };
    return { amazonId: Number(amazonId), id, served };
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
});
