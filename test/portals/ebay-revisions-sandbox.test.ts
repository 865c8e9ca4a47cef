import { expect } from 'chai';
import { nextEbayDay } from '../../lib/portals/ebay/ebay-day';
import { ebayCallTo, sandboxForSuite } from './sandbox-server';

/**
 * The sandbox eBay's revision limit (sandbox/ebay-revisions.sandbox.ts), called as eBay's API is:
 * 250 revisions of a listing per calendar day, then each revising entry refused until the next day.
 */
describe("the sandbox eBay plays eBay's 250 revisions of a listing a day", function () {
  this.timeout(20000);
  let url = '';
  let account = 7_500_000 + (process.pid % 1000) * 100;
  sandboxForSuite((sandbox) => ({ url } = sandbox), 'ebay');

  /** An eBay call as the account's seller. */
  const ebay = ebayCallTo(() => url);
  const control = async (path: string, body: unknown) =>
    (await fetch(`${url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })).json() as Promise<
      Record<string, unknown>
    >;
  const shown = async (id: number) =>
    ((await (await fetch(`${url}/_sandbox/ebay/listings?portal_account=${id}`)).json()) as { quantity: number }[])[0]!.quantity;

  /** A published fixed-price listing of the SKU: its offer and listing ids. */
  async function listed(id: number, sku: string, quantity: number): Promise<{ offerId: string; listingId: string }> {
    await ebay(id, 'PUT', `/sell/inventory/v1/inventory_item/${sku}`, { product: { title: sku }, availability: { shipToLocationAvailability: { quantity } } });
    const created = await ebay(id, 'POST', '/sell/inventory/v1/offer', {
      sku,
      marketplaceId: 'EBAY_DE',
      format: 'FIXED_PRICE',
      listingDuration: 'GTC',
      availableQuantity: quantity,
      pricingSummary: { price: { value: '10.00', currency: 'EUR' } },
      merchantLocationKey: 'default',
    });
    const offerId = created.body.offerId as string;
    const published = await ebay(id, 'POST', `/sell/inventory/v1/offer/${offerId}/publish`);
    return { offerId, listingId: published.body.listingId as string };
  }
  const bulk = (id: number, sku: string, offerId: string, quantity: number) =>
    ebay(id, 'POST', '/sell/inventory/v1/bulk_update_price_quantity', {
      requests: [{ sku, shipToLocationAvailability: { quantity }, offers: [{ offerId, availableQuantity: quantity }] }],
    });

  it('when a listing has had 249 revisions today, then the 250th is taken, the 251st is refused in the bulk answer (400, 25002) and the listing keeps its quantity, until the next calendar day', async () => {
    const id = account++;
    const { offerId, listingId } = await listed(id, 'HOT-1', 10);
    expect(await control('/_sandbox/ebay/revisions', { listing_id: listingId, count: 249 })).to.deep.include({
      revisions: [{ listing_id: listingId, day: pacificToday(), count: 249 }],
    });

    const taken = await bulk(id, 'HOT-1', offerId, 9);
    expect(taken.status).to.equal(200);
    expect(await shown(id)).to.equal(9);

    const refused = await bulk(id, 'HOT-1', offerId, 8);
    expect(refused.status).to.equal(207);
    const [entry] = refused.body.responses as { sku: string; offerId: string; statusCode: number; errors: { errorId: number; message: string }[] }[];
    expect(entry).to.deep.include({ sku: 'HOT-1', offerId, statusCode: 400 });
    expect(entry!.errors[0]!.errorId).to.equal(25002);
    expect(entry!.errors[0]!.message).to.match(/revised 250 times in this calendar day/);
    expect(await shown(id)).to.equal(9);
    // updateOffer revises the listing too: refused alike.
    const update = await ebay(id, 'PUT', `/sell/inventory/v1/offer/${offerId}`, {
      availableQuantity: 8,
      listingDuration: 'GTC',
      pricingSummary: { price: { value: '11.00', currency: 'EUR' } },
      merchantLocationKey: 'default',
    });
    expect(update.status).to.equal(400);

    // The next calendar day (midnight Pacific time) the listing may be revised again.
    await control('/_sandbox/ebay/clock', { now: new Date(nextEbayDay(Date.now()).getTime() + 60_000).toISOString() });
    expect((await bulk(id, 'HOT-1', offerId, 8)).status).to.equal(200);
    expect(await shown(id)).to.equal(8);
    await control('/_sandbox/ebay/clock', { now: null });
  });
});

/** Today's Pacific day as the sandbox reports it (its clock is the real one here). */
function pacificToday(): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Los_Angeles', year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
}
