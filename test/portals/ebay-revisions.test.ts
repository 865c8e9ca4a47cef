import { expect } from 'chai';
import { setClock } from '../../lib/clock';
import { db } from '../../lib/db/knex';
import { queueWaitingPushes } from '../../lib/cia/cia-push-sweep';
import { AuctionAAdapter } from '../../lib/portals/auction-a.adapter';
import { ebayDay, nextEbayDay } from '../../lib/portals/ebay/ebay-day';
import { planRevisions } from '../../lib/portals/ebay/ebay-revisions';
import { queues } from '../../lib/queue/queue.registry';
import { call, newSeller, Seller } from '../support/api';
import { waitFor, withSandboxAndFleet } from '../fleet/support';

const listable = {
  name: 'Hot lamp',
  price: '19.90',
  category_1_id: '112581',
  seller_profile: { payment: [{ id: 11 }], refund: [{ id: 12 }], shipping: [{ id: 13 }] },
};

interface HeldState {
  acked_quantity: number | null;
  acked_seq: string;
  desired_seq: string;
  held_until: Date | null;
  last_error: string | null;
}
interface PortalState {
  portal: string;
  quantity: number;
  acknowledged: number | null;
  push: boolean;
  held_until: string | null;
  message: string | null;
}

/**
 * eBay revises a listing at most 250 times a calendar day (lib/portals/ebay/ebay-revisions.ts):
 * CIA pushes to auction_a through the API, the fleet and the sandbox eBay, with Kontor's count of
 * the day (portal_listing_revision) and eBay's (the sandbox's) set where a test starts.
 */
describe("auction_a: eBay's 250 revisions of a listing a day", function () {
  this.timeout(30000);
  const running = withSandboxAndFleet();
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });
  afterEach(() => setClock(undefined));

  const control = async (path: string, body: unknown) =>
    (await fetch(`${running.sandbox.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })).json();
  const shown = async (sku: string) =>
    (
      (await (await fetch(`${running.sandbox.url}/_sandbox/ebay/listings?portal_account=${seller.portalAccountId}`)).json()) as {
        sku: string;
        quantity: number;
      }[]
    ).find((l) => l.sku === sku)?.quantity;
  const bulkCalls = (sku: string) =>
    running.sandbox.state.requests.filter(
      (r) =>
        r.portalAccount === String(seller.portalAccountId) &&
        r.path === '/sell/inventory/v1/bulk_update_price_quantity' &&
        (r.body as { requests: { sku: string }[] }).requests.some((q) => q.sku === sku),
    );
  const state = async (stockId: number) =>
    (await db()('cia_portal_state').where({ account_id: seller.id, stock_id: stockId, portal: 'auction_a' }).first()) as HeldState;
  const kontorCount = async (listingId: string) =>
    (await db()('portal_listing_revision').where({ account_id: seller.id, listing_id: listingId }).first()) as { day: Date; revisions: number } | undefined;

  /** An item listed at eBay (its SKU is its stock id) showing `quantity`, with the day's revisions Kontor and eBay counted. */
  async function hotItem(quantity: number, counts: { kontor: number; ebay: number }): Promise<{ id: number; sku: string; listingId: string }> {
    const res = await call('stock/', { token: seller.token, body: { stock: { name: 'Hot lamp', quantity, cia: { auction_a: { is_active: true } } } } });
    expect(res.status, res.text).to.equal(201);
    const id = Number(res.body.stock_id);
    const sku = String(id);
    await waitFor('the first push', async () => (await state(id))?.acked_quantity === quantity);
    const target = { portalAccountId: seller.portalAccountId, baseUrl: running.sandbox.url, credentials: {} };
    const { portalItemId: listingId } = await new AuctionAAdapter().list(
      target,
      { stockId: id, name: 'Hot lamp', sku: null, ean: null, price: '19.90', quantityAvailable: quantity, group: listable },
      'list',
    );
    await control('/_sandbox/ebay/revisions', { listing_id: listingId, count: counts.ebay });
    await db()('portal_listing_revision').insert({
      account_id: seller.id,
      portal: 'auction_a',
      portal_account_id: seller.portalAccountId,
      listing_id: listingId,
      day: ebayDay(Date.now()),
      revisions: counts.kontor,
    });
    return { id, sku, listingId };
  }
  const setQuantity = async (id: number, quantity: number) => {
    const res = await call(`stock/${id}/`, { token: seller.token, body: { stock: { quantity } } });
    expect(res.status, res.text).to.equal(200);
  };
  /** What the client sees: POST stock/{id}/cia/ and its job's result. */
  async function ciaState(id: number): Promise<PortalState> {
    const res = await call(`stock/${id}/cia/`, { token: seller.token, method: 'POST' });
    expect(res.status, res.text).to.equal(202);
    const job = await waitFor('the cia job', async () => {
      const body = (await call(`job/${String(res.body.job_id)}/`, { token: seller.token })).body as {
        job: { state: string; result?: { portals: PortalState[] } };
      };
      return body.job.state === 'completed' ? body.job : undefined;
    });
    return job.result!.portals.find((p) => p.portal === 'auction_a')!;
  }
  const held = (id: number) => waitFor('the quantity held', async () => ((await state(id)).held_until ? state(id) : undefined));
  /** The next eBay day, on Kontor's clock and the sandbox eBay's, and the periodic push sweep run as the leader runs it. */
  async function nextDay(): Promise<void> {
    const tomorrow = nextEbayDay(Date.now()).getTime() + 60_000;
    const offset = tomorrow - Date.now();
    setClock(() => Date.now() + offset);
    await control('/_sandbox/ebay/clock', { now: new Date(tomorrow).toISOString() });
    await queueWaitingPushes(db(), queues(), 0);
  }
  afterEach(async () => {
    await control('/_sandbox/ebay/clock', { now: null });
  });

  it('when a listing has used 230 of its day, then an increase is held (not sent, the CIA state says why and until when) and a decrease still goes out', async () => {
    const { id, sku, listingId } = await hotItem(10, { kontor: 230, ebay: 230 });
    const calls = bulkCalls(sku).length;
    await setQuantity(id, 12);
    const row = await held(id);
    expect(row.held_until!.toISOString()).to.equal(nextEbayDay(Date.now()).toISOString());
    expect(bulkCalls(sku).length).to.equal(calls);
    expect(await shown(sku)).to.equal(10);
    const seen = await ciaState(id);
    expect(seen).to.deep.include({ quantity: 12, acknowledged: 10, push: true, held_until: nextEbayDay(Date.now()).toISOString() });
    expect(seen.message).to.match(/has had 230 of its 250 revisions of today.*increase to 12 .*held/);
    // The push did not fail: the item is held, not retried.
    const failed = await queues().get('portal_upload').getFailed();
    expect(failed.filter((j) => j.data.accountId === seller.id)).to.deep.equal([]);

    await setQuantity(id, 7);
    await waitFor('the decrease at eBay', async () => (await shown(sku)) === 7);
    await waitFor('acknowledged', async () => (await state(id)).acked_quantity === 7);
    expect((await state(id)).held_until).to.equal(null);
    expect((await kontorCount(listingId))!.revisions).to.equal(231);
  });

  it('when the eBay day turns, then a held increase is pushed by the sweep without anyone touching it', async () => {
    const { id, sku, listingId } = await hotItem(10, { kontor: 240, ebay: 240 });
    await setQuantity(id, 15);
    await held(id);
    expect(await shown(sku)).to.equal(10);
    await nextDay();
    await waitFor('the increase at eBay', async () => (await shown(sku)) === 15);
    await waitFor('acknowledged', async () => (await state(id)).acked_quantity === 15);
    const row = await state(id);
    expect(row.held_until).to.equal(null);
    expect(row.last_error).to.equal(null);
    expect((await kontorCount(listingId))!.revisions).to.equal(1);
  });

  it("when eBay refuses a revision Kontor did not count (the seller revised in Seller Hub), then the listing is held for the day: no retry, no further call, the CIA state shows eBay's words", async () => {
    const { id, sku, listingId } = await hotItem(10, { kontor: 3, ebay: 250 });
    const calls = bulkCalls(sku).length;
    await setQuantity(id, 6);
    const row = await held(id);
    expect(row.last_error).to.match(/auction_a answered 400 for SKU .*revised 250 times in this calendar day/);
    expect(await shown(sku)).to.equal(10);
    expect(bulkCalls(sku).length).to.equal(calls + 1);
    expect((await kontorCount(listingId))!.revisions).to.equal(250);
    // Another decrease the same day: Kontor knows the listing is spent and calls eBay no more.
    await setQuantity(id, 5);
    await waitFor('held again', async () => {
      const s = await state(id);
      return s.held_until && /revisions of today/.test(s.last_error ?? '') ? s : undefined;
    });
    // Nothing retries in the background either.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(bulkCalls(sku).length).to.equal(calls + 1);
    const failed = await queues().get('portal_upload').getFailed();
    expect(failed.filter((j) => j.data.accountId === seller.id)).to.deep.equal([]);
    expect((await ciaState(id)).held_until).to.equal(nextEbayDay(Date.now()).toISOString());
  });

  it("when CIA wants the quantity an eBay sale has already left on the listing, then it is sent all the same (one revision, as a decrease from what eBay last took): the read may be one from before Kontor's last write", async () => {
    const { id, sku, listingId } = await hotItem(10, { kontor: 100, ebay: 100 });
    const calls = bulkCalls(sku).length;
    await control('/_sandbox/ebay/orders', { portal_account: String(seller.portalAccountId), lines: [{ sku, quantity: 1 }] });
    expect(await shown(sku)).to.equal(9);
    // The sale taken into Kontor (as the order import does): the item now holds what eBay offers.
    await setQuantity(id, 9);
    await waitFor('acknowledged', async () => (await state(id)).acked_quantity === 9);
    expect(bulkCalls(sku).length).to.equal(calls + 1);
    expect((await kontorCount(listingId))!.revisions).to.equal(101);
    expect(await shown(sku)).to.equal(9);
    expect((await state(id)).held_until).to.equal(null);
  });

  it("when getOffers still shows the quantity from before Kontor's last write, then a decrease to that quantity goes out all the same and eBay offers what is left", async () => {
    // sell_inventory_v1 promises no read after a write: the sandbox eBay answers getOffers as it
    // stood before its latest bulkUpdatePriceQuantity (POST /_sandbox/ebay/stale_reads).
    const { id, sku } = await hotItem(3, { kontor: 0, ebay: 0 });
    await setQuantity(id, 5);
    await waitFor('5 at eBay', async () => (await state(id)).acked_quantity === 5 && (await shown(sku)) === 5);
    const calls = bulkCalls(sku).length;
    await control('/_sandbox/ebay/stale_reads', { portal_account: String(seller.portalAccountId), sku, count: 10 });
    await setQuantity(id, 3);
    await waitFor('acknowledged', async () => (await state(id)).acked_quantity === 3);
    expect(bulkCalls(sku).length).to.equal(calls + 1);
    expect(await shown(sku)).to.equal(3);
  });

  it('when a decrease takes the last revision of the day, then eBay is set to 0 (nothing can follow it) and the quantity goes out the next day', async () => {
    const { id, sku } = await hotItem(10, { kontor: 249, ebay: 249 });
    await setQuantity(id, 7);
    await waitFor('eBay at 0', async () => (await shown(sku)) === 0);
    const row = await held(id);
    expect(row.last_error).to.match(/last revision of today: it was set to 0 .* 7 is held/);
    await nextDay();
    await waitFor('7 at eBay the next day', async () => (await shown(sku)) === 7);
  });
});

/** The plan alone (ebay/ebay-revisions.ts): when a quantity eBay shows may be skipped. */
describe('auction_a: planRevisions skips only what eBay shows and last took from Kontor', () => {
  const asked: string[] = [];
  const ledger = {
    reserve: async (_day: string, asks: { listing: string; ceiling: number }[]) => {
      asked.push(...asks.map((a) => a.listing));
      return new Map(asks.map((a) => [a.listing, { granted: true, count: 1 }]));
    },
    spend: async () => undefined,
  };
  const plan = async (taken: number | null | undefined, shows: number, wanted = 3) => {
    asked.length = 0;
    const plans = await planRevisions(ledger, Date.now(), [{ sku: 'S', wanted, taken, listings: [{ listingId: 'L', availableQuantity: shows }] }]);
    return { plan: plans.get('S'), counted: [...asked] };
  };

  it('when the read shows the wanted quantity and eBay last took it from Kontor, then nothing is sent or counted', async () => {
    expect(await plan(3, 3)).to.deep.equal({ plan: { outcome: 'accepted' }, counted: [] });
  });
  it('when the read shows the wanted quantity but eBay last took more, or what it took is not known, then it is sent', async () => {
    for (const taken of [5, null, undefined]) expect(await plan(taken, 3), String(taken)).to.deep.equal({ plan: { send: 3, last: false }, counted: ['L'] });
  });
  it('when eBay last took more than a read showing less than wanted, then it is a decrease: sent even where an increase is held', async () => {
    const near = {
      ...ledger,
      reserve: async (_d: string, asks: { listing: string; ceiling: number }[]) =>
        new Map(asks.map((a) => [a.listing, { granted: a.ceiling === 250, count: 230 }])),
    };
    const plans = await planRevisions(near, Date.now(), [{ sku: 'S', wanted: 4, taken: 6, listings: [{ listingId: 'L', availableQuantity: 3 }] }]);
    expect(plans.get('S')).to.deep.equal({ send: 4, last: false });
  });
});
