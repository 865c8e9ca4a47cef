import { expect } from 'chai';
import { db } from '../../lib/db';
import type { ListingItem, PortalTarget, QuantityUpdate } from '../../lib/portals/portal.type';
import { staleTarget, WebshopAdapter } from '../../lib/portals/webshop.adapter';
import { ShopifySession } from '../../lib/portals/shopify/shopify-client';
import type { SandboxRequest } from '../../sandbox/sandbox.app';
import { shopifyOf } from '../../sandbox/shopify.sandbox';
import type { Sandbox } from '../fleet/support';
import { shopifyStoreForEach } from './shopify-support';

/**
 * CIA pushes to a Shopify store compare and set (InventoryQuantityInput.compareQuantity, "The
 * current quantity to be compared against the persisted quantity"; COMPARE_QUANTITY_STALE): a
 * sale in the store that Kontor has not imported yet is not undone by a push of Kontor's count.
 * In the default version, 2026-07, the compare is sent as its successor changeFromQuantity
 * (lib/portals/shopify/shopify-version.ts); 2025-01's compareQuantity: shopify-api-version.test.ts.
 */
const adapter = new WebshopAdapter();
type SentQuantity = { inventoryItemId: string; locationId: string; quantity: number; changeFromQuantity?: number };

const item = (quantityAvailable: number, sku = 'CMP-1'): ListingItem => ({
  stockId: 1,
  name: 'Milchkanne',
  sku,
  ean: null,
  price: '12.00',
  quantityAvailable,
  group: { shop_id: 'main' },
});
const update = (quantity: number, sku = 'CMP-1', stockId = 1): QuantityUpdate => ({
  stockId,
  quantity,
  key: `k-${sku}-${quantity}`,
  sku,
  group: { shop_id: 'main' },
});

describe('webshop at Shopify: CIA pushes compare and set', () => {
  let sandbox: Sandbox;
  let account: number;
  let target: PortalTarget;
  shopifyStoreForEach((store) => ({ sandbox, account, target } = store));

  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${sandbox.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const offered = async (sku = 'CMP-1'): Promise<number> => {
    const all = (await (await fetch(`${sandbox.url}/_sandbox/shopify/variants?portal_account=${account}`)).json()) as { sku: string; available: number }[];
    return all.find((v) => v.sku === sku)!.available;
  };
  /** A buyer orders in the store: Shopify takes the units off `available` at once. */
  const sellInStore = async (quantity: number, sku = 'CMP-1') => {
    const placed = await post('/_sandbox/shopify/orders', {
      portal_account: account,
      lines: [{ sku, quantity }],
      buyer: { name: 'Erika Musterfrau', email: 'erika@example.com', street: 'Lindenweg 3', zip: '10115', city: 'Berlin', country_iso2: 'DE' },
    });
    expect(placed.status).to.equal(201);
    // Shopify's times and Kontor's record of its set are compared: the sale is after the set.
    await new Promise((r) => setTimeout(r, 5));
  };
  const sandboxVariant = (sku: string) => shopifyOf(sandbox.state).variantBySku(String(account), sku)!;
  /** The inventorySetQuantities calls Shopify received, their input. */
  const quantityCalls = () =>
    sandbox.state.requests
      .filter((r: SandboxRequest) => r.portalAccount === String(account) && String((r.body as { query?: string }).query).includes('inventorySetQuantities'))
      .map((r) => (r.body as { variables: { input: { ignoreCompareQuantity?: boolean; quantities: SentQuantity[] } } }).variables.input);

  it('a store sale not imported yet is not undone: Shopify had 5, sold 1, an eBay sale brings Kontor to 4: the store offers 3; the import later does not lower it twice', async () => {
    await adapter.list(target, item(5), 'list');
    expect(await offered()).to.equal(5);
    const since = new Date(Date.now() - 1000);
    await sellInStore(1);
    expect(await offered()).to.equal(4);

    const pushed = await adapter.setQuantities(target, [update(4)], 'after-ebay-sale');
    expect(pushed).to.deep.equal([{ stockId: 1, outcome: 'accepted' }]);
    expect(await offered()).to.equal(3);
    // The first try compared against the 5 Kontor had set; the second against the 4 Shopify holds.
    expect(
      quantityCalls()
        .slice(-2)
        .map((c) => c.quantities[0]),
    ).to.deep.equal([
      { inventoryItemId: quantityCalls().at(-1)!.quantities[0]!.inventoryItemId, locationId: 'gid://shopify/Location/1', quantity: 4, changeFromQuantity: 5 },
      { inventoryItemId: quantityCalls().at(-1)!.quantities[0]!.inventoryItemId, locationId: 'gid://shopify/Location/1', quantity: 3, changeFromQuantity: 4 },
    ]);

    // The order comes in: Kontor's count falls to 3, and its push keeps the store at 3 (not 2).
    const page = await adapter.fetchOrders(target, since, null);
    expect(page.orders).to.have.length(1);
    expect(await adapter.setQuantities(target, [update(3)], 'after-import')).to.deep.equal([{ stockId: 1, outcome: 'accepted' }]);
    expect(await offered()).to.equal(3);
    expect(quantityCalls().at(-1)!.quantities[0]).to.include({ quantity: 3, changeFromQuantity: 3 });
  });

  it('a store sale imported before the next push is taken off once: Kontor 5 -> 4 by the store sale, the store offers 4', async () => {
    await adapter.list(target, item(5), 'list');
    const since = new Date(Date.now() - 1000);
    await sellInStore(1);
    expect((await adapter.fetchOrders(target, since, null)).orders).to.have.length(1);
    const calls = quantityCalls().length;
    expect(await adapter.setQuantities(target, [update(4)], 'after-import')).to.deep.equal([{ stockId: 1, outcome: 'accepted' }]);
    expect(await offered()).to.equal(4);
    // One call, compared against 4: Kontor knew of the sale it read, nothing was stale.
    expect(quantityCalls().slice(calls)).to.have.length(1);
    expect(quantityCalls().at(-1)!.quantities[0]).to.include({ quantity: 4, changeFromQuantity: 4 });
    // Read again (another process, a restart): the sale is not taken off a second time.
    await adapter.fetchOrders(target, since, null);
    const row = await db()('shopify_inventory_set').where({ portal_account_id: account }).first('quantity', 'counted_orders');
    expect(row).to.deep.include({ quantity: 4, counted_orders: [] });
  });

  it("the merchant's increase in the store is overwritten by Kontor's count, compared against what the store held", async () => {
    await adapter.list(target, item(5), 'list');
    expect((await post('/_sandbox/shopify/inventory', { portal_account: account, sku: 'CMP-1', available: 9 })).status).to.equal(200);
    expect(await adapter.setQuantities(target, [update(5)], 'again')).to.deep.equal([{ stockId: 1, outcome: 'accepted' }]);
    expect(await offered()).to.equal(5);
    const [stale, set] = quantityCalls().slice(-2);
    expect(stale!.quantities[0]).to.include({ quantity: 5, changeFromQuantity: 5 });
    expect(set!.quantities[0]).to.include({ quantity: 5, changeFromQuantity: 9 });
    expect(set!.ignoreCompareQuantity).to.equal(undefined);
  });

  it('a first push (nothing set before, e.g. an item listed before compare-and-set) compares against what the store holds and sets the count', async () => {
    await adapter.list(target, item(2), 'list');
    await adapter.list(target, item(2, 'CMP-2'), 'list-2');
    await db()('shopify_inventory_set').where({ portal_account_id: account }).delete();
    const calls = quantityCalls().length;
    const outcomes = await adapter.setQuantities(target, [update(6), update(1, 'CMP-2', 2)], 'first');
    expect(outcomes.map((o) => o.outcome)).to.deep.equal(['accepted', 'accepted']);
    expect([await offered(), await offered('CMP-2')]).to.deep.equal([6, 1]);
    const sent = quantityCalls().slice(calls);
    expect(sent).to.have.length(1);
    expect(sent[0]!.ignoreCompareQuantity).to.equal(undefined);
    expect(sent[0]!.quantities.map((q) => [q.quantity, q.changeFromQuantity])).to.deep.equal([
      [6, 2],
      [1, 2],
    ]);
    // Kontor now knows what it set: the next push compares against it.
    await adapter.setQuantities(target, [update(5)], 'next');
    expect(quantityCalls().at(-1)!.quantities[0]).to.include({ quantity: 5, changeFromQuantity: 6 });
  });

  it("the location Kontor sets at changes (the first one made a pickup counter, a new warehouse ships online orders): the new one gets Kontor's count, not lowered by what was set at the former one", async () => {
    await adapter.list(target, item(5), 'list');
    await adapter.setQuantities(target, [update(5)], 'at-first');
    const made = await post('/_sandbox/shopify/locations', {
      portal_account: account,
      locations: [{ name: 'Abholtheke', fulfills_online_orders: false }, { name: 'Versandlager' }],
    });
    const [counter, warehouse] = (made.body as unknown as { id: string }[]).map((l) => l.id);
    const at = (location: string) => shopifyOf(sandbox.state).availableAt(sandboxVariant('CMP-1').inventoryItemId, location);
    // An eBay sale brings Kontor to 4: the warehouse, holding none yet, offers the 4 (it got 0, counted done).
    expect(await adapter.setQuantities(target, [update(4)], 'moved')).to.deep.equal([{ stockId: 1, outcome: 'accepted' }]);
    expect([at(warehouse!), at(counter!)]).to.deep.equal([4, 5]);
    expect(quantityCalls().at(-1)!.quantities[0]).to.include({ locationId: warehouse, quantity: 4, changeFromQuantity: 0 });
    // From then on the warehouse's quantity is the one compared: a store sale there Kontor has not imported is not undone.
    shopifyOf(sandbox.state).setAvailableAt(sandboxVariant('CMP-1').inventoryItemId, warehouse!, 3);
    await adapter.setQuantities(target, [update(4)], 'sold-there');
    expect(at(warehouse!)).to.equal(3);
  });

  it("a store sale at a store of several locations comes off the location that ships it (the fulfillment order's assigned location, where Kontor sets): a push before its import does not undo it", async () => {
    const made = await post('/_sandbox/shopify/locations', {
      portal_account: account,
      locations: [{ name: 'Abholtheke', fulfills_online_orders: false }, { name: 'Versandlager' }],
    });
    const [counter, warehouse] = (made.body as unknown as { id: string }[]).map((l) => l.id);
    await adapter.list(target, item(5), 'list');
    shopifyOf(sandbox.state).setAvailableAt(sandboxVariant('CMP-1').inventoryItemId, counter!, 2);
    const at = (location: string) => shopifyOf(sandbox.state).availableAt(sandboxVariant('CMP-1').inventoryItemId, location);
    expect([at(warehouse!), at(counter!)]).to.deep.equal([5, 2]);
    // A buyer orders 1 online: Shopify routes it to the warehouse (the counter fulfils no online orders) and takes it off there.
    await sellInStore(1);
    const order = [...shopifyOf(sandbox.state).orders.values()].find((o) => o.account === String(account))!;
    expect(order.fulfillmentOrders.map((fo) => fo.locationId)).to.deep.equal([warehouse]);
    expect([at(warehouse!), at(counter!)]).to.deep.equal([4, 2]);
    // Kontor, not having imported it, pushes its 4 after an eBay sale: the warehouse ends at 3, not at 4 of 3 (one unit sold twice).
    expect(await adapter.setQuantities(target, [update(4)], 'after-ebay-sale')).to.deep.equal([{ stockId: 1, outcome: 'accepted' }]);
    expect([at(warehouse!), at(counter!)]).to.deep.equal([3, 2]);
    // Cancelled with a restock, the unit goes back where it was taken from.
    expect((await post(`/_sandbox/shopify/orders/${order.id.split('/').pop()}/cancel`, { restock: true })).status).to.equal(200);
    expect([at(warehouse!), at(counter!)]).to.deep.equal([4, 2]);
  });

  it("a quantity recorded before its location was (a row without location) compares at the store's first location only", async () => {
    await adapter.list(target, item(5), 'list');
    await adapter.setQuantities(target, [update(5)], 'at-first');
    await db()('shopify_inventory_set').where({ portal_account_id: account }).update({ location_id: null });
    // Still at the first location: the store sold 1 Kontor has not imported, Kontor's 4 becomes 3 (compare-and-set as before).
    await sellInStore(1);
    await adapter.setQuantities(target, [update(4)], 'legacy-same');
    expect(await offered()).to.equal(3);
    await db()('shopify_inventory_set').where({ portal_account_id: account }).update({ location_id: null });
    const made = await post('/_sandbox/shopify/locations', {
      portal_account: account,
      locations: [{ name: 'Abholtheke', fulfills_online_orders: false }, { name: 'Versandlager' }],
    });
    const warehouse = (made.body as unknown as { id: string }[])[1]!.id;
    expect(await adapter.setQuantities(target, [update(3)], 'legacy-moved')).to.deep.equal([{ stockId: 1, outcome: 'accepted' }]);
    expect(shopifyOf(sandbox.state).availableAt(sandboxVariant('CMP-1').inventoryItemId, warehouse)).to.equal(3);
  });

  it('the sandbox plays a stale compare quantity as documented: CHANGE_FROM_QUANTITY_STALE at the item, nothing of the call applied', async () => {
    await adapter.list(target, item(5), 'list');
    await adapter.list(target, item(5, 'CMP-2'), 'list-2');
    await sellInStore(2, 'CMP-2');
    const outcomes = await adapter.setQuantities(target, [update(4), update(4, 'CMP-2', 2)], 'both');
    expect(outcomes.map((o) => o.outcome)).to.deep.equal(['accepted', 'accepted']);
    // CMP-2: 3 in the store of the 5 set, Kontor's 4 less the 2 sold there; CMP-1 set only with it (the first call applied nothing).
    expect([await offered(), await offered('CMP-2')]).to.deep.equal([4, 2]);
    // Shopify's answer to a stale compare quantity, asked directly in the default version: the item named, nothing applied.
    const variant = sandboxVariant('CMP-2');
    const answer = await new ShopifySession(target).call<{ inventorySetQuantities: { inventoryAdjustmentGroup: unknown; userErrors: unknown[] } }>(
      'mutation Q($input: InventorySetQuantitiesInput!, $key: String!) { inventorySetQuantities(input: $input) @idempotent(key: $key) { inventoryAdjustmentGroup { id } userErrors { field message code } } }',
      {
        key: 'stale-asked-directly',
        input: {
          name: 'available',
          reason: 'correction',
          quantities: [{ inventoryItemId: variant.inventoryItemId, locationId: 'gid://shopify/Location/1', quantity: 7, changeFromQuantity: 5 }],
        },
      },
    );
    expect(answer.inventorySetQuantities).to.deep.equal({
      inventoryAdjustmentGroup: null,
      userErrors: [
        {
          field: ['input', 'quantities', '0', 'changeFromQuantity'],
          message: 'The changeFromQuantity value does not match persisted value.',
          code: 'CHANGE_FROM_QUANTITY_STALE',
        },
      ],
    });
    expect(await offered('CMP-2')).to.equal(2);
    const [refused, applied] = quantityCalls().slice(-3, -1);
    expect(refused!.quantities.map((q) => q.changeFromQuantity)).to.deep.equal([5, 5]);
    expect(applied!.quantities.map((q) => [q.quantity, q.changeFromQuantity])).to.deep.equal([
      [4, 5],
      [2, 3],
    ]);
  });

  it('the rule on a stale quantity: lower than expected takes the unimported sales off (never below 0), higher sets the count', () => {
    expect(staleTarget(4, 5, 4)).to.equal(3);
    expect(staleTarget(1, 5, 2)).to.equal(0);
    expect(staleTarget(4, 5, 9)).to.equal(4);
    expect(staleTarget(4, 5, 5)).to.equal(4);
  });
});
