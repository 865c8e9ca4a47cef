/**
 * lib/event's side of lib/stock's event-targets contract: which cia.event targets name a handler
 * of the seller that takes stock cia events, by id or by target_name, as the dispatcher matches
 * them (event-dispatch.service.ts targeted).
 */
import type { Knex } from 'knex';
import { provideEventTargetQueries } from '../stock';

async function known(knex: Knex | Knex.Transaction, accountId: number, targets: string[]): Promise<Set<string>> {
  // Ids within an integer column; any other text can only be a target_name.
  const ids = targets.filter((t) => /^\d{1,10}$/.test(t) && Number(t) <= 2147483647).map(Number);
  const rows = await knex('event_handler')
    .select('id', knex.raw("required->>'target_name' AS target_name"))
    .where({ account_id: accountId, section: 'stock', type: 'cia' })
    .where((q) => q.whereIn('id', ids).orWhereRaw("required->>'target_name' = ANY(?)", [targets]));
  const names = new Set<string>();
  for (const row of rows as unknown as { id: number; target_name: string | null }[]) {
    names.add(String(row.id));
    if (row.target_name) names.add(row.target_name);
  }
  return names;
}

/** Gives lib/stock the handler look-up of cia.event targets: call once at a process's start. */
export function provideStockEventTargets(): void {
  provideEventTargetQueries({ known });
}
