/**
 * Kaufland and Shopify orders as a real seller gets them: every field the import reads may be what
 * the contracts allow, not only what the sandbox's own checkouts carry. Each test reshapes a
 * sandbox order as its contract permits (the sandbox checks every answer against it and the suite
 * asserts no violation), imports it, and reads what the seller sees through the API.
 * - Kaufland (seller-api-v2.openapi.json): `Product.title` and the `Address` fields are strings
 *   without a maxLength; `OrderDetails.buyer`, `billing_address` and `shipping_address` are
 *   nullable, as is `Buyer.email`.
 * - Shopify (admin_schema_2025-01.json): `LineItem.name` ("The title of the product, optionally
 *   appended with the title of the variant") and `LineItem.sku` are `String` without a bound.
 */
import { expect } from 'chai';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { importOrders } from '../../lib/order-import/order-import.service';
import { kauflandOf } from '../../sandbox/kaufland.sandbox';
import { channelLoopForSuite, Sandbox } from '../fleet/support';
import { createStock, stockQuantity } from '../order/helpers';
import { call, newSeller, Seller } from '../support/api';
import { jobEnd } from '../fleet/support';
import { kauflandItem } from './kaufland-support';
import { kontorOrder, sandboxPost } from './channel-support';

describe('Kaufland and Shopify orders in the shapes their contracts allow', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  channelLoopForSuite((loop) => ({ sandbox } = loop));

  const post = (path: string, body: unknown) => sandboxPost(sandbox, path, body);

  const taskTexts = async (seller: Seller) => {
    const res = await call('task/?pagination[limit]=100', { token: seller.token });
    expect(res.status, res.text).to.equal(200);
    return (res.body.task as { title: string; text: string }[]).map((t) => `${t.title}\n${t.text}`);
  };

  /** A title of `characters` characters (code points) with umlauts and emoji, an emoji across the 1000th character. */
  const longTitle = (characters: number) => {
    const chars = [...'Teekanne aus Gusseisen, Ø 18 cm, für Induktion 🫖 — '];
    return Array.from({ length: characters }, (_c, i) => (i === 998 ? '🫖' : chars[i % chars.length]!)).join('');
  };

  describe('texts longer than Order_type holds (no maxLength in either contract)', () => {
    it('when a Kaufland order unit’s product title is 1,200 characters, then the order is imported, the line’s name cut to 1,000 characters ending in an ellipsis, and its stock taken', async () => {
      const { seller, portalAccountId, stockId, list } = await kauflandItem('KS-KL-LONG');
      expect((await list()).state).to.equal('completed');
      const placed = (await post('/_sandbox/kaufland/orders', {
        portal_account: portalAccountId,
        lines: [{ id_offer: 'KS-KL-LONG', quantity: 2, price: '24.90' }],
      })) as { id_order: string; id_order_units: number[] };
      const title = longTitle(1200);
      for (const id of placed.id_order_units) kauflandOf(sandbox.state).orderUnits.get(id)!.title = title;

      const run = await importOrders({ accountId: seller.id, portalAccountId: Number(portalAccountId) }, 'ks-kl-long');
      expect(run.orders).to.deep.include({ created: 1, refused: 0 });
      const order = (await kontorOrder(seller, placed.id_order))!;
      const name = String(order.line[0]!.name);
      expect([...name]).to.have.length(1000);
      expect(name).to.equal(`${[...title].slice(0, 999).join('')}…`);
      expect(name.slice(-3)).to.equal('🫖…');
      expect(order.line.map((l) => l.stock_align_id)).to.deep.equal([`ID_${stockId}`, `ID_${stockId}`]);
      expect(order).to.deep.include({ invoice_amount: '49.80', paid_amount: '49.80' });
      expect(await stockQuantity(seller, stockId)).to.equal(8);
      expect((await taskTexts(seller)).join('\n')).not.to.contain('could not be imported');
    });

    it('when a Kaufland address’s name and street are longer than 255 characters, then the order is imported with them cut to 255', async () => {
      const { seller, portalAccountId, stockId, list } = await kauflandItem('KS-KL-ADDR');
      expect((await list()).state).to.equal('completed');
      const placed = (await post('/_sandbox/kaufland/orders', {
        portal_account: portalAccountId,
        lines: [{ id_offer: 'KS-KL-ADDR', quantity: 1, price: '24.90' }],
        buyer: { first_name: 'Karla', last_name: 'K'.repeat(300), street: 'S'.repeat(300), house_number: '1' },
      })) as { id_order: string };

      const run = await importOrders({ accountId: seller.id, portalAccountId: Number(portalAccountId) }, 'ks-kl-addr');
      expect(run.orders).to.deep.include({ created: 1, refused: 0 });
      const order = (await kontorOrder(seller, placed.id_order))!;
      const shipTo = (order.shipping as { address: Record<string, string> }).address;
      expect(shipTo.name).to.equal(`Karla ${'K'.repeat(248)}…`);
      expect(shipTo.street).to.have.length(255);
      expect(shipTo).to.deep.include({ zip: '74172', city: 'Neckarsulm', country_iso2: 'DE' });
      expect(await stockQuantity(seller, stockId)).to.equal(9);
    });

    it('when a Shopify line’s name is 1,200 characters and another line’s SKU 300, then the order is imported: the name cut, the long SKU’s line left for the seller with a task saying why, the other line’s stock taken', async () => {
      const seller = await newSeller();
      const stockId = await createStock(seller, 'KS-SH-LONG', 10);
      const { id: shopId } = await createPortalAccount(seller.id, { name: 'Shopify store', platform: 'webshop' });
      const longSku = `KS-${'9'.repeat(297)}`;
      const placed = await post('/_sandbox/shopify/orders', {
        portal_account: shopId,
        lines: [
          { sku: 'KS-SH-LONG', quantity: 2, price: '19.90', name: longTitle(1200) },
          { sku: longSku, quantity: 1, price: '5.00', name: 'Gutschein' },
        ],
      });
      const id = String(placed.id).split('/').pop()!;

      const run = await importOrders({ accountId: seller.id, portalAccountId: Number(shopId) }, 'ks-sh-long');
      expect(run.orders).to.deep.include({ created: 1, refused: 0 });
      const order = (await kontorOrder(seller, id))!;
      const name = String(order.line[0]!.name);
      expect([...name]).to.have.length(1000);
      expect(name.endsWith('🫖…')).to.equal(true);
      expect(order.line[0]).to.deep.include({ sku: 'KS-SH-LONG', quantity: '2', stock_align_id: `ID_${stockId}` });
      expect(order.line[1]).to.deep.include({ name: 'Gutschein', quantity: '1', price: '5.00', sku: null, stock_align_id: null });
      expect(order).to.deep.include({ invoice_amount: '49.70', paid_amount: '49.70' });
      expect(await stockQuantity(seller, stockId)).to.equal(8);
      const tasks = (await taskTexts(seller)).join('\n');
      expect(tasks).to.contain('line 2 "Gutschein"').and.contain('longer than the 255 characters');
      expect(tasks).not.to.contain('could not be imported');
    });
  });

  describe('a Kaufland sale is linked to the item its unit was listed for (OrderUnit.id_offer names the unit, UnitPatchRequest cannot change it)', () => {
    /** A seller's item at a new Kaufland account (the sandbox's), listed there by portal_upload: the seller, the account and the item. */
    async function listedAtKaufland(stock: Record<string, unknown>) {
      const seller = await newSeller();
      const { id: portalAccountId } = await createPortalAccount(seller.id, { name: 'Kaufland.de', platform: 'market_e' });
      const created = await call('stock/', {
        token: seller.token,
        body: { stock: { name: 'Teekanne', quantity: 10, market_e: { ean: '4006381333931', price: '24.90', delivery_time: '1-2' }, ...stock } },
      });
      expect(created.status, created.text).to.equal(201);
      const stockId = Number(created.body.stock_id);
      const upload = await call(`stock/${stockId}/portal_upload/`, {
        token: seller.token,
        body: { portal_upload: { market_e: [{ action: 'list', portal_account_id: portalAccountId }] } },
      });
      const job = await jobEnd(seller.token, (upload.body.response as { job_id: string }[])[0]!.job_id);
      expect(job.state, job.error).to.equal('completed');
      return { seller, portalAccountId: Number(portalAccountId), stockId };
    }

    it('when an item without a SKU is sold at Kaufland (its unit’s id_offer is its stock id) and another item’s SKU is that number, then the line takes the listed item’s stock, not the other’s', async () => {
      const { seller, portalAccountId, stockId } = await listedAtKaufland({});
      const idOffer = String(stockId);
      expect([...kauflandOf(sandbox.state).units.values()].filter((u) => u.account === String(portalAccountId)).map((u) => u.id_offer)).to.deep.equal([
        idOffer,
      ]);
      const other = await createStock(seller, idOffer, 10);
      const placed = (await post('/_sandbox/kaufland/orders', {
        portal_account: portalAccountId,
        lines: [{ id_offer: idOffer, quantity: 1, price: '24.90' }],
      })) as {
        id_order: string;
      };

      const run = await importOrders({ accountId: seller.id, portalAccountId }, 'ks-kl-nosku');
      expect(run.orders).to.deep.include({ created: 1 });
      const order = (await kontorOrder(seller, placed.id_order))!;
      expect(order.line.map((l) => [l.sku, l.quantity, l.stock_align_id ?? null])).to.deep.equal([[idOffer, '1', `ID_${stockId}`]]);
      expect(await stockQuantity(seller, stockId)).to.equal(9);
      expect(await stockQuantity(seller, other)).to.equal(10);
    });

    it('when the seller changed a listed item’s SKU since, then a sale of its unit (still under the old id_offer) takes the item’s stock and asks for no link', async () => {
      const { seller, portalAccountId, stockId } = await listedAtKaufland({ sku: 'KS-KL-OLD' });
      const relabelled = await call(`stock/${stockId}/`, { token: seller.token, body: { stock: { sku: 'KS-KL-NEW' } } });
      expect(relabelled.status, relabelled.text).to.equal(200);
      const placed = (await post('/_sandbox/kaufland/orders', {
        portal_account: portalAccountId,
        lines: [{ id_offer: 'KS-KL-OLD', quantity: 2, price: '24.90' }],
      })) as { id_order: string };

      const run = await importOrders({ accountId: seller.id, portalAccountId }, 'ks-kl-relabel');
      expect(run.orders).to.deep.include({ created: 1 });
      const order = (await kontorOrder(seller, placed.id_order))!;
      expect(order.line.map((l) => [l.sku, l.stock_align_id ?? null])).to.deep.equal([
        ['KS-KL-OLD', `ID_${stockId}`],
        ['KS-KL-OLD', `ID_${stockId}`],
      ]);
      expect(await stockQuantity(seller, stockId)).to.equal(8);
      expect((await taskTexts(seller)).join('\n')).not.to.contain('not linked to stock');
    });
  });
});
