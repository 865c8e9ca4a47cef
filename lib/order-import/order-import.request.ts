/**
 * Fetching orders on demand (POST admin/portal_account/{id}/order_import/, kontor order import)
 * and on schedule (order.import_all, one order.import per connected account and tick).
 */
import { db } from '../db/knex';
import { DomainError, invalidField, notFound } from '../errors';
import { portalOf, importsOrders } from '../portals/portal.registry';
import { addToOutbox } from '../queue/outbox';
import { queues } from '../queue/queue.registry';
import { orderImportRepository } from './order-import.repository';
import { importPortalOf } from './order-import.service';

/** The platforms whose orders are fetched on schedule. */
export const importPlatforms = ['auction_a', 'market_d'] as const;

/**
 * Queues an order import of one of the account's portal accounts in a transaction of its own
 * (outbox: GET job/{job_id}/ answers it); 404 for a portal account of another seller, 400 naming
 * portal_account_id for one whose orders are not fetched. since: fetch from then instead of the watermark.
 */
export async function requestOrderImport(accountId: number, portalAccountId: number, since?: Date): Promise<string> {
  const account = await orderImportRepository.account(accountId, portalAccountId);
  if (!account) throw notFound(`portal account ${portalAccountId}`, 'portal_account_id');
  try {
    importPortalOf(account);
  } catch (err) {
    throw err instanceof DomainError ? invalidField('portal_account_id', err.message) : err;
  }
  return db().transaction((trx) =>
    addToOutbox(trx, accountId, 'order.import', { accountId, portalAccountId, ...(since ? { since: since.toISOString() } : {}) }),
  );
}

/** order.import_all: one order.import per connected portal account of auction_a and market_d whose connector fetches orders. */
export async function queueOrderImports(tick: string): Promise<{ queued: number }> {
  const accounts = (await orderImportRepository.connected(importPlatforms)).filter((a) => {
    const portal = portalOf(a.platform);
    return portal !== null && importsOrders(portal, a.connector);
  });
  await queues().addMany(
    'order.import',
    accounts.map((a) => ({ payload: { accountId: a.account_id, portalAccountId: a.id, tick }, jobId: `order-import-${a.id}-${tick}` })),
  );
  return { queued: accounts.length };
}
