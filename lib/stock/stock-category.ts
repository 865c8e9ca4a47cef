/** Own categories (Category_type of the own portals), per account and portal account. */
import type { Knex } from 'knex';
import { db, inTransaction, transaction } from '../db';
import { DomainError, invalidField } from '../errors';
import type { AccountWork, OrderScope } from '../access';
import { Joi, list, ownPortalAccountId as portalAccountIdField, text, runSearch, SearchRequest, SearchSpec, applyConditions } from '../http';
import { ownPortalAccountId } from '../portal-account';
import { ownCategoryPlatforms } from '../portals';
import { stockRepository } from './stock.repository';

/** Category_type for own categories: platform and id are required to write one. */
export const ownCategoryType = Joi.object({
  platform: Joi.string()
    .valid(...ownCategoryPlatforms)
    .required(),
  id: Joi.alternatives(Joi.string().trim().min(1).max(64), Joi.number().integer().min(0))
    .custom((v: unknown) => String(v))
    .required(),
  name: text(255),
  parent_id: Joi.alternatives(Joi.string().trim().min(1).max(64), Joi.number().integer().min(0)).custom((v: unknown) => String(v)),
  // Checked by the framework against the seller's portal accounts and the token's grant (403 outside it).
  portal_account_id: portalAccountIdField(),
});

export type OwnCategoryInput = { platform: string; id: string; name?: string; parent_id?: string; portal_account_id?: number };

/** The body of POST stock/category/: one category or a list of them. */
export const ownCategoryBody = Joi.object({ category: list(ownCategoryType).min(1).max(200).required() });

interface CategoryRow {
  internal_id: string;
  platform: string;
  portal_account_id: number | null;
  id: string;
  name: string;
  parent_id: string;
}

/** A row of stock_category as stored: CategoryRow and its account. */
interface CategoryTableRow extends CategoryRow {
  account_id: number;
}

// The row type of stock_category for Knex (declared once here, lib/stock owns the table): the
// internal id (bigint) is read as text; a category is inserted without it, its name and parent have defaults.
type CategoryOptional = 'portal_account_id' | 'name' | 'parent_id';
type CategoryInsert = Omit<CategoryTableRow, 'internal_id' | CategoryOptional> & Partial<Pick<CategoryTableRow, CategoryOptional>>;
declare module 'knex/types/tables' {
  interface Tables {
    stock_category: Knex.CompositeTableType<CategoryTableRow, CategoryInsert, Partial<CategoryInsert>>;
  }
}

const toApi = (row: CategoryRow) => ({
  platform: row.platform,
  id: row.id,
  name: row.name,
  parent_id: row.parent_id,
  portal_account_id: row.portal_account_id,
});

/** Category_filter_type: platform (required, one own portal, = only), id[], parent_id[], name[], portal_account_id. */
export const ownCategorySearch: SearchSpec<CategoryRow> = {
  filters: {
    platform: { column: 'platform', type: 'string', operators: ['='], singleton: true },
    id: { column: 'id', type: 'string' },
    parent_id: { column: 'parent_id', type: 'string' },
    name: { column: 'name', type: 'string' },
    portal_account_id: { column: 'portal_account_id', type: 'integer', operators: ['=', '!='] },
  },
  key: {
    column: 'internal_id',
    parse: (minId) => (/^\d{1,18}$/.test(minId) ? minId : undefined),
    idOf: (row) => String(row.internal_id),
  },
  type: ownCategoryType,
  alwaysSelected: ['platform', 'id'],
  example: { platform: ownCategoryPlatforms[0]! },
};

function requirePlatform(search: SearchRequest): void {
  const values = search.singletons.filter((c) => c.field === ownCategorySearch.filters.platform).flatMap((c) => c.values.map(String));
  if (values.length === 0) throw invalidField('filter.platform', `filter.platform is required: one of ${ownCategoryPlatforms.join(', ')}`);
  if (new Set(values).size > 1) throw invalidField('filter.platform', 'filter.platform takes one portal per request');
  if (!(ownCategoryPlatforms as readonly string[]).includes(values[0]!)) {
    throw invalidField('filter.platform', `filter.platform must be one of ${ownCategoryPlatforms.join(', ')} (global categories: GET system/stock/category/)`);
  }
}

/**
 * The categories a caller reaches: a client bound to one portal account reads its portal
 * account's and those of none (stored before categories had one: shared, as stock items are),
 * and deletes only its portal account's; other callers every one of the seller's.
 */
function ofGrant(scope: OrderScope, alsoShared: boolean, knex: Knex | Knex.Transaction = db()) {
  const q = knex('stock_category').where('account_id', scope.accountId);
  const grant = scope.portalAccountGrant;
  if (grant === 'all') return q;
  return alsoShared ? q.where((w) => w.where('portal_account_id', grant).orWhereNull('portal_account_id')) : q.where('portal_account_id', grant);
}

/**
 * Whether walking up from a category written by this request through its parents (in its
 * platform and portal account) comes back to it. parent_id is not checked for existence (lib/stock
 * README: a parent may be written after its children), but a category under itself, directly or
 * through others, makes a tree no client can build: a client walking up to the root (a shop's
 * category path, an ERP's tree) never ends. Every new cycle passes through a category whose parent
 * this request set, so checking those finds them all. UNION (not ALL) ends the walk on a cycle
 * that does not pass through the start.
 */
async function isOwnAncestor(trx: Knex.Transaction, accountId: number, c: OwnCategoryInput & { portal_account_id: number }): Promise<boolean> {
  const result = await trx.raw<{ rows: unknown[] }>(
    `WITH RECURSIVE up (id, parent_id) AS (
       SELECT id, parent_id FROM stock_category
        WHERE account_id = :account AND platform = :platform AND COALESCE(portal_account_id, 0) = :portal AND id = :id
       UNION
       SELECT s.id, s.parent_id FROM stock_category s JOIN up ON s.id = up.parent_id
        WHERE s.account_id = :account AND s.platform = :platform AND COALESCE(s.portal_account_id, 0) = :portal
     )
     SELECT 1 FROM up WHERE parent_id = :id LIMIT 1`,
    { account: accountId, platform: c.platform, portal: c.portal_account_id ?? 0, id: c.id },
  );
  return result.rows.length > 0;
}

export const ownCategoryRepository = {
  search(scope: OrderScope, search: SearchRequest) {
    requirePlatform(search);
    return runSearch(ofGrant(scope, true), ownCategorySearch, search, toApi);
  },

  /**
   * Creates the categories, or renames/moves those that exist (same platform, portal account and
   * id), in a transaction of the request `requestId` (a COMMIT whose answer is lost can be asked after).
   * Answers whether any was created (a row inserted, not updated: xmax 0).
   */
  async upsert(accountId: number, categories: (OwnCategoryInput & { portal_account_id: number })[], requestId?: string): Promise<boolean> {
    return transaction(async (trx) => {
      let created = false;
      for (const c of categories) {
        const result = await trx.raw<{ rows: { inserted: boolean }[] }>(
          `INSERT INTO stock_category (account_id, platform, portal_account_id, id, name, parent_id) VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT (account_id, platform, COALESCE(portal_account_id, 0), id)
           DO UPDATE SET name = COALESCE(?, stock_category.name), parent_id = COALESCE(?, stock_category.parent_id)
           RETURNING (xmax = 0) AS inserted`,
          [accountId, c.platform, c.portal_account_id, c.id, c.name ?? '', c.parent_id ?? '0', c.name ?? null, c.parent_id ?? null],
        );
        if (result.rows[0]?.inserted) created = true;
      }
      // After all are written: a parent may come later in the list, as it may come in a later request.
      for (const [i, c] of categories.entries()) {
        if (c.parent_id !== undefined && (await isOwnAncestor(trx, accountId, c))) {
          const field = `category[${i}].parent_id`;
          throw invalidField(field, `${field} ${c.parent_id} would make category ${c.id} its own ancestor (a category cannot be under itself)`);
        }
      }
      return created;
    }, requestId);
  },

  /**
   * Deletes the categories a Category_filter_type names and, in the same transaction, removes the
   * shop_g.category[] entries that named them from the seller's items, as a foreign key's ON
   * DELETE would (Stock_shop_g_type: "category[] items with id string FK"; lib/stock README): GET
   * stock/{id}/ shows no id a client cannot find at GET stock/category/, and the item's own body
   * posts back as it is. An entry that still names a category (the same id of another portal
   * account, or of none) stays. Answers how many categories went.
   */
  async delete(scope: OrderScope, search: SearchRequest): Promise<number> {
    requirePlatform(search);
    return inTransaction(async (trx) => {
      const query = ofGrant(scope, false, trx);
      applyConditions(query, search.singletons, search.filters);
      const gone = (await query.delete().returning(['platform', 'id'])) as Pick<CategoryRow, 'platform' | 'id'>[];
      const shopG = [...new Set(gone.filter((c) => c.platform === 'shop_g').map((c) => c.id))];
      await stockRepository.removeShopGCategories(trx, scope.accountId, shopG);
      return gone.length;
    }, scope.requestId);
  },
};

/**
 * POST stock/category/: each category goes to the portal account it names, else the request's;
 * a foreign or unknown one fails the whole request before anything is written. Answers whether a
 * category was created: document 1 answers a POST that creates a record 201, one that only
 * renames or moves existing ones 200.
 */
export async function saveOwnCategories(
  { accountId, requestId }: AccountWork,
  requestPortalAccountId: number | null,
  categories: OwnCategoryInput[],
): Promise<{ created: boolean }> {
  // Category_type.platform: "one portal per request" (document 2). A list mixing portals was
  // stored as sent; now the first category of another portal is a 400 and nothing is written.
  const other = categories.findIndex((c) => c.platform !== categories[0]!.platform);
  if (other > 0) {
    const field = `category[${other}].platform`;
    throw invalidField(field, `${field} ${categories[other]!.platform} differs from category[0].platform ${categories[0]!.platform}: one portal per request`);
  }
  const owned = [];
  for (const [i, c] of categories.entries()) {
    const portalAccountId = await ownPortalAccountId(accountId, c.portal_account_id, requestPortalAccountId, `category[${i}].portal_account_id`);
    owned.push({ ...c, portal_account_id: portalAccountId });
  }
  return { created: await ownCategoryRepository.upsert(accountId, owned, requestId) };
}

/** A shop_g.category[] entry of a stock body (Stock_shop_g_type: id string FK, portal_account_id FK). */
interface ShopGCategoryRef {
  id: string;
  portal_account_id?: number;
}

/**
 * Stock_shop_g_type.category[].id names an own category of platform shop_g (stock/category/): one
 * of the entry's portal account, or of none (categories from before they had one), or, when the
 * entry names no portal account, of any of the seller's. Another id ('nope', a market_i category,
 * another seller's) is a 400 naming `<field>.shop_g.category[j].id`, one error item per id,
 * checked before the first write: the shop would file the item under a category it does not
 * have, found only when the item is listed. webshop's category[] is document 2's plain string[]
 * (no FK) and stays unchecked.
 *
 * Only entries new to the item are checked: one the stored item has already (`stored`, its data
 * on an update; same id and portal account) passes, so an item read from the service can be
 * posted back unchanged (lib/http README) also when its category went since (the delete removes
 * entries from the items, removeShopGCategories; an entry stored before ids were checked, or under
 * a portal account since deleted with its categories, stays until the client changes it). The
 * categories found are locked FOR KEY SHARE, as a foreign key's check locks the row it names: a
 * delete waits until the item is written and then removes the entry from it.
 */
export async function checkShopGCategories(
  trx: Knex.Transaction,
  accountId: number,
  input: Record<string, unknown>,
  f: (name: string) => string,
  stored?: Record<string, unknown>,
): Promise<void> {
  const entries = shopGCategoriesOf(input);
  if (!entries?.length) return;
  const had = new Set((shopGCategoriesOf(stored) ?? []).map(entryKey));
  const added = entries.filter((e) => !had.has(entryKey(e)));
  if (added.length === 0) return;
  const rows = await trx('stock_category')
    .select('id', 'portal_account_id')
    .where({ account_id: accountId, platform: 'shop_g' })
    .whereIn('id', [...new Set(added.map((e) => e.id))])
    .forKeyShare();
  const owns = (e: ShopGCategoryRef) =>
    rows.some((r) => r.id === e.id && (e.portal_account_id === undefined || r.portal_account_id === null || r.portal_account_id === e.portal_account_id));
  const errors = entries.flatMap((e, j) => {
    if (had.has(entryKey(e)) || owns(e)) return [];
    const field = f(`shop_g.category[${j}].id`);
    return [invalidField(field, `${field} ${e.id} is not a shop_g category of the seller (see GET stock/category/?filter[platform]=shop_g)`)];
  });
  const [first, ...more] = errors;
  if (first) throw new DomainError(first.id, first.message, { field: first.field, as: first.kind, more: more.flatMap((e) => e.items()) });
}

function shopGCategoriesOf(item: Record<string, unknown> | undefined): ShopGCategoryRef[] | undefined {
  const entries = (item?.shop_g as { category?: unknown } | undefined)?.category;
  return Array.isArray(entries) ? (entries as ShopGCategoryRef[]) : undefined;
}

/** An entry as the stored item and a body compare it: its id and the portal account it names (none: ''). */
const entryKey = (e: ShopGCategoryRef) => JSON.stringify([String(e.id), e.portal_account_id ?? null]);
