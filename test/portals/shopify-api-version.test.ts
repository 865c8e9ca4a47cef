/**
 * The Admin API version is a setting (SHOPIFY_API_VERSION): 2025-01, whose schema the project holds,
 * is retired and "falls forward" to Shopify's oldest supported version (../shared/contracts/shopify/
 * SOURCES.md, "Version caveat"); from 2026-04 that version refuses an inventorySetQuantities without
 * changeFromQuantity and @idempotent and has no compareQuantity (shopify.dev/changelog,
 * finalizing-compare-and-swap-redesign-for-inventory-set-quantities, making-idempotency-mandatory-
 * for-inventory-adjustments-and-refund-mutations). CIA's pushes speak the version set, against the
 * sandbox playing it (sandbox/shopify-versions.sandbox.ts).
 */
import { expect } from 'chai';
import { config, setConfig } from '../../config';
import type { ShopifyApiVersion } from '../../config/channel-apps';
import type { ListingItem, PortalTarget, QuantityUpdate } from '../../lib/portals/portal.type';
import { WebshopAdapter } from '../../lib/portals/webshop.adapter';
import type { SandboxRequest } from '../../sandbox/sandbox.app';
import { shopifyOf } from '../../sandbox/shopify.sandbox';
import type { Sandbox } from '../fleet/support';
import { postToSandbox, shopifyStoreForEach } from './shopify-support';

const adapter = new WebshopAdapter();
type Sent = { query: string; variables: { idempotencyKey?: string; input: { ignoreCompareQuantity?: boolean; quantities: Record<string, unknown>[] } } };

const item = (quantityAvailable: number): ListingItem => ({
  stockId: 1,
  name: 'Milchkanne',
  sku: 'VER-1',
  ean: null,
  price: '12.00',
  quantityAvailable,
  group: { shop_id: 'main' },
});
const update = (quantity: number): QuantityUpdate => ({ stockId: 1, quantity, key: `k-ver-${quantity}`, sku: 'VER-1', group: { shop_id: 'main' } });

describe('webshop at Shopify: the Admin API version is SHOPIFY_API_VERSION', () => {
  let sandbox: Sandbox;
  let account: number;
  let target: PortalTarget;
  shopifyStoreForEach((store) => ({ sandbox, account, target } = store));
  const saved = config();
  const speak = (apiVersion: ShopifyApiVersion) => setConfig({ ...saved, shopifyApplication: { ...saved.shopifyApplication, apiVersion } });
  afterEach(() => setConfig(saved));

  const offered = async (): Promise<number> => {
    const all = (await (await fetch(`${sandbox.url}/_sandbox/shopify/variants?portal_account=${account}`)).json()) as { sku: string; available: number }[];
    return all.find((v) => v.sku === 'VER-1')!.available;
  };
  /** A buyer orders one unit in the store: Shopify takes it off `available` at once, Kontor has not read it. */
  const sellOneInStore = async () => {
    const placed = await postToSandbox(sandbox, '/_sandbox/shopify/orders', {
      portal_account: account,
      lines: [{ sku: 'VER-1', quantity: 1 }],
      buyer: { name: 'Erika Musterfrau', email: 'erika@example.com', street: 'Lindenweg 3', zip: '10115', city: 'Berlin', country_iso2: 'DE' },
    });
    expect(placed.status).to.equal(201);
    await new Promise((r) => setTimeout(r, 5));
  };
  /** The inventorySetQuantities calls the store received: their path and body. */
  const setCalls = () =>
    sandbox.state.requests
      .filter((r: SandboxRequest) => r.portalAccount === String(account) && String((r.body as { query?: string }).query).includes('inventorySetQuantities'))
      .map((r) => ({ path: r.path, ...(r.body as Sent) }));

  it('when set to 2026-10, then a push and its stale retry send changeFromQuantity (no compareQuantity) with an idempotency key, and the store sale is not undone', async () => {
    speak('2026-10');
    await adapter.list(target, item(5), 'list');
    await sellOneInStore();
    expect(await adapter.setQuantities(target, [update(4)], 'after-ebay-sale')).to.deep.equal([{ stockId: 1, outcome: 'accepted' }]);
    expect(await offered()).to.equal(3);
    const calls = setCalls();
    expect(calls.map((c) => c.path)).to.deep.equal(Array(calls.length).fill('/admin/api/2026-10/graphql.json'));
    // list's set, then the push: compared against the 5 set (stale: the store sold one), again against the 4 it holds.
    expect(calls.map((c) => c.variables.input.quantities.map((q) => [q.quantity, q.changeFromQuantity, 'compareQuantity' in q]))).to.deep.equal([
      [[5, 0, false]],
      [[4, 5, false]],
      [[3, 4, false]],
    ]);
    expect(calls.every((c) => c.query.includes('@idempotent(key: $idempotencyKey)') && /^[0-9a-f-]{36}$/.test(c.variables.idempotencyKey ?? ''))).to.equal(
      true,
    );
    expect(new Set(calls.map((c) => c.variables.idempotencyKey)).size).to.equal(3);
  });

  it('when set to 2025-01 (the schema the project holds), then the same push sends compareQuantity at /admin/api/2025-01/ and recognises COMPARE_QUANTITY_STALE', async () => {
    speak('2025-01');
    await adapter.list(target, item(5), 'list');
    await sellOneInStore();
    expect(await adapter.setQuantities(target, [update(4)], 'after-ebay-sale')).to.deep.equal([{ stockId: 1, outcome: 'accepted' }]);
    expect(await offered()).to.equal(3);
    const calls = setCalls();
    expect(calls.map((c) => c.path)).to.deep.equal(Array(calls.length).fill('/admin/api/2025-01/graphql.json'));
    expect(calls.map((c) => c.variables.input.quantities.map((q) => [q.quantity, q.compareQuantity, 'changeFromQuantity' in q]))).to.deep.equal([
      [[5, 0, false]],
      [[4, 5, false]],
      [[3, 4, false]],
    ]);
    expect(calls.some((c) => c.query.includes('@idempotent') || c.variables.idempotencyKey !== undefined)).to.equal(false);
  });

  it('the sandbox playing 2026-10 refuses compareQuantity, ignoreCompareQuantity, a set without changeFromQuantity or without @idempotent, and answers a wrong changeFromQuantity CHANGE_FROM_QUANTITY_STALE', async () => {
    await adapter.list(target, item(5), 'list');
    const s = shopifyOf(sandbox.state);
    const inventoryItemId = s.variantBySku(String(account), 'VER-1')!.inventoryItemId;
    const locationId = s.locationsOf(String(account))[0]!.id;
    const set = (quantity: Record<string, unknown>, directive = ' @idempotent(key: $key)', extra: Record<string, unknown> = {}) =>
      postToSandbox(
        sandbox,
        '/admin/api/2026-10/graphql.json',
        {
          query: `mutation M($input: InventorySetQuantitiesInput!${directive ? ', $key: String!' : ''}) { inventorySetQuantities(input: $input)${directive} { userErrors { field code } } }`,
          variables: {
            input: { name: 'available', reason: 'correction', quantities: [{ inventoryItemId, locationId, quantity: 7, ...quantity }], ...extra },
            ...(directive ? { key: 'k' } : {}),
          },
        },
        { 'X-Shopify-Access-Token': `shpat_sandbox_${account}` },
      );
    const messages = (body: Record<string, unknown>) => ((body.errors ?? []) as { message: string }[]).map((e) => e.message);

    expect(messages((await set({ compareQuantity: 5 })).body)[0]).to.match(/Field "compareQuantity" is not defined by type "InventoryQuantityInput"/);
    expect(messages((await set({ changeFromQuantity: null }, ' @idempotent(key: $key)', { ignoreCompareQuantity: true })).body)[0]).to.match(
      /Field "ignoreCompareQuantity" is not defined/,
    );
    expect(messages((await set({})).body)).to.deep.equal([
      'inventorySetQuantities requires changeFromQuantity on each quantity as of API version 2026-10 (the expected current quantity, or null to skip the check): quantities[0] has none.',
    ]);
    expect(messages((await set({ changeFromQuantity: 5 }, '')).body)).to.deep.equal([
      'inventorySetQuantities requires the @idempotent directive with an idempotency key as of API version 2026-10.',
    ]);
    const stale = await set({ changeFromQuantity: 4 });
    expect(stale.body.data).to.deep.equal({
      inventorySetQuantities: { userErrors: [{ field: ['input', 'quantities', '0', 'changeFromQuantity'], code: 'CHANGE_FROM_QUANTITY_STALE' }] },
    });
    expect(await offered()).to.equal(5);
    expect((await set({ changeFromQuantity: null })).body.data).to.deep.equal({ inventorySetQuantities: { userErrors: [] } });
    expect(await offered()).to.equal(7);
    // This test made the violations on purpose; the check after each test looks for the adapter's.
    sandbox.state.events.emit('reset');
  });
});
