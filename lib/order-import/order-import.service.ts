/**
 * The order import of one portal account (job order.import): pages through the channel's
 * orders changed since the account's watermark (less an overlap for clock skew) and makes each
 * channel order exactly one Kontor order (channel-order.import.ts). A refusal of the channel
 * (revoked or expired refresh token, a json middleware's 4xx) fails the job for good with a
 * message naming the portal account, keeps it on the account (the scheduler leaves it alone
 * until it is connected again) and gives the seller a task.
 */
import { config } from '../../config';
import { db } from '../db';
import { DomainError, isPermanent, noLongerExists, portalRefused } from '../errors';
import { portalOf, adapterFor, importsOrders, realConnectors, waitForPortalSlot, subscribeOnce } from '../portals';
import type { PortalId, ChannelOrder, ChannelOrderPage } from '../portals';
import { portalTargetRepository } from '../portal-account';
import { readMarkedWhole, recordChannelFulfilledOffers } from '../portal-offer';
import type { PendingFetch } from '../portal-account';
import { createTaskOnce } from '../task';
import { importChannelOrder, ImportOutcome } from './channel-order.import';
import { importNewOrders } from './channel-page.import';
import { channelState, sameState } from './channel-order.mapper';
import { heldPage } from './channel-text';
import { ImportAccountRow, orderImportRepository } from './order-import.repository';

/** Each fetch looks this far back before the last one's start: the channel's clock and ours may disagree, and a channel may report a change late. */
export const overlapMs = 10 * 60_000;
/**
 * market_d's overlap: Amazon takes a "before" date of searchOrders only when it is at least two
 * minutes old (its parameter descriptions), so a change is visible within 2 minutes; one more for
 * the clocks. Every minute of overlap is orders read again at each fetch against searchOrders'
 * plan of one page per 179 s: 10 minutes would cost a seller of 5 orders a minute a second page per fetch.
 */
export const marketDOverlapMs = 3 * 60_000;
/** A first fetch takes the last 30 days. */
export const firstFetchMs = 30 * 86_400_000;
/** Changes of known orders held back behind the new orders of later pages, at most this many (then applied). */
const maxDeferredChanges = 1000;

export const accountLabel = (a: { id: number; name: string; platform: string | null }) =>
  `portal account "${a.name}" (id ${a.id}${a.platform ? `, ${a.platform}` : ''})`;

/** The portal an account's orders come from; a DomainError naming why there is none. */
export function importPortalOf(account: ImportAccountRow): PortalId {
  const portal = portalOf(account.platform);
  if (!portal || !importsOrders(portal, account.connector)) {
    throw portalRefused(
      `${accountLabel(account)}: Kontor imports the orders of ${Object.keys(realConnectors).join(', ')} through their channels' connectors; this account is ${account.platform ?? 'of no platform'} with connector ${account.connector}`,
    );
  }
  return portal;
}

export interface ImportRun {
  portal_account_id: number;
  since: string;
  pages: number;
  orders: Record<ImportOutcome, number>;
}

async function refuse(account: ImportAccountRow, err: DomainError, jobId: string): Promise<never> {
  const message = `${accountLabel(account)}: the channel refused the order fetch: ${err.message}; connect it again (kontor portal-account connect)`;
  await orderImportRepository.refused(account.account_id, account.id, message);
  await createTaskOnce(
    account.account_id,
    { title: `Order import refused: ${account.name}`.slice(0, 255), text: message, priority: 'high', portalAccountId: account.id },
    `order-import-refused-${jobId}`,
  );
  throw portalRefused(message);
}

/**
 * One page: known and unchanged orders passed over, new ones in one transaction; the known orders
 * the channel changed are added to `changed` for the caller to apply.
 */
async function importPage(
  account: ImportAccountRow,
  portal: PortalId,
  page: ChannelOrderPage,
  orders: Record<ImportOutcome, number>,
  changed: ChannelOrder[],
): Promise<void> {
  // Every fetch overlaps the last: most orders of a page are known and unchanged, and are
  // passed over on one read of their states instead of a transaction each.
  const known = await orderImportRepository.knownStates(
    account.account_id,
    account.id,
    page.orders.map((o) => o.external_order_id),
  );
  const fresh: ChannelOrder[] = [];
  for (const order of page.orders) {
    const before = known.get(order.external_order_id);
    if (!before) fresh.push(order);
    else if (sameState(before, channelState(order))) orders.unchanged++;
    else changed.push(order);
  }
  // The page's new orders in one transaction (channel-page.import.ts).
  for (const outcome of await importNewOrders(account, portal, fresh)) orders[outcome]++;
}

/**
 * Known orders the channel changed (payment, cancellation, shipment, data completed later): one
 * transaction each, one after the other. Not side by side: an order that becomes paid takes the
 * next invoice number, and the account's counter row stays locked until its transaction commits,
 * so parallel changes only queue on it, each holding a connection and its order's lock meanwhile
 * (tried with 4 at once: the bench's fetches got slower, not faster).
 */
async function applyChanges(account: ImportAccountRow, portal: PortalId, changed: ChannelOrder[], orders: Record<ImportOutcome, number>): Promise<void> {
  for (const order of changed.splice(0)) orders[await importChannelOrder(account, portal, order)]++;
}

export async function importOrders(job: { accountId: number; portalAccountId: number; since?: string }, jobId: string): Promise<ImportRun> {
  const account = await orderImportRepository.account(job.accountId, job.portalAccountId);
  if (!account) throw noLongerExists(`portal account ${job.portalAccountId}`);
  const portal = importPortalOf(account);
  const target = await portalTargetRepository.target(db(), account.account_id, account.id);
  if (!target) throw noLongerExists(accountLabel(account));
  // A Shopify store not yet subscribed (a development account, one connected before webhooks) is, once; a failure never stops the fetch.
  if (target.connector === 'shopify') await subscribeOnce(account.account_id, target);
  const adapter = adapterFor(portal, target.connector);
  const startedAt = new Date();
  const overlap = portal === 'market_d' ? marketDOverlapMs : overlapMs;
  const regular = account.orders_fetched_until ? new Date(account.orders_fetched_until.getTime() - overlap) : new Date(startedAt.getTime() - firstFetchMs);
  // A fetch cut short at its page cap is gone on with: the same query from its cursor (below).
  const pending: PendingFetch | null =
    account.orders_fetch_cursor !== null && account.orders_fetch_since && account.orders_fetch_started
      ? { cursor: account.orders_fetch_cursor, since: account.orders_fetch_since, started: account.orders_fetch_started }
      : null;
  const continuing = !job.since && pending !== null;
  const since = continuing ? pending.since : job.since ? new Date(job.since) : regular;
  // The chain's first start: what the watermark becomes once its last page is in.
  const chainStart = continuing ? pending.started : startedAt;
  const orders: Record<ImportOutcome, number> = { created: 0, updated: 0, unchanged: 0, deleted: 0, refused: 0 };
  const fetchPage = async (cursor: string | null): Promise<ChannelOrderPage> => {
    await waitForPortalSlot(portal, account.id);
    return heldPage(await adapter.fetchOrders!(target, since, cursor));
  };
  const maxPages = config().orderFetchMaxPages;
  let cursor: string | null = continuing ? pending.cursor : null;
  let pages = 0;
  // New orders first: a new order takes stock and tells every other channel, while the changes of
  // known ones (an Amazon order leaving Pending: prices and address, about 20 ms each) move no
  // stock. Applied one by one before the page's new orders, they held a sale back by the
  // completions of every order sold in the interval before it (issue 30's channel bench).
  const changed: ChannelOrder[] = [];
  let next: Promise<ChannelOrderPage> | null = fetchPage(cursor);
  // A kept cursor may no longer be taken (Amazon's tokens expire after 24 hours; a chain waits
  // that long when the account's fetches stop for a day): the chain's query is asked again from
  // its start, once, before the refusal counts as the account's (then its credentials).
  let kept = continuing;
  while (next) {
    let page: ChannelOrderPage;
    try {
      page = await next;
    } catch (err) {
      if (err instanceof DomainError && isPermanent(err)) {
        if (kept) {
          kept = false;
          next = fetchPage(null);
          continue;
        }
        return refuse(account, err, jobId);
      }
      throw err;
    }
    kept = false;
    pages++;
    cursor = page.next;
    // The next page is asked for while this one is imported (its failure is met when awaited).
    next = cursor !== null && pages < maxPages ? fetchPage(cursor) : null;
    next?.catch(() => undefined);
    await importPage(account, portal, page, orders, changed);
    // Offers the page's orders hint the channel fulfils (Amazon's AFN orders): lib/portal-offer
    // reads Kontor's listings of them at the channel and marks those it shows so (no quantity).
    if (page.channelFulfilled?.length) await recordChannelFulfilledOffers(account.account_id, portal, target, page.channelFulfilled);
    if (changed.length >= maxDeferredChanges || !next) await applyChanges(account, portal, changed, orders);
  }
  // A fetch from a later time than the watermark's left a gap before it: the watermark stays, and
  // it neither starts nor ends a chain.
  const covers = since <= regular;
  if (cursor === null) {
    // Every page is in: orders changed since `since` up to the chain's first start are. A chain
    // kept is done when this fetch reached back as far as it (a later change is read by the next).
    const done = pending !== null && since <= pending.since;
    await orderImportRepository.fetched(account.account_id, account.id, covers ? chainStart : null, done ? null : undefined);
  } else {
    // Cut short at maxPages: the watermark stays where it was and the next fetch goes on from the
    // cursor, whatever order the channel pages in (Kaufland and Shopify newest change first, eBay
    // by creation date: the newest change seen is no bound of what is in). Not over a chain kept
    // that reaches further back than this fetch (an on-demand fetch from a later time).
    const keep = covers && (pending === null || continuing || since <= pending.since);
    await orderImportRepository.fetched(account.account_id, account.id, null, keep ? { cursor, since, started: chainStart } : undefined);
  }
  // Listings marked fulfilled by the channel whole before it was read market by market (Amazon: FBA
  // in DE marked FR too) are read again, a few per import, whether or not an order hints at them
  // (lib/portal-offer channel-fulfilled.ts); after the watermark: the orders are in either way.
  await readMarkedWhole(account.account_id, portal, target);
  return { portal_account_id: account.id, since: since.toISOString(), pages, orders };
}
