import type { AccountWork } from '../access';
import { transaction } from '../db';
import { addToOutbox } from '../queue';
import { resolvePathStockId } from '../stock';

/** POST stock/{stock_id}/cia/: queues the item's adjustment; 404 for an unknown or foreign item. */
export async function triggerCia({ accountId, requestId }: AccountWork, stockRef: string): Promise<{ stock_id: number; job_id: string }> {
  return transaction(async (trx) => {
    const stockId = await resolvePathStockId(accountId, stockRef, trx);
    const jobId = await addToOutbox(trx, accountId, 'cia.adjust', { accountId, stockId, reason: 'api' });
    return { stock_id: stockId, job_id: jobId };
  }, requestId);
}
