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
import { StockData, stockRepository } from './stock.repository';
import type { StockInput } from './stock.type';

export interface EventTargetQueries {
  /**
   * Of the targets given, those that name a handler of the account taking stock cia events (its
   * id as text, or its target_name). The handlers found are locked FOR KEY SHARE in `knex`'s
   * transaction, as a foreign key's check locks the row it names: a delete of one of them waits
   * until the item naming it is written, and then removes the name from it (forgetEventTargets).
   */
  known(knex: Knex | Knex.Transaction, accountId: number, targets: string[]): Promise<Set<string>>;
}

let provided: EventTargetQueries | undefined;

/** lib/event gives its implementation (once per process, at startup). */
export function provideEventTargetQueries(queries: EventTargetQueries): void {
  provided = queries;
}

/**
 * A cia.event target new to the item that names no handler of the seller taking stock cia events
 * (section stock, type cia; any state: a paused handler is still named) is a 400 naming
 * `<field>.cia.event.target[i]`, one error item per target, before the first write: the dispatcher
 * notifies only such handlers (lib/event event-dispatch.service.ts), so the item's quantity changes
 * would notify nothing and the seller would never learn why. An empty list clears the targets.
 *
 * A target the stored item already names (`stored`, the item's data on an update) is not checked
 * again: a record read from the service can be posted back unchanged (lib/http README), also when
 * its handler is gone (an item stored before targets were checked; a delete removes the names it
 * leaves, forgetEventTargets). It is no new reference: the client changed nothing. A new item, or
 * a target the item did not name, is checked.
 */
export async function checkEventTargets(
  trx: Knex.Transaction,
  accountId: number,
  input: StockInput,
  f: (name: string) => string,
  stored?: StockData,
): Promise<void> {
  const targets = targetsOf(input);
  if (!targets?.length) return;
  const named = new Set(targetsOf(stored) ?? []);
  const added = targets.filter((t) => !named.has(t));
  if (added.length === 0) return;
  if (!provided) throw new Error('lib/event has not provided its event target queries: call provideStockEventTargets (lib/event) at startup');
  const known = await provided.known(trx, accountId, added);
  const errors = targets.flatMap((target, i) => {
    if (named.has(target) || known.has(target)) return [];
    const field = f(`cia.event.target[${i}]`);
    return [invalidField(field, `${field} ${target} names no event handler of section stock, type cia (see GET admin/event/handler/)`)];
  });
  const [first, ...more] = errors;
  if (first) throw new DomainError(first.id, first.message, { field: first.field, as: first.kind, more: more.flatMap((e) => e.items()) });
}

function targetsOf(item: object | undefined): string[] | undefined {
  const targets = (item as { cia?: { event?: { target?: unknown } } } | undefined)?.cia?.event?.target;
  return Array.isArray(targets) ? targets.map(String) : undefined;
}

/**
 * lib/event calls this in the transaction that deleted a stock cia handler, with the names (its
 * id as text, its target_name) that name no handler of the seller any more: they leave every
 * item's cia.event.target[], as a foreign key's ON DELETE would. An item keeps no target a client
 * cannot resolve at GET admin/event/handler/ and CIA could never notify (the dispatcher matches
 * only existing handlers), and a later handler given the same target_name is not notified of
 * items whose seller never named it. A name another handler still carries stays. Answers how many
 * items changed.
 */
export function forgetEventTargets(trx: Knex.Transaction, accountId: number, gone: string[]): Promise<number> {
  return stockRepository.removeEventTargets(trx, accountId, gone);
}
