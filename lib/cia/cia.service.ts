import type { Knex } from 'knex';
import { config } from '../../config';
import { db } from '../db';
import type { JobPayloads, MergedPart, MergedResult } from '../queue';
import { addManyToOutbox, OutboxJob, queues as sharedQueues, QueueRegistry } from '../queue';
import { loadCiaInputs as stockLoadCiaInputs } from '../stock';
import type { CiaInput, LoadCiaInputs } from '../stock';
import { computeOffers, dependents, isVariationMain } from './cia-compute';
import { pushJob } from './cia-push-sweep';
import { triggeredReason } from './cia-trigger.service';
import { ciaRepository, CiaStateRow, DesiredItem, PortalAccountRef, PushTarget } from './cia.repository';

export interface AdjustOptions {
  /** Source of the items' data (default: lib/stock's loadCiaInputs). */
  load?: LoadCiaInputs;
  queues?: QueueRegistry;
  /** A reconcile tick: pushes again what is still waiting, refused quantities included. */
  tick?: string;
}

export interface AdjustResult {
  stock_id: number;
  portals: {
    portal: string;
    portal_account_id: number;
    quantity: number;
    acknowledged: number | null;
    push: boolean;
    /** Held by the portal's own limit (eBay's 250 revisions of a listing a day) until then, ISO 8601; null when not held. */
    held_until: string | null;
    /** Why it is held, or the portal's last refusal of it; null when none. */
    message: string | null;
  }[];
  /**
   * A variation main adjusted through POST stock/{id}/cia/: its own portals are none (it offers
   * nothing of its own), its variants' adjustments, made in the same job, are here.
   */
  variants?: AdjustResult[];
}

/** The portal accounts an offer goes to: market_d's list, else the account's one for that platform, else the default. */
function targetAccounts(portal: string, named: number[], accounts: PortalAccountRef[]): number[] {
  const own = new Set(accounts.map((a) => a.id));
  if (named.length > 0) return named.filter((id) => own.has(id));
  const forPlatform = accounts.filter((a) => a.platform === portal).map((a) => a.id);
  if (forPlatform.length > 0) return forPlatform;
  const fallback = accounts.find((a) => a.is_default) ?? accounts[0];
  return fallback ? [fallback.id] : [];
}

/**
 * The adjustments of the dependent items, and the cia event when a quantity changed and
 * cia.event has targets; under the request that queued the adjustment.
 */
function followUps(
  accountId: number,
  stockId: number,
  follow: number[],
  targets: string[],
  states: { portal: string; portal_account_id: number; desired_quantity: number }[],
  requestId: string | undefined,
): OutboxJob[] {
  const jobs: OutboxJob[] = follow.map((mainId) => ({
    job: 'cia.adjust',
    payload: { accountId, stockId: mainId, reason: `dependent of ${stockId}` },
    requestId,
  }));
  if (targets.length > 0) {
    jobs.push({
      requestId,
      job: 'event.emit',
      payload: {
        accountId,
        section: 'stock',
        type: 'cia',
        recordId: String(stockId),
        data: { target: targets, quantity: states.map((s) => ({ portal: s.portal, portal_account_id: s.portal_account_id, quantity: s.desired_quantity })) },
      },
    });
  }
  return jobs;
}

/**
 * Whether this adjustment notifies the item's cia.event targets. The notification is a target of
 * its own (document 1: cia.event "activates the quantity adjustment for notifications"), told the
 * item's quantity_available, so a portal state is no measure of it: an item whose only target is
 * the notification has no state, and a portal held at its max_quantity keeps its state while the
 * quantity moves. So every adjustment a change queued tells it (cia.adjust is queued only when a
 * request touches quantities, cia, set or variation: at most a repeat of an unchanged quantity,
 * which the at-least-once receiver already takes); a reconcile tick tells it only when it changed
 * a portal's quantity, so the 15-minute reconcile sends no stream of repeats.
 */
function tellsEvent(options: AdjustOptions, written: { changed: boolean }[]): boolean {
  return options.tick === undefined || written.some((r) => r.changed);
}

/** The quantity each target (portal, portal account) should offer for an item. */
function wantedOf(input: CiaInput, accounts: PortalAccountRef[]): DesiredItem['wanted'] {
  return computeOffers(input).flatMap((offer) =>
    targetAccounts(offer.portal, offer.portalAccountIds, accounts).map((portalAccountId) => ({
      portal: offer.portal,
      portalAccountId,
      quantity: offer.quantity,
    })),
  );
}

/**
 * An item's states CIA no longer routes to, each with what becomes of it (decision, README "A
 * target CIA no longer routes to"). A portal still active on the item whose offer moved to
 * another of the seller's portal accounts by the routing alone (a portal account made for the
 * platform, another one made the default; not market_d's named list, the seller's own choice)
 * `retires` the old account's state: it is wanted at 0, because that channel still offers its
 * last quantity and nothing else would ever correct it, and goes only once 0 was acknowledged or
 * refused at that sequence. Every other state no longer wanted (the portal inactive, market_d no
 * longer naming the account, the portal account gone) is `dropped` at once, the channel left alone.
 */
function unrouted(
  input: CiaInput,
  accounts: PortalAccountRef[],
  own: CiaStateRow[],
  wanted: DesiredItem['wanted'],
): { retires: DesiredItem['wanted']; dropped: string[] } {
  const routed = new Set(computeOffers(input).flatMap((offer) => (offer.portalAccountIds.length === 0 ? [offer.portal as string] : [])));
  const existing = new Set(accounts.map((a) => a.id));
  const retires: DesiredItem['wanted'] = [];
  const dropped: string[] = [];
  for (const s of own) {
    if (wanted.some((w) => w.portal === s.portal && w.portalAccountId === s.portal_account_id)) continue;
    const settled = s.desired_quantity === 0 && (BigInt(s.acked_seq) >= BigInt(s.desired_seq) || BigInt(s.refused_seq) >= BigInt(s.desired_seq));
    if (routed.has(s.portal) && existing.has(s.portal_account_id) && !settled)
      retires.push({ portal: s.portal, portalAccountId: s.portal_account_id, quantity: 0 });
    else dropped.push(s.id);
  }
  return { retires, dropped };
}

/**
 * The items of these whose quantity CIA keeps at one portal account (portal and portal account),
 * as they are now: the adjustment's own rule (`wantedOf`: an active cia.<portal>; market_d's named
 * portal accounts, else the seller's of that platform, else the default; a variation main none).
 * Asked by a listing (lib/portal-offer): a portal refuses an item its channel sells past the
 * quantity (Shopify's continue selling) only when CIA counts on the quantity there.
 */
export async function ciaActiveAt(accountId: number, target: PushTarget, stockIds: number[], load: LoadCiaInputs = stockLoadCiaInputs): Promise<Set<number>> {
  const [inputs, accounts] = await Promise.all([load(db(), accountId, stockIds), ciaRepository.accounts(db(), accountId)]);
  const kept = [...inputs.values()].filter((input) =>
    wantedOf(input, accounts).some((w) => w.portal === target.portal && w.portalAccountId === target.portalAccountId),
  );
  return new Set(kept.map((input) => input.stockId));
}

function resultOf(stockId: number, states: (CiaStateRow & { changed: boolean })[]): AdjustResult {
  return {
    stock_id: stockId,
    portals: states.map((s) => ({
      portal: s.portal,
      portal_account_id: s.portal_account_id,
      quantity: s.desired_quantity,
      acknowledged: s.acked_quantity,
      push: BigInt(s.acked_seq) < BigInt(s.desired_seq),
      held_until: s.held_until ? new Date(s.held_until).toISOString() : null,
      message: s.last_error ?? null,
    })),
  };
}

/**
 * A result as the caller that triggered the adjustment may read it (GET job/{job_id}/): a client
 * bound to one portal account sees only that portal account's offers, its variants' too (document
 * 1, Authentication 5). Each entry is a listing's state at one portal account (wanted and
 * acknowledged quantity, the portal's last refusal): the item is shared, its offers elsewhere
 * are not. Without a grant (the seller, a client granted all, the service's own jobs) all of it.
 */
export function resultSeenBy(result: AdjustResult, grant: number | undefined): AdjustResult {
  if (grant === undefined) return result;
  return {
    ...result,
    portals: result.portals.filter((p) => p.portal_account_id === grant),
    ...(result.variants ? { variants: result.variants.map((v) => resultSeenBy(v, grant)) } : {}),
  };
}

/**
 * The cross-channel quantity adjustment of one item. Under a per-item lock it reads the item's
 * current data, sets the wanted quantity per (portal, portal account), and queues a push to
 * every target whose state the portal has not acknowledged yet. Pushes read the wanted
 * quantities when they run, so a burst of changes ends in pushes of the latest quantities
 * only. Dependent items (a variant's main, a set sub's mains) are adjusted next; cia.event
 * targets are notified. A reconcile (tick) also offers refused quantities once more.
 * `withVariants` (POST stock/{id}/cia/): a variation main is adjusted with its variants.
 */
export async function adjustItem(accountId: number, stockId: number, options: AdjustOptions, withVariants = false): Promise<AdjustResult> {
  return (await adjustItems(accountId, [{ stockId, withVariants }], options)).get(stockId)!;
}

/**
 * adjustItem for several items of an account in one transaction, with the statements of one:
 * the items' locks (in id order), their data, their states (locked in id order, as pushes lock
 * them), the changed states and the follow-ups, one statement each; then one add of the pushes.
 * `requestId`: the request an item's follow-ups are queued under. Answers per stock id.
 */
export async function adjustItems(
  accountId: number,
  items: { stockId: number; requestId?: string; withVariants?: boolean }[],
  options: AdjustOptions,
): Promise<Map<number, AdjustResult>> {
  const load = options.load ?? stockLoadCiaInputs;
  const q = options.queues ?? sharedQueues();
  // A variation main asked for by POST stock/{id}/cia/ is adjusted with its variants (what the
  // client triggered: "variant values count"). They are read before the locks, so all are taken
  // in id order; a variant linked since has its own adjustment from the request that linked it.
  const asked = items.filter((i) => i.withVariants).map((i) => i.stockId);
  const variantsOf = new Map<number, number[]>();
  if (asked.length > 0)
    for (const input of (await load(db(), accountId, asked)).values())
      if (isVariationMain(input))
        variantsOf.set(
          input.stockId,
          input.variants.map((v) => v.stockId),
        );
  const requestOf = new Map(items.map((i) => [i.stockId, i.requestId]));
  for (const item of items) for (const variantId of variantsOf.get(item.stockId) ?? []) if (!requestOf.has(variantId)) requestOf.set(variantId, item.requestId);
  const ids = [...requestOf.keys()].sort((a, b) => a - b);
  const states = await db().transaction(async (trx: Knex.Transaction) => {
    await ciaRepository.lockItems(trx, accountId, ids);
    const inputs = await load(trx, accountId, ids);
    const { states: current, accounts } = await ciaRepository.statesAndAccounts(trx, accountId, ids);
    // Known from the states just read: most items of a reconcile have no refusal to forget.
    const refused = [...new Set(current.filter((s) => s.refused_seq !== '0').map((s) => s.stock_id))];
    if (options.tick && refused.length > 0) await ciaRepository.forgetRefusals(trx, accountId, refused);
    // A variation main offers nothing of its own: the states it has (from before, or from when it
    // was a plain item) go, so no push or sweep sends a quantity under its SKU again.
    const mains = ids.filter((stockId) => {
      const input = inputs.get(stockId);
      return input !== undefined && isVariationMain(input);
    });
    if (current.some((s) => mains.includes(s.stock_id))) await ciaRepository.removeStates(trx, accountId, mains);
    // A target CIA no longer keeps (cia.<portal>.is_active false, or market_d no longer naming
    // that portal account) is left alone, and its state goes (decision): no push still waiting
    // sends it a quantity after the seller took it out, and when CIA keeps it again a new state
    // pushes the quantity then, whatever the channel was set to meanwhile (an unchanged wanted
    // quantity on the old, acknowledged state pushed nothing: the channel kept a hand-set quantity).
    // One the routing alone moved away from, its portal still active, is set to 0 first (unrouted).
    // A deleted item's state whose SKU another item holds now goes (README "A deleted item's SKU
    // taken by another item"): that channel's offer is the other item's, which its 0 would zero.
    const gone = current.filter((s) => !inputs.has(s.stock_id));
    const taken = new Set(gone.length > 0 ? await ciaRepository.takenOver(trx, accountId, gone) : []);
    const dropped: string[] = [...taken];
    const desired = ids.map((stockId): DesiredItem => {
      const input = inputs.get(stockId);
      const own = input && isVariationMain(input) ? [] : current.filter((s) => s.stock_id === stockId && !taken.has(s.id));
      // A deleted item: whatever it still offers goes to 0.
      if (!input) return { stockId, current: own, wanted: own.map((s) => ({ portal: s.portal, portalAccountId: s.portal_account_id, quantity: 0 })) };
      const wanted = wantedOf(input, accounts);
      const gone = unrouted(input, accounts, own, wanted);
      dropped.push(...gone.dropped);
      return { stockId, current: own, wanted: [...wanted, ...gone.retires] };
    });
    if (dropped.length > 0) await ciaRepository.removeStateIds(trx, accountId, dropped);
    const rows = await ciaRepository.setDesired(trx, accountId, desired);
    // Follow-ups go through the outbox, in this transaction: Postgres keeps them across a Redis restart.
    const follow = ids.flatMap((stockId) => {
      const input = inputs.get(stockId);
      const written = rows.get(stockId)!;
      if (!input) return [];
      // A variation main's cia.event is one of its invalid fields: its variants tell their own.
      const targets = tellsEvent(options, written) && !isVariationMain(input) ? input.eventTargets : [];
      return followUps(accountId, stockId, dependents(input), targets, written, requestOf.get(stockId));
    });
    await addManyToOutbox(trx, accountId, follow);
    return { rows, inputs };
  });

  const pending = new Map(
    [...states.rows.values()]
      .flat()
      .filter((s) => BigInt(s.acked_seq) < BigInt(s.desired_seq))
      .map((s) => [`${s.portal}|${s.portal_account_id}`, s] as const),
  );
  // One push per target, coalesced: while a push of that target waits out its window, it takes
  // this change too; the first change of a window fixes when the call goes out. Only Redis
  // holds it: queueWaitingPushes derives it again from the states after a Redis restart.
  await q.addCoalesced(
    'portal.set_quantity',
    [...pending.values()].map((s) => pushJob(accountId, s.portal, s.portal_account_id)),
    config().ciaPushWindowMs,
  );
  const results = new Map(ids.map((stockId) => [stockId, resultOf(stockId, states.rows.get(stockId)!)]));
  // The main's answer names the variants adjusted with it that are still its variants.
  for (const [mainId, variantIds] of variantsOf) {
    const still = new Set(states.inputs.get(mainId)?.variants.map((v) => v.stockId) ?? []);
    results.get(mainId)!.variants = variantIds.filter((id) => still.has(id)).map((id) => results.get(id)!);
  }
  return results;
}

/**
 * cia.adjust_many: the adjustments of its parts (cia.adjust rows one relay pass took), together;
 * each part answers its item's result. A reconcile's part (never merged today: reconcile jobs do
 * not go through the outbox) runs alone with its tick.
 */
export async function adjustParts(accountId: number, parts: MergedPart<JobPayloads['cia.adjust']>[], options: AdjustOptions = {}): Promise<MergedResult> {
  const together = parts.filter((p) => p.data.reason !== 'reconcile');
  const results = await adjustItems(
    accountId,
    together.map((p) => ({ stockId: p.data.stockId, requestId: p.data.request_id, withVariants: p.data.reason === triggeredReason })),
    options,
  );
  const outcome: MergedResult = { parts: {} };
  for (const part of together)
    outcome.parts[part.jobId] = { state: 'completed', result: resultSeenBy(results.get(part.data.stockId)!, part.data.portalAccountGrant) };
  for (const part of parts.filter((p) => p.data.reason === 'reconcile')) {
    outcome.parts[part.jobId] = { state: 'completed', result: await adjustItem(accountId, part.data.stockId, { ...options, tick: part.jobId }) };
  }
  return outcome;
}
