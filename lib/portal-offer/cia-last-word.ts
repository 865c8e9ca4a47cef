import { ciaRepository } from '../cia';
import { db } from '../db';
import { queues } from '../queue';

/** The item at one portal account, as an upload or listing-check job names it. */
export interface ListedAt {
  accountId: number;
  stockId: number;
  portal: string;
  portalAccountId: number;
}

/**
 * After a listing that carried the item's own quantity (a list, a revise) or its processing by
 * the portal: its acknowledgement forgotten and CIA's adjust queued, so CIA's quantity (max_quantity,
 * variants, sets) is sent again over it. One per `jobId` (the adjust's job id is derived from it).
 */
export async function ciaHasTheLastWord(job: ListedAt, jobId: string, reason: string): Promise<void> {
  await ciaRepository.forgetAck(db(), job.accountId, job.stockId, job.portal, job.portalAccountId);
  await queues().add('cia.adjust', { accountId: job.accountId, stockId: job.stockId, reason }, `cia-listed-${jobId}`);
}
