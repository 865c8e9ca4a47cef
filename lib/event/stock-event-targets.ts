/**
 * lib/event's side of lib/stock's event-targets contract: which cia.event targets name a handler
 * of the seller that takes stock cia events, by id or by target_name, as the dispatcher matches
 * them (event-dispatch.service.ts targeted), and which names leave the items when such a handler
 * is deleted.
 */
import type { Knex } from 'knex';
import { forgetEventTargets, provideEventTargetQueries } from '../stock';
import type { EventHandlerRow } from './event-handler.repository';

/**
 * The targets naming a handler, by id or target_name. The handlers found are locked FOR KEY SHARE
 * (a foreign key's check does the same): a delete of one waits until the stock write naming it
 * commits, and its removal from the items (forgetStockTargetsOf) then finds that item too.
 */
async function known(knex: Knex | Knex.Transaction, accountId: number, targets: string[]): Promise<Set<string>> {
  // Ids within an integer column; any other text can only be a target_name.
  const ids = targets.filter((t) => /^\d{1,10}$/.test(t) && Number(t) <= 2147483647).map(Number);
  const rows = await knex('event_handler')
    .select('id', knex.raw("required->>'target_name' AS target_name"))
    .where({ account_id: accountId, section: 'stock', type: 'cia' })
    .where((q) => q.whereIn('id', ids).orWhereRaw("required->>'target_name' = ANY(?)", [targets]))
    .forKeyShare();
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

/**
 * After a handler was deleted in `trx`: a stock cia handler's names (its id, its target_name) that
 * no other stock cia handler of the seller carries leave every item's cia.event.target[]
 * (lib/stock forgetEventTargets), as a foreign key's ON DELETE would. Decision (lib/stock README):
 * the dispatcher would never notify a name without a handler, GET stock/{id}/ would show a target
 * no client can find at GET admin/event/handler/, and a handler created later with that
 * target_name would start receiving the items' events though the seller never named it for them.
 * A target_name another handler still carries keeps naming that one and stays.
 */
export async function forgetStockTargetsOf(
  trx: Knex.Transaction,
  handler: Pick<EventHandlerRow, 'id' | 'account_id' | 'section' | 'type' | 'required'>,
): Promise<void> {
  if (handler.section !== 'stock' || handler.type !== 'cia') return;
  const names = [String(handler.id), ...(handler.required?.target_name ? [handler.required.target_name] : [])];
  const still = await known(trx, handler.account_id, names);
  await forgetEventTargets(
    trx,
    handler.account_id,
    names.filter((n) => !still.has(n)),
  );
}
