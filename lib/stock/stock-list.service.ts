/** POST stock/list/: up to 200 creates and updates, each succeeding or failing on its own. */
import type { Knex } from 'knex';
import type { OrderScope } from '../access';
import { inTransaction } from '../db';
import { MultiStatusItem, notFound, runItem, runListSafely, RunAgainSafely, Warning } from '../errors';
import { PortalAccountMention, stripReadOnly, validate } from '../http';
import type { Logger } from '../log';
import { mentionRefusals } from '../portal-account';
import { createPlainItems, isPlainNew } from './stock-create.service';
import { resolveStockRef } from './stock-ref';
import { saveStock } from './stock.service';
import { appClientOf, AppWriter } from './stock-app';
import { StockInput, stockListItemType } from './stock.type';

/** Most items of one stock/list/ request (document 1, Limits). */
export const maxListItems = 200;

/** One item of a run: its path, warnings, and what to write or why it cannot be written. */
interface ListItem {
  path: string;
  warnings: Warning[];
  id?: StockInput['id'];
  fields?: Omit<StockInput, 'id'>;
  /** The portal account ids its fields name (cia targets, categories, seller profiles...). */
  mentions: PortalAccountMention[];
  error?: unknown;
}

function prepare(raw: unknown, index: number): ListItem {
  const path = `stock[${index}]`;
  const item: ListItem = { path, warnings: [], mentions: [] };
  try {
    item.warnings.push(...stripReadOnly(stockListItemType(), raw).map((w) => ({ ...w, field: `${path}.${w.field}`, description: `${path}.${w.description}` })));
    const mentions: PortalAccountMention[] = [];
    const { id, ...fields } = validate<StockInput>(stockListItemType(), raw, path, mentions);
    item.mentions = mentions.map((m) => ({ ...m, field: `${path}.${m.field}` }));
    Object.assign(item, { id, fields });
  } catch (err) {
    item.error = err;
  }
  return item;
}

/**
 * Runs the items in one transaction. Consecutive new plain items (no id, variation or set) are
 * written set-based (createPlainItems): an item the rules refuse fails alone before anything is
 * written. Every other item runs in a savepoint, so a failed one leaves nothing behind. Should
 * the database refuse a set-based statement, the transaction is rolled back and the whole list
 * runs again with a savepoint for every item, which isolates the refused item. A deadlock or
 * serialization victim runs the whole list again (lib/db inTransaction; runItem throws it): the
 * race is no item's fault. Every run starts from the items' validation warnings. Returns
 * Multistatus_type items in input order.
 */
export async function saveStockList(scope: OrderScope & AppWriter & { requestId?: string }, items: unknown[], log: Logger): Promise<MultiStatusItem[]> {
  const { accountId, requestId } = scope;
  const appClient = appClientOf(scope);
  const prepared = await checkedMentions(scope, items.map(prepare));
  return runListSafely(
    (savepointAll) =>
      inTransaction(async (trx) => {
        const response: MultiStatusItem[] = [];
        // Each run's writes add their warnings to a copy: a run rolled back must not leave its own in the answer.
        const attempt = prepared.map((item) => ({ ...item, warnings: [...item.warnings] }));
        let run: ListItem[] = [];
        const flush = async () => {
          if (run.length) response.push(...(await createRun(trx, accountId, run, log, appClient)));
          run = [];
        };
        for (const item of attempt) {
          if (!savepointAll && (item.error !== undefined || isPlainNew(item.id, item.fields!))) {
            run.push(item);
            continue;
          }
          await flush();
          response.push(await saveOne(trx, accountId, item, log, appClient));
        }
        await flush();
        return response;
      }, requestId),
    log,
  );
}

/**
 * The portal account ids each item names, as POST stock/{stock_id}/ checks them (the framework,
 * lib/portal-account): one query for the list, and an item naming another seller's portal account,
 * or one outside the token's grant, fails alone with its 400 or 403.
 */
async function checkedMentions(scope: OrderScope, items: ListItem[]): Promise<ListItem[]> {
  const refusals = await mentionRefusals(
    scope,
    items.map((item) => (item.error === undefined ? item.mentions : [])),
  );
  refusals.forEach((refusal, i) => {
    if (refusal) items[i]!.error = refusal;
  });
  return items;
}

/** One item in its own savepoint. */
function saveOne(trx: Knex.Transaction, accountId: number, item: ListItem, log: Logger, appClient: string | undefined): Promise<MultiStatusItem> {
  const { path, warnings, id, fields } = item;
  return runItem(
    trx,
    path,
    async (savepoint) => {
      if (item.error !== undefined) throw item.error;
      const result = await savepoint(async (t) => {
        let existingId: number | undefined;
        if (id !== undefined) {
          existingId = await resolveStockRef(t, accountId, id, 'id', { field: `${path}.id` });
          if (existingId === undefined) throw notFound(`stock ${String(id)}`, `${path}.id`);
        }
        return saveStock(t, accountId, fields!, existingId, { warnings, title: 'stock/list', field: path, appClient });
      });
      return { code: result.created ? 201 : 200, fields: { stock_id: result.stockId, lister_id: result.listerIds } };
    },
    { log, warnings },
  );
}

/** A run of new plain items (and items refused in validation) written set-based. */
async function createRun(trx: Knex.Transaction, accountId: number, run: ListItem[], log: Logger, appClient: string | undefined): Promise<MultiStatusItem[]> {
  const valid = run.filter((item) => item.error === undefined);
  const outcomes = await createPlainItems(
    trx,
    accountId,
    valid.map((item) => ({ input: item.fields!, ctx: { warnings: item.warnings, title: 'stock/list', field: item.path, appClient } })),
  ).catch((err: unknown) => {
    throw new RunAgainSafely('a set-based stock/list/ statement failed', { cause: err });
  });
  const outcomeOf = new Map(valid.map((item, i) => [item, outcomes[i]!]));
  return Promise.all(
    run.map((item) =>
      runItem(
        trx,
        item.path,
        async () => {
          const outcome = outcomeOf.get(item);
          if (!outcome) throw item.error;
          if ('error' in outcome) throw outcome.error;
          return { code: 201, fields: { stock_id: outcome.result.stockId, lister_id: outcome.result.listerIds } };
        },
        { log, warnings: item.warnings },
      ),
    ),
  );
}
