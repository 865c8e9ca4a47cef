import { isPermanent, mayHaveLanded } from '../../errors';
import type { PushAids, QuantityOutcome, QuantityUpdate } from '../portal.type';
import { lowestPerListing } from '../shared-listing';
import { amazonFulfilment, fbaRefusal, shownIn } from './fba-offers';
import { readListing } from './listing-check';
import { sellerSku } from './listing-attributes';
import { earlierFeed, FeedMessage, feedMessages, feedOutcomes, sendQuantityFeed, stillProcessing } from './listings-feed';
import { SpApiRefusal, SpApiSession, spApiErrors } from './sp-api-client';
import { Submission, submissionErrors } from './submission';

/** What Kontor recorded of the items' listings (PushAids): live in all the account's marketplaces, or in some, and where Amazon fulfils them. */
type Listed = Pick<PushAids, 'listedItems' | 'listedMarkets' | 'channelFulfilledIn'>;

/**
 * Those records as read for a batch, by stock id: the listings live in all (their SKU at Amazon),
 * those live in some (their marketplaces and SKU), and those recorded as fulfilled by Amazon, with
 * the marketplaces it fulfils them in where some only (null: all).
 */
interface Records {
  inAll: Map<number, string>;
  inSome: Map<number, { markets: string[]; portalItemId: string | null }>;
  byAmazon: Map<number, string[] | null>;
}

/**
 * The batch's listing records: the second statement for the items not live in all only, the
 * third (fba-offers.ts: an AFN order or the listing check marked them) for the recorded ones only.
 */
async function readRecords(listed: Listed, stockIds: number[]): Promise<Records> {
  const inAll = await listed.listedItems(stockIds);
  const rest = stockIds.filter((id) => !inAll.has(id));
  const inSome =
    listed.listedMarkets && rest.length > 0 ? await listed.listedMarkets(rest) : new Map<number, { markets: string[]; portalItemId: string | null }>();
  const recorded = stockIds.filter((id) => inAll.has(id) || inSome.has(id));
  return { inAll, inSome, byAmazon: listed.channelFulfilledIn && recorded.length > 0 ? await listed.channelFulfilledIn(recorded) : new Map() };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Whose a Listings Items answer is (listingsItems_2021-08-01.json, patchListingsItem's and
 * getListingsItem's responses; decision, lib/portals/README.md "CIA quantities"):
 * - the account's (accountStatuses): 403, whose every reason the contract gives is the caller's
 *   access ("Access Denied, Unauthorized, Expired Token, or Invalid Signature"; an expired token
 *   is lifted by SpApiSession.send's new one), none a SKU; 401 (not listed; the same kind); and
 *   415 ("The request payload is in an unsupported format": every patch of a batch is made
 *   alike, so each would be refused). The batch stops (BatchStop);
 * - the item's (itemStatus): 400 ("missing or invalid parameters"; the contract's example is a
 *   SKU, BadSKU, answered BAD_REQUEST "Invalid input"), 413 ("The request size exceeded the
 *   maximum accepted size": this SKU's request), and a 4xx the contract does not list for the
 *   operation (a 404 or 422; ours: one answer nobody documents holds up no other SKU's quantity).
 *   A 400 can be the account's too (searchListingsItems' example is marketplaceIds "invalid",
 *   the same BAD_REQUEST "Invalid input"): nothing in the answer tells the two apart, so it is
 *   taken for the item's (ours), and an account with a wrong marketplace_id has each item refused
 *   with Amazon's words rather than every quantity held back by one SKU's bad value;
 * - anything else (408, 429, 5xx, the network) is the call's: SpApiSession maps it, retry.
 */
const accountStatuses = [401, 403, 415];
const itemStatus = (status: number | undefined) =>
  status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 429 && !accountStatuses.includes(status);

/** A refusal of the SKU (itemStatus) as an INVALID submission; anything else (throttling, 5xx, the account's) is thrown on. */
function asItemRefusal(sku: string, err: unknown): { data: Submission } {
  const response = (err as { response?: { status?: number; data?: unknown } }).response;
  if (!itemStatus(response?.status)) throw err;
  return { data: { sku, status: 'INVALID', issues: [{ code: String(response!.status), message: spApiErrors(response!.data), severity: 'ERROR' }] } };
}

/**
 * A batch's end by an answer that is not one SKU's: the account's (accountStatuses, or Login with
 * Amazon refusing the refresh token) or another that fails the batch (a feed call refused). The
 * first such failure stops it: no lookup, patch or feed not sent yet is sent (each would be
 * refused alike, and a 403 costs a new access token each), and the batch fails with it once the
 * calls in flight settle. Before, every SKU's patch still went, and each item showed one SKU's
 * 403 as if it were that SKU's.
 */
class BatchStop {
  reason: Error | undefined;

  constructor(private readonly s: SpApiSession) {}

  /** Throws the reason once the batch stopped; called before each call goes. */
  check(): void {
    if (this.reason) throw this.reason;
  }

  /** Stops the batch with this failure (the first one kept) and answers what the batch fails with. */
  stop(err: unknown): Error {
    this.reason ??= this.accountWide(err as Error);
    return this.reason;
  }

  /** An account's refusal named as the account's, not the SKU's whose call met it. */
  private accountWide(err: Error): Error {
    if (!(err instanceof SpApiRefusal) || !accountStatuses.includes(err.answered)) return err;
    const why =
      err.answered === 415
        ? "Amazon refused the format of Kontor's request, which every quantity of the batch is sent in"
        : "Amazon refused the portal account's access (listingsItems_2021-08-01.json: a 403 is Access Denied, Unauthorized, Expired Token or Invalid Signature, none of them one SKU's; a new access token was refused too); the seller must authorise Kontor again in Seller Central (Manage Your Apps) with the Product Listing role";
    return new SpApiRefusal(
      err.answered,
      `market_d: portal account ${this.s.target.portalAccountId}: ${why}. The quantity batch stopped: the quantities not sent by then were not sent. ${err.message}`.slice(
        0,
        2000,
      ),
    );
  }
}

/**
 * One SKU's quantity by patchListingsItem (the feed message's patch), sent from `patchAt` (ms
 * since the epoch) on; an unrecorded SKU (recordedIn null) is looked up first, from `patchAt` or
 * `lookupAt` on, whichever is later (the caller took both tokens for those times,
 * SpApiSession.reserve). Throttling, 5xx and
 * network errors answer this item retry; a permanent failure that is not about the SKU (the
 * account's, a revoked grant) stops the batch (BatchStop) and is thrown: it fails the batch. Once
 * the batch stopped, nothing is sent.
 */
async function patchQuantity(
  s: SpApiSession,
  stop: BatchStop,
  message: FeedMessage,
  stockId: number,
  recordedIn: string[] | null,
  patchAt: number,
  lookupAt: number,
): Promise<QuantityOutcome> {
  const until = async (at: number) => {
    if (at > Date.now()) await sleep(at - Date.now());
  };
  try {
    // The lookup goes at its patch's time (or its own token's, if later) and the patch right after
    // it, as before: patches sent at their times once the lookups, begun earlier, have answered
    // would go together whenever the lookups were slow, beyond Amazon's burst (a 429).
    await until(recordedIn ? patchAt : Math.max(patchAt, lookupAt));
    stop.check();
    const held = recordedIn ? { marketplaceIds: recordedIn } : await heldAtAmazon(s, message.sku, stockId);
    if ('outcome' in held) return held;
    stop.check();
    const answer = await s.send('patch', s.listingPath(message.sku), (o) =>
      s.listings
        .patchListingsItem(
          {
            sellerId: s.creds.sellerId,
            sku: message.sku,
            marketplaceIds: held.marketplaceIds,
            body: { productType: message.productType, patches: message.patches },
          },
          o,
        )
        .catch((err: unknown) => asItemRefusal(message.sku, err)),
    );
    const errors = submissionErrors(answer);
    if (errors === undefined) return { stockId, outcome: 'accepted' };
    return { stockId, outcome: 'refused', message: `market_d refused the quantity of item ${stockId} (SKU ${message.sku}): ${errors}`.slice(0, 1000) };
  } catch (err) {
    if (isPermanent(err)) throw stop.stop(err);
    // A patch that failed after it was sent may still be applied; a lookup's failure or a wait was not.
    return { stockId, outcome: 'retry', message: (err as Error).message, ...(mayHaveLanded(err) ? { mayHaveLanded: true } : {}) };
  }
}

/**
 * What getListingsItem answers of one SKU that refuses that SKU's lookup alone (decision,
 * lib/portals/README.md "CIA quantities"): the item's answers of a patch (itemStatus), chiefly
 * 400 "Request has missing or invalid parameters" (the contract's own example is a SKU,
 * "BadSKU", answered BAD_REQUEST "Invalid input"); its 404 is no listing (readListing). Thrown,
 * one failed the whole batch: the other SKUs' patches, sent already, went unrecorded and every
 * item showed this SKU's answer. A 403 is the account's (accountStatuses), as for a patch: it
 * stops the batch (6a50022 took it for the SKU's, so an account without access had each SKU
 * looked up, refused and its token renewed one by one).
 */
const lookupRefused = (err: unknown): err is SpApiRefusal => err instanceof SpApiRefusal && itemStatus(err.answered);

/** Issue categories (listingsItems_2021-08-01.json Issue.categories) of a listing that lacks what a buyer needs. */
const lacking = ['MISSING_PRICE', 'MISSING_ATTRIBUTE'];

/**
 * Where Amazon holds a listing of a SKU Kontor has no listing record of (a Seller Central
 * listing, or none): getListingsItem (summaries, issues) in the account's marketplaces. Amazon
 * takes a quantity patch of a SKU it holds no listing of (ACCEPTED), but what it makes of it has
 * no product and no price: nothing a buyer can buy, while the push counted done and the seller
 * thought the item on sale. So (decision, lib/portals/README.md "CIA quantities"):
 * - a lookup Amazon refuses as the SKU's (lookupRefused): refused with Amazon's answer, nothing sent;
 * - no listing in any marketplace (404): refused, nothing sent, the seller told to list it;
 * - fulfilled by Amazon (fba-offers.ts amazonFulfilment) in every marketplace showing it: refused
 *   (fbaRefusal), nothing sent; in some only, those are left out (one read more per marketplace
 *   where the lookup's answer holds Amazon's code and DEFAULT);
 * - a listing with an ERROR issue of category MISSING_PRICE or MISSING_ATTRIBUTE (such an earlier
 *   quantity's stub, or a listing without an offer) in every marketplace showing it: refused with
 *   Amazon's issues, nothing sent;
 * - else the quantity goes to the marketplaces that show a summary of it, the seller's own offer
 *   and no such issue only: one holding no listing of the SKU would get such a stub, one holding
 *   a stub keeps it.
 */
async function heldAtAmazon(s: SpApiSession, sku: string, stockId: number): Promise<{ marketplaceIds: string[] } | QuantityOutcome> {
  const refusedLookup = (err: SpApiRefusal): QuantityOutcome => ({
    stockId,
    outcome: 'refused',
    message: `market_d: Amazon refused the lookup of SKU ${sku}, so the quantity of item ${stockId} was not sent: ${err.message}`.slice(0, 1000),
  });
  let item: Awaited<ReturnType<typeof readListing>>;
  try {
    // Its token was taken by the caller (SpApiSession.reserve).
    item = await readListing(s, sku, ['summaries', 'issues', 'fulfillmentAvailability'], true);
  } catch (err) {
    if (!lookupRefused(err)) throw err;
    return refusedLookup(err);
  }
  const marketplaceIds = shownIn(item, s.marketplaceIds);
  const refuse = (why: string): QuantityOutcome => ({
    stockId,
    outcome: 'refused',
    message: `market_d: ${why}; the quantity of item ${stockId} was not sent (list it with portal_upload market_d, or in Seller Central)`.slice(0, 1000),
  });
  if (marketplaceIds.length === 0)
    return refuse(`Amazon holds no listing of SKU ${sku} in ${s.marketplaceIds.join(', ')}, and a quantity alone makes no offer (no product, no price)`);
  // Amazon fulfils the offer (fba-offers.ts): Kontor's item is not market_d.is_fba (those send
  // no quantity: listings-feed.ts). Where it does so in every marketplace nothing is sent and the
  // seller told; where in some only (FBA in DE, the seller's own in FR), those are left out and the
  // others take the quantity: refusing the SKU left FR selling at its old quantity.
  let amazon: Awaited<ReturnType<typeof amazonFulfilment>>;
  try {
    amazon = await amazonFulfilment(s, sku, item, marketplaceIds);
  } catch (err) {
    if (!lookupRefused(err)) throw err;
    return refusedLookup(err);
  }
  if (amazon && !amazon.marketplaces) return fbaRefusal(sku, stockId, amazon.channels.join(', '));
  const own = marketplaceIds.filter((m) => !amazon?.marketplaces?.includes(m));
  const missing = (item?.issues ?? []).filter((i) => i.severity === 'ERROR' && i.categories.some((c) => lacking.includes(c)));
  // Such an issue concerns the marketplaces it names (Issue.marketplaceIds), all when it names
  // none: a stub in FR (an earlier quantity's patch naming FR too) leaves the DE offer sellable,
  // whose quantity still goes; refusing the SKU would leave DE selling on at the old quantity.
  const sellable = own.filter((m) => !missing.some((i) => !i.marketplaceIds?.length || i.marketplaceIds.includes(m)));
  if (sellable.length === 0)
    return refuse(`Amazon's listing of SKU ${sku} cannot be bought: ${missing.map((i) => `${i.code} ${i.categories.join('/')}: ${i.message}`).join('; ')}`);
  return { marketplaceIds: sellable };
}

/**
 * Where Kontor's listing records (PushAids) put each patched item: all the account's marketplaces
 * (a listing recorded in all), the recorded ones of a listing only some took (b12acae; Kontor put
 * it there, so it is not asked: Amazon answers 404 while it still processes the put, which
 * heldAtAmazon would take for no listing and refuse), or null: no record, Amazon is asked
 * (heldAtAmazon). Less the marketplaces the listing is recorded fulfilled by Amazon in (byAmazon):
 * none left, the item is refused (fbaRefusal); some, they alone take the quantity. Without the
 * aids, all (none is asked).
 */
function recordedMarketplaces(s: SpApiSession, listed: Records | undefined): (stockId: number) => string[] | null {
  if (!listed) return () => s.marketplaceIds;
  const { inAll, inSome, byAmazon } = listed;
  return (stockId) => {
    const amazons = byAmazon.get(stockId);
    if (amazons === null) return [];
    // Marketplaces the account no longer sells in are left out; none left: Amazon is asked.
    const recorded = inAll.has(stockId) ? s.marketplaceIds : s.marketplaceIds.filter((m) => inSome.get(stockId)?.markets.includes(m));
    if (recorded.length === 0) return null;
    return amazons === undefined ? recorded : recorded.filter((m) => !amazons.includes(m));
  };
}

/**
 * The feed's part of a batch less what the patch path would not send (heldAtAmazon): a SKU Kontor
 * recorded no listing of is looked up first, as a patched one is. The feed's processing report
 * would not tell: listings-feed-processing-report-schema-v2.json documents the issue's form only,
 * no answer for a PATCH message of a SKU Amazon holds no listing of, and a patch of one is
 * ACCEPTED (a stub with no product and no price, heldAtAmazon), so the feed counted such a SKU
 * accepted where the patch path refused it. Per looked-up SKU (decision, lib/portals/README.md
 * "CIA quantities"): heldAtAmazon's refusal is the item's outcome, with the patch path's words;
 * held (and sellable) in every marketplace of the account, it goes in the feed; in some only, it
 * answers retry: the feed is applied in all the account's marketplaces (c85ff8c), and the push's
 * retry, a smaller batch, patches it there. The lookups take getListingsItem's tokens (5/s after
 * a burst of 10) within the token wait; SKUs beyond answer retry, and each try looks up more.
 */
async function heldInAll(
  s: SpApiSession,
  stop: BatchStop,
  messages: FeedMessage[],
  stockIdOf: (m: FeedMessage) => number,
  recorded: (stockId: number) => string[] | null,
  answer: (m: FeedMessage, outcome: QuantityOutcome) => void,
): Promise<FeedMessage[]> {
  const unrecorded = messages.filter((m) => recorded(stockIdOf(m)) === null);
  if (unrecorded.length === 0) return messages;
  const delays = await s.reserve('get', s.listingPath(unrecorded[0]!.sku), unrecorded.length);
  const out = new Set<FeedMessage>();
  for (const m of unrecorded.slice(delays.length)) {
    out.add(m);
    answer(m, lookupWaits(m.sku, stockIdOf(m)));
  }
  const looked = unrecorded.slice(0, delays.length).map(async (m, i) => {
    if (delays[i]! > 0) await sleep(delays[i]!);
    const stockId = stockIdOf(m);
    let held: Awaited<ReturnType<typeof heldAtAmazon>>;
    try {
      stop.check();
      held = await heldAtAmazon(s, m.sku, stockId);
    } catch (err) {
      if (isPermanent(err)) throw stop.stop(err);
      held = { stockId, outcome: 'retry', message: (err as Error).message };
    }
    if ('outcome' in held) {
      out.add(m);
      answer(m, held);
    } else if (held.marketplaceIds.length < s.marketplaceIds.length) {
      out.add(m);
      answer(m, {
        stockId,
        outcome: 'retry',
        message: `market_d: SKU ${m.sku} is listed in ${held.marketplaceIds.join(', ')} only, which a feed cannot name alone; its patch waits for Amazon's rate limit`,
      });
    }
  });
  // Every lookup settles before a failure is thrown (as the patches do).
  const failed = (await Promise.allSettled(looked)).find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  return messages.filter((m) => !out.has(m));
}

/** An unrecorded SKU whose lookup (getListingsItem) found no token within the token wait. */
const lookupWaits = (sku: string, stockId: number): QuantityOutcome => ({
  stockId,
  outcome: 'retry',
  message: `market_d: SKU ${sku} has no listing record; its lookup at Amazon waits for the rate limit`,
});

/** The part of a batch that some messages make up: those messages, and where their updates are. */
const part = (messages: FeedMessage[], index: Map<number, number>) => ({
  messages,
  index: new Map(messages.map((m) => [m.messageId, index.get(m.messageId)!])),
});

/**
 * CIA quantities at market_d. As many SKUs as patchListingsItem's usage plan carries within the
 * token wait (every change of an ordinary seller) go as one patch each, paced to the plan: Amazon
 * answers each at once, and createFeed's plan (a feed per 2 minutes after a burst of 15) is left
 * for the rest, which goes as one JSON_LISTINGS_FEED. A feed of an earlier try still processing is
 * waited for first, so nothing newer overtakes it; when it was this batch's, its SKUs take their
 * outcomes from it. FBA offers are not sent (Amazon counts its own stock) and answer accepted.
 * Two items on one SKU send its lowest quantity once (shared-listing.ts).
 */
export async function sendQuantities(s: SpApiSession, updates: QuantityUpdate[], batchKey: string, listed?: Listed): Promise<QuantityOutcome[]> {
  const stockIds = updates.map((u) => u.stockId);
  const records = listed && (await readRecords(listed, stockIds));
  // The SKU a quantity goes to: that of Kontor's live listing of the item (portal_item_id), as
  // revise and end address it (market-d.adapter.ts), whether the listing is live in all the
  // account's marketplaces or in some only, else the item's own (sellerSku). By the item's SKU
  // alone, an item whose SKU the seller changed after listing had its quantity patched under the
  // new SKU, unasked (recorded): Amazon took it (ACCEPTED) and made a listing of nothing there,
  // while the listing buyers buy sold on at its old quantity.
  const skuOf = (u: QuantityUpdate) => records?.inAll.get(u.stockId) ?? records?.inSome.get(u.stockId)?.portalItemId ?? sellerSku(u.group, u.sku, u.stockId);
  const { sent, clashes } = lowestPerListing(
    updates.map((u) => ({ u, sku: skuOf(u) })),
    (r) => r.sku,
    'market_d (Amazon)',
  );
  if (clashes.length === 0) return sendEachSkuOnce(s, updates, batchKey, skuOf, records);
  const outcomes = new Map(clashes.map((c) => [c.stockId, c]));
  for (const o of await sendEachSkuOnce(
    s,
    sent.map((r) => r.u),
    batchKey,
    skuOf,
    records,
  ))
    outcomes.set(o.stockId, o);
  return updates.map((u) => outcomes.get(u.stockId)!);
}

/** The batch once each SKU is named by one item only. */
async function sendEachSkuOnce(
  s: SpApiSession,
  updates: QuantityUpdate[],
  batchKey: string,
  skuOf: (u: QuantityUpdate) => string,
  listed?: Records,
): Promise<QuantityOutcome[]> {
  const batch = feedMessages(updates, s.marketplaceIds[0]!, skuOf);
  const outcomes: QuantityOutcome[] = updates.map((u) => ({ stockId: u.stockId, outcome: 'accepted' }));
  const take = (read: QuantityOutcome[], messages: FeedMessage[]) => {
    for (const m of messages) outcomes[batch.index.get(m.messageId)!] = read[batch.index.get(m.messageId)!]!;
  };
  let todo = batch.messages;
  const earlier = await earlierFeed(s);
  if (earlier && !earlier.finished) return stillProcessing(updates, earlier.feedId, s.target.portalAccountId, earlier.status);
  if (earlier?.batchKey === batchKey) {
    const inFeed = todo.filter((m) => earlier.skus.includes(m.sku));
    // The feed's messages only: its report's summary is counted against them.
    take(await feedOutcomes(s, updates, part(inFeed, batch.index).index, earlier), inFeed);
    todo = todo.filter((m) => !inFeed.includes(m));
  }
  const stockIdOf = (m: FeedMessage) => updates[batch.index.get(m.messageId)!]!.stockId;
  const recorded = recordedMarketplaces(s, listed);
  // A recorded listing Amazon fulfils since (fba-offers.ts: an AFN order, or the listing check,
  // showed it) in every marketplace it is recorded in is sent nothing: the patch would make it the
  // seller's offer again. Known from Kontor's record, no call asks Amazon. One Amazon fulfils in
  // some marketplaces only goes on to the others (recordedMarketplaces leaves those out).
  const allAmazons = (m: FeedMessage) => recorded(stockIdOf(m))?.length === 0;
  for (const m of todo.filter(allAmazons))
    outcomes[batch.index.get(m.messageId)!] = fbaRefusal(m.sku, stockIdOf(m), 'recorded from its AFN orders or its listing check');
  todo = todo.filter((m) => !allAmazons(m));
  if (todo.length === 0) return outcomes;
  const stop = new BatchStop(s);
  // A listing recorded in some of the account's marketplaces only goes by patch, naming those:
  // the feed is applied in every marketplace its createFeed names (the account's), where it would
  // land the SKU with no price. Such SKUs take the patch tokens first; those beyond answer retry
  // (the push's retry patches them), never the feed (decision, lib/portals/README.md). So does one
  // Amazon fulfils in some of them: the feed would make its FBA offers the seller's.
  const inSome = (m: FeedMessage) => (recorded(stockIdOf(m))?.length ?? s.marketplaceIds.length) < s.marketplaceIds.length;
  // Then the SKUs Kontor recorded no listing of (decision, lib/portals/README.md): one Amazon holds
  // in some marketplaces only can go by patch alone too, and the feed's lookup (heldInAll) answers
  // it retry. Behind the SKUs recorded in all (which the feed carries as well as a patch), such a
  // SKU of a high stock id fell to the feed at every push that had more such SKUs waiting than the
  // patches carry: looked up, retried, never sent.
  const unrecorded = (m: FeedMessage) => recorded(stockIdOf(m)) === null;
  todo = [...todo.filter(inSome), ...todo.filter((m) => !inSome(m) && unrecorded(m)), ...todo.filter((m) => !inSome(m) && !unrecorded(m))];
  const delays = await s.reserve('patch', s.listingPath(todo[0]!.sku), todo.length);
  const from = Date.now();
  for (const m of todo.slice(delays.length).filter(inSome))
    outcomes[batch.index.get(m.messageId)!] = {
      stockId: stockIdOf(m),
      outcome: 'retry',
      message: `market_d: SKU ${m.sku} is ${listed?.byAmazon.has(stockIdOf(m)) ? "the seller's own offer" : 'listed'} in ${recorded(stockIdOf(m))!.join(', ')} only, which a feed cannot name alone; its patch waits for Amazon's rate limit`,
    };
  const rest = todo.slice(delays.length).filter((m) => !inSome(m));
  const patching = todo.slice(0, delays.length);
  // The patches' lookups take getListingsItem's tokens before the feed's (heldInAll, after them):
  // taken in each call's own turn, they queued behind the feed's reserved lookups and a patch
  // waited up to the whole token wait for its lookup, or answered retry beyond it.
  const looking = patching.filter(unrecorded);
  const lookups = looking.length > 0 ? await s.reserve('get', s.listingPath(looking[0]!.sku), looking.length) : [];
  const lookedFrom = Date.now();
  const lookupAt = new Map(looking.slice(0, lookups.length).map((m, i) => [m, lookedFrom + lookups[i]!]));
  const sending = patching.map(async (m, i) => {
    const at = batch.index.get(m.messageId)!;
    const lookup = lookupAt.get(m);
    // Beyond the lookup tokens: its patch token is left unspent.
    if (unrecorded(m) && lookup === undefined) outcomes[at] = lookupWaits(m.sku, stockIdOf(m));
    else outcomes[at] = await patchQuantity(s, stop, m, stockIdOf(m), recorded(stockIdOf(m)), from + delays[i]!, lookup ?? 0);
  });
  if (rest.length > 0)
    sending.push(
      (async () => {
        const feed = await heldInAll(s, stop, rest, stockIdOf, recorded, (m, o) => (outcomes[batch.index.get(m.messageId)!] = o));
        if (feed.length === 0) return;
        stop.check();
        try {
          take(await sendQuantityFeed(s, updates, part(feed, batch.index), batchKey), feed);
        } catch (err) {
          // A feed call refused (the account's 403 at createFeedDocument) stops the patches not sent yet too.
          if (isPermanent(err)) throw stop.stop(err);
          throw err;
        }
      })(),
    );
  // Every call settles before a failure is thrown: none is still in flight when the push's retry sends newer quantities.
  const failed = (await Promise.allSettled(sending)).find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (stop.reason) throw stop.reason;
  if (failed) throw failed.reason;
  return outcomes;
}
