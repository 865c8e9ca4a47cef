/**
 * The bank worker's matching runs: an import's records (bank.match) and the periodic re-match of
 * the records still unassigned (bank.rematch). Each batch is one transaction that locks its
 * records, so a job run twice (a worker killed mid-way, the lock expired) assigns and pays once:
 * the second run waits for the first's batch and then finds its records assigned. Each record
 * pays only orders of the grant it was stored under (portal_account_grant), however long after
 * the request the match runs. A run that leaves records unassigned gives the seller one task
 * (per job, not per record: a statement of hundreds would flood the task list) with the reasons;
 * the records themselves are found with filter[unassigned_reason] / filter[is_assigned]=0.
 */
import { config } from '../../config';
import { allOrdersOf, OrderScope } from '../access';
import { db, inTransaction } from '../db';
import { createTaskOnce } from '../task';
import { candidatesPerJob, NameAmountCandidates } from './bank-name-amount';
import { assignIn } from './bank.match';
import { Assigned, bankRepository, MatchRecord, UnassignedRange } from './bank.repository';

export interface MatchRun {
  examined: number;
  assigned: number;
  /** Records left unassigned, by reason. */
  unassigned: Record<string, number>;
}

const scopeOf = (accountId: number, grant: number | null): OrderScope => (grant === null ? allOrdersOf(accountId) : { accountId, portalAccountGrant: grant });

/** The records of a batch grouped by the grant they were stored under, each group matched in its scope. */
async function assignByGrant(
  trx: Parameters<typeof assignIn>[0],
  accountId: number,
  records: MatchRecord[],
  nameAmount: NameAmountCandidates,
): Promise<Assigned[]> {
  const groups = new Map<number | null, MatchRecord[]>();
  for (const r of records) groups.set(r.portal_account_grant, [...(groups.get(r.portal_account_grant) ?? []), r]);
  const outcomes: Assigned[] = [];
  for (const [grant, group] of groups) outcomes.push(...(await assignIn(trx, scopeOf(accountId, grant), group, nameAmount)));
  return outcomes;
}

/** Matches the account's unassigned records numbered from..to (transfer_date since `since`, when given). */
export async function matchRange(accountId: number, from: number, to: number, since?: Date): Promise<MatchRun> {
  const run: MatchRun = { examined: 0, assigned: 0, unassigned: {} };
  const range: UnassignedRange = { accountId, from, to, ...(since ? { since } : {}) };
  const nameAmount = candidatesPerJob(range);
  let cursor = from;
  while (cursor <= to) {
    const batch = await inTransaction(async (trx) => {
      // Records per transaction (BANK_MATCH_BATCH): two order queries and one payment write per batch.
      const records = await bankRepository.unassignedForUpdate(trx, { ...range, from: cursor }, config().bankMatchBatch);
      return { records, outcomes: await assignByGrant(trx, accountId, records, nameAmount) };
    });
    if (!batch.records.length) break;
    run.examined += batch.records.length;
    for (const o of batch.outcomes) {
      if (o.order_id !== null) run.assigned++;
      else run.unassigned[o.unassigned_reason!] = (run.unassigned[o.unassigned_reason!] ?? 0) + 1;
    }
    cursor = Number(batch.records[batch.records.length - 1]!.number) + 1;
  }
  return run;
}

/** bank.match: an import's records, and the seller's task when some stay unassigned. */
export async function matchImport(accountId: number, from: number, to: number, jobId: string, grant: number | null = null): Promise<MatchRun> {
  const run = await matchRange(accountId, from, to);
  const left = Object.values(run.unassigned).reduce((a, b) => a + b, 0);
  if (left) {
    const reasons = Object.entries(run.unassigned)
      .map(([reason, n]) => `${n} ${reason}`)
      .join(', ');
    await createTaskOnce(
      accountId,
      {
        title: `${left} bank record${left === 1 ? '' : 's'} not assigned to an order`,
        text: `Of ${run.examined} records received, ${left} could not be assigned (${reasons}). Find them with filter[is_assigned]=0 on GET bank/transfer/ or bank/payment_provider/; each carries its unassigned_reason.`,
        priority: 'normal',
        reference: { section: 'bank' },
        // The importing client's portal account: a client bound to another does not see the task (lib/task).
        portalAccountId: grant,
      },
      jobId,
    );
  }
  return run;
}

/** Every account's unassigned records of the last BANK_REMATCH_DAYS days. */
export async function rematchAll(now = new Date()): Promise<MatchRun> {
  const since = new Date(now.getTime() - config().bankRematchDays * 86_400_000);
  const total: MatchRun = { examined: 0, assigned: 0, unassigned: {} };
  for (const accountId of await bankRepository.accountsWithUnassigned(db(), since)) {
    const run = await matchRange(accountId, 1, Number.MAX_SAFE_INTEGER, since);
    total.examined += run.examined;
    total.assigned += run.assigned;
    for (const [reason, n] of Object.entries(run.unassigned)) total.unassigned[reason] = (total.unassigned[reason] ?? 0) + n;
  }
  return total;
}
