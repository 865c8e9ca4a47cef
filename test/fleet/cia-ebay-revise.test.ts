/**
 * A revise of a live eBay listing carries a quantity (eBay replaces whole records:
 * createOrReplaceInventoryItem's shipToLocationAvailability.quantity "should be included again
 * ... or the available quantity data will be lost", and updateOffer replaces the offer with its
 * availableQuantity), which is the item's own, not the one CIA offers there (max_quantity, -1).
 * Through the API, the workers and the sandbox: after the revise, CIA has the last word, as after
 * a list.
 */
import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { call, newSeller, Seller } from '../support/api';
import { createItem } from '../stock/helpers';
import { ebayListable } from '../portals/channel-support';
import { uploadToEnd, waitFor, withSandboxAndFleet } from './support';

describe('fleet: a revise at auction_a (eBay) and the quantity CIA offers there', function () {
  this.timeout(60000);
  let seller: Seller;
  const running = withSandboxAndFleet();
  beforeEach(async () => {
    seller = await newSeller();
  });

  const account = () => String(seller.portalAccountId);
  const shown = () => running.sandbox.state.quantities(account()).auction_a ?? {};
  const offerOf = (sku: string) => [...running.sandbox.state.ebay.offers.values()].find((o) => o.account === account() && o.sku === sku);

  const upload = (stockId: number, part: Record<string, unknown>) => uploadToEnd(seller.token, stockId, { auction_a: [part] });

  const acked = (stockId: number, quantity: number) =>
    waitFor(`item ${stockId}'s auction_a push of ${quantity} acknowledged`, async () => {
      const row = (await db()('cia_portal_state').where({ account_id: seller.id, stock_id: stockId, portal: 'auction_a' }).first()) as
        { acked_quantity: number | null; last_error: string | null } | undefined;
      return row?.acked_quantity === quantity ? row : undefined;
    });

  it('when a listing whose item CIA offers at most 2 of its 10 is revised, then eBay offers 2 again afterwards (item and offer), not the 10 the revise wrote', async () => {
    const sku = `RV${seller.id}`;
    const id = await createItem(seller, {
      name: 'Lamp',
      sku,
      price: '19.90',
      quantity: 10,
      cia: { auction_a: { is_active: true, max_quantity: 2 } },
      auction_a: [ebayListable],
    });
    const listed = await upload(id, { action: 'list' });
    expect(listed.state, listed.error).to.equal('completed');
    await waitFor('2 shown at eBay after the listing', () => shown()[sku] === 2);
    await acked(id, 2);

    // The seller changes the price and revises the whole listing (no revise_values: item and offer).
    const changed = await call(`stock/${id}/`, { token: seller.token, body: { stock: { price: '24.90' } } });
    expect(changed.status, changed.text).to.equal(200);
    const revised = await upload(id, { action: 'revise' });
    expect(revised.state, revised.error).to.equal('completed');
    expect(offerOf(sku)?.body.pricingSummary).to.deep.include({ price: { value: '24.90', currency: 'EUR' } });

    // CIA sets its quantity again: a buyer sees 2, on the inventory item and the offer alike.
    await waitFor('2 shown at eBay after the revise', () => shown()[sku] === 2 && offerOf(sku)?.body.availableQuantity === 2);
    const item = running.sandbox.state.ebay.inventory.get(`${account()}|${sku}`) as { availability?: { shipToLocationAvailability?: { quantity?: number } } };
    expect(item.availability?.shipToLocationAvailability?.quantity).to.equal(2);
    const row = await acked(id, 2);
    expect(row.last_error).to.equal(null);
  });
});
