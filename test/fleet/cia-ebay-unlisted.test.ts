/**
 * CIA's quantity of an item eBay holds no inventory item of: eBay refuses it in the SKU's own
 * entry of bulkUpdatePriceQuantity's answer (sell_inventory_v1_oas3.json BulkPriceQuantityResponse:
 * each PriceQuantityResponse has its statusCode and errors; the call's table gives 25002 "Any
 * User error"), and the push counts it as not done, with eBay's text and what to do, instead of
 * accepted; once the item is listed (portal_upload), its quantities reach eBay.
 */
import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { call, newSeller, Seller } from '../support/api';
import { jobEnd, waitFor, withSandboxAndFleet } from './support';

describe('fleet: CIA to auction_a of an item eBay holds no inventory item of', function () {
  this.timeout(60000);
  let seller: Seller;
  const running = withSandboxAndFleet();
  beforeEach(async () => {
    seller = await newSeller();
    // The contract's eBay: no inventory items made outside Kontor (the fleet's suites assume some).
    running.sandbox.state.ebay.itemsMadeElsewhere = false;
  });
  afterEach(() => {
    running.sandbox.state.ebay.itemsMadeElsewhere = true;
  });

  const account = () => String(seller.portalAccountId);
  const shown = (sku: string) => running.sandbox.state.quantities(account()).auction_a?.[sku];
  const state = async (stockId: number) =>
    (await db()('cia_portal_state').where({ account_id: seller.id, stock_id: stockId, portal: 'auction_a' }).first()) as
      { last_error: string | null; refused_seq: string | null; desired_seq: string; acked_quantity: number | null } | undefined;

  it('when an item never listed at eBay gets a quantity, then eBay refuses its SKU and the push records it refused with eBay’s text and the way out; listed by portal_upload, its quantities then reach eBay', async () => {
    const created = await call('stock/', {
      token: seller.token,
      body: {
        stock: {
          name: 'Lamp',
          sku: 'EB-UNLISTED',
          quantity: 5,
          cia: { auction_a: { is_active: true } },
          auction_a: [
            {
              name: 'Desk lamp',
              description: 'A brass desk lamp',
              picture: { url: ['https://pictures.example/lamp.jpg'] },
              price: '19.90',
              category_1_id: '112581',
              seller_profile: { payment: [{ id: 101 }], refund: [{ id: 102 }], shipping: [{ id: 103 }] },
            },
          ],
        },
      },
    });
    expect(created.status, created.text).to.equal(201);
    const stockId = Number(created.body.stock_id);

    const refused = await waitFor('the refusal recorded', async () => {
      const row = await state(stockId);
      return row && row.refused_seq === row.desired_seq ? row : undefined;
    });
    expect(refused.acked_quantity).to.equal(null);
    expect(refused.last_error)
      .to.contain(`auction_a answered 400 for SKU EB-UNLISTED (item ${stockId})`)
      .and.contain('No inventory item exists for SKU EB-UNLISTED')
      .and.contain(`list item ${stockId} at auction_a (portal_upload)`);
    // eBay made nothing of it: no inventory item an offer could later be made on, no quantity shown.
    expect(running.sandbox.state.ebay.inventory.has(`${account()}|EB-UNLISTED`)).to.equal(false);
    expect(shown('EB-UNLISTED')).to.equal(undefined);
    const bulk = running.sandbox.state.requests.filter((r) => r.portalAccount === account() && r.path === '/sell/inventory/v1/bulk_update_price_quantity');
    expect(bulk.map((r) => r.status)).to.include(207);

    const upload = await call(`stock/${stockId}/portal_upload/`, { token: seller.token, body: { portal_upload: { auction_a: [{ action: 'list' }] } } });
    expect(upload.status, upload.text).to.equal(207);
    const part = (upload.body.response as { code: number; job_id: string }[])[0]!;
    expect(part.code, upload.text).to.equal(202);
    const listed = await jobEnd(seller.token, part.job_id);
    expect(listed.state, listed.error).to.equal('completed');
    expect(shown('EB-UNLISTED')).to.equal(5);

    const changed = await call(`stock/${stockId}/`, { token: seller.token, body: { stock: { quantity: 3 } } });
    expect(changed.status, changed.text).to.equal(200);
    await waitFor('3 at eBay', () => shown('EB-UNLISTED') === 3, 20000);
    const done = await waitFor('the push of 3 acknowledged', async () => {
      const row = await state(stockId);
      return row?.acked_quantity === 3 ? row : undefined;
    });
    expect(done.refused_seq === done.desired_seq).to.equal(false);
  });
});
