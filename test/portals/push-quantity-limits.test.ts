/**
 * Quantities above what a channel takes, through Kontor's push path (lib/cia, lib/portal-offer)
 * against the sandbox. A variation main offered its variants' sum, each variant holding up to
 * 500,000,000, so the sum passed Shopify's 1,000,000,000 (admin_schema_2025-01.json
 * InventorySetQuantitiesUserErrorCode INVALID_QUANTITY_TOO_HIGH) and the int32 of eBay's
 * availableQuantity and Kaufland's amount; a variation main now offers nothing of its own
 * (document 2: its cia fields are "invalid; variant values count"), so such mains complete with
 * nothing under their SKU (the cap itself: test/fleet/cia.test.ts). And the sandbox refusing such
 * quantities as the contracts do.
 */
import { expect } from 'chai';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { db } from '../../lib/db/knex';
import { WebshopAdapter } from '../../lib/portals/webshop.adapter';
import { shopifyOf } from '../../sandbox/shopify.sandbox';
import { channelLoopForSuite, jobEnd, Sandbox, waitFor } from '../fleet/support';
import { call, newSeller, Seller } from '../support/api';
import { createItem } from '../stock/helpers';
import { ebayCallTo, sandboxForSuite } from './sandbox-server';

const sizes = ['S', 'M', 'L', 'XL', 'XXL'];
const variation = (count: number, quantity: number) => ({
  type: 'main',
  specifics_set: { name_value: [{ name: 'size', value: sizes }] },
  sub: sizes.slice(0, count).map((size) => ({ create_quantity: quantity, specifics: { name_value: [{ name: 'size', value: [size] }] } })),
});

interface CiaPortalResult {
  portal: string;
  portal_account_id: number;
  quantity: number;
  acknowledged: number | null;
  push: boolean;
  message: string | null;
}

/** POST stock/{id}/cia/ and its job's end, as the client sees them. */
async function adjust(seller: Seller, stockId: number): Promise<{ state: string; error?: string; portals: CiaPortalResult[] }> {
  const res = await call(`stock/${stockId}/cia/`, { token: seller.token, body: {} });
  expect(res.status, res.text).to.equal(202);
  const job = await jobEnd(seller.token, res.body.job_id as string);
  return { state: job.state, error: job.error, portals: (job.result as { portals?: CiaPortalResult[] } | undefined)?.portals ?? [] };
}

describe('push: quantities above a channel’s maximum (a variation main’s variants’ sum)', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  channelLoopForSuite((loop) => ({ sandbox } = loop));

  it('when a variation main’s variants hold 1,200,000,000 together, then its adjustment completes and its product variant at the Shopify store gets no quantity', async () => {
    const seller = await newSeller();
    const { id: portalAccountId } = await createPortalAccount(seller.id, { name: 'Shopify store', platform: 'webshop' });
    const main = await createItem(seller, {
      name: 'Download-Lizenz',
      sku: 'VAR-MAIN-1',
      price: '9.90',
      webshop: [{ shop_id: 'main', name: 'Download-Lizenz' }],
      cia: { webshop: { is_active: true } },
      variation: variation(3, 400000000),
    });
    // The store's product of the main item (document 2 has no webshop entry in portal_upload: made through the adapter).
    await new WebshopAdapter().list(
      { portalAccountId, connector: 'shopify', baseUrl: sandbox.url, credentials: {} },
      { stockId: main, name: 'Download-Lizenz', sku: 'VAR-MAIN-1', ean: null, price: '9.90', quantityAvailable: 0, group: { shop_id: 'main' } },
      'list',
    );
    const s = shopifyOf(sandbox.state);
    const available = () => s.available.get(s.variantBySku(String(portalAccountId), 'VAR-MAIN-1')!.inventoryItemId);

    const done = await adjust(seller, main);
    expect(done.state, done.error).to.equal('completed');
    expect(done.portals).to.deep.equal([]);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(available()).to.equal(0);
    expect(await db()('cia_portal_state').where({ account_id: seller.id, stock_id: main })).to.deep.equal([]);
  });

  it('when a variation main’s variants hold 2,500,000,000 together, then the adjustment completes, not a database error, and eBay and the neutral shop get nothing under the main', async () => {
    const seller = await newSeller();
    const other = await createItem(seller, { name: 'Tasse', quantity: 3, cia: { shop_g: { is_active: true } } });
    const main = await createItem(seller, {
      name: 'Download-Lizenz',
      sku: 'VAR-MAIN-2',
      cia: { shop_g: { is_active: true }, auction_a: { is_active: true } },
      variation: variation(5, 500000000),
    });
    const done = await adjust(seller, main);
    expect(done.state, done.error).to.equal('completed');
    expect(done.portals).to.deep.equal([]);
    const shown = () => sandbox.state.quantities(String(seller.portalAccountId));
    // A change of another item afterwards still reaches its channel.
    const changed = await call('stock/list/', {
      token: seller.token,
      body: {
        stock: [
          { id: other, quantity: 2 },
          { id: main, name: 'Download-Lizenz 2' },
        ],
      },
    });
    expect(changed.status, changed.text).to.equal(207);
    await waitFor('the other item at 2', () => shown().shop_g?.[String(other)] === 2, 20000);
    expect(shown().auction_a ?? {}).to.not.have.property('VAR-MAIN-2');
    expect(shown().shop_g).to.not.have.property(String(main));
  });
});

describe('the sandbox refuses quantities above the contracts’ maximum', function () {
  this.timeout(20000);
  let url = '';
  sandboxForSuite((s) => {
    url = s.url;
  });

  it('when Shopify’s inventorySetQuantities names 1,000,000,001, then INVALID_QUANTITY_TOO_HIGH in a 200 and nothing is applied', async () => {
    const mutation = `mutation Q($input: InventorySetQuantitiesInput!) { inventorySetQuantities(input: $input) { inventoryAdjustmentGroup { id } userErrors { field message code } } }`;
    const res = await fetch(`${url}/admin/api/2025-01/graphql.json`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Shopify-Access-Token': 'shpat_sandbox_990003' },
      body: JSON.stringify({
        query: mutation,
        variables: {
          input: {
            name: 'available',
            reason: 'correction',
            ignoreCompareQuantity: true,
            quantities: [{ inventoryItemId: 'gid://shopify/InventoryItem/1', locationId: 'gid://shopify/Location/1', quantity: 1000000001 }],
          },
        },
      }),
    });
    expect(res.status).to.equal(200);
    const body = (await res.json()) as {
      data: { inventorySetQuantities: { inventoryAdjustmentGroup: unknown; userErrors: { field: string[]; code: string }[] } };
    };
    expect(body.data.inventorySetQuantities.inventoryAdjustmentGroup).to.equal(null);
    expect(body.data.inventorySetQuantities.userErrors.map((e) => `${e.code} ${e.field.join('.')}`)).to.include(
      'INVALID_QUANTITY_TOO_HIGH input.quantities.0.quantity',
    );
  });

  it('when eBay’s bulkUpdatePriceQuantity names an availableQuantity beyond int32, then 400 25709 naming the field, recorded as a violation', async () => {
    const ebay = ebayCallTo(() => url);
    const res = await ebay(990004, 'POST', '/sell/inventory/v1/bulk_update_price_quantity', {
      requests: [{ sku: 'BIG', shipToLocationAvailability: { quantity: 1 }, offers: [{ offerId: '1', availableQuantity: 2147483648 }] }],
    });
    expect(res.status).to.equal(400);
    expect(res.body.errors![0]!.errorId).to.equal(25709);
    const violations = (await (await fetch(`${url}/_sandbox/violations?vendor=ebay`)).json()) as { problems: { name: string; message: string }[] }[];
    expect(violations.flatMap((v) => v.problems.map((p) => `${p.name}: ${p.message}`))).to.deep.equal([
      'requests[0].offers[0].availableQuantity: requests[0].offers[0].availableQuantity must match format "int32"',
    ]);
  });
});
