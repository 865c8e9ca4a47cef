import { grantOf, OrderScope } from '../access';
import { transaction } from '../db';
import { addToOutbox } from '../queue';
import { resolvePathStockId } from '../stock';

/**
 * The reason of the adjustment POST stock/{stock_id}/cia/ queues: a variation main's is made with
 * its variants' (lib/cia/cia.service.ts), so its job answers their quantities; the main itself
 * offers nothing (document 2, Stock_cia_portal_type on a variant main item: "invalid; variant
 * values count").
 */
export const triggeredReason = 'api';

/**
 * POST stock/{stock_id}/cia/: queues the item's adjustment; 404 for an unknown or foreign item.
 * The item is shared and adjusted at every portal account, but a client bound to one reads its
 * job's result, so the job carries that grant (cia.service.ts resultSeenBy).
 */
export async function triggerCia(scope: OrderScope, stockRef: string): Promise<{ stock_id: number; job_id: string }> {
  const { accountId, requestId } = scope;
  const grant = grantOf(scope);
  return transaction(async (trx) => {
    const stockId = await resolvePathStockId(accountId, stockRef, trx);
    const jobId = await addToOutbox(trx, accountId, 'cia.adjust', {
      accountId,
      stockId,
      reason: triggeredReason,
      ...(grant === null ? {} : { portalAccountGrant: grant }),
    });
    return { stock_id: stockId, job_id: jobId };
  }, requestId);
}
