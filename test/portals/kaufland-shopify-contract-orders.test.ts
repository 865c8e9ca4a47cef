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
import { orderNode, shopifyOf, ShopifyOrder } from '../../sandbox/shopify.sandbox';
import { channelLoopForSuite, Sandbox } from '../fleet/support';
import { createStock, stockQuantity } from '../order/helpers';
import { call, newSeller, Seller } from '../support/api';
import { jobEnd } from '../fleet/support';
import { kauflandItem } from './kaufland-support';
import { kontorOrder, sandboxPost, taskTexts } from './channel-support';
import { answeredAddress } from '../support/order-address';

describe('Kaufland and Shopify orders in the shapes their contracts allow', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  channelLoopForSuite((loop) => ({ sandbox } = loop));

  const post = (path: string, body: unknown) => sandboxPost(sandbox, path, body);

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

  describe('what the contracts leave null or open: buyer, addresses, SKU, product, prices of 0, states', () => {
    /** A Shopify order placed at a new webshop account of the seller: the account, the order's id in Kontor's words and the sandbox's order. */
    async function shopifyOrder(seller: Seller, body: Record<string, unknown>) {
      const { id: shopId } = await createPortalAccount(seller.id, { name: 'Shopify store', platform: 'webshop' });
      const placed = (await post('/_sandbox/shopify/orders', { portal_account: shopId, ...body })) as { id: string };
      return { shopId: Number(shopId), id: placed.id.split('/').pop()!, order: shopifyOf(sandbox.state).orders.get(placed.id)! };
    }
    /** The sandbox's order changed at the store now (Order.updatedAt later than the last fetch's). */
    const changed = (o: ShopifyOrder) => (o.updatedAt = new Date(Date.now() + 1000).toISOString());

    it('when a Kaufland order names no buyer and no billing or shipping address (OrderDetails.buyer, billing_address, shipping_address null), then it is imported with an empty customer and its stock is taken', async () => {
      const { seller, portalAccountId, stockId, list } = await kauflandItem('KS-KL-NOBUYER');
      expect((await list()).state).to.equal('completed');
      const placed = (await post('/_sandbox/kaufland/orders', {
        portal_account: portalAccountId,
        lines: [{ id_offer: 'KS-KL-NOBUYER', quantity: 2, price: '24.90' }],
      })) as { id_order: string };
      Object.assign(kauflandOf(sandbox.state).orders.get(placed.id_order)!, { buyer: null, billing_address: null, shipping_address: null });

      const run = await importOrders({ accountId: seller.id, portalAccountId: Number(portalAccountId) }, 'ks-kl-nobuyer');
      expect(run.orders).to.deep.include({ created: 1, refused: 0 });
      const order = (await kontorOrder(seller, placed.id_order))!;
      expect(order.customer).to.deep.include({ username: null, email: null, phone_1: null, address: answeredAddress() });
      expect((order.shipping as { address: unknown }).address).to.deep.equal(answeredAddress());
      expect(order).to.deep.include({ invoice_amount: '49.80', paid_amount: '49.80' });
      expect(await stockQuantity(seller, stockId)).to.equal(8);
    });

    it('when a Kaufland order has a shipping address and no billing address (billing_address null), then the buyer’s address and phone are the shipping address’s', async () => {
      const { seller, portalAccountId, list } = await kauflandItem('KS-KL-NOBILL');
      expect((await list()).state).to.equal('completed');
      const placed = (await post('/_sandbox/kaufland/orders', {
        portal_account: portalAccountId,
        lines: [{ id_offer: 'KS-KL-NOBILL', quantity: 1, price: '24.90' }],
        buyer: { first_name: 'Ömer', last_name: 'Yılmaz', street: 'Lindenweg', house_number: '3', postcode: '10115', city: 'Berlin', phone: '+49 30 123' },
      })) as { id_order: string };
      kauflandOf(sandbox.state).orders.get(placed.id_order)!.billing_address = null;

      const run = await importOrders({ accountId: seller.id, portalAccountId: Number(portalAccountId) }, 'ks-kl-nobill');
      expect(run.orders).to.deep.include({ created: 1, refused: 0 });
      const order = (await kontorOrder(seller, placed.id_order))!;
      const shipTo = answeredAddress({ name: 'Ömer Yılmaz', street: 'Lindenweg 3', zip: '10115', city: 'Berlin', country_iso2: 'DE' });
      expect((order.shipping as { address: unknown }).address).to.deep.equal(shipTo);
      expect(order.customer).to.deep.include({ phone_1: '+49 30 123', address: shipTo });
    });

    it('when a Kaufland order’s billing address has no phone (Address.phone nullable) and its shipping address has one, then the buyer’s phone is the shipping address’s', async () => {
      const { seller, portalAccountId, list } = await kauflandItem('KS-KL-BILLNOPHONE');
      expect((await list()).state).to.equal('completed');
      const placed = (await post('/_sandbox/kaufland/orders', {
        portal_account: portalAccountId,
        lines: [{ id_offer: 'KS-KL-BILLNOPHONE', quantity: 1, price: '24.90' }],
        buyer: { first_name: 'Jana', last_name: 'Nowak', street: 'Am Hang', house_number: '7', postcode: '01067', city: 'Dresden', phone: '+49 351 456' },
      })) as { id_order: string };
      const sandboxOrder = kauflandOf(sandbox.state).orders.get(placed.id_order)!;
      sandboxOrder.billing_address = { ...sandboxOrder.billing_address!, phone: null };

      const run = await importOrders({ accountId: seller.id, portalAccountId: Number(portalAccountId) }, 'ks-kl-billnophone');
      expect(run.orders).to.deep.include({ created: 1, refused: 0 });
      const order = (await kontorOrder(seller, placed.id_order))!;
      const address = answeredAddress({ name: 'Jana Nowak', street: 'Am Hang 7', zip: '01067', city: 'Dresden', country_iso2: 'DE' });
      expect(order.customer).to.deep.include({ phone_1: '+49 351 456', address });
    });

    it('when a Kaufland order unit has neither product nor id_offer (both nullable) and another is priced 0, then both are lines: the first named by its unit and left for the seller, the free one taking its stock', async () => {
      const { seller, portalAccountId, stockId, list } = await kauflandItem('KS-KL-NOPRODUCT');
      expect((await list()).state).to.equal('completed');
      const placed = (await post('/_sandbox/kaufland/orders', {
        portal_account: portalAccountId,
        lines: [
          { id_offer: 'KS-KL-NOPRODUCT', quantity: 1, price: '24.90' },
          { id_offer: 'KS-KL-NOPRODUCT', quantity: 1, price: '0.00' },
        ],
      })) as { id_order: string; id_order_units: number[] };
      const [first, free] = placed.id_order_units as [number, number];
      Object.assign(kauflandOf(sandbox.state).orderUnits.get(first)!, { id_offer: null, title: null });

      const run = await importOrders({ accountId: seller.id, portalAccountId: Number(portalAccountId) }, 'ks-kl-noproduct');
      expect(run.orders).to.deep.include({ created: 1, refused: 0 });
      const order = (await kontorOrder(seller, placed.id_order))!;
      expect(order.line.map((l) => [l.transaction_id, l.name, l.sku ?? null, l.price, l.stock_align_id ?? null])).to.deep.equal([
        [String(first), `Kaufland order unit ${first}`, null, '24.90', null],
        [String(free), 'Product 4006381333931', 'KS-KL-NOPRODUCT', '0.00', `ID_${stockId}`],
      ]);
      expect(order).to.deep.include({ invoice_amount: '24.90', paid_amount: '24.90' });
      expect(await stockQuantity(seller, stockId)).to.equal(9);
      expect((await taskTexts(seller)).join('\n')).to.contain(`line 1 "Kaufland order unit ${first}": the channel names no SKU`);
    });

    it('when a Shopify guest buys a digital good (no e-mail, no phone, shippingAddress and billingAddress null), then the order is imported paid with an empty customer and its stock is taken', async () => {
      const seller = await newSeller();
      const stockId = await createStock(seller, 'KS-SH-GUEST', 10);
      const { shopId, id, order } = await shopifyOrder(seller, { lines: [{ sku: 'KS-SH-GUEST', quantity: 1, price: '9.90' }], shipping: '0.00' });
      Object.assign(order, { email: null, address: null, billingAddress: null });

      const run = await importOrders({ accountId: seller.id, portalAccountId: shopId }, 'ks-sh-guest');
      expect(run.orders).to.deep.include({ created: 1, refused: 0 });
      const imported = (await kontorOrder(seller, id))!;
      expect(imported.customer).to.deep.include({ email: null, phone_1: null, address: answeredAddress() });
      expect((imported.shipping as { address: unknown; fee: string }).address).to.deep.equal(answeredAddress());
      expect(imported).to.deep.include({ invoice_amount: '9.90', paid_amount: '9.90' });
      expect(imported.status).to.deep.include({ is_paid: true, is_shipped: false, is_cancelled: false });
      expect(await stockQuantity(seller, stockId)).to.equal(9);
    });

    it('when a Shopify buyer picks the order up (shippingAddress null, a shipping line "Abholung im Laden" at 0.00), then the order says so as its shipping method; a parcel’s order says its own', async () => {
      const seller = await newSeller();
      const stockId = await createStock(seller, 'KS-SH-PICKUP', 10);
      const pickup = await shopifyOrder(seller, {
        lines: [{ sku: 'KS-SH-PICKUP', quantity: 1, price: '19.90' }],
        shipping: '0.00',
        shipping_title: 'Abholung im Laden',
      });
      pickup.order.address = null;
      const parcel = await shopifyOrder(seller, { lines: [{ sku: 'KS-SH-PICKUP', quantity: 1, price: '19.90' }] });

      for (const { shopId, id } of [pickup, parcel])
        expect((await importOrders({ accountId: seller.id, portalAccountId: shopId }, `ks-sh-pickup-${id}`)).orders).to.deep.include({ created: 1 });
      const picked = (await kontorOrder(seller, pickup.id))!;
      expect(picked.shipping).to.deep.include({ method: 'Abholung im Laden', fee: '0.00' });
      expect(picked).to.deep.include({ invoice_amount: '19.90', paid_amount: '19.90' });
      expect((await kontorOrder(seller, parcel.id))!.shipping).to.deep.include({ method: 'Standard', fee: '4.90' });
      expect(await stockQuantity(seller, stockId)).to.equal(8);
    });

    it('when a Shopify order holds a custom item (no variant: LineItem.sku null) and a free gift (0.00), then the custom line is left for the seller with a task, the gift takes its stock, and the order is fully paid', async () => {
      const seller = await newSeller();
      const stockId = await createStock(seller, 'KS-SH-GIFT', 10);
      const { shopId, id, order } = await shopifyOrder(seller, {
        lines: [
          { sku: 'KS-SH-CUSTOM', quantity: 1, price: '15.00', name: 'Gravur „Für Ömer“ ✨' },
          { sku: 'KS-SH-GIFT', quantity: 1, price: '0.00', name: 'Geschenk' },
        ],
      });
      order.lines[0]!.custom = true;

      const run = await importOrders({ accountId: seller.id, portalAccountId: shopId }, 'ks-sh-custom');
      expect(run.orders).to.deep.include({ created: 1, refused: 0 });
      const imported = (await kontorOrder(seller, id))!;
      expect(imported.line.map((l) => [l.name, l.sku ?? null, l.price, l.stock_align_id ?? null])).to.deep.equal([
        ['Gravur „Für Ömer“ ✨', null, '15.00', null],
        ['Geschenk', 'KS-SH-GIFT', '0.00', `ID_${stockId}`],
      ]);
      expect(imported).to.deep.include({ invoice_amount: '19.90', paid_amount: '19.90' });
      expect(await stockQuantity(seller, stockId)).to.equal(9);
      expect((await taskTexts(seller)).join('\n')).to.contain('line 1 "Gravur „Für Ömer“ ✨": the channel names no SKU');
    });

    it('when a Shopify payment is only AUTHORIZED, then the order is imported unpaid with its stock taken; EXPIRED or VOIDED later leaves it unpaid and not cancelled, a capture (PAID) pays it in full', async () => {
      const seller = await newSeller();
      const stockId = await createStock(seller, 'KS-SH-AUTH', 10);
      const { shopId, id, order } = await shopifyOrder(seller, { lines: [{ sku: 'KS-SH-AUTH', quantity: 2, price: '19.90' }] });
      order.financial = 'AUTHORIZED';
      await importOrders({ accountId: seller.id, portalAccountId: shopId }, 'ks-sh-auth-1');
      const read = async () => (await kontorOrder(seller, id))!;
      expect(await read()).to.deep.include({ invoice_amount: '44.70', paid_amount: null });
      expect((await read()).status).to.deep.include({ is_paid: false, is_cancelled: false });
      expect(await stockQuantity(seller, stockId)).to.equal(8);

      for (const lapsed of ['EXPIRED', 'VOIDED'] as const) {
        order.financial = lapsed;
        changed(order);
        await importOrders({ accountId: seller.id, portalAccountId: shopId }, `ks-sh-auth-${lapsed}`);
        expect(await read(), lapsed).to.deep.include({ paid_amount: null });
        expect((await read()).status, lapsed).to.deep.include({ is_paid: false, is_cancelled: false });
        expect(await stockQuantity(seller, stockId)).to.equal(8);
      }

      order.financial = 'PAID';
      changed(order);
      await importOrders({ accountId: seller.id, portalAccountId: shopId }, 'ks-sh-auth-paid');
      expect(await read()).to.deep.include({ invoice_amount: '44.70', paid_amount: '44.70' });
      expect((await read()).status).to.deep.include({ is_paid: true });
      expect(await stockQuantity(seller, stockId)).to.equal(8);
    });

    it('when a Shopify order is ON_HOLD or SCHEDULED (displayFulfillmentStatus, its fulfillment orders held or scheduled), then it is imported paid and not shipped, its stock taken', async () => {
      const seller = await newSeller();
      const stockId = await createStock(seller, 'KS-SH-HOLD', 10);
      for (const status of ['ON_HOLD', 'SCHEDULED'] as const) {
        const { shopId, id, order } = await shopifyOrder(seller, {
          lines: [{ sku: 'KS-SH-HOLD', quantity: 1, price: '19.90' }],
          fulfillment_orders: [{ status, ...(status === 'ON_HOLD' ? { hold_reason: 'AWAITING_PAYMENT' } : { fulfill_at: null }), lines: [{ line: 0 }] }],
        });
        expect(orderNode(shopifyOf(sandbox.state), order).displayFulfillmentStatus).to.equal(status);
        await importOrders({ accountId: seller.id, portalAccountId: shopId }, `ks-sh-${status}`);
        const imported = (await kontorOrder(seller, id))!;
        expect(imported.status, status).to.deep.include({ is_paid: true, is_shipped: false, is_cancelled: false });
      }
      expect(await stockQuantity(seller, stockId)).to.equal(8);
    });
  });
});
