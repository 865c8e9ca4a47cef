/**
 * Fetching orders on demand (POST admin/portal_account/{id}/order_import/, kontor order import)
 * and on schedule (order.import_all, one order.import per connected account and tick).
 */
import { config } from '../../config';
import type { AccountWork } from '../access';
import { transaction } from '../db';
import { DomainError, invalidField, notFound } from '../errors';
import { portalOf, importsOrders, realConnectors } from '../portals';
import { addToOutbox, queues } from '../queue';
import { orderImportRepository } from './order-import.repository';
import { importPortalOf } from './order-import.service';

/** The platforms whose orders are fetched on schedule: those with a real connector (eBay, Amazon, Kaufland, Shopify). */
const importPlatforms = Object.keys(realConnectors);

/**
 * Queues an order import of one of the account's portal accounts in a transaction of its own
 * (outbox: GET job/{job_id}/ answers it); 404 for a portal account of another seller, 400 naming
 * portal_account_id for one whose orders are not fetched. since: fetch from then instead of the watermark.
 */
export async function requestOrderImport({ accountId, requestId }: AccountWork, portalAccountId: number, since?: Date): Promise<string> {
  const account = await orderImportRepository.account(accountId, portalAccountId);
  if (!account) throw notFound(`portal account ${portalAccountId}`, 'portal_account_id');
  try {
    importPortalOf(account);
  } catch (err) {
    throw err instanceof DomainError ? invalidField('portal_account_id', err.message) : err;
  }
  return transaction(
    (trx) => addToOutbox(trx, accountId, 'order.import', { accountId, portalAccountId, ...(since ? { since: since.toISOString() } : {}) }),
    requestId,
  );
}

/**
 * Seconds between two scheduled fetches of an account of the platform: ORDER_FETCH_INTERVAL_SECONDS,
 * and for market_d MARKET_D_ORDER_FETCH_INTERVAL_SECONDS if longer. searchOrders' default usage
 * plan is 0.0056 requests a second (one per 179 s, burst 20): at 180 s a fetch of one page never
 * waits for its token, and the burst is left for the fetches that need more pages.
 */
export function fetchIntervalSeconds(platform: string | null): number {
  const every = config().orderFetchIntervalSeconds;
  return platform === 'market_d' ? Math.max(every, config().marketDOrderFetchIntervalSeconds) : every;
}

/**
 * Whether the scheduler's tick (the number of its ORDER_FETCH_INTERVAL_SECONDS slot since the
 * epoch) starts a slot of the platform's own interval: with 60 and 180 s, every third tick. A tick
 * that is no slot number (an operator's) is due for every account.
 */
export function fetchDue(platform: string | null, tick: string): boolean {
  const every = config().orderFetchIntervalSeconds;
  const own = fetchIntervalSeconds(platform);
  const slot = Number(tick);
  if (own <= every || !Number.isSafeInteger(slot)) return true;
  return Math.floor((slot * every) / own) !== Math.floor(((slot - 1) * every) / own);
}

/**
 * order.import_all: one order.import per connected portal account of a platform with a real
 * connector whose connector fetches orders and whose interval starts with this tick.
 */
export async function queueOrderImports(tick: string): Promise<{ queued: number }> {
  const accounts = (await orderImportRepository.connected(importPlatforms)).filter((a) => {
    const portal = portalOf(a.platform);
    return portal !== null && importsOrders(portal, a.connector) && fetchDue(a.platform, tick);
  });
  await queues().addMany(
    'order.import',
    accounts.map((a) => ({ payload: { accountId: a.account_id, portalAccountId: a.id, tick }, jobId: `order-import-${a.id}-${tick}` })),
  );
  return { queued: accounts.length };
}
