/**
 * The sandbox's store moving fulfillment orders and updating a fulfilment's tracking as Shopify
 * documents it (admin_schema_2025-01.json: fulfillmentOrderMove, fulfillmentOrderClose,
 * FulfillmentOrderRequestStatus; shopify.dev's fulfillmentTrackingInfoUpdate page for its scopes),
 * found by a reviewer of ea9c996: a move while the fulfilment service holds a request is refused,
 * an INCOMPLETE fulfillment order moves, and a fulfilment app's parcel is not changed by a token
 * without the app's write scope.
 */
import { expect } from 'chai';
import type { PortalTarget } from '../../lib/portals/portal.type';
import { WebshopAdapter } from '../../lib/portals/webshop.adapter';
import type { Sandbox } from '../fleet/support';
import type { FulfillmentOrderPlan } from '../../sandbox/shopify-fulfillment.sandbox';
import { shopifyStoreForEach, postToSandbox } from './shopify-support';

const adapter = new WebshopAdapter();

describe('webshop at Shopify: the sandbox moves fulfillment orders and updates tracking as the contract says', () => {
  let sandbox: Sandbox;
  let account: number;
  let target: PortalTarget;
  shopifyStoreForEach((store) => ({ sandbox, account, target } = store));

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) => postToSandbox(sandbox, path, body, headers);
  const graphql = async (token: string, query: string, variables: Record<string, unknown> = {}) => {
    const answer = await post('/admin/api/2025-01/graphql.json', { query, variables }, { 'X-Shopify-Access-Token': token });
    expect(answer.status).to.equal(200);
    return answer.body.data as Record<string, unknown>;
  };
  const kontorsToken = () => `shpat_sandbox_${account}`;
  const number = (gid: string) => Number(gid.split('/').pop());

  /** The merchant's warehouse (Location/1) and ShipBob's, SKU MV-1 listed and stocked at both (once a store); ShipBob's location. */
  let store: Promise<string> | undefined;
  beforeEach(() => (store = undefined));
  const shipBobStore = async () => {
    await adapter.list(target, { stockId: 1, name: 'Tasse', sku: 'MV-1', ean: '', price: '12.00', quantityAvailable: 10, group: { shop_id: 'main' } }, 'list');
    const made = await post('/_sandbox/shopify/locations', {
      portal_account: account,
      locations: [{ name: 'Versandlager' }, { name: 'ShipBob', fulfillment_service: true }],
    });
    const shipBob = (made.body as unknown as { id: string }[])[1]!.id;
    expect((await post('/_sandbox/shopify/inventory', { portal_account: account, sku: 'MV-1', location: shipBob, available: 40 })).status).to.equal(200);
    return shipBob;
  };
  /** An order of 2 x MV-1 placed at ShipBob as `plan` says, and a read of its fulfillment orders as Kontor's token sees them. */
  const atShipBob = async (plan: Omit<FulfillmentOrderPlan, 'location' | 'lines'>) => {
    const shipBob = await (store ??= shipBobStore());
    const placed = await post('/_sandbox/shopify/orders', {
      portal_account: account,
      lines: [{ sku: 'MV-1', quantity: 2 }],
      fulfillment_orders: [{ ...plan, location: number(shipBob), lines: [{ line: 0 }] }],
    });
    expect(placed.status, JSON.stringify(placed.body)).to.equal(201);
    const orderId = String(placed.body.id);
    const read = async () =>
      (
        (await graphql(
          kontorsToken(),
          'query F($id: ID!) { order(id: $id) { fulfillmentOrders(first: 5) { nodes { id status requestStatus assignedLocation { location { id } } } } } }',
          { id: orderId },
        )) as {
          order: { fulfillmentOrders: { nodes: { id: string; status: string; requestStatus: string; assignedLocation: { location: { id: string } } }[] } };
        }
      ).order.fulfillmentOrders.nodes.map((fo) => ({ id: fo.id, status: fo.status, requestStatus: fo.requestStatus, at: fo.assignedLocation.location.id }));
    return { shipBob, orderId, read };
  };
  const moveHome = (foId: string) => post(`/_sandbox/shopify/fulfillment_orders/${number(foId)}/move`, { location: 1 });

  for (const pending of ['SUBMITTED', 'ACCEPTED', 'CANCELLATION_REQUESTED', 'CANCELLATION_REJECTED'])
    it(`a fulfillment order whose request status is ${pending} (awaiting its fulfilment service) is not moved`, async () => {
      const { shipBob, read } = await atShipBob({ request_status: pending });
      const [fo] = await read();
      expect(fo).to.deep.include({ status: 'OPEN', requestStatus: pending, at: shipBob });
      const refused = await moveHome(fo!.id);
      expect(refused.status).to.equal(422);
      expect(JSON.stringify(refused.body)).to.contain(`request status of ${pending}`);
      expect(await read()).to.deep.equal([fo]);
    });

  it('a fulfillment order whose service accepted the cancellation (CANCELLATION_ACCEPTED) moves to the merchant, UNSUBMITTED there', async () => {
    const { read } = await atShipBob({ request_status: 'CANCELLATION_ACCEPTED' });
    const [fo] = await read();
    expect((await moveHome(fo!.id)).status).to.equal(200);
    expect(await read()).to.deep.equal([{ id: fo!.id, status: 'OPEN', requestStatus: 'UNSUBMITTED', at: 'gid://shopify/Location/1' }]);
  });

  it('an INCOMPLETE fulfillment order (closed by its service without completing it) moves to the merchant and is OPEN there; a CANCELLED one is refused as closed', async () => {
    const incomplete = await atShipBob({ status: 'INCOMPLETE', request_status: 'CLOSED' });
    const [fo] = await incomplete.read();
    expect(fo).to.deep.include({ status: 'INCOMPLETE', requestStatus: 'CLOSED' });
    const moved = await moveHome(fo!.id);
    expect(moved.status, JSON.stringify(moved.body)).to.equal(200);
    expect(await incomplete.read()).to.deep.equal([{ id: fo!.id, status: 'OPEN', requestStatus: 'UNSUBMITTED', at: 'gid://shopify/Location/1' }]);

    const cancelled = await atShipBob({ status: 'CANCELLED' });
    const [gone] = await cancelled.read();
    const refused = await moveHome(gone!.id);
    expect(refused.status).to.equal(422);
    expect(refused.body).to.deep.equal({ errors: [{ message: 'The fulfillment order is closed.' }] });
  });

  it("a request status other than UNSUBMITTED is refused at the merchant's own location (UNSUBMITTED is the only valid one there)", async () => {
    const placed = await post('/_sandbox/shopify/orders', {
      portal_account: account,
      lines: [{ sku: 'MV-2' }],
      fulfillment_orders: [{ location: 1, request_status: 'ACCEPTED', lines: [{ line: 0 }] }],
    });
    expect(placed.status).to.equal(400);
    expect(String(placed.body.error)).to.contain('request_status');
  });

  it("fulfillmentTrackingInfoUpdate of a fulfilment app's fulfilment needs write_third_party_fulfillment_orders: Kontor's token is refused and the parcel keeps its tracking, the app's own token updates it", async () => {
    const { orderId, read } = await atShipBob({});
    const [fo] = await read();
    const shipBobsToken = String(
      (await post('/_sandbox/shopify/tokens', { portal_account: String(account), scopes: 'read_orders,write_third_party_fulfillment_orders' })).body
        .access_token,
    );
    const made = (await graphql(
      shipBobsToken,
      'mutation C($f: FulfillmentInput!) { fulfillmentCreate(fulfillment: $f) { fulfillment { id } userErrors { message } } }',
      {
        f: { lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: fo!.id }], trackingInfo: { number: 'SHIPBOB-1', company: 'DHL' } },
      },
    )) as { fulfillmentCreate: { fulfillment: { id: string } } };
    const fulfillmentId = made.fulfillmentCreate.fulfillment.id;
    const update = (token: string, numbers: string[]) =>
      graphql(
        token,
        'mutation U($id: ID!, $t: FulfillmentTrackingInput!) { fulfillmentTrackingInfoUpdate(fulfillmentId: $id, trackingInfoInput: $t) { fulfillment { id } userErrors { field message } } }',
        { id: fulfillmentId, t: { numbers, company: 'DHL' } },
      ) as Promise<{ fulfillmentTrackingInfoUpdate: { fulfillment: { id: string } | null; userErrors: { field: string[]; message: string }[] } }>;
    const tracking = async () =>
      (
        (await graphql(kontorsToken(), 'query T($id: ID!) { order(id: $id) { fulfillments(first: 5) { trackingInfo(first: 10) { number } } } }', {
          id: orderId,
        })) as {
          order: { fulfillments: { trackingInfo: { number: string }[] }[] };
        }
      ).order.fulfillments.map((f) => f.trackingInfo.map((t) => t.number));

    const refused = await update(kontorsToken(), ['SHIPBOB-1', 'SELLER-9']);
    expect(refused.fulfillmentTrackingInfoUpdate.fulfillment).to.equal(null);
    expect(refused.fulfillmentTrackingInfoUpdate.userErrors).to.have.length(1);
    expect(refused.fulfillmentTrackingInfoUpdate.userErrors[0]!.field).to.deep.equal(['fulfillmentId']);
    expect(await tracking()).to.deep.equal([['SHIPBOB-1']]);

    const done = await update(shipBobsToken, ['SHIPBOB-1', 'SHIPBOB-2']);
    expect(done.fulfillmentTrackingInfoUpdate.userErrors).to.deep.equal([]);
    expect(await tracking()).to.deep.equal([['SHIPBOB-1', 'SHIPBOB-2']]);
  });
});
