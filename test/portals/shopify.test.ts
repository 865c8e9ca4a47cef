import { expect } from 'chai';
import { DomainError, isPermanent } from '../../lib/errors';
import type { ListingItem, PortalTarget, QuantityUpdate } from '../../lib/portals/portal.type';
import { waitForCostMs } from '../../lib/portals/shopify/shopify-client';
import { variantData } from '../../lib/portals/shopify/variant-mapping';
import { WebshopAdapter } from '../../lib/portals/webshop.adapter';
import type { SandboxRequest } from '../../sandbox/sandbox.app';
import { shopifyOf, shopifySchema } from '../../sandbox/shopify.sandbox';
import { Sandbox, sandboxKeepingContract } from '../fleet/support';
import { failure } from '../support/failure';
import { postToSandbox } from './shopify-support';

const adapter = new WebshopAdapter();

const item = (fields: Partial<ListingItem> = {}, group: Record<string, unknown> = {}): ListingItem => ({
  stockId: 4711,
  name: 'Teekanne',
  sku: 'SH-POT',
  ean: '4006381333931',
  price: '24.90',
  quantityAvailable: 7,
  group: { shop_id: 'main', ...group },
  ...fields,
});

describe('webshop: Stock_webshop_type as a Shopify variant', () => {
  it('title from the entry, SKU, barcode, the gross price, a running special as price with the regular as compare-at, weight in kg', () => {
    expect(variantData(item({}, { name: 'Teekanne 1,5 l', weight: '0.85' }))).to.deep.equal({
      title: 'Teekanne 1,5 l',
      sku: 'SH-POT',
      barcode: '4006381333931',
      price: '24.90',
      compareAtPrice: null,
      weight: { value: 0.85, unit: 'KILOGRAMS' },
    });
    expect(variantData(item({ sku: null }, { special: { is_active: true, price: ['19.9'] } }))).to.include({
      sku: 'stock-4711',
      price: '19.90',
      compareAtPrice: '24.90',
    });
    expect(variantData(item({}, { sku: 'OWN', special: { is_active: false, price: ['19.9'] } }))).to.include({
      sku: 'OWN',
      price: '24.90',
      compareAtPrice: null,
    });
  });

  it('waits for the bucket: nothing when the cost is available, else the missing points at the restore rate', () => {
    const status = { maximumAvailable: 2000, currentlyAvailable: 40, restoreRate: 100 };
    expect(waitForCostMs(status, 1000, 100, 1000)).to.equal(600);
    expect(waitForCostMs(status, 1000, 100, 1600)).to.equal(0);
    expect(waitForCostMs({ ...status, currentlyAvailable: 1500 }, 0, 100, 0)).to.equal(0);
  });

  it('the sandbox stops at start naming the contract folder when it is missing', () => {
    expect(() => shopifySchema('/nonexistent-contracts')).to.throw(/contract folder \/nonexistent-contracts\/shopify is missing/);
  });
});

describe('webshop: Shopify Admin GraphQL 2025-01 against the sandbox built from its schema', () => {
  let sandbox: Sandbox;
  let account: number;
  let target: PortalTarget;
  sandboxKeepingContract('shopify', (started) => (sandbox = started));
  beforeEach(() => {
    account = 700000 + Math.floor(Math.random() * 100000);
    target = { portalAccountId: account, connector: 'shopify', baseUrl: sandbox.url, credentials: {} };
  });

  const s = () => shopifyOf(sandbox.state);
  const calls = (): SandboxRequest[] => sandbox.state.requests.filter((r) => r.portal === 'webshop' && r.portalAccount === String(account));
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) => postToSandbox(sandbox, path, body, headers);
  const variants = async () =>
    (await (await fetch(`${sandbox.url}/_sandbox/shopify/variants?portal_account=${account}`)).json()) as {
      sku: string;
      title: string;
      status: string;
      price: string;
      compareAtPrice: string | null;
      barcode: string | null;
      weight: unknown;
      inventoryPolicy: string;
      available: number;
    }[];
  const update = (sku: string, quantity: number, stockId = 1): QuantityUpdate => ({ stockId, quantity, key: `k-${sku}`, sku, group: { shop_id: 'main' } });

  it('list creates the product and its variant with title, SKU, barcode, prices, weight and the quantity at the location; listing again updates it', async () => {
    const listed = await adapter.list(target, item({}, { name: 'Teekanne 1,5 l', weight: '0.85' }), 'k1');
    expect(listed.portalItemId).to.match(/^\d+$/);
    expect(await variants()).to.deep.equal([
      {
        id: `gid://shopify/ProductVariant/${listed.portalItemId}`,
        productId: `gid://shopify/Product/${listed.portalItemId}`,
        sku: 'SH-POT',
        barcode: '4006381333931',
        price: '24.90',
        compareAtPrice: null,
        weight: { value: 0.85, unit: 'KILOGRAMS' },
        inventoryItemId: `gid://shopify/InventoryItem/${listed.portalItemId}`,
        tracked: true,
        inventoryPolicy: 'DENY',
        title: 'Teekanne 1,5 l',
        status: 'ACTIVE',
        available: 7,
      },
    ]);
    const again = await adapter.list(target, item({ price: '26.00', quantityAvailable: 3 }, { name: 'Teekanne' }), 'k2');
    expect(again.portalItemId).to.equal(listed.portalItemId);
    expect(await variants()).to.have.length(1);
    expect((await variants())[0]).to.include({ title: 'Teekanne', price: '26.00', available: 3 });
    await adapter.revise(target, item({}, { special: { is_active: true, price: ['19.90'] } }), listed.portalItemId, [], 'k3');
    expect((await variants())[0]).to.include({ price: '19.90', compareAtPrice: '24.90' });
  });

  it("the product follows the shop entry's is_active (Stock_webshop_type) on list, on a list that finds the variant and on revise: DRAFT when false, ACTIVE when true", async () => {
    const status = async () => (await variants()).map((v) => [v.title, v.status]);
    const listed = await adapter.list(target, item({}, { name: 'Teekanne', is_active: false }), 'k1');
    expect(await status()).to.deep.equal([['Teekanne', 'DRAFT']]);
    // The seller keeps it inactive and changes its title: the product stays off sale.
    await adapter.revise(target, item({}, { name: 'Teekanne 1,5 l', is_active: false }), listed.portalItemId, ['name'], 'k2');
    expect(await status()).to.deep.equal([['Teekanne 1,5 l', 'DRAFT']]);
    await adapter.list(target, item({}, { name: 'Teekanne 2 l', is_active: false }), 'k3');
    expect(await status()).to.deep.equal([['Teekanne 2 l', 'DRAFT']]);
    await adapter.revise(target, item({}, { name: 'Teekanne 2 l', is_active: true }), listed.portalItemId, ['is_active'], 'k4');
    expect(await status()).to.deep.equal([['Teekanne 2 l', 'ACTIVE']]);
    await adapter.revise(target, item({}, { name: 'Teekanne 2 l', is_active: false }), listed.portalItemId, ['is_active'], 'k5');
    expect(await status()).to.deep.equal([['Teekanne 2 l', 'DRAFT']]);
    // No is_active in the entry: active, as list has always read it.
    await adapter.revise(target, item({}, { name: 'Teekanne 2 l' }), listed.portalItemId, [], 'k6');
    expect(await status()).to.deep.equal([['Teekanne 2 l', 'ACTIVE']]);
  });

  it('CIA sets quantities with one inventorySetQuantities for the batch; an item without a variant is refused, the rest accepted', async () => {
    await adapter.list(target, item({ stockId: 1, sku: 'A' }), 'a');
    await adapter.list(target, item({ stockId: 2, sku: 'B' }), 'b');
    const before = calls().length;
    const outcomes = await adapter.setQuantities(target, [update('A', 0, 1), update('B', 12, 2), update('NOPE', 5, 3)], 'batch');
    expect(outcomes.map((o) => o.outcome)).to.deep.equal(['accepted', 'accepted', 'refused']);
    expect(outcomes[2])
      .to.have.property('message')
      .that.matches(/no variant with SKU NOPE/);
    expect(Object.fromEntries((await variants()).map((v) => [v.sku, v.available]))).to.deep.equal({ A: 0, B: 12 });
    // Variants remembered from the listing: the store's locations (read on every push), a lookup of the unknown SKU and one mutation.
    expect(calls().length - before).to.equal(3);
  });

  it('CIA: two stock items with one SKU (one variant) get the lower quantity set once, the other refused naming the clash, and the rest of the batch goes through', async () => {
    await adapter.list(target, item({ stockId: 1, sku: 'SAME' }), 's');
    await adapter.list(target, item({ stockId: 2, sku: 'OTHER' }), 'o');
    const outcomes = await adapter.setQuantities(target, [update('SAME', 6, 1), update('OTHER', 4, 2), update('SAME', 2, 3)], 'batch');
    expect(outcomes.map((o) => o.outcome)).to.deep.equal(['refused', 'accepted', 'accepted']);
    expect(outcomes[0]).to.have.property(
      'message',
      'webshop (Shopify): stock items 3 and 1 share one listing (SKU SAME); the lower quantity, 2 of item 3, was sent: give each item its own SKU',
    );
    expect(Object.fromEntries((await variants()).map((v) => [v.sku, v.available]))).to.deep.equal({ SAME: 2, OTHER: 4 });
  });

  it('a variant the store sells beyond its quantity (not tracked, or continue selling when out of stock): the quantity is set, the item refused saying what to switch; switched back, it is accepted', async () => {
    await adapter.list(target, item({ stockId: 1, sku: 'CONT' }), 'c');
    await adapter.list(target, item({ stockId: 2, sku: 'UNTR' }), 'u');
    await adapter.list(target, item({ stockId: 3, sku: 'PLAIN' }), 'p');
    // Kontor remembers the variants from the listing; the merchant changes their settings in Shopify's admin afterwards.
    expect((await post('/_sandbox/shopify/variant', { portal_account: account, sku: 'CONT', inventory_policy: 'CONTINUE' })).status).to.equal(200);
    expect((await post('/_sandbox/shopify/variant', { portal_account: account, sku: 'UNTR', tracked: false })).status).to.equal(200);
    const outcomes = await adapter.setQuantities(target, [update('CONT', 0, 1), update('UNTR', 2, 2), update('PLAIN', 0, 3)], 'sold-elsewhere');
    expect(outcomes.map((o) => o.outcome)).to.deep.equal(['refused', 'refused', 'accepted']);
    expect(outcomes[0]).to.have.property(
      'message',
      'webshop (Shopify) took quantity 0 of SKU CONT, but the store does not stop selling at it: it keeps selling when out of stock (inventory policy CONTINUE, "Continue selling when out of stock"). ' +
        'Units sold elsewhere can be sold there again; switch "Track quantity" on and "Continue selling when out of stock" off for the variant in Shopify, or CIA off for the item at the web shop.',
    );
    expect(outcomes[1]).to.have.property('message').that.contains('SKU UNTR').and.contains('its inventory is not tracked ("Track quantity" is off)');
    // Shopify took every quantity (no userError): the store shows Kontor's count.
    expect(Object.fromEntries((await variants()).map((v) => [v.sku, v.available]))).to.deep.equal({ CONT: 0, UNTR: 2, PLAIN: 0 });

    await post('/_sandbox/shopify/variant', { portal_account: account, sku: 'CONT', inventory_policy: 'DENY' });
    await post('/_sandbox/shopify/variant', { portal_account: account, sku: 'UNTR', tracked: true });
    const after = await adapter.setQuantities(target, [update('CONT', 1, 1), update('UNTR', 1, 2)], 'switched');
    expect(after).to.deep.equal([
      { stockId: 1, outcome: 'accepted' },
      { stockId: 2, outcome: 'accepted' },
    ]);
  });

  it('a variant refused for continue selling, switched off by the merchant as told: the listing (or push) at the same quantity is accepted, not refused again from what the process remembered', async () => {
    await adapter.list(target, item({ stockId: 1, sku: 'SWITCH' }), 's');
    expect((await post('/_sandbox/shopify/variant', { portal_account: account, sku: 'SWITCH', inventory_policy: 'CONTINUE' })).status).to.equal(200);
    const refused = await adapter.list(target, item({ stockId: 1, sku: 'SWITCH', quantityAvailable: 2 }), 's-2').catch((err: unknown) => err);
    expect(refused).to.be.instanceOf(DomainError).and.deep.include({ id: 'portal_refused' });
    expect((refused as DomainError).message).to.contain('inventory policy CONTINUE');
    // The merchant switches "Continue selling when out of stock" off, as the refusal says; the store holds Kontor's 2 already.
    expect((await post('/_sandbox/shopify/variant', { portal_account: account, sku: 'SWITCH', inventory_policy: 'DENY' })).status).to.equal(200);
    const listed = await adapter.list(target, item({ stockId: 1, sku: 'SWITCH', quantityAvailable: 2 }), 's-3');
    expect(listed.portalItemId).to.match(/^\d+$/);
    expect(await adapter.setQuantities(target, [update('SWITCH', 2, 1)], 'same')).to.deep.equal([{ stockId: 1, outcome: 'accepted' }]);
  });

  it('a variant sold on when out of stock, listed for an item with CIA off at the store (preorder): the listing is taken with its quantity; with CIA on, or not said, it is refused; a CIA push still is', async () => {
    await adapter.list(target, item({ stockId: 1, sku: 'PRE' }), 'pre');
    await adapter.list(target, item({ stockId: 2, sku: 'MADE' }), 'made');
    for (const sku of ['PRE', 'MADE'])
      expect((await post('/_sandbox/shopify/variant', { portal_account: account, sku, inventory_policy: 'CONTINUE' })).status).to.equal(200);

    const kept = await adapter.list(target, item({ stockId: 1, sku: 'PRE', quantityAvailable: 3, ciaActive: true }), 'pre-on').catch((err: unknown) => err);
    expect(kept).to.be.instanceOf(DomainError).and.deep.include({ id: 'portal_refused' });
    expect((kept as DomainError).message)
      .to.contain('SKU PRE')
      .and.contain('inventory policy CONTINUE')
      .and.contain('or CIA off for the item at the web shop');
    const unsaid = await adapter.list(target, item({ stockId: 2, sku: 'MADE', quantityAvailable: 3 }), 'made-unsaid').catch((err: unknown) => err);
    expect(unsaid).to.be.instanceOf(DomainError).and.deep.include({ id: 'portal_refused' });

    // CIA off for the item at the web shop, as the refusal advises: listed, at the quantity the refused listing set already and at a new one.
    expect((await adapter.list(target, item({ stockId: 1, sku: 'PRE', quantityAvailable: 3, ciaActive: false }), 'pre-off')).portalItemId).to.match(/^\d+$/);
    expect((await adapter.list(target, item({ stockId: 2, sku: 'MADE', quantityAvailable: 5, ciaActive: false }), 'made-off')).portalItemId).to.match(/^\d+$/);
    expect(Object.fromEntries((await variants()).map((v) => [v.sku, [v.available, v.inventoryPolicy]]))).to.deep.equal({
      PRE: [3, 'CONTINUE'],
      MADE: [5, 'CONTINUE'],
    });
    // A quantity push is CIA's (CIA off pushes nothing): still refused.
    expect((await adapter.setQuantities(target, [update('PRE', 0, 1)], 'cia')).map((o) => o.outcome)).to.deep.equal(['refused']);
  });

  it('a variant deleted in the store: its quantity is retried, and the next push, finding no variant, refuses it', async () => {
    await adapter.list(target, item({ stockId: 1, sku: 'GONE' }), 'g');
    await adapter.list(target, item({ stockId: 2, sku: 'KEPT' }), 'k');
    const v = s().variantBySku(String(account), 'GONE')!;
    s().variants.delete(v.id);
    const outcomes = await adapter.setQuantities(target, [update('GONE', 3, 1), update('KEPT', 4, 2)], 'b1');
    expect(outcomes.map((o) => o.outcome)).to.deep.equal(['retry', 'accepted']);
    expect(outcomes[0])
      .to.have.property('message')
      .that.matches(/could not be found/);
    expect((await variants()).map((x) => [x.sku, x.available])).to.deep.equal([['KEPT', 4]]);
    const again = await adapter.setQuantities(target, [update('GONE', 3, 1)], 'b2');
    expect(again.map((o) => o.outcome)).to.deep.equal(['refused']);
  });

  it('a store of several locations: the quantity is set at its oldest active location that fulfils online orders, not at a first one that does not; an item with stock at another such location is refused naming it, and accepted once that stock is 0 or the location stops fulfilling online orders', async () => {
    // The merchant's locations: the first one a pickup counter only, then the shipping warehouse, a shop that also ships online orders, a closed one.
    const made = await post('/_sandbox/shopify/locations', {
      portal_account: account,
      locations: [
        { name: 'Abholtheke', fulfills_online_orders: false },
        { name: 'Versandlager' },
        { name: 'Laden Mitte' },
        { name: 'Altes Lager', is_active: false },
      ],
    });
    expect(made.status).to.equal(201);
    const [counter, warehouse, shop, closed] = (made.body as unknown as { id: string }[]).map((l) => l.id);
    await adapter.list(target, item({ stockId: 1, sku: 'LOC-A', quantityAvailable: 7 }), 'a');
    await adapter.list(target, item({ stockId: 2, sku: 'LOC-B', quantityAvailable: 7 }), 'b');
    const at = (sku: string, location: string) => s().availableAt(s().variantBySku(String(account), sku)!.inventoryItemId, location);
    expect([at('LOC-A', warehouse!), at('LOC-A', counter!)]).to.deep.equal([7, 0]);

    // Stock the store does not sell online (the pickup counter, the closed location) leaves A alone; B has 2 in the shop, which ships online orders too.
    const stock = async (sku: string, location: string, available: number) =>
      expect((await post('/_sandbox/shopify/inventory', { portal_account: account, sku, location, available })).status).to.equal(200);
    await stock('LOC-A', counter!, 5);
    await stock('LOC-A', closed!, 3);
    await stock('LOC-B', shop!, 2);
    const outcomes = await adapter.setQuantities(target, [update('LOC-A', 4, 1), update('LOC-B', 6, 2)], 'several');
    expect(outcomes).to.deep.equal([
      { stockId: 1, outcome: 'accepted' },
      {
        stockId: 2,
        outcome: 'refused',
        message:
          'webshop (Shopify) set quantity 6 of SKU LOC-B at the location Versandlager, but the store also sells it online from Laden Mitte (2 available): it can sell more than Kontor counts. ' +
          'Kontor keeps the web shop\'s stock at one location: set the variant\'s quantity to 0 at Laden Mitte, or switch "Fulfill online orders from this location" off there, in Shopify.',
      },
    ]);
    // The quantity is set all the same; the other locations keep theirs.
    expect([at('LOC-A', warehouse!), at('LOC-A', counter!), at('LOC-A', closed!), at('LOC-B', warehouse!), at('LOC-B', shop!)]).to.deep.equal([4, 5, 3, 6, 2]);
    // Listing B is refused the same way (not recorded as listed).
    const listed = await adapter.list(target, item({ stockId: 2, sku: 'LOC-B', quantityAvailable: 6 }), 'b-again').catch((err: unknown) => err);
    expect(listed).to.be.instanceOf(DomainError).and.deep.include({ id: 'portal_refused' });
    expect((listed as DomainError).message).to.contain('Laden Mitte (2 available)');
    // With CIA off for the item at the web shop, Kontor does not keep its quantity there (as for continue selling): the listing is taken.
    expect((await adapter.list(target, item({ stockId: 2, sku: 'LOC-B', quantityAvailable: 6, ciaActive: false }), 'b-off')).portalItemId).to.match(/^\d+$/);

    // The merchant does as told: the shop's stock to 0, or the shop no longer fulfilling online orders.
    await stock('LOC-B', shop!, 0);
    expect(await adapter.setQuantities(target, [update('LOC-B', 5, 2)], 'emptied')).to.deep.equal([{ stockId: 2, outcome: 'accepted' }]);
    await stock('LOC-B', shop!, 2);
    expect((await adapter.setQuantities(target, [update('LOC-B', 4, 2)], 'stocked')).map((o) => o.outcome)).to.deep.equal(['refused']);
    s().locationsOf(String(account))[2]!.fulfillsOnlineOrders = false;
    expect(await adapter.setQuantities(target, [update('LOC-B', 4, 2)], 'pickup-only')).to.deep.equal([{ stockId: 2, outcome: 'accepted' }]);
  });

  it('a store none of whose active locations fulfils online orders: the push is refused naming it, and nothing is set', async () => {
    await adapter.list(target, item({ stockId: 1, sku: 'NOWHERE', quantityAvailable: 3 }), 'n');
    expect(
      (await post('/_sandbox/shopify/locations', { portal_account: account, locations: [{ name: 'Abholtheke', fulfills_online_orders: false }] })).status,
    ).to.equal(201);
    const refused = await adapter.setQuantities(target, [update('NOWHERE', 1, 1)], 'nowhere').catch((err: unknown) => err);
    expect(refused).to.be.instanceOf(DomainError).and.deep.include({ id: 'portal_refused' });
    expect((refused as DomainError).message).to.equal(
      `webshop: the Shopify store of portal account ${account} has no active location that fulfils online orders ("Fulfill online orders from this location"); Kontor sets the web shop's stock there`,
    );
    expect((await variants()).map((v) => v.available)).to.deep.equal([3]);
  });

  it("a store selling online from a fulfilment app's legacy location (locations(includeLegacy: true)): Kontor does not set the count the app keeps, and stock there refuses the item like any other location's", async () => {
    await adapter.list(target, item({ stockId: 1, sku: 'APP-A', quantityAvailable: 3 }), 'a');
    // Only the pickup counter and the app's warehouse (a legacy fulfilment service location, the app tracking its stock).
    expect(
      (
        await post('/_sandbox/shopify/locations', {
          portal_account: account,
          locations: [
            { name: 'Abholtheke', fulfills_online_orders: false },
            { name: 'Lagerdienst', fulfillment_service: 'legacy' },
          ],
        })
      ).status,
    ).to.equal(201);
    const refused = await adapter.setQuantities(target, [update('APP-A', 2, 1)], 'app-only').catch((err: unknown) => err);
    expect(refused).to.be.instanceOf(DomainError).and.deep.include({ id: 'portal_refused' });
    expect((refused as DomainError).message).to.equal(
      `webshop: the Shopify store of portal account ${account} fulfils online orders only from locations whose fulfilment app keeps the stock: Lagerdienst (Lagerdienst); ` +
        "Kontor does not set a quantity the app overwrites: let a location of the store's own fulfil online orders, or switch CIA off for the web shop",
    );
    expect((await variants()).map((v) => v.available)).to.deep.equal([3]);

    // The merchant's own warehouse fulfils online orders too: Kontor sets there, and the 2 the app holds refuse the item.
    const made = await post('/_sandbox/shopify/locations', {
      portal_account: account,
      locations: [{ name: 'Versandlager' }, { name: 'Lagerdienst', fulfillment_service: 'legacy' }],
    });
    const app = (made.body as unknown as { id: string }[])[1]!.id;
    expect((await post('/_sandbox/shopify/inventory', { portal_account: account, sku: 'APP-A', location: app, available: 2 })).status).to.equal(200);
    const outcomes = await adapter.setQuantities(target, [update('APP-A', 2, 1)], 'app-stocked');
    expect(outcomes.map((o) => o.outcome)).to.deep.equal(['refused']);
    expect(outcomes[0]).to.have.property('message').that.contains('the store also sells it online from Lagerdienst (2 available)');
    expect((await variants()).map((v) => v.available)).to.deep.equal([2]);
  });

  it('an order is fetched by update time and mapped once; shipped with tracking it is fulfilled, and shipping again sends nothing', async () => {
    await adapter.list(target, item(), 'k');
    const since = new Date(Date.now() - 1000);
    const placed = await post('/_sandbox/shopify/orders', {
      portal_account: account,
      lines: [{ sku: 'SH-POT', quantity: 2 }],
      buyer: { name: 'Erika Musterfrau', email: 'erika@example.com', street: 'Lindenweg 3', zip: '10115', city: 'Berlin', country_iso2: 'DE' },
    });
    expect(placed.status).to.equal(201);
    const page = await adapter.fetchOrders(target, since, null);
    expect(page.next).to.equal(null);
    expect(page.orders).to.have.length(1);
    const order = page.orders[0]!;
    const id = String(placed.body.id).split('/').pop();
    expect(order).to.deep.include({
      external_order_id: id,
      currency_id: 'EUR',
      paid_amount: '54.70',
      status: { is_paid: true, is_shipped: false, is_cancelled: false },
    });
    expect(order.customer).to.deep.equal({
      email: 'erika@example.com',
      address: { name: 'Erika Musterfrau', street: 'Lindenweg 3', zip: '10115', city: 'Berlin', country_iso2: 'DE' },
    });
    expect(order.shipping.fee).to.equal('4.90');
    expect(order.line).to.deep.equal([
      { transaction_id: order.line[0]!.transaction_id, sku: 'SH-POT', name: 'Teekanne', quantity: 2, price: '24.90', tax: '0.00' },
    ]);
    expect((await variants())[0]!.available).to.equal(5);

    const shipment = {
      orderId: '1',
      externalOrderId: id,
      carrier: 'DHL',
      trackingCode: '00340434161094042557',
      lines: [{ transactionId: order.line[0]!.transaction_id, quantity: 2 }],
    };
    await adapter.markShipped(target, shipment, 's1');
    const stored = (await (await fetch(`${sandbox.url}/_sandbox/shopify/orders/${id}`)).json()) as { fulfillments: { tracking: unknown; lines: unknown[] }[] };
    expect(stored.fulfillments).to.have.length(1);
    expect(stored.fulfillments[0]!.tracking).to.deep.equal({ number: '00340434161094042557', company: 'DHL', companyRecognised: true });
    await adapter.markShipped(target, shipment, 's1');
    expect(((await (await fetch(`${sandbox.url}/_sandbox/shopify/orders/${id}`)).json()) as { fulfillments: unknown[] }).fulfillments).to.have.length(1);
    const after = await adapter.fetchOrders(target, since, null);
    expect(after.orders.map((o) => o.status.is_shipped)).to.deep.equal([true]);
  });

  it("an order of more lines than a page (60) is fulfilled whole: the fulfillment order's lines are read page by page", async () => {
    await adapter.list(target, item({ quantityAvailable: 100 }), 'k');
    const placed = await post('/_sandbox/shopify/orders', {
      portal_account: account,
      lines: Array.from({ length: 60 }, () => ({ sku: 'SH-POT', quantity: 1 })),
      buyer: { name: 'Erika Musterfrau', email: 'erika@example.com', street: 'Lindenweg 3', zip: '10115', city: 'Berlin', country_iso2: 'DE' },
    });
    expect(placed.status).to.equal(201);
    const id = String(placed.body.id).split('/').pop()!;
    await adapter.markShipped(target, { orderId: '1', externalOrderId: id, carrier: 'DHL', trackingCode: '00340434161094042557' }, 's1');
    const stored = (await (await fetch(`${sandbox.url}/_sandbox/shopify/orders/${id}`)).json()) as { fulfillments: { lines: unknown[] }[] };
    expect(stored.fulfillments).to.have.length(1);
    expect(stored.fulfillments[0]!.lines).to.have.length(60);
    expect(calls().filter((r) => JSON.stringify(r.body).includes('KontorFulfillmentOrderLines'))).to.have.length(1);
  });

  it('an order with a discount code and free shipping: the lines carry what the buyer paid and the fee is 0, so they add up to the amount received', async () => {
    await adapter.list(target, item(), 'k');
    const since = new Date(Date.now() - 1000);
    // 2 x 24.90 with 5.00 off the order (allocated to the line) and the 4.90 shipping free.
    const placed = await post('/_sandbox/shopify/orders', {
      portal_account: account,
      lines: [{ sku: 'SH-POT', quantity: 2, discount: '5.00' }],
      shipping: '4.90',
      shipping_discount: '4.90',
    });
    const id = String(placed.body.id).split('/').pop();
    const order = (await adapter.fetchOrders(target, since, null)).orders.find((o) => o.external_order_id === id)!;
    expect(order.paid_amount).to.equal('44.80');
    expect(order.line.map((l) => [l.quantity, l.price])).to.deep.equal([[2, '22.40']]);
    expect(order.shipping.fee).to.equal('0.00');
    const lines = order.line.reduce((sum, l) => sum + Math.round(Number(l.price) * 100) * l.quantity, 0);
    expect(lines + Math.round(Number(order.shipping.fee) * 100)).to.equal(4480);
  });

  it('orders are listed by id and update time and read whole 10 to a query, each once; a fetch again reads none whole that did not change', async () => {
    await adapter.list(target, item(), 'k');
    const since = new Date(Date.now() - 1000);
    for (let i = 0; i < 25; i++) await post('/_sandbox/shopify/orders', { portal_account: account, lines: [{ sku: 'SH-POT' }] });
    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const page = await adapter.fetchOrders(target, since, cursor);
      sizes.push(page.orders.length);
      seen.push(...page.orders.map((o) => o.external_order_id));
      cursor = page.next;
    } while (cursor !== null);
    expect(sizes).to.deep.equal([25]);
    expect(new Set(seen).size).to.equal(25);
    const wholeReads = () => calls().filter((r) => String((r.body as { query?: string }).query).includes('query KontorOrders(')).length;
    expect(wholeReads()).to.equal(3);
    // The next fetch overlaps this one: the 25 are listed again, none read whole again; a changed one is.
    const again = await adapter.fetchOrders(target, since, null);
    expect(again.orders.map((o) => o.external_order_id).sort()).to.deep.equal([...seen].sort());
    expect(wholeReads()).to.equal(3);
    const changed = s().orders.get(`gid://shopify/Order/${seen[0]}`)!;
    changed.cancelledAt = changed.updatedAt = new Date(Date.now() + 1000).toISOString();
    const third = await adapter.fetchOrders(target, since, null);
    expect(wholeReads()).to.equal(4);
    expect(third.orders.find((o) => o.external_order_id === seen[0])!.status.is_cancelled).to.equal(true);
  });

  it('an order of 75 lines comes in whole: the page carries 30, its own line paging the rest', async () => {
    await adapter.list(target, item(), 'k');
    const since = new Date(Date.now() - 1000);
    const lines = Array.from({ length: 75 }, (_v, i) => ({ sku: `L-${i}`, quantity: 1, price: '1.00', name: `Line ${i}` }));
    await post('/_sandbox/shopify/orders', { portal_account: account, lines });
    const page = await adapter.fetchOrders(target, since, null);
    expect(page.orders[0]!.line.map((l) => l.sku)).to.deep.equal(lines.map((l) => l.sku));
  });

  it('the cost: requested from first, actual from what came back, the difference refunded to the bucket', async () => {
    const query = '{ orders(first: 50) { pageInfo { hasNextPage } nodes { id totalPriceSet { shopMoney { amount } } } } }';
    const answer = await post('/admin/api/2025-01/graphql.json', { query }, { 'X-Shopify-Access-Token': `shpat_sandbox_${account}` });
    expect(answer.body.extensions).to.deep.equal({
      cost: { requestedQueryCost: 103, actualQueryCost: 3, throttleStatus: { maximumAvailable: 2000, currentlyAvailable: 1997, restoreRate: 100 } },
    });
  });

  it('a THROTTLED answer is waited out: the call goes through once the bucket has refilled', async () => {
    // The order list asks for 103 points (100 nodes, the connection, its pageInfo): a bucket of 60 refilling 100 a second holds them after 0.43 s.
    await post('/_sandbox/shopify/config', { restore_rate: 100, portal_account: account, currently_available: 60 });
    const started = Date.now();
    const page = await adapter.fetchOrders(target, new Date(), null);
    expect(page.orders).to.deep.equal([]);
    expect(Date.now() - started).to.be.greaterThan(300);
    expect(s().throttled).to.be.greaterThan(0);
    const answers = calls().map((r) => r.status);
    expect(answers.every((st) => st === 200)).to.equal(true);
  });

  it('a throttled answer carrying only the message (SOURCES.md: errors: [{message: "Throttled"}]) is waited out too, not refused', async () => {
    await post('/_sandbox/shopify/config', { throttled_answer: 'message', restore_rate: 100, portal_account: account, currently_available: 60 });
    try {
      const started = Date.now();
      const page = await adapter.fetchOrders(target, new Date(), null);
      expect(page.orders).to.deep.equal([]);
      expect(Date.now() - started).to.be.greaterThan(300);
      expect(s().throttled).to.be.greaterThan(0);
      // The order list was asked again after the wait: the throttled call and the one that went through.
      expect(calls().filter((r) => String((r.body as { query?: string }).query).includes('KontorOrderList')).length).to.be.greaterThan(1);
    } finally {
      await post('/_sandbox/shopify/config', { throttled_answer: 'code' });
    }
  });

  it('the sandbox answers a throttled call in the message-only form when told to', async () => {
    // A bucket that refills slowly, so that a busy machine's milliseconds between the two calls do not refill it.
    const before = await post('/_sandbox/shopify/config', { restore_rate: 0.001 });
    await post('/_sandbox/shopify/config', { throttled_answer: 'message', portal_account: account, currently_available: 0 });
    try {
      const answer = await post('/admin/api/2025-01/graphql.json', { query: '{ shop { name } }' }, { 'X-Shopify-Access-Token': `shpat_sandbox_${account}` });
      expect(answer.body.errors).to.deep.equal([{ message: 'Throttled' }]);
      expect(answer.body.extensions).to.have.nested.property('cost.throttleStatus.currentlyAvailable');
      expect((await post('/_sandbox/shopify/config', { throttled_answer: 'both' })).status).to.equal(400);
    } finally {
      await post('/_sandbox/shopify/config', { throttled_answer: 'code', restore_rate: (before.body as { restore_rate: number }).restore_rate });
    }
  });

  it('a bucket that refills too slowly fails the call retryable, naming the wait', async () => {
    await post('/_sandbox/shopify/config', { restore_rate: 1, portal_account: account, currently_available: 0 });
    const err = await failure(adapter.fetchOrders(target, new Date(), null));
    expect(isPermanent(err)).to.equal(false);
    expect(err.message).to.match(/throttled the call; the bucket refills in \d+ ms/);
    await post('/_sandbox/shopify/config', { restore_rate: 100 });
  });

  it('a query the schema refuses is answered with an errors array and recorded as a violation; a wrong token is 401', async () => {
    const token = `shpat_sandbox_${account}`;
    const bad = await post('/admin/api/2025-01/graphql.json', { query: '{ orders(first: 1) { nodes { nope } } }' }, { 'X-Shopify-Access-Token': token });
    expect(bad.status).to.equal(200);
    expect(bad.body.errors).to.deep.equal([
      {
        message: 'Cannot query field "nope" on type "Order". Did you mean "note" or "name"?',
        locations: [{ line: 1, column: 30 }],
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
      },
    ]);
    const badVariables = await post(
      '/admin/api/2025-01/graphql.json',
      {
        query: 'mutation M($input: InventorySetQuantitiesInput!) { inventorySetQuantities(input: $input) { userErrors { message } } }',
        variables: { input: { name: 'available' } },
      },
      { 'X-Shopify-Access-Token': token },
    );
    expect((badVariables.body.errors as { message: string }[]).map((e) => e.message)).to.deep.equal([
      'Variable "$input" got invalid value { name: "available" }; Field "reason" of required type "String!" was not provided.',
      'Variable "$input" got invalid value { name: "available" }; Field "quantities" of required type "[InventoryQuantityInput!]!" was not provided.',
    ]);
    const violations = (await (await fetch(`${sandbox.url}/_sandbox/violations?vendor=shopify`)).json()) as { problems: unknown[] }[];
    expect(violations).to.have.length(2);
    const unauthorised = await post('/admin/api/2025-01/graphql.json', { query: '{ shop { name } }' }, { 'X-Shopify-Access-Token': 'shpat_wrong' });
    expect(unauthorised).to.deep.equal({ status: 401, body: { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' } });
    // This test made the violations on purpose; the check after each test looks for the adapter's.
    sandbox.state.events.emit('reset');
  });

  it('a token the store no longer takes (revoked, uninstalled) fails the job for good, naming the portal account', async () => {
    const err = await failure(
      adapter.fetchOrders({ ...target, credentials: { shop_domain: 'kobalt-tee.myshopify.com', access_token: 'shpat_revoked' } }, new Date(), null),
    );
    expect(isPermanent(err)).to.equal(true);
    expect(err.message).to.equal(
      `webshop (Shopify) answered 401: [API] Invalid API key or access token (unrecognized login or wrong password); check the access token of portal account ${account}`,
    );
  });

  it('an account with only one of shop domain and token is refused naming the other', async () => {
    expect((await failure(adapter.fetchOrders({ ...target, credentials: { shop_domain: 'x.myshopify.com' } }, new Date(), null))).message).to.match(
      /lacks the credential access_token/,
    );
    expect((await failure(adapter.fetchOrders({ ...target, credentials: { access_token: 'shpat_x' } }, new Date(), null))).message).to.match(
      /lacks the credential shop_domain/,
    );
  });
});
