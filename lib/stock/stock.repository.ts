/** SQL of stock items: every query is scoped by the account id. */
import type { Knex } from 'knex';
import type { PendingWrites } from '../queue';
import { db, prepared, jsonParameter } from '../db';
import { accountUseRepository } from '../account';
import { availableSql } from './stock-available';

/**
 * The stock row's version, the ETag of GET stock/{stock_id}/ and what If-Match of POST and DELETE
 * stock/{stock_id}/ names (lib/stock README, conditional writes): the row's xmin, which every
 * UPDATE of it changes (a client's write, an order's stock movement, its quantity_available
 * following a set sub or a variant) and a lock does not, with modified_at, as an opaque digest (the
 * bare xmin would show a client the database's transaction count, a measure of every account's writes).
 */
const versionSql = "md5(stock.xmin::text || ' ' || extract(epoch FROM stock.modified_at)::text)";

export interface StockRow {
  id: number;
  account_id: number;
  name: string;
  sku: string | null;
  barcode: string | null;
  mpn: string | null;
  manufacturer: string | null;
  market_d_sku: string | null;
  folder: string;
  price: string | null;
  condition_id: number | null;
  quantity: number;
  quantity_auction_a: number;
  quantity_reserved: number;
  quantity_reserved_2: number;
  quantity_available: number;
  variation_type: 'main' | 'sub' | 'none';
  variation_parent_id: number | null;
  set_type: 'main' | 'sub' | 'none';
  data: StockData;
  created_at: Date;
  modified_at: Date;
}

/** The JSONB part of an item: every Stock_type field that is not a column. */
export type StockData = Record<string, unknown>;

/** The columns a create or update writes. */
export type StockColumns = Partial<Omit<StockRow, 'id' | 'account_id' | 'created_at' | 'modified_at' | 'quantity_available'>>;

export interface SetLink {
  main_id: number;
  sub_id: number;
  quantity: number;
}

/** A row of stock_set: a sub of a set main, with how many of it the set holds. */
interface StockSetRow extends SetLink {
  account_id: number;
}

// The row types of stock and stock_set for Knex (declared once here, lib/stock owns the tables).
// An item's data is written as JSON text (jsonParameter) or as SQL (jsonb_set), modified_at as SQL
// (now()); an item is inserted with its account alone, the rest has defaults or may be null.
type StockWrite = Partial<Omit<StockRow, 'id' | 'data' | 'modified_at'>> & { data?: string | Knex.Raw; modified_at?: Date | Knex.Raw };
declare module 'knex/types/tables' {
  interface Tables {
    stock: Knex.CompositeTableType<StockRow, StockWrite & Pick<StockRow, 'account_id'>, StockWrite>;
    stock_set: Knex.CompositeTableType<StockSetRow, StockSetRow, Partial<StockSetRow>>;
  }
}

/** Links of a page of items, loaded at once for reads. */
export interface StockLinks {
  sets: SetLink[];
  variants: { id: number; variation_parent_id: number }[];
}

/**
 * Removes from a JSON list of the items (`path`, read as `list`) the entries x.e for which
 * `dropped` holds, on the items `naming` holds for; the other entries keep their order. Each
 * condition takes `values` as its one binding. The items are locked in id order first, so two
 * removals never deadlock with each other; modified_at moves, as the item changed. Answers how
 * many items changed.
 */
async function removeListEntries(
  trx: Knex.Transaction,
  accountId: number,
  values: string[],
  sql: { path: string; list: string; dropped: string; naming: string },
): Promise<number> {
  const result = (await trx.raw(
    `UPDATE stock s
        SET data = jsonb_set(s.data, '${sql.path}', (
              SELECT COALESCE(jsonb_agg(x.e ORDER BY x.n), '[]'::jsonb)
                FROM jsonb_array_elements(${sql.list}) WITH ORDINALITY AS x(e, n)
               WHERE (${sql.dropped}) IS NOT TRUE)),
            modified_at = now()
      WHERE s.account_id = ? AND ${sql.naming}
        AND s.id IN (SELECT s.id FROM stock s WHERE s.account_id = ? AND ${sql.naming} ORDER BY s.id FOR UPDATE)`,
    [values, accountId, values, accountId, values],
  )) as { rowCount: number };
  return result.rowCount;
}

/** A row locked for a quantity change: what quantity_available is computed from. */
export type QuantityRow = Pick<
  StockRow,
  'id' | 'quantity' | 'quantity_available' | 'quantity_reserved' | 'quantity_reserved_2' | 'quantity_auction_a' | 'set_type' | 'variation_type'
> & { auction_a_subtracted: boolean };

type Db = Knex | Knex.Transaction;

export const stockRepository = {
  async lock(trx: Knex.Transaction, accountId: number, id: number): Promise<StockRow | undefined> {
    return trx('stock').where({ account_id: accountId, id }).forUpdate().first();
  },

  async get(knex: Db, accountId: number, id: number): Promise<StockRow | undefined> {
    return knex('stock').where({ account_id: accountId, id }).first();
  },

  /** One item with its version (versionSql), or undefined. */
  async getVersioned(knex: Db, accountId: number, id: number): Promise<(StockRow & { version: string }) | undefined> {
    return knex('stock')
      .select('*', knex.raw(`${versionSql} AS version`))
      .where({ account_id: accountId, id })
      .first();
  },

  /** The version (versionSql) of an item the transaction has locked. */
  async versionOf(trx: Knex.Transaction, accountId: number, id: number): Promise<string> {
    const row = await trx('stock')
      .select<{ version: string }[]>(trx.raw(`${versionSql} AS version`))
      .where({ account_id: accountId, id })
      .first();
    return row!.version;
  },

  /** Inserts an item with its own quantity_available (a set main's is refreshed once its subs are linked). */
  async insert(trx: Knex.Transaction, accountId: number, columns: StockColumns): Promise<number> {
    const [id] = await stockRepository.insertMany(trx, accountId, [columns]);
    return id!;
  },

  /**
   * Inserts several items in one statement as insert does each; their ids in the order given. The
   * rows go as one JSON parameter per set of columns they name (jsonb_populate_recordset over the
   * table's row type; a column an item leaves out gets its default), as orders do: stock/list/'s
   * 200 items as Knex VALUES were 3,400 bindings and 200 subqueries of the account's auction_a
   * setting, which Knex took longer to build than Postgres to insert.
   */
  async insertMany(trx: Knex.Transaction, accountId: number, items: StockColumns[]): Promise<number[]> {
    if (items.length === 0) return [];
    const groups = new Map<string, { at: number[]; rows: Record<string, unknown>[] }>();
    items.forEach((columns, at) => {
      const given = Object.fromEntries(Object.entries({ ...columns, account_id: accountId }).filter(([, value]) => value !== undefined));
      const key = Object.keys(given).sort().join(',');
      const group = groups.get(key) ?? { at: [], rows: [] };
      group.at.push(at);
      group.rows.push(given);
      groups.set(key, group);
    });
    const q = (c: string) => `COALESCE(r.${c}, 0)`;
    const inserts = [...groups.keys()].map((key, g) => {
      const names = key.split(',');
      // Column names are the code's own (StockColumns), never a client's keys: they are written into the SQL.
      const odd = names.find((c) => !/^[a-z][a-z0-9_]*$/.test(c));
      if (odd !== undefined) throw new Error(`not a stock column name: ${odd}`);
      return `s${g} AS (INSERT INTO stock (${names.map((c) => `"${c}"`).join(', ')}, quantity_available)
        SELECT ${names.map((c) => `r."${c}"`).join(', ')},
          ${availableSql(q('quantity'), q, 'a.subtracted')}
        FROM jsonb_populate_recordset(NULL::stock, ?::jsonb) WITH ORDINALITY AS r, a ORDER BY r.ordinality
        RETURNING id, ${g} AS g)`;
    });
    const subtracted = accountUseRepository.auctionASubtractedStatement(accountId);
    const { rows } = (await trx.raw(
      `WITH a AS (SELECT ${subtracted.sql} AS subtracted), ${inserts.join(', ')}
       ${[...groups.keys()].map((_, g) => `SELECT id, g FROM s${g}`).join(' UNION ALL ')}`,
      [...subtracted.bindings, ...[...groups.values()].map((group) => jsonParameter(group.rows))],
    )) as { rows: { id: number; g: number }[] };
    // Ids come from the sequence in the order of each group's rows; RETURNING is not promised to keep it.
    const ids: number[] = [];
    [...groups.values()].forEach((group, g) => {
      const own = rows
        .filter((r) => r.g === g)
        .map((r) => Number(r.id))
        .sort((x, y) => x - y);
      group.at.forEach((at, k) => {
        ids[at] = own[k]!;
      });
    });
    return ids;
  },

  /** count lister ids from stock_lister_id_seq in one statement. */
  async reserveListerIds(trx: Knex.Transaction, count: number): Promise<number[]> {
    if (count === 0) return [];
    const { rows } = (await trx.raw("SELECT nextval('stock_lister_id_seq')::int AS id FROM generate_series(1, ?)", [count])) as { rows: { id: number }[] };
    return rows.map((r) => r.id).sort((a, b) => a - b);
  },

  async update(trx: Knex.Transaction, accountId: number, id: number, columns: StockColumns): Promise<void> {
    const { data, ...rest } = columns;
    await trx('stock')
      .where({ account_id: accountId, id })
      .update({ ...rest, ...(data ? { data: jsonParameter(data) } : {}), modified_at: trx.fn.now() });
  },

  async delete(trx: Knex.Transaction, accountId: number, id: number): Promise<void> {
    await trx('stock').where({ account_id: accountId, id }).delete();
  },

  /**
   * Locks the set mains of an item, in id order. Locks are always taken mains first, then subs
   * (selling a set locks its main, then its subs), so a change of a sub, which recomputes its
   * mains, never deadlocks with a sale of the set.
   */
  async lockSetMainsOf(trx: Knex.Transaction, accountId: number, subId: number): Promise<void> {
    await trx.raw(
      'SELECT id FROM stock WHERE account_id = ? AND id IN (SELECT main_id FROM stock_set WHERE account_id = ? AND sub_id = ?) ORDER BY id FOR UPDATE',
      [accountId, accountId, subId],
    );
  },

  /** Locks the items in id order (two writers touching the same items never deadlock). */
  async lockQuantities(
    trx: Knex.Transaction,
    accountId: number,
    ids: number[],
  ): Promise<Pick<StockRow, 'id' | 'quantity' | 'quantity_available' | 'set_type' | 'variation_type'>[]> {
    return trx('stock')
      .select('id', 'quantity', 'quantity_available', 'set_type', 'variation_type')
      .where('account_id', accountId)
      .whereIn('id', ids)
      .orderBy('id')
      .forUpdate();
  },

  /**
   * Locks everything a quantity change of the items writes: the items, the set mains they belong
   * to and, for set mains, their subs and the other set mains of those subs. One statement takes
   * the locks in the lock order (set mains first, then the rest, each in id order): the rows are
   * locked as they leave the sort. Returns the rows with what quantity_available is made of.
   */
  async lockForQuantityChange(trx: Knex.Transaction, accountId: number, ids: number[]): Promise<QuantityRow[]> {
    if (ids.length === 0) return [];
    const subtracted = accountUseRepository.auctionASubtractedStatement(accountId);
    const { rows } = (await trx
      .raw(
        `WITH items AS (SELECT unnest(?::int[]) AS id),
            subs AS (SELECT sub_id AS id FROM stock_set WHERE account_id = ? AND main_id IN (SELECT id FROM items)),
            wanted AS (
              SELECT id FROM items
              UNION SELECT main_id FROM stock_set WHERE account_id = ? AND sub_id IN (SELECT id FROM items)
              UNION SELECT id FROM subs
              UNION SELECT main_id FROM stock_set WHERE account_id = ? AND sub_id IN (SELECT id FROM subs))
       SELECT s.id, s.quantity, s.quantity_available, s.quantity_reserved, s.quantity_reserved_2, s.quantity_auction_a,
              s.set_type, s.variation_type,
              ${subtracted.sql} AS auction_a_subtracted
       FROM stock s WHERE s.account_id = ? AND s.id IN (SELECT id FROM wanted)
       ORDER BY s.set_type = 'main' DESC, s.id
       FOR UPDATE OF s`,
        [ids, accountId, accountId, accountId, ...subtracted.bindings, accountId],
      )
      .options(prepared)) as { rows: QuantityRow[] };
    return rows;
  },

  /** Set connections of the mains, by main and sub id. */
  async setSubsOfMains(trx: Knex.Transaction, accountId: number, mainIds: number[]): Promise<SetLink[]> {
    if (mainIds.length === 0) return [];
    return trx('stock_set').select('main_id', 'sub_id', 'quantity').where('account_id', accountId).whereIn('main_id', mainIds).orderBy(['main_id', 'sub_id']);
  },

  async setQuantity(trx: Knex.Transaction, accountId: number, id: number, quantity: number): Promise<void> {
    await trx('stock').where({ account_id: accountId, id }).update({ quantity, modified_at: trx.fn.now() });
  },

  /**
   * Sets the quantities of several (locked) items in one statement, and their own
   * quantity_available with them (as refreshAvailable computes it; set mains they belong to are
   * the caller's: refreshSetMains). With `later`, the UPDATE joins the transaction's deferred
   * writes.
   */
  async setQuantities(trx: Knex.Transaction, accountId: number, items: { id: number; quantity: number }[], later?: PendingWrites): Promise<void> {
    if (items.length === 0) return;
    const subtracted = accountUseRepository.auctionASubtractedStatement(accountId);
    const sql = `UPDATE stock s SET quantity = v.quantity, modified_at = now(),
         quantity_available = ${availableSql('v.quantity', (name) => `s.${name}`, subtracted.sql)}
       FROM unnest(?::int[], ?::int[]) AS v(id, quantity)
       WHERE s.account_id = ? AND s.id = v.id`;
    const bindings = [...subtracted.bindings, items.map((i) => i.id), items.map((i) => i.quantity), accountId];
    if (later) later.defer(sql, bindings);
    else await trx.raw(sql, bindings);
  },

  async availableOf(trx: Knex.Transaction, accountId: number, id: number): Promise<number> {
    const row = await trx('stock').select('quantity_available').where({ account_id: accountId, id }).first();
    return row!.quantity_available;
  },

  async setVariationType(trx: Knex.Transaction, accountId: number, id: number, type: StockRow['variation_type']): Promise<void> {
    await trx('stock').where({ account_id: accountId, id }).update({ variation_type: type });
  },

  async nextListerId(trx: Knex.Transaction): Promise<number> {
    const { rows } = (await trx.raw("SELECT nextval('stock_lister_id_seq')::int AS id")) as { rows: { id: number }[] };
    return rows[0]!.id;
  },

  /** Links of the rows; only items that are set members or variation mains have any. */
  async linksOf(knex: Db, accountId: number, rows: StockRow[]): Promise<StockLinks> {
    return this.links(
      knex,
      accountId,
      rows.filter((r) => r.set_type !== 'none' || r.variation_type === 'main').map((r) => r.id),
    );
  },

  async links(knex: Db, accountId: number, ids: number[]): Promise<StockLinks> {
    if (ids.length === 0) return { sets: [], variants: [] };
    const sets = await knex('stock_set')
      .select('main_id', 'sub_id', 'quantity')
      .where('account_id', accountId)
      .where((q) => q.whereIn('main_id', ids).orWhereIn('sub_id', ids))
      .orderBy(['main_id', 'sub_id']);
    const variants = await knex('stock').select('id', 'variation_parent_id').where('account_id', accountId).whereIn('variation_parent_id', ids).orderBy('id');
    // Found by their parent, so none is null: the check only narrows the type.
    return { sets, variants: variants.flatMap((v) => (v.variation_parent_id === null ? [] : [{ id: v.id, variation_parent_id: v.variation_parent_id }])) };
  },

  async variantIds(trx: Knex.Transaction, accountId: number, mainId: number): Promise<number[]> {
    const rows = await trx('stock').select('id').where({ account_id: accountId, variation_parent_id: mainId }).orderBy('id').forUpdate();
    return rows.map((r) => r.id);
  },

  /** Makes items independent again: no parent, type none, no variant specifics. */
  async separateVariants(trx: Knex.Transaction, accountId: number, ids: number[]): Promise<void> {
    if (ids.length === 0) return;
    await trx('stock')
      .where('account_id', accountId)
      .whereIn('id', ids)
      .update({
        variation_type: 'none',
        variation_parent_id: null,
        modified_at: trx.fn.now(),
        data: trx.raw("data #- '{variation,specifics}'"),
      });
  },

  async linkVariant(trx: Knex.Transaction, accountId: number, id: number, mainId: number, specifics: unknown): Promise<void> {
    await trx('stock')
      .where({ account_id: accountId, id })
      .update({
        variation_type: 'sub',
        variation_parent_id: mainId,
        modified_at: trx.fn.now(),
        ...(specifics !== undefined
          ? {
              data: trx.raw("jsonb_set(data, '{variation}', COALESCE(data->'variation', '{}'::jsonb) || jsonb_build_object('specifics', ?::jsonb))", [
                jsonParameter(specifics),
              ]),
            }
          : {}),
      });
  },

  async setSubs(trx: Knex.Transaction, accountId: number, mainId: number): Promise<SetLink[]> {
    return trx('stock_set').select('main_id', 'sub_id', 'quantity').where({ account_id: accountId, main_id: mainId }).orderBy('sub_id');
  },

  async setMainsOf(trx: Knex.Transaction, accountId: number, subId: number): Promise<SetLink[]> {
    return trx('stock_set').select('main_id', 'sub_id', 'quantity').where({ account_id: accountId, sub_id: subId }).orderBy('main_id');
  },

  async replaceSetSubs(trx: Knex.Transaction, accountId: number, mainId: number, subs: { id: number; quantity: number }[]): Promise<void> {
    await trx('stock_set').where({ account_id: accountId, main_id: mainId }).delete();
    if (subs.length) await trx('stock_set').insert(subs.map((s) => ({ account_id: accountId, main_id: mainId, sub_id: s.id, quantity: s.quantity })));
  },

  async removeSetLinksOfSub(trx: Knex.Transaction, accountId: number, subId: number): Promise<void> {
    await trx('stock_set').where({ account_id: accountId, sub_id: subId }).delete();
  },

  /** set_type of items that are not set mains: sub while some main links them, else none. */
  async refreshSetType(trx: Knex.Transaction, accountId: number, ids: number[]): Promise<void> {
    if (ids.length === 0) return;
    await trx.raw(
      `UPDATE stock s SET set_type = CASE WHEN EXISTS (SELECT 1 FROM stock_set l WHERE l.sub_id = s.id) THEN 'sub' ELSE 'none' END
       WHERE s.account_id = ? AND s.id = ANY(?::int[]) AND s.set_type <> 'main'`,
      [accountId, ids],
    );
  },

  async setType(trx: Knex.Transaction, accountId: number, id: number, type: StockRow['set_type']): Promise<void> {
    await trx('stock').where({ account_id: accountId, id }).update({ set_type: type });
  },

  /**
   * Removes the cia.event targets `gone` (names that no longer name a stock cia handler of the
   * account) from every item naming them, as a foreign key's ON DELETE would (lib/stock README:
   * "A deleted reference leaves the items"); the other targets keep their order. The items are
   * locked in id order first, so two such removals never deadlock with each other; modified_at
   * moves, as the item changed. Answers how many items changed.
   */
  async removeEventTargets(trx: Knex.Transaction, accountId: number, gone: string[]): Promise<number> {
    if (gone.length === 0) return 0;
    const names = "s.data->'cia'->'event'->'target'";
    return removeListEntries(trx, accountId, gone, {
      path: '{cia,event,target}',
      list: `CASE WHEN jsonb_typeof(${names}) = 'array' THEN ${names} ELSE '[]'::jsonb END`,
      dropped: "x.e #>> '{}' = ANY(?::text[])",
      naming: `jsonb_typeof(${names}) = 'array' AND jsonb_exists_any(${names}, ?::text[])`,
    });
  },

  /**
   * Removes from every item's shop_g.category[] the entries naming one of `ids` that no longer
   * name a shop_g category of the account (by stock-category.ts checkShopGCategories' rule: the
   * entry's portal account, or one of none, or any when the entry names none), after those
   * categories were deleted; the other entries keep their order. Locked in id order first, as
   * removeEventTargets; modified_at moves. Answers how many items changed.
   */
  async removeShopGCategories(trx: Knex.Transaction, accountId: number, ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const entries = "CASE WHEN jsonb_typeof(s.data->'shop_g'->'category') = 'array' THEN s.data->'shop_g'->'category' ELSE '[]'::jsonb END";
    // IS NOT TRUE in removeListEntries keeps an entry without an id (NULL here) as it is.
    const dangling = `x.e->>'id' = ANY(?::text[]) AND NOT EXISTS (
        SELECT 1 FROM stock_category c
         WHERE c.account_id = s.account_id AND c.platform = 'shop_g' AND c.id = x.e->>'id'
           AND (x.e->>'portal_account_id' IS NULL OR c.portal_account_id IS NULL OR c.portal_account_id::text = x.e->>'portal_account_id'))`;
    return removeListEntries(trx, accountId, ids, {
      path: '{shop_g,category}',
      list: entries,
      dropped: dangling,
      naming: `s.data->'shop_g'->'category' IS NOT NULL AND EXISTS (SELECT 1 FROM jsonb_array_elements(${entries}) AS x(e) WHERE ${dangling})`,
    });
  },

  /** Distinct folders of the account, sorted. */
  async folders(accountId: number): Promise<string[]> {
    const rows = await db()('stock').distinct('folder').where('account_id', accountId).orderBy('folder');
    return rows.map((r) => r.folder);
  },
};
