import crypto from 'node:crypto';
import { CiaStateRow, ciaRepository, PushTarget, WaitingStateRow } from '../cia';
import { db } from '../db';
import { mayHaveLanded, noLongerExists, portalRefused, portalUnavailable } from '../errors';
import { adapterFor, PortalId, waitForPortalSlot, fieldGroupEntry } from '../portals';
import type { QuantityOutcome } from '../portals';
import type { JobTurn } from './portal-slot-turn';
import { portalTargetRepository } from '../portal-account';
import { stockPortalRepository } from '../stock';
import { revisionLedger } from './portal-listing-revision.repository';
import { portalListingRepository } from './portal-listing.repository';
import { pushAgainLater, toPushAgain } from './portal-push-again.service';
import type { Knex } from 'knex';

export interface PushResult {
  /** Items the portal took, with the quantity it now shows. */
  pushed: { stock_id: number; quantity: number }[];
  /** Bulk calls made. */
  calls: number;
  /**
   * Items the portal's own limit holds until a time (eBay's 250 revisions of a listing a day):
   * the push succeeds without them, and the sweep sends them again then (lib/cia).
   */
  held: { stock_id: number; until: string }[];
}

/** The idempotency key of one item's quantity: its state and sequence. */
const itemKey = (state: CiaStateRow) => `cia-${state.id}-${state.desired_seq}`;

/** The key of a whole batch: the same states at the same sequences give the same key. */
function batchKey(target: PushTarget, states: CiaStateRow[]): string {
  const digest = crypto.createHash('sha256').update(states.map(itemKey).join(',')).digest('hex').slice(0, 32);
  return `cia-${target.portalAccountId}-${target.portal}-${digest}`;
}

/**
 * The variation mains' listings these items are recorded on but no longer in (PushAids.leftListings):
 * a listing recorded under a variation main and the item, while the item is not that main's
 * variant now (made plain, moved to another main). Such a variant's record keeps the main's
 * listing id until the main is listed again (endOutsiders), and eBay keeps its offer on the
 * main's listing until then, or for good once it sold there (deleteOffer's note). A listing
 * two plain items share (one SKU, shared-listing.ts) is no variation main's and not left.
 */
export async function leftListings(knex: Knex, accountId: number, target: PushTarget, stockIds: number[]): Promise<Map<number, Set<string>>> {
  const shared = await portalListingRepository.sharedListings(knex, accountId, target.portal as PortalId, target.portalAccountId, stockIds);
  const left = new Map<number, Set<string>>();
  if (shared.length === 0) return left;
  const { mains, parents } = await stockPortalRepository.variationLinks(knex, accountId, [...stockIds, ...shared.flatMap((r) => r.others)]);
  for (const row of shared) {
    const listedMains = row.others.filter((id) => mains.has(id));
    if (listedMains.length === 0 || listedMains.includes(parents.get(row.stock_id) ?? -1)) continue;
    left.set(row.stock_id, (left.get(row.stock_id) ?? new Set()).add(row.portal_item_id));
  }
  return left;
}

/**
 * One bulk call under the target's lock: reads the latest wanted quantities still waiting,
 * sends them, and records what the portal said of each item. Returns the states sent and
 * their outcomes (none when another push got there first), and in `again` the items of a call
 * that may still land, to be pushed again once it cannot (chosen under the lock: `toPushAgain`).
 */
async function pushBatch(accountId: number, target: PushTarget, sent: WaitingStateRow[], again: number[]): Promise<QuantityOutcome[]> {
  const adapter = adapterFor(target.portal as PortalId);
  return db().transaction(async (trx) => {
    await ciaRepository.lockTarget(trx, accountId, target);
    sent.push(...(await ciaRepository.waiting(trx, accountId, target, adapter.maxQuantityBatch)));
    if (sent.length === 0) return [];
    const portalTarget = await portalTargetRepository.target(trx, accountId, target.portalAccountId);
    if (!portalTarget) throw noLongerExists(`portal account ${target.portalAccountId}`);
    // What the portal last took, unless a try since left it unknown (a failure, refusal or hold writes last_error; an ack clears it).
    const updates = sent.map((s) => ({
      stockId: s.stock_id,
      quantity: s.desired_quantity,
      key: itemKey(s),
      sku: s.sku,
      group: fieldGroupEntry(s.grp),
      taken: s.last_error ? null : s.acked_quantity,
    }));
    const call = adapterFor(target.portal as PortalId, portalTarget.connector).setQuantities(portalTarget, updates, batchKey(target, sent), {
      ledger: revisionLedger(trx, accountId, target),
      listedItems: (stockIds) => portalListingRepository.liveItemIds(trx, accountId, target.portal as PortalId, target.portalAccountId, stockIds),
      listedMarkets: (stockIds) => portalListingRepository.liveMarkets(trx, accountId, target.portal as PortalId, target.portalAccountId, stockIds),
      leftListings: (stockIds) => leftListings(trx, accountId, target, stockIds),
      listedSkus: (stockIds) => portalListingRepository.liveListedSkus(trx, accountId, target.portal as PortalId, target.portalAccountId, stockIds),
      channelFulfilled: (stockIds) =>
        portalListingRepository.liveFulfilledByChannel(trx, accountId, target.portal as PortalId, target.portalAccountId, stockIds),
      channelFulfilledIn: (stockIds) =>
        portalListingRepository.liveFulfilledMarkets(trx, accountId, target.portal as PortalId, target.portalAccountId, stockIds),
      recordChannelFulfilled: (listings, fulfilled) =>
        portalListingRepository.markFulfilledByChannel(trx, accountId, target.portal as PortalId, target.portalAccountId, listings, fulfilled),
    });
    const outcomes = await call.catch(async (err: unknown) => {
      // A call that may still land (a timeout or reset after it was written, a 5xx): its items
      // to push again are chosen now, while this batch's lock keeps any push again out.
      if (mayHaveLanded(err)) again.push(...(await toPushAgain(trx, accountId, target, sent)));
      throw err;
    });
    await ciaRepository.ack(
      trx,
      accountId,
      sent,
      sent.filter((_, i) => outcomes[i]!.outcome === 'accepted'),
    );
    for (const [i, o] of outcomes.entries()) if (o.outcome === 'refused') await ciaRepository.refuse(trx, sent[i]!, o.message);
    await ciaRepository.hold(
      trx,
      outcomes.flatMap((o, i) => (o.outcome === 'held' ? [{ state: sent[i]!, until: o.until, message: o.message }] : [])),
    );
    // An item's 5xx or missing answer may still be applied, as a call that failed whole (not its 429, nor a wait).
    const landed = outcomes.flatMap((o, i) => (o.outcome === 'retry' && o.mayHaveLanded ? [sent[i]!] : []));
    if (landed.length > 0) again.push(...(await toPushAgain(trx, accountId, target, landed)));
    return outcomes;
  });
}

/** What a push did before it gave its worker back for a far call slot (portal-slot-turn.ts), carried to its return. */
export interface PushSoFar {
  result: PushResult;
  refused: string[];
}

/**
 * Sends the wanted quantities of every item still waiting for one portal account at one
 * portal, in bulk calls of the portal's batch size. Each batch reads the latest wanted
 * quantities under the target's lock, so a burst of changes ends in pushes of the latest
 * quantities, and an older quantity never arrives after a newer one. Items the portal refused
 * are recorded and do not hold up the others: once every batch is sent, the job fails for good
 * with the portal's message (the failed set shows it to operators; the item goes again when
 * its quantity changes). A 429 or 5xx (of the call or of an item) fails the job for a retry,
 * after what was accepted has been recorded. In a `turn`, a batch whose call slot is far gives
 * the worker back (PortalSlotLater) with what the batches before it did; the job comes back to
 * the slot and reads the waiting quantities then, the latest as ever.
 */
export async function pushQuantities(accountId: number, target: PushTarget, turn?: JobTurn<PushSoFar>): Promise<PushResult> {
  const result: PushResult = turn?.carried?.result ?? { pushed: [], calls: 0, held: [] };
  const refused: string[] = turn?.carried?.refused ?? [];
  const batchSize = adapterFor(target.portal as PortalId).maxQuantityBatch;
  for (;;) {
    if (turn) turn.carried = { result, refused };
    // Coalesced per target, a push job nearly always has work: the slot is taken without asking first.
    await waitForPortalSlot(target.portal, target.portalAccountId, undefined, turn);
    const sent: WaitingStateRow[] = [];
    const again: number[] = [];
    let outcomes: QuantityOutcome[];
    try {
      outcomes = await pushBatch(accountId, target, sent, again);
    } catch (err) {
      await ciaRepository.recordError(db(), accountId, sent, (err as Error).message).catch(() => undefined);
      // A call that reached the channel and may be applied after a newer push (pushBatch chose
      // its items): sent once more when it can no longer land. Not a refusal, a 429 or a call
      // never sent, nor a fault after the call (answered: nothing of it is left to land).
      await pushAgainLater(accountId, target, again);
      throw err;
    }
    if (outcomes.length === 0) break;
    result.calls += 1;
    const retry: { state: CiaStateRow; message: string }[] = [];
    outcomes.forEach((o, i) => {
      if (o.outcome === 'accepted') result.pushed.push({ stock_id: o.stockId, quantity: sent[i]!.desired_quantity });
      else if (o.outcome === 'held') result.held.push({ stock_id: o.stockId, until: o.until.toISOString() });
      else if (o.outcome === 'refused') refused.push(o.message);
      else retry.push({ state: sent[i]!, message: o.message });
    });
    if (retry.length > 0) {
      // Each item's own reason: the first retry's message written to all made one SKU show
      // another's (market_d: a lookup waiting for its token beside another SKU's 503).
      await ciaRepository.recordErrors(db(), accountId, retry);
      // An item's 5xx or missing answer may still be applied: as for a call that failed whole.
      await pushAgainLater(accountId, target, again);
      throw portalUnavailable(`${retry.length} of ${sent.length} quantities to be sent again: ${retry[0]!.message}`);
    }
    // A full batch may have left more behind; a shorter one took everything that was waiting.
    if (sent.length < batchSize) break;
  }
  if (refused.length > 0) {
    throw portalRefused(
      `${refused.length} quantit${refused.length === 1 ? 'y' : 'ies'} refused (${result.pushed.length} taken): ${refused.join('; ')}`.slice(0, 2000),
    );
  }
  return result;
}
