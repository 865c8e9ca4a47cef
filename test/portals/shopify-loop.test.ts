/**
 * webshop at the sandbox's Shopify store, the whole loop through Kontor's API and workers: a
 * sale in the store imported exactly once (twice fetched, and by two fetchers at once) with its
 * lines, buyer and payment, the sale's quantity at eBay and back at the store
 * (inventorySetQuantities), and the order shipped (send_mit as fulfillmentCreate with tracking).
 */
import { expect } from 'chai';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { db } from '../../lib/db/knex';
import { importOrders } from '../../lib/order-import/order-import.service';
import { connectPortalAccount } from '../../lib/admin/portal-account-connect.service';
import { WebshopAdapter } from '../../lib/portals/webshop.adapter';
import { shopifyOf } from '../../sandbox/shopify.sandbox';
import { channelLoopForSuite, jobEnd, Sandbox, waitFor } from '../fleet/support';
import { call, newSeller, Seller } from '../support/api';
import { createItem } from '../stock/helpers';
import { readOrder, stockQuantity } from '../order/helpers';
import type { AdjustResult } from '../../lib/cia/cia.service';
import { addToOutbox } from '../../lib/queue/outbox';
import { answeredAddress } from '../support/order-address';

describe('webshop at Shopify: a sale imported once, its quantity at eBay and the store, shipped (the sandbox built from the Admin GraphQL schema)', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  channelLoopForSuite((loop) => ({ sandbox } = loop));

  it('when an item sells in the Shopify store, the order comes in once, the quantity reaches eBay and the store, and send_mit fulfils it with tracking', async () => {
    const seller = await newSeller();
    const { id: portalAccountId } = await createPortalAccount(seller.id, { name: 'Shopify store', platform: 'webshop' });
    const connector = (await db()('portal_account').where({ id: portalAccountId }).first('connector')) as { connector: string };
    expect(connector.connector).to.equal('shopify');
    const { id: ebayId } = await createPortalAccount(seller.id, { name: 'eBay shop', platform: 'auction_a' });
    const created = await call('stock/', {
      token: seller.token,
      body: {
        stock: {
          name: 'Teekanne Kobalt',
          sku: 'SH-POT-1',
          quantity: 10,
          price: '24.90',
          webshop: [{ shop_id: 'main', name: 'Teekanne Kobalt 1,5 l', ean: '4006381333931', weight: '0.85' }],
          cia: { webshop: { is_active: true }, auction_a: { is_active: true } },
        },
      },
    });
    expect(created.status, created.text).to.equal(201);
    const stockId = Number(created.body.stock_id);
    // Document 2 has no portal_upload entry for the web shop: the product is made through the adapter, as the seller's shop would hold it.
    const target = { portalAccountId, connector: 'shopify' as const, baseUrl: sandbox.url, credentials: {} };
    await new WebshopAdapter().list(
      target,
      {
        stockId,
        name: 'Teekanne Kobalt',
        sku: 'SH-POT-1',
        ean: '4006381333931',
        price: '24.90',
        quantityAvailable: 10,
        group: { shop_id: 'main', weight: '0.85' },
      },
      'list',
    );
    const s = shopifyOf(sandbox.state);
    const variant = () => s.variantBySku(String(portalAccountId), 'SH-POT-1')!;
    const available = () => s.available.get(variant().inventoryItemId);

    const sale = await fetch(`${sandbox.url}/_sandbox/sell`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        portal: 'webshop',
        portal_account: portalAccountId,
        sku: 'SH-POT-1',
        quantity: 2,
        buyer: { name: 'Erika Muster', email: 'erika@example.de', street: 'Lindenweg 3', zip: '10115', city: 'Berlin', country_iso2: 'DE' },
      }),
    });
    expect(sale.status).to.equal(201);
    const gid = ((await sale.json()) as { order_id: string }).order_id;
    const orderId = gid.split('/').pop()!;
    // Meanwhile the store shows something else: CIA's push after the sale sets it right.
    s.available.set(variant().inventoryItemId, 99);

    // Calls of one operation (the workers' CIA pushes and order fetches run meanwhile).
    const shopifyCalls = (operation: string) =>
      sandbox.state.requests.filter(
        (r) => r.portal === 'webshop' && r.portalAccount === String(portalAccountId) && String((r.body as { query?: string }).query).includes(operation),
      ).length;
    const first = await importOrders({ accountId: seller.id, portalAccountId }, 'sh-1');
    expect(first.orders).to.deep.include({ created: 1 });
    const [a, b] = await Promise.all([
      importOrders({ accountId: seller.id, portalAccountId }, 'sh-2'),
      importOrders({ accountId: seller.id, portalAccountId }, 'sh-3'),
    ]);
    expect((a.orders.created ?? 0) + (b.orders.created ?? 0)).to.equal(0);
    const rows = await db()('sales_order').select('id').where({ account_id: seller.id, external_order_id: orderId });
    expect(rows).to.have.length(1);
    const order = await readOrder(seller, rows[0]!.id);
    expect(order.line.map((l) => [l.sku, l.quantity, l.price])).to.deep.equal([['SH-POT-1', '2', '24.90']]);
    expect(order).to.deep.include({ platform: 'webshop', external_order_id: orderId, currency_id: 'EUR' });
    expect(order.status).to.deep.include({ is_paid: true, is_shipped: false });
    expect(order.customer).to.deep.include({ email: 'erika@example.de' });
    expect(order.customer.address).to.deep.equal(
      answeredAddress({ name: 'Erika Muster', street: 'Lindenweg 3', zip: '10115', city: 'Berlin', country_iso2: 'DE' }),
    );
    expect(await stockQuantity(seller, stockId)).to.equal(8);

    const shown = (id: number, portal: string) => sandbox.state.quantities(String(id))[portal]?.['SH-POT-1'];
    await waitFor('8 at eBay', async () => (shown(ebayId, 'auction_a') === 8 ? true : undefined), 20000);
    await waitFor('8 available in the store', async () => (available() === 8 ? true : undefined), 20000);

    const beforeShipping = shopifyCalls('mutation KontorFulfillment(');
    const shipped = await call(`order/${rows[0]!.id}/send_mit/`, {
      token: seller.token,
      body: { send_mit: { deliverer: 'DHL', code: ['00340434161094042557'], date: '2026-11-25' } },
    });
    expect(shipped.status, shipped.text).to.equal(202);
    const sent = await jobEnd(seller.token, shipped.body.job_id as string);
    expect(sent.state, sent.error).to.equal('completed');
    // send_mit: one fulfillmentCreate (after reading the order's fulfillment orders).
    expect(shopifyCalls('mutation KontorFulfillment(') - beforeShipping).to.equal(1);
    const fulfilled = s.orders.get(gid)!;
    // With Kontor's tracking page of the number (shipping.link), so the buyer's mail links it whatever Shopify knows of the carrier.
    expect(fulfilled.fulfillments.map((f) => f.tracking)).to.deep.equal([
      {
        number: '00340434161094042557',
        company: 'DHL',
        urls: ['https://www.dhl.de/de/privatkunden/pakete-empfangen/verfolgen.html?piececode=00340434161094042557'],
        companyRecognised: true,
      },
    ]);
    expect(fulfilled.lines.map((l) => l.fulfilled)).to.deep.equal([2]);
  });

  it("when the store routes a sale to a fulfilment app that keeps the stock (a 3PL), its lines take no Kontor stock and are not the seller's to ship: the app's order refuses send_mit, a split order ships only the seller's fulfillment order", async () => {
    const seller = await newSeller();
    const { id: portalAccountId } = await createPortalAccount(seller.id, { name: 'Shopify store', platform: 'webshop' });
    const target = { portalAccountId, connector: 'shopify' as const, baseUrl: sandbox.url, credentials: {} };
    const control = async (path: string, body: unknown) => {
      const res = await fetch(`${sandbox.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      expect(res.status, path).to.be.oneOf([200, 201]);
      return res.json() as Promise<unknown>;
    };
    const stockIds = new Map<string, number>();
    for (const sku of ['SH-3PL-1', 'SH-OWN-1']) {
      const created = await call('stock/', { token: seller.token, body: { stock: { name: `Tasse ${sku}`, sku, quantity: 10, price: '12.00' } } });
      expect(created.status, created.text).to.equal(201);
      stockIds.set(sku, Number(created.body.stock_id));
      await new WebshopAdapter().list(
        target,
        { stockId: stockIds.get(sku)!, name: `Tasse ${sku}`, sku, ean: '', price: '12.00', quantityAvailable: 10, group: { shop_id: 'main' } },
        `list-${sku}`,
      );
    }
    // The merchant's warehouse and ShipBob's (a fulfilment service that tracks the stock it holds): the 3PL's SKU is stocked there only.
    const [, shipBob] = (await control('/_sandbox/shopify/locations', {
      portal_account: portalAccountId,
      locations: [{ name: 'Versandlager' }, { name: 'ShipBob', fulfillment_service: true }],
    })) as { id: string }[];
    await control('/_sandbox/shopify/inventory', { portal_account: portalAccountId, sku: 'SH-3PL-1', available: 0 });
    await control('/_sandbox/shopify/inventory', { portal_account: portalAccountId, sku: 'SH-3PL-1', location: shipBob!.id, available: 40 });
    // Routed by the store to ShipBob whole (the first location holding its units).
    const apps = (await control('/_sandbox/shopify/orders', { portal_account: portalAccountId, lines: [{ sku: 'SH-3PL-1', quantity: 2 }] })) as { id: string };
    // Split: the 3PL's line at ShipBob, the seller's at the merchant's warehouse.
    const split = (await control('/_sandbox/shopify/orders', {
      portal_account: portalAccountId,
      lines: [
        { sku: 'SH-OWN-1', quantity: 1 },
        { sku: 'SH-3PL-1', quantity: 1 },
      ],
      fulfillment_orders: [{ location: Number(shipBob!.id.split('/').pop()), lines: [{ line: 1 }] }],
    })) as { id: string };
    const s = shopifyOf(sandbox.state);
    expect(s.orders.get(apps.id)!.fulfillmentOrders.map((fo) => fo.locationId)).to.deep.equal([shipBob!.id]);

    expect((await importOrders({ accountId: seller.id, portalAccountId }, 'sh-3pl')).orders).to.deep.include({ created: 2 });
    const idOf = async (gid: string) =>
      (
        (await db()('sales_order')
          .where({ account_id: seller.id, external_order_id: gid.split('/').pop() })
          .first('id')) as { id: string }
      ).id;
    const appsId = await idOf(apps.id);
    const appsOrder = await readOrder(seller, appsId);
    expect(appsOrder.line.map((l) => [l.sku, l.quantity, l.stock_align_id ?? null])).to.deep.equal([['SH-3PL-1', '2', null]]);
    expect(appsOrder.history.some((h) => h.includes('the channel ships this order from its own warehouse; its lines take no stock here'))).to.equal(true);
    const splitId = await idOf(split.id);
    const splitOrder = await readOrder(seller, splitId);
    expect(splitOrder.line.map((l) => [l.sku, l.stock_align_id ?? null])).to.deep.equal([
      ['SH-OWN-1', `ID_${stockIds.get('SH-OWN-1')}`],
      ['SH-3PL-1', null],
    ]);
    expect(splitOrder.history.filter((h) => h.includes('ShipBob'))).to.deep.equal([
      `webshop order ${split.id.split('/').pop()} (portal account ${portalAccountId}): line 2 (Tasse SH-3PL-1): the fulfilment app ShipBob ships it from the stock it keeps; it takes no stock here, do not ship it`,
    ]);
    // The app's stock covered both of its units: Kontor's count of the 3PL's SKU is as it was; the seller's unit came off.
    expect(await stockQuantity(seller, stockIds.get('SH-3PL-1')!)).to.equal(10);
    expect(await stockQuantity(seller, stockIds.get('SH-OWN-1')!)).to.equal(9);

    const refused = await call(`order/${appsId}/send_mit/`, {
      token: seller.token,
      body: { send_mit: { deliverer: 'DHL', code: ['00340434161094042557'] } },
    });
    expect(refused.status, refused.text).to.equal(400);
    expect(refused.body.error![0]).to.deep.include({ error: 'status_conflict', field: 'order_id' });

    const shipped = await call(`order/${splitId}/send_mit/`, {
      token: seller.token,
      body: { send_mit: { deliverer: 'DHL', code: ['00340434161094042558'] } },
    });
    expect(shipped.status, shipped.text).to.equal(202);
    const sent = await jobEnd(seller.token, shipped.body.job_id as string);
    expect(sent.state, sent.error).to.equal('completed');
    // The merchant's fulfillment order is fulfilled; ShipBob's is left to ShipBob.
    const remaining = s.orders.get(split.id)!.fulfillmentOrders.map((fo) => [fo.locationId, fo.lines.map((l) => l.quantity - l.fulfilled)]);
    expect(remaining).to.deep.equal([
      [shipBob!.id, [1]],
      ['gid://shopify/Location/1', [0]],
    ]);
  });

  // A store of the merchant's warehouse (Location/1) and ShipBob's, a fulfilment service keeping the stock, and the seller's SKU listed there.
  const threePlStore = async (sku: string, atShipBob: number, own?: string) => {
    const seller = await newSeller();
    const { id: portalAccountId } = await createPortalAccount(seller.id, { name: 'Shopify store', platform: 'webshop' });
    const target = { portalAccountId, connector: 'shopify' as const, baseUrl: sandbox.url, credentials: {} };
    const control = async (path: string, body: unknown) => {
      const res = await fetch(`${sandbox.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      const answer = (await res.json()) as unknown;
      expect(res.status, `${path} ${JSON.stringify(answer)}`).to.be.oneOf([200, 201]);
      return answer;
    };
    const ids: number[] = [];
    for (const listed of own ? [sku, own] : [sku]) {
      const created = await call('stock/', { token: seller.token, body: { stock: { name: `Tasse ${listed}`, sku: listed, quantity: 10, price: '12.00' } } });
      expect(created.status, created.text).to.equal(201);
      ids.push(Number(created.body.stock_id));
      await new WebshopAdapter().list(
        target,
        { stockId: ids.at(-1)!, name: `Tasse ${listed}`, sku: listed, ean: '', price: '12.00', quantityAvailable: 10, group: { shop_id: 'main' } },
        `list-${listed}`,
      );
    }
    const [stockId, ownId] = ids as [number, number | undefined];
    const [, shipBob] = (await control('/_sandbox/shopify/locations', {
      portal_account: portalAccountId,
      locations: [{ name: 'Versandlager' }, { name: 'ShipBob', fulfillment_service: true }],
    })) as { id: string }[];
    await control('/_sandbox/shopify/inventory', { portal_account: portalAccountId, sku, location: shipBob!.id, available: atShipBob });
    const graphql = async (token: string, query: string, variables: Record<string, unknown> = {}) => {
      const res = await fetch(`${sandbox.url}/admin/api/2025-01/graphql.json`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Shopify-Access-Token': token },
        body: JSON.stringify({ query, variables }),
      });
      expect(res.status).to.equal(200);
      return ((await res.json()) as { data: Record<string, unknown> }).data;
    };
    const kontorId = async (gid: string) =>
      (
        (await db()('sales_order')
          .where({ account_id: seller.id, external_order_id: gid.split('/').pop() })
          .first('id')) as { id: string }
      ).id;
    return { seller, portalAccountId, stockId, ownId, shipBob: shipBob!, control, graphql, kontorId };
  };

  it("when Kontor's token lacks read_third_party_fulfillment_orders, Shopify shows it none of the app's fulfillment orders: a line routed to the app is imported as the seller's and the seller is told to grant the scope", async () => {
    const { seller, portalAccountId, stockId, shipBob, control, graphql, kontorId } = await threePlStore('SH-3PL-2', 40);
    await control('/_sandbox/shopify/inventory', { portal_account: portalAccountId, sku: 'SH-3PL-2', available: 0 });
    const placed = (await control('/_sandbox/shopify/orders', { portal_account: portalAccountId, lines: [{ sku: 'SH-3PL-2', quantity: 2 }] })) as {
      id: string;
    };
    // As FulfillmentOrder's "API access scopes" say: a token with the merchant's scope alone gets an
    // empty list, Kontor's (read_third_party_fulfillment_orders) sees ShipBob's but may not fulfil it.
    const merchantOnly = (
      (await control('/_sandbox/shopify/tokens', {
        portal_account: String(portalAccountId),
        scopes: 'write_products,write_inventory,read_locations,read_orders,write_merchant_managed_fulfillment_orders',
      })) as { access_token: string }
    ).access_token;
    const foQuery = `query F($id: ID!) { order(id: $id) { fulfillmentOrders(first: 5) { nodes { id assignedLocation { location { id fulfillmentService { serviceName } } } } } } }`;
    type FoAnswer = {
      order: {
        fulfillmentOrders: { nodes: { id: string; assignedLocation: { location: { id: string; fulfillmentService: { serviceName: string } | null } } }[] };
      };
    };
    expect(((await graphql(merchantOnly, foQuery, { id: placed.id })) as FoAnswer).order.fulfillmentOrders.nodes).to.deep.equal([]);
    const kontors = ((await graphql(`shpat_sandbox_${portalAccountId}`, foQuery, { id: placed.id })) as FoAnswer).order.fulfillmentOrders.nodes;
    expect(kontors.map((n) => n.assignedLocation.location)).to.deep.equal([{ id: shipBob.id, fulfillmentService: { serviceName: 'ShipBob' } }]);
    const create = (await graphql(
      `shpat_sandbox_${portalAccountId}`,
      `
        mutation C($f: FulfillmentInput!) {
          fulfillmentCreate(fulfillment: $f) {
            fulfillment {
              id
            }
            userErrors {
              message
            }
          }
        }
      `,
      { f: { lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: kontors[0]!.id }] } },
    )) as { fulfillmentCreate: { fulfillment: unknown; userErrors: { message: string }[] } };
    expect(create.fulfillmentCreate.fulfillment).to.equal(null);
    expect(create.fulfillmentCreate.userErrors[0]!.message).to.contain('fulfillment service location');
    const scopes = (await graphql(merchantOnly, 'query S { currentAppInstallation { accessScopes { handle } } }')) as {
      currentAppInstallation: { accessScopes: { handle: string }[] };
    };
    expect(scopes.currentAppInstallation.accessScopes.map((a) => a.handle)).to.not.include('read_third_party_fulfillment_orders');

    await connectPortalAccount(seller.id, {
      portalAccountId,
      connector: 'shopify',
      baseUrl: sandbox.url,
      credentials: { shop_domain: 'kobalt-3pl.myshopify.com', access_token: merchantOnly },
    });
    expect((await importOrders({ accountId: seller.id, portalAccountId }, 'sh-3pl-scope')).orders).to.deep.include({ created: 1 });
    const order = await readOrder(seller, await kontorId(placed.id));
    // Kontor cannot tell the app's line from an order not routed yet: the seller's, and said so.
    expect(order.line.map((l) => [l.sku, l.quantity, l.stock_align_id ?? null])).to.deep.equal([['SH-3PL-2', '2', `ID_${stockId}`]]);
    expect(await stockQuantity(seller, stockId)).to.equal(8);
    const told = order.history.filter((h) => h.includes('read_third_party_fulfillment_orders'));
    expect(told).to.have.length(1);
    expect(told[0]).to.contain('Tasse SH-3PL-2: in no fulfillment order Kontor may read').and.contain('ShipBob').and.contain('connect the store again');
  });

  it("when the store moves an imported order's line to a fulfilment app that keeps the stock, the next read gives that line's stock back and tells the seller not to ship it, once; the seller's line keeps its stock", async () => {
    const { seller, portalAccountId, stockId, ownId, shipBob, control, kontorId } = await threePlStore('SH-MOVE-1', 40, 'SH-OWN-2');
    // Two fulfillment orders at the merchant's warehouse, one a line each (as a split the store made).
    const placed = (await control('/_sandbox/shopify/orders', {
      portal_account: portalAccountId,
      lines: [
        { sku: 'SH-MOVE-1', quantity: 2 },
        { sku: 'SH-OWN-2', quantity: 1 },
      ],
      fulfillment_orders: [{ location: 1, lines: [{ line: 0 }] }],
    })) as { id: string };
    const s = shopifyOf(sandbox.state);
    const fo = s.orders.get(placed.id)!.fulfillmentOrders[0]!;
    expect(s.orders.get(placed.id)!.fulfillmentOrders.map((f) => f.locationId)).to.deep.equal(['gid://shopify/Location/1', 'gid://shopify/Location/1']);
    expect((await importOrders({ accountId: seller.id, portalAccountId }, 'sh-move-1')).orders).to.deep.include({ created: 1 });
    const orderId = await kontorId(placed.id);
    expect((await readOrder(seller, orderId)).line.map((l) => l.stock_align_id ?? null)).to.deep.equal([`ID_${stockId}`, `ID_${ownId}`]);
    expect(await stockQuantity(seller, stockId)).to.equal(8);

    // fulfillmentOrderMove's first scenario: the whole fulfillment order, its assignedLocation now ShipBob's.
    // Order.updatedAt stays (the contract does not say a move changes it): the fetch finds the move by the fulfillment order's.
    const updatedAt = s.orders.get(placed.id)!.updatedAt;
    await control(`/_sandbox/shopify/fulfillment_orders/${fo.id.split('/').pop()}/move`, { location: Number(shipBob.id.split('/').pop()) });
    expect(s.orders.get(placed.id)!.fulfillmentOrders[0]!.locationId).to.equal(shipBob.id);
    expect(s.orders.get(placed.id)!.updatedAt).to.equal(updatedAt);
    expect((await importOrders({ accountId: seller.id, portalAccountId }, 'sh-move-2')).orders).to.deep.include({ updated: 1 });
    const moved = await readOrder(seller, orderId);
    expect(moved.line.map((l) => [l.sku, l.quantity, l.stock_align_id ?? null])).to.deep.equal([
      ['SH-MOVE-1', '2', null],
      ['SH-OWN-2', '1', `ID_${ownId}`],
    ]);
    expect(await stockQuantity(seller, stockId)).to.equal(10);
    expect(await stockQuantity(seller, ownId!)).to.equal(9);
    const told = moved.history.filter((h) => h.includes('ShipBob'));
    expect(told).to.have.length(1);
    expect(told[0]).to.contain('line 1 (Tasse SH-MOVE-1): the fulfilment app ShipBob ships it from the stock it keeps; its stock goes back, do not ship it');
    // Said once: a later read of the order changes nothing more.
    await importOrders({ accountId: seller.id, portalAccountId }, 'sh-move-3');
    expect(await stockQuantity(seller, stockId)).to.equal(10);
    expect((await readOrder(seller, orderId)).history.filter((h) => h.includes('ShipBob'))).to.have.length(1);

    // The store moves it back to its warehouse (ShipBob has not taken the request): the seller ships it, so it takes its stock again, once.
    await control(`/_sandbox/shopify/fulfillment_orders/${fo.id.split('/').pop()}/move`, { location: 1 });
    expect(s.orders.get(placed.id)!.fulfillmentOrders[0]!.locationId).to.equal('gid://shopify/Location/1');
    expect((await importOrders({ accountId: seller.id, portalAccountId }, 'sh-move-4')).orders).to.deep.include({ updated: 1 });
    const back = await readOrder(seller, orderId);
    expect(back.line.map((l) => [l.sku, l.stock_align_id ?? null])).to.deep.equal([
      ['SH-MOVE-1', `ID_${stockId}`],
      ['SH-OWN-2', `ID_${ownId}`],
    ]);
    expect(await stockQuantity(seller, stockId)).to.equal(8);
    const given = (h: string[]) => h.filter((x) => x.includes('gave it back from the fulfilment app'));
    expect(given(back.history)).to.have.length(1);
    expect(given(back.history)[0]).to.contain(
      "line 1 (Tasse SH-MOVE-1): the channel gave it back from the fulfilment app to the seller's location; it takes its stock again, ship it",
    );
    await importOrders({ accountId: seller.id, portalAccountId }, 'sh-move-5');
    expect(await stockQuantity(seller, stockId)).to.equal(8);
    expect(given((await readOrder(seller, orderId)).history)).to.have.length(1);
  });

  it("when the store gives back to its warehouse an order a fulfilment app held whole, the next read makes it the seller's: its line takes its stock, once, and send_mit is taken and fulfils it", async () => {
    const { seller, portalAccountId, stockId, shipBob, control, kontorId } = await threePlStore('SH-BACK-1', 40);
    // Routed whole to ShipBob (the warehouse holds none of it): the app's order, as imported.
    await control('/_sandbox/shopify/inventory', { portal_account: portalAccountId, sku: 'SH-BACK-1', available: 0 });
    const placed = (await control('/_sandbox/shopify/orders', { portal_account: portalAccountId, lines: [{ sku: 'SH-BACK-1', quantity: 2 }] })) as {
      id: string;
    };
    const s = shopifyOf(sandbox.state);
    const fo = s.orders.get(placed.id)!.fulfillmentOrders[0]!;
    expect(fo.locationId).to.equal(shipBob.id);
    expect((await importOrders({ accountId: seller.id, portalAccountId }, 'sh-back-1')).orders).to.deep.include({ created: 1 });
    const orderId = await kontorId(placed.id);
    const imported = await readOrder(seller, orderId);
    expect(imported.line.map((l) => [l.sku, l.stock_align_id ?? null])).to.deep.equal([['SH-BACK-1', null]]);
    expect(imported.history.some((h) => h.includes('the channel ships this order from its own warehouse'))).to.equal(true);
    expect(await stockQuantity(seller, stockId)).to.equal(10);
    const send = () => call(`order/${orderId}/send_mit/`, { token: seller.token, body: { send_mit: { deliverer: 'DHL', code: ['00340434161094042601'] } } });
    const refused = await send();
    expect(refused.status, refused.text).to.equal(400);
    expect(refused.body.error![0]).to.deep.include({ error: 'status_conflict', field: 'order_id' });

    // ShipBob cannot ship it; the store moves the fulfillment order to its own warehouse.
    await control(`/_sandbox/shopify/fulfillment_orders/${fo.id.split('/').pop()}/move`, { location: 1 });
    expect(s.orders.get(placed.id)!.fulfillmentOrders[0]!.locationId).to.equal('gid://shopify/Location/1');
    expect((await importOrders({ accountId: seller.id, portalAccountId }, 'sh-back-2')).orders).to.deep.include({ updated: 1 });
    const back = await readOrder(seller, orderId);
    expect(back.line.map((l) => [l.sku, l.stock_align_id ?? null])).to.deep.equal([['SH-BACK-1', `ID_${stockId}`]]);
    expect(await stockQuantity(seller, stockId)).to.equal(8);
    const given = (h: string[]) => h.filter((x) => x.includes('gave it back from the fulfilment app'));
    expect(given(back.history)).to.deep.equal([
      `webshop order ${placed.id.split('/').pop()} (portal account ${portalAccountId}): line 1 (Tasse SH-BACK-1): the channel gave it back from the fulfilment app to the seller's location; it takes its stock again, ship it`,
    ]);
    await importOrders({ accountId: seller.id, portalAccountId }, 'sh-back-3');
    expect(await stockQuantity(seller, stockId)).to.equal(8);
    expect(given((await readOrder(seller, orderId)).history)).to.have.length(1);

    const shipped = await send();
    expect(shipped.status, shipped.text).to.equal(202);
    const sent = await jobEnd(seller.token, shipped.body.job_id as string);
    expect(sent.state, sent.error).to.equal('completed');
    expect(s.orders.get(placed.id)!.fulfillmentOrders.map((f) => [f.locationId, f.lines.map((l) => l.quantity - l.fulfilled)])).to.deep.equal([
      ['gid://shopify/Location/1', [0]],
    ]);
  });

  it("when the store moves some units of an imported order to a fulfilment app (fulfillmentOrderMove's second scenario: the original closed and recreated, or split), the moved line gives its stock back on the next read, the rest keeps it", async () => {
    const { seller, portalAccountId, stockId, ownId, shipBob, control, kontorId } = await threePlStore('SH-MOVE-2', 40, 'SH-OWN-3');
    const shipBobNo = Number(shipBob.id.split('/').pop());
    // Closed: ShipBob already holds a line of the order, so the merchant's fulfillment order is closed
    // and its other line recreated at the warehouse (the closed one still lists SH-MOVE-2).
    const closing = (await control('/_sandbox/shopify/orders', {
      portal_account: portalAccountId,
      lines: [
        { sku: 'SH-MOVE-2', quantity: 2 },
        { sku: 'SH-OWN-3', quantity: 1 },
        { sku: 'SH-MOVE-2', quantity: 1 },
      ],
      fulfillment_orders: [
        { location: 1, lines: [{ line: 0 }, { line: 1 }] },
        { location: shipBobNo, lines: [{ line: 2 }] },
      ],
    })) as { id: string };
    // Split: nothing of the order at ShipBob yet; the original keeps the seller's line.
    const splitting = (await control('/_sandbox/shopify/orders', {
      portal_account: portalAccountId,
      lines: [
        { sku: 'SH-MOVE-2', quantity: 1 },
        { sku: 'SH-OWN-3', quantity: 1 },
      ],
      fulfillment_orders: [{ location: 1, lines: [{ line: 0 }, { line: 1 }] }],
    })) as { id: string };
    expect((await importOrders({ accountId: seller.id, portalAccountId }, 'sh-move-part-1')).orders).to.deep.include({ created: 2 });
    const closingId = await kontorId(closing.id);
    const splittingId = await kontorId(splitting.id);
    expect((await readOrder(seller, closingId)).line.map((l) => l.stock_align_id ?? null)).to.deep.equal([`ID_${stockId}`, `ID_${ownId}`, null]);
    expect(await stockQuantity(seller, stockId)).to.equal(7);
    expect(await stockQuantity(seller, ownId!)).to.equal(8);

    const s = shopifyOf(sandbox.state);
    const merchantFo = (id: string) => s.orders.get(id)!.fulfillmentOrders[0]!;
    const foNo = (id: string) => id.split('/').pop();
    const moveFirstLine = async (orderGid: string, quantity: number) =>
      (await control(`/_sandbox/shopify/fulfillment_orders/${foNo(merchantFo(orderGid).id)}/move`, {
        location: shipBobNo,
        lines: [{ id: foNo(merchantFo(orderGid).lines[0]!.id), quantity }],
      })) as { original: { status: string } };
    expect((await moveFirstLine(closing.id, 2)).original.status).to.equal('CLOSED');
    expect((await moveFirstLine(splitting.id, 1)).original.status).to.equal('OPEN');
    const where = (id: string) =>
      s.orders
        .get(id)!
        .fulfillmentOrders.map((f) => [f.locationId === shipBob.id ? 'ShipBob' : 'Warehouse', f.closedByMove === true, f.lines.map((l) => l.quantity)]);
    expect(where(closing.id)).to.deep.equal([
      ['Warehouse', true, [2, 1]],
      ['ShipBob', false, [1]],
      ['Warehouse', false, [1]],
      ['ShipBob', false, [2]],
    ]);
    expect(where(splitting.id)).to.deep.equal([
      ['Warehouse', false, [1]],
      ['ShipBob', false, [1]],
    ]);

    expect((await importOrders({ accountId: seller.id, portalAccountId }, 'sh-move-part-2')).orders).to.deep.include({ updated: 2 });
    expect((await readOrder(seller, closingId)).line.map((l) => [l.sku, l.stock_align_id ?? null])).to.deep.equal([
      ['SH-MOVE-2', null],
      ['SH-OWN-3', `ID_${ownId}`],
      ['SH-MOVE-2', null],
    ]);
    expect((await readOrder(seller, splittingId)).line.map((l) => [l.sku, l.stock_align_id ?? null])).to.deep.equal([
      ['SH-MOVE-2', null],
      ['SH-OWN-3', `ID_${ownId}`],
    ]);
    // The 3 moved units came back; the seller's two units of SH-OWN-3 stay taken.
    expect(await stockQuantity(seller, stockId)).to.equal(10);
    expect(await stockQuantity(seller, ownId!)).to.equal(8);
    for (const id of [closingId, splittingId]) expect((await readOrder(seller, id)).history.filter((h) => h.includes('its stock goes back'))).to.have.length(1);
  });

  it("when a fulfilment app fulfilled the lines a token lacking read_third_party_fulfillment_orders imported as the seller's, send_mit with a tracking number is refused naming them and the app, and the app's parcel keeps its tracking", async () => {
    const { seller, portalAccountId, stockId, control, graphql, kontorId } = await threePlStore('SH-3PL-3', 40);
    await control('/_sandbox/shopify/inventory', { portal_account: portalAccountId, sku: 'SH-3PL-3', available: 0 });
    const placed = (await control('/_sandbox/shopify/orders', { portal_account: portalAccountId, lines: [{ sku: 'SH-3PL-3', quantity: 2 }] })) as {
      id: string;
    };
    const token = async (scopes: string) =>
      ((await control('/_sandbox/shopify/tokens', { portal_account: String(portalAccountId), scopes })) as { access_token: string }).access_token;
    const merchantOnly = await token('write_products,write_inventory,read_locations,read_orders,write_merchant_managed_fulfillment_orders');
    await connectPortalAccount(seller.id, {
      portalAccountId,
      connector: 'shopify',
      baseUrl: sandbox.url,
      credentials: { shop_domain: 'kobalt-3pl.myshopify.com', access_token: merchantOnly },
    });
    expect((await importOrders({ accountId: seller.id, portalAccountId }, 'sh-3pl-track')).orders).to.deep.include({ created: 1 });
    const orderId = await kontorId(placed.id);
    expect((await readOrder(seller, orderId)).line.map((l) => l.stock_align_id ?? null)).to.deep.equal([`ID_${stockId}`]);

    // ShipBob (holding write_third_party_fulfillment_orders) ships its fulfillment order with its own number.
    const shipBobsToken = await token('read_orders,write_third_party_fulfillment_orders');
    const fos = (await graphql(shipBobsToken, 'query F($id: ID!) { order(id: $id) { fulfillmentOrders(first: 5) { nodes { id } } } }', { id: placed.id })) as {
      order: { fulfillmentOrders: { nodes: { id: string }[] } };
    };
    const made = (await graphql(
      shipBobsToken,
      'mutation C($f: FulfillmentInput!) { fulfillmentCreate(fulfillment: $f) { fulfillment { id } userErrors { message } } }',
      {
        f: {
          lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: fos.order.fulfillmentOrders.nodes[0]!.id }],
          trackingInfo: { number: 'SHIPBOB-0001', company: 'DHL' },
        },
      },
    )) as { fulfillmentCreate: { fulfillment: { id: string } | null; userErrors: unknown[] } };
    expect(made.fulfillmentCreate.userErrors).to.deep.equal([]);

    const sent = await call(`order/${orderId}/send_mit/`, { token: seller.token, body: { send_mit: { deliverer: 'DHL', code: ['00340434161094042999'] } } });
    expect(sent.status, sent.text).to.equal(202);
    const job = await jobEnd(seller.token, sent.body.job_id as string);
    expect(job.state, job.error).to.equal('completed');
    const result = job.result as { platform_status: string; shipment: { code: string; ok: boolean; error?: string }[] };
    expect(result.platform_status).to.equal('error');
    expect(result.shipment).to.have.length(1);
    expect(result.shipment[0]).to.deep.include({ code: '00340434161094042999', ok: false });
    expect(result.shipment[0]!.error).to.contain('2 x SH-3PL-3 fulfilled by ShipBob').and.contain('00340434161094042999 is not added');
    const parcels = shopifyOf(sandbox.state).orders.get(placed.id)!.fulfillments;
    expect(parcels.map((f) => [f.tracking.number, f.tracking.numbers ?? [], f.tracking.company])).to.deep.equal([['SHIPBOB-0001', [], 'DHL']]);
  });

  it('when the store keeps selling the variant when out of stock, then CIA sets its quantity but does not count it done: the CIA state names the setting to switch', async () => {
    const seller = await newSeller();
    const { id: portalAccountId } = await createPortalAccount(seller.id, { name: 'Shopify store', platform: 'webshop' });
    const created = await call('stock/', {
      token: seller.token,
      body: {
        stock: { name: 'Milchkanne', sku: 'SH-CONT-1', quantity: 3, price: '9.90', webshop: [{ shop_id: 'main' }], cia: { webshop: { is_active: true } } },
      },
    });
    expect(created.status, created.text).to.equal(201);
    const stockId = Number(created.body.stock_id);
    const target = { portalAccountId, connector: 'shopify' as const, baseUrl: sandbox.url, credentials: {} };
    await new WebshopAdapter().list(
      target,
      { stockId, name: 'Milchkanne', sku: 'SH-CONT-1', ean: null, price: '9.90', quantityAvailable: 3, group: { shop_id: 'main' } },
      'list',
    );
    // The merchant switches "Continue selling when out of stock" on in Shopify's admin.
    const set = await fetch(`${sandbox.url}/_sandbox/shopify/variant`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ portal_account: portalAccountId, sku: 'SH-CONT-1', inventory_policy: 'CONTINUE' }),
    });
    expect(set.status).to.equal(200);
    const s = shopifyOf(sandbox.state);
    const available = () => s.available.get(s.variantBySku(String(portalAccountId), 'SH-CONT-1')!.inventoryItemId);

    // The last units are sold elsewhere: Kontor's count is 0, and the push sets 0 at the store.
    const changed = await call(`stock/${stockId}/`, { token: seller.token, body: { stock: { quantity: 0 } } });
    expect(changed.status, changed.text).to.equal(200);
    await waitFor('0 available in the store', async () => (available() === 0 ? true : undefined), 20000);
    const state = async () => {
      const res = await call(`stock/${stockId}/cia/`, { token: seller.token, method: 'POST' });
      expect(res.status, res.text).to.equal(202);
      const job = await jobEnd(seller.token, res.body.job_id as string);
      expect(job.state, job.error).to.equal('completed');
      return (job.result as AdjustResult).portals.find((p) => p.portal === 'webshop');
    };
    const shown = await waitFor(
      'the refusal in the CIA state',
      async () => {
        const p = await state();
        return p?.message ? p : undefined;
      },
      20000,
      200,
    );
    expect(shown).to.deep.include({ portal_account_id: portalAccountId, quantity: 0, push: true });
    expect(shown.message).to.contain('SKU SH-CONT-1').and.contain('inventory policy CONTINUE');
  });

  describe('an item sold on preorder: the variant keeps selling when out of stock', () => {
    let seller: Seller;
    let portalAccountId: number;
    beforeEach(async () => {
      seller = await newSeller();
      ({ id: portalAccountId } = await createPortalAccount(seller.id, { name: 'Shopify store', platform: 'webshop' }));
    });
    const variant = (sku: string) => shopifyOf(sandbox.state).variantBySku(String(portalAccountId), sku)!;
    /** The item's product as the merchant's store holds it (no portal_upload entry for the web shop: the adapter makes it), with "Continue selling when out of stock" on. */
    const soldOnInStore = async (stockId: number, sku: string) => {
      const target = { portalAccountId, connector: 'shopify' as const, baseUrl: sandbox.url, credentials: {} };
      await new WebshopAdapter().list(
        target,
        { stockId, name: sku, sku, ean: null, price: '19.90', quantityAvailable: 1, group: { shop_id: 'main' } },
        `made-${sku}`,
      );
      const set = await fetch(`${sandbox.url}/_sandbox/shopify/variant`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ portal_account: portalAccountId, sku, inventory_policy: 'CONTINUE' }),
      });
      expect(set.status).to.equal(200);
    };
    /** A portal_upload list of the item at the store, as the worker runs it, to its end as GET job/{job_id}/ answers it. */
    const listed = async (stockId: number) => {
      const jobId = await db().transaction((trx) =>
        addToOutbox(trx, seller.id, 'portal.upload', { accountId: seller.id, stockId, portal: 'webshop', portalAccountId, action: 'list' }),
      );
      return jobEnd(seller.token, jobId);
    };
    const recorded = (stockId: number) =>
      db()('portal_listing').where({ account_id: seller.id, stock_id: stockId, portal: 'webshop' }).select('portal_item_id', 'status');
    const preorderItem = (sku: string, ciaActive: boolean, extra: Record<string, unknown> = {}) =>
      createItem(seller, { name: sku, sku, quantity: 4, price: '19.90', webshop: [{ shop_id: 'main' }], cia: { webshop: { is_active: ciaActive } }, ...extra });

    it('when the item has CIA off at the web shop, then its listing completes with its quantity and is recorded; with CIA on it is refused naming the setting, and not recorded', async () => {
      const off = await preorderItem('SH-PRE-OFF', false);
      await soldOnInStore(off, 'SH-PRE-OFF');
      const done = await listed(off);
      expect(done.state, done.error).to.equal('completed');
      const listedAs = variant('SH-PRE-OFF').id.split('/').pop();
      expect(done.result).to.deep.include({ action: 'list', portal: 'webshop', portal_item_id: listedAs });
      expect(await recorded(off)).to.deep.equal([{ portal_item_id: listedAs, status: 'listed' }]);
      // The listing carries the item's quantity; the store sells on past it, the merchant's choice with CIA off.
      expect(shopifyOf(sandbox.state).available.get(variant('SH-PRE-OFF').inventoryItemId)).to.equal(4);
      expect(variant('SH-PRE-OFF').inventoryPolicy).to.equal('CONTINUE');

      const on = await preorderItem('SH-PRE-ON', true);
      await soldOnInStore(on, 'SH-PRE-ON');
      const refused = await listed(on);
      expect(refused.state).to.equal('failed');
      expect(refused.error).to.contain('SKU SH-PRE-ON').and.contain('inventory policy CONTINUE').and.contain('or CIA off for the item at the web shop');
      expect(await recorded(on)).to.deep.equal([]);
    });

    it('when the merchant switches a variant Kontor listed to continue selling, and a CIA push finds the store holding its quantity already, then the push is not counted done (the settings the process remembered are read again)', async () => {
      const stockId = await preorderItem('SH-PRE-LATE', true);
      // Listed (quantity 1): the process remembers the variant as it was then, selling no more than its quantity.
      await soldOnInStore(stockId, 'SH-PRE-LATE');
      const target = { portalAccountId, connector: 'shopify' as const, baseUrl: sandbox.url, credentials: {} };
      const [pushed] = await new WebshopAdapter().setQuantities(
        target,
        [{ stockId, quantity: 1, key: 'k-late', sku: 'SH-PRE-LATE', group: { shop_id: 'main' } }],
        'late-switch',
      );
      expect(pushed!.outcome).to.equal('refused');
      expect((pushed as { message: string }).message)
        .to.contain('SKU SH-PRE-LATE')
        .and.contain('inventory policy CONTINUE');
    });

    it('when a variation main is listed, then each variant counts by its own CIA setting: the one with CIA off is listed and recorded, the one with CIA on refused', async () => {
      const s = await preorderItem('SH-PRE-S', false);
      const m = await preorderItem('SH-PRE-M', true);
      const size = (value: string) => ({ name_value: [{ name: 'size', value: [value] }] });
      const main = await createItem(seller, {
        name: 'Vorbestellung',
        sku: 'SH-PRE',
        quantity: 0,
        webshop: [{ shop_id: 'main' }],
        // The main's own cia has no effect on a variation main (lib/cia): its variants' settings count.
        cia: { webshop: { is_active: true } },
        variation: {
          type: 'main',
          specifics_set: { name_value: [{ name: 'size', value: ['S', 'M'] }] },
          sub: [
            { id: String(s), specifics: size('S') },
            { id: String(m), specifics: size('M') },
          ],
        },
      });
      await soldOnInStore(s, 'SH-PRE-S');
      await soldOnInStore(m, 'SH-PRE-M');
      const job = await listed(main);
      expect(job.state).to.equal('failed');
      expect(job.error).to.contain('SKU SH-PRE-M').and.contain('inventory policy CONTINUE');
      expect(await recorded(s)).to.deep.equal([{ portal_item_id: variant('SH-PRE-S').id.split('/').pop(), status: 'listed' }]);
      expect(await recorded(m)).to.deep.equal([]);
    });
  });
});
