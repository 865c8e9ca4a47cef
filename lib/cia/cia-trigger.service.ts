import type { AccountWork } from '../access';
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

/** POST stock/{stock_id}/cia/: queues the item's adjustment; 404 for an unknown or foreign item. */
export async function triggerCia({ accountId, requestId }: AccountWork, stockRef: string): Promise<{ stock_id: number; job_id: string }> {
  return transaction(async (trx) => {
    const stockId = await resolvePathStockId(accountId, stockRef, trx);
    const jobId = await addToOutbox(trx, accountId, 'cia.adjust', { accountId, stockId, reason: triggeredReason });
    return { stock_id: stockId, job_id: jobId };
  }, requestId);
}
