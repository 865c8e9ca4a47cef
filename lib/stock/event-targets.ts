/**
 * The contract between lib/stock and lib/event for cia.event target[] (Stock_cia_portal_type:
 * "target[] string FK (only for cia.event)"; document 1, Events 5). A target names an event
 * handler of the seller, by its id or by its notification's target_name, and lib/event owns the
 * handlers (table event_handler) and sits above lib/stock, so it implements this
 * (provideStockEventTargets) and each process's entry provides it at startup, as lib/order
 * provides its grant queries (lib/access/order-grant.ts).
 */
import type { Knex } from 'knex';
import { DomainError, invalidField } from '../errors';
import type { StockInput } from './stock.type';

export interface EventTargetQueries {
  /**
   * Of the targets given, those that name a handler of the account taking stock cia events (its
   * id as text, or its target_name).
   */
  known(knex: Knex | Knex.Transaction, accountId: number, targets: string[]): Promise<Set<string>>;
}

let provided: EventTargetQueries | undefined;

/** lib/event gives its implementation (once per process, at startup). */
export function provideEventTargetQueries(queries: EventTargetQueries): void {
  provided = queries;
}

/**
 * A cia.event target that names no handler of the seller taking stock cia events (section stock,
 * type cia; any state: a paused handler is still named) is a 400 naming
 * `<field>.cia.event.target[i]`, one error item per target, before the first write: the dispatcher
 * notifies only such handlers (lib/event event-dispatch.service.ts), so the item's quantity changes
 * would notify nothing and the seller would never learn why. An empty list clears the targets.
 */
export async function checkEventTargets(trx: Knex.Transaction, accountId: number, input: StockInput, f: (name: string) => string): Promise<void> {
  const targets = (input.cia as { event?: { target?: string[] } } | undefined)?.event?.target;
  if (!targets?.length) return;
  if (!provided) throw new Error('lib/event has not provided its event target queries: call provideStockEventTargets (lib/event) at startup');
  const known = await provided.known(trx, accountId, targets);
  const errors = targets.flatMap((target, i) => {
    if (known.has(target)) return [];
    const field = f(`cia.event.target[${i}]`);
    return [invalidField(field, `${field} ${target} names no event handler of section stock, type cia (see GET admin/event/handler/)`)];
  });
  const [first, ...more] = errors;
  if (first) throw new DomainError(first.id, first.message, { field: first.field, as: first.kind, more: more.flatMap((e) => e.items()) });
}
