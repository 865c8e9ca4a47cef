/**
 * The bank worker's matching runs: an import's records (bank.match) and the periodic re-match of
 * the records still unassigned (bank.rematch). Each batch is one transaction that locks its
 * records, so a job run twice (a worker killed mid-way, the lock expired) assigns and pays once:
 * the second run waits for the first's batch and then finds its records assigned.
 */
import { config } from '../../config';
import { allOrdersOf } from '../access/caller';
import { db } from '../db/knex';
import { inTransaction } from '../db/transaction';
import { assignIn } from './bank.match';
import { bankRepository } from './bank.repository';

export interface MatchRun {
  examined: number;
  assigned: number;
}

/** Matches the account's unassigned records numbered from..to (transfer_date since `since`, when given). */
export async function matchRange(accountId: number, from: number, to: number, since?: Date): Promise<MatchRun> {
  const run: MatchRun = { examined: 0, assigned: 0 };
  let cursor = from;
  while (cursor <= to) {
    const batch = await inTransaction(async (trx) => {
      // Records per transaction (BANK_MATCH_BATCH): two order queries and one payment write per batch.
      const records = await bankRepository.unassignedForUpdate(trx, accountId, { from: cursor, to, ...(since ? { since } : {}) }, config().bankMatchBatch);
      return { records, assigned: (await assignIn(trx, allOrdersOf(accountId), records)).size };
    });
    if (!batch.records.length) break;
    run.examined += batch.records.length;
    run.assigned += batch.assigned;
    cursor = Number(batch.records[batch.records.length - 1]!.number) + 1;
  }
  return run;
}

/** Every account's unassigned records of the last BANK_REMATCH_DAYS days. */
export async function rematchAll(now = new Date()): Promise<MatchRun> {
  const since = new Date(now.getTime() - config().bankRematchDays * 86_400_000);
  const total: MatchRun = { examined: 0, assigned: 0 };
  for (const accountId of await bankRepository.accountsWithUnassigned(db(), since)) {
    const run = await matchRange(accountId, 1, Number.MAX_SAFE_INTEGER, since);
    total.examined += run.examined;
    total.assigned += run.assigned;
  }
  return total;
}
