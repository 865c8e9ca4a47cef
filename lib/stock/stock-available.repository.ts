/**
 * quantity_available is stored (indexed for filters) and recomputed here after every change
 * that can alter it, by the rule of stock-available.ts: what the item holds (its quantity; a set
 * main's parts: the minimum over them of floor(part available / quantity in the set)) less its own
 * reserved quantities and, unless the account switched that off, its auction_a listed quantity.
 */
import type { Knex } from 'knex';
import { addManyToOutbox, OutboxJob, PendingWrites } from '../queue';
import { accountUseRepository } from '../account';
import { availableSql, partsGiveSql } from './stock-available';

const own = (name: string) => `s.${name}`;

/**
 * Recomputes quantity_available of the items and of every set main they belong to. `links`
 * false says the caller knows none of them is in a set (a new plain item): one statement less.
 */
export async function refreshAvailable(trx: Knex.Transaction, accountId: number, stockIds: number[], links = true): Promise<void> {
  if (stockIds.length === 0) return;
  // The setting is the account's (lib/account owns the table): its scalar subquery, read once.
  const subtracted = accountUseRepository.auctionASubtractedStatement(accountId);
  await trx.raw(
    `UPDATE stock s SET quantity_available = ${availableSql('s.quantity', own, subtracted.sql)}
     WHERE s.account_id = ? AND s.id = ANY(?::int[])`,
    [...subtracted.bindings, accountId, stockIds],
  );
  if (links) await refreshSetMains(trx, accountId, stockIds);
}

/**
 * Recomputes quantity_available of every set main the items belong to or are (the second half of
 * refreshAvailable): what its parts give less the main's own reservations, as any item's.
 */
export async function refreshSetMains(trx: Knex.Transaction, accountId: number, stockIds: number[]): Promise<void> {
  if (stockIds.length === 0) return;
  const subtracted = accountUseRepository.auctionASubtractedStatement(accountId);
  await trx.raw(
    `UPDATE stock m SET quantity_available = ${availableSql('d.available', (name) => `m.${name}`, subtracted.sql)}
     FROM (SELECT ss.main_id, ${partsGiveSql('s.quantity_available', 'ss.quantity')} AS available
           FROM stock_set ss JOIN stock s ON s.id = ss.sub_id
           WHERE ss.account_id = ? AND ss.main_id IN (
             SELECT main_id FROM stock_set WHERE account_id = ? AND (sub_id = ANY(?::int[]) OR main_id = ANY(?::int[])))
           GROUP BY ss.main_id) d
     WHERE m.id = d.main_id AND m.account_id = ?`,
    [...subtracted.bindings, accountId, accountId, stockIds, stockIds, accountId],
  );
}

/**
 * The items and the set mains they belong to: who CIA must adjust. Not a variant's main: a
 * variation main with variants offers nothing of its own (lib/cia), so a variant's change has
 * nothing to change there; its adjustment only removed states it no longer has. The requests that
 * change whether it has variants queue it themselves: linking (the main is the item saved),
 * separating from either side (stock-variation.service.ts), deleting a variant (deleteStock).
 */
export async function affectedByQuantity(trx: Knex.Transaction, accountId: number, stockIds: number[], links = true): Promise<number[]> {
  if (stockIds.length === 0 || !links) return [...new Set(stockIds)];
  const { rows } = (await trx.raw(`SELECT DISTINCT main_id AS id FROM stock_set WHERE account_id = ? AND sub_id = ANY(?::int[])`, [accountId, stockIds])) as {
    rows: { id: number }[];
  };
  return [...new Set([...stockIds, ...rows.map((r) => r.id)])];
}

/**
 * Queues cia.adjust for the items and, for a set member, for its set mains (issue 3 point 11), in
 * the caller's transaction. `links` false: no set main is adjusted with them (none is a set sub,
 * or their quantity did not move: lib/cia channelCancelled).
 */
export async function queueCiaAdjust(trx: Knex.Transaction, accountId: number, stockIds: number[], reason: string, links = true): Promise<void> {
  await queueCiaAdjusts(trx, accountId, [{ stockIds, reason, links }]);
}

/**
 * queueCiaAdjust for several groups (one per reason) in one outbox INSERT: one cia.adjust per
 * distinct item and reason, in the order the groups and items are given. With `later`, the
 * jobs join the caller's buffer instead (written with its other rows).
 */
export async function queueCiaAdjusts(
  trx: Knex.Transaction,
  accountId: number,
  groups: { stockIds: number[]; reason: string; links: boolean }[],
  later?: PendingWrites,
): Promise<void> {
  const jobs: OutboxJob[] = [];
  const seen = new Set<string>();
  for (const { stockIds, reason, links } of groups) {
    for (const stockId of await affectedByQuantity(trx, accountId, stockIds, links)) {
      const key = `${stockId} ${reason}`;
      if (seen.has(key)) continue;
      seen.add(key);
      jobs.push({ job: 'cia.adjust', payload: { accountId, stockId, reason } });
    }
  }
  if (later) later.add(jobs);
  else await addManyToOutbox(trx, accountId, jobs);
}
