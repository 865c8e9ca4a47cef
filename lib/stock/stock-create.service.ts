/**
 * New plain items (no id, variation or set) written set-based: lister ids reserved in one
 * statement, the rows in one INSERT, their movements in one and their cia.adjust outbox rows in
 * one. POST stock/ runs its plain item through it as a batch of one; stock/list/ each run of
 * consecutive plain new items.
 */
import type { Knex } from 'knex';
import type { AccountWork } from '../access';
import { transaction } from '../db';
import { DomainError } from '../errors';
import { listerGroups } from '../portals';
import { queueCiaAdjusts } from './stock-available.repository';
import { Movement, writeMovements } from './stock-history.repository';
import type { SaveContext, SaveResult } from './stock-save';
import { checkStockReferences } from './stock-references';
import { saveStock, stockColumns } from './stock.service';
import { appClientOf, AppWriter } from './stock-app';
import { StockColumns, stockRepository } from './stock.repository';
import type { StockInput } from './stock.type';

export interface NewItem {
  input: StockInput;
  ctx: SaveContext;
}

/** What an item of the batch became: saved, or refused with a domain error (nothing of it written). */
export type NewItemOutcome = { result: SaveResult } | { error: DomainError };

/** An item the set-based create takes: new, and linking no variants or set subs. */
export const isPlainNew = (id: unknown, input: StockInput) => id === undefined && input.variation === undefined && input.set === undefined;

/** Lister entries of the items: at most this many new lister ids. */
const listerEntries = (items: NewItem[]) => items.reduce((n, { input }) => n + listerGroups.reduce((m, g) => m + (input[g]?.length ?? 0), 0), 0);

/**
 * Creates the items in the caller's transaction. An item the rules refuse (a shipping group or
 * lister id that does not exist) fails alone before anything is written; a statement the
 * database refuses fails the batch (the caller falls back to one savepoint per item).
 */
export async function createPlainItems(trx: Knex.Transaction, accountId: number, items: NewItem[]): Promise<NewItemOutcome[]> {
  const pool = await stockRepository.reserveListerIds(trx, listerEntries(items));
  const nextListerId = () => Promise.resolve(pool.shift() ?? stockRepository.nextListerId(trx));
  const outcomes: (NewItemOutcome | { columns: StockColumns; listerIds: number[] })[] = [];
  for (const { input, ctx } of items) {
    try {
      await checkStockReferences(trx, accountId, input, (name) => `${ctx.field}.${name}`);
      outcomes.push(await stockColumns(trx, input, undefined, ctx, nextListerId));
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      outcomes.push({ error: err });
    }
  }
  const built = outcomes.flatMap((o, i) => ('columns' in o ? [{ ...o, item: items[i]!, at: i }] : []));
  const ids = await stockRepository.insertMany(
    trx,
    accountId,
    built.map((b) => b.columns),
  );
  const movements: Movement[] = built.flatMap(({ columns, item }, k) =>
    columns.quantity
      ? [
          {
            stockId: ids[k]!,
            quantityOld: 0,
            quantityNew: columns.quantity,
            cause: { title: item.ctx.title, personId: item.ctx.personId ?? null },
          },
        ]
      : [],
  );
  await writeMovements(trx, accountId, movements);
  await queueCiaAdjusts(trx, accountId, [{ stockIds: ids, reason: 'stock.created', links: false }]);
  built.forEach((b, k) => {
    outcomes[b.at] = { result: { stockId: ids[k]!, listerIds: b.listerIds, created: true } };
  });
  return outcomes as NewItemOutcome[];
}

/** POST stock/: creates an item in a transaction of its own (a plain one as a batch of one). */
export async function createStockItem(caller: AccountWork & AppWriter, input: StockInput, warnings: SaveContext['warnings']): Promise<SaveResult> {
  const { accountId, requestId } = caller;
  const ctx: SaveContext = { warnings, title: 'stock', field: 'stock', appClient: appClientOf(caller) };
  return transaction(async (trx) => {
    if (!isPlainNew(undefined, input)) return saveStock(trx, accountId, input, undefined, ctx);
    const [outcome] = await createPlainItems(trx, accountId, [{ input, ctx }]);
    if ('error' in outcome!) throw outcome.error;
    return outcome!.result;
  }, requestId);
}
