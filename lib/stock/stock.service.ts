/**
 * Rules of stock items: create, update and delete in the caller's transaction, with variants,
 * sets, listers, quantities (history and CIA) and the data merge of partial updates.
 */
import type { Knex } from 'knex';
import type { AccountWork, OrderScope } from '../access';
import { db, transaction } from '../db';
import { invalidField, notFound } from '../errors';
import { checkIfMatch, SearchRequest } from '../http';
import { queueCiaAdjust, refreshAvailable } from './stock-available.repository';
import { MovementCause, stockHistoryRepository, writeMovement } from './stock-history.repository';
import { mergeListers } from './stock-lister.service';
import { deepMerge, Json, modifiedToday } from './stock-merge';
import { resolveStockRef } from './stock-ref';
import { SaveContext, SaveResult } from './stock-save';
import { checkStockReferences } from './stock-references';
import { ebaySkusListed, ebaySkuWarnings } from './stock-ebay-sku';
import { stockSearchRepository } from './stock-search.repository';
import { applySet } from './stock-set.service';
import { applyVariation } from './stock-variation.service';
import { stockToApi } from './stock.mapper';
import { appAfterWrite, appClientOf, AppWriter } from './stock-app';
import { StockColumns, StockData, stockRepository, StockRow } from './stock.repository';
import { listerGroups } from '../portals';
import type { StockInput } from './stock.type';

/** Stock_type fields stored as columns; the rest (except links and listers) live in data. */
const textColumns = ['sku', 'barcode', 'mpn', 'manufacturer'] as const;
const intColumns = ['condition_id', 'quantity', 'quantity_auction_a', 'quantity_reserved', 'quantity_reserved_2'] as const;
const specialFields = new Set([
  'id',
  'name',
  'folder',
  'price',
  ...textColumns,
  ...intColumns,
  'variation',
  'set',
  'webshop',
  ...listerGroups,
  'quantity_available',
]);
/** Fields that change what CIA offers: any of them in a request queues cia.adjust. */
const ciaFields = ['quantity', 'quantity_auction_a', 'quantity_reserved', 'quantity_reserved_2', 'cia', 'set', 'variation'];

const normaliseFolder = (folder: string) => (folder.startsWith('/') ? folder : `/${folder}`);

/** Creates (existingId undefined) or updates an item of the account; all in the caller's transaction. */
export async function saveStock(
  trx: Knex.Transaction,
  accountId: number,
  input: StockInput,
  existingId: number | undefined,
  ctx: SaveContext,
): Promise<SaveResult> {
  const f = (name: string) => `${ctx.field}.${name}`;
  // A new item: before the first write and the first lock (a new item of stock/list/ runs without
  // a savepoint). An update runs in a savepoint or a transaction of its own and is checked against
  // what it stores, read locked (references it names already are not new), still before any write.
  if (existingId === undefined) await checkStockReferences(trx, accountId, input, f);
  if (existingId !== undefined) await stockRepository.lockSetMainsOf(trx, accountId, existingId);
  const existing = existingId !== undefined ? await stockRepository.lock(trx, accountId, existingId) : undefined;
  if (existingId !== undefined && !existing) throw notFound(`stock ${existingId}`, 'stock_id');
  if (existing) await checkItemIfMatch(trx, accountId, existing.id, ctx.ifMatch);
  if (existing) await checkStockReferences(trx, accountId, input, f, existing.data);

  const { columns, listerIds } = await stockColumns(trx, input, existing, ctx);

  let stockId: number;
  if (existing) {
    stockId = existing.id;
    await stockRepository.update(trx, accountId, stockId, columns);
  } else {
    stockId = await stockRepository.insert(trx, accountId, columns);
  }

  const touched = new Set<number>([stockId]);
  if (input.variation) await applyVariation(trx, accountId, stockId, existing, input.variation, ctx, touched);
  if (input.set) await applySet(trx, accountId, stockId, input.set, ctx, touched);

  const cause: MovementCause = { title: ctx.title, personId: ctx.personId ?? null };
  const quantityOld = existing?.quantity ?? 0;
  const quantityNew = input.quantity ?? quantityOld;
  if (quantityNew !== quantityOld) await writeMovement(trx, accountId, stockId, quantityOld, quantityNew, cause);

  if (!existing || ciaFields.some((k) => k in input) || touched.size > 1) {
    // Without set or variant links the item alone is recomputed and adjusted.
    const links =
      touched.size > 1 || input.set !== undefined || (existing !== undefined && (existing.set_type !== 'none' || existing.variation_type === 'sub'));
    // A new plain item got its quantity_available with the insert.
    if (existing || links) await refreshAvailable(trx, accountId, [...touched], links);
    await queueCiaAdjust(trx, accountId, [...touched], existing ? 'stock.updated' : 'stock.created', links);
  }
  return { stockId, listerIds, created: !existing };
}

/**
 * The columns (data merged into what is stored) and touched lister ids of a create or update;
 * no write. New lister ids come from nextListerId (a batch passes ids it reserved at once).
 */
export async function stockColumns(
  trx: Knex.Transaction,
  input: StockInput,
  existing: StockRow | undefined,
  ctx: SaveContext,
  nextListerId?: () => Promise<number>,
): Promise<{ columns: StockColumns; listerIds: number[] }> {
  const f = (name: string) => `${ctx.field}.${name}`;
  const columns: StockColumns = {};
  if (input.name !== undefined) columns.name = input.name;
  if (input.folder !== undefined) columns.folder = input.folder === '' ? '/' : normaliseFolder(input.folder);
  if (input.price !== undefined) columns.price = input.price;
  for (const key of textColumns) if (input[key] !== undefined) columns[key] = input[key] === '' ? null : input[key]!;
  for (const key of intColumns) if (input[key] !== undefined) columns[key] = input[key];

  // Data: every other field, merged into what is stored.
  const patch: Json = {};
  for (const [key, value] of Object.entries(input)) if (!specialFields.has(key)) patch[key] = value;
  if (input.variation?.specifics_set !== undefined) patch.variation = { specifics_set: input.variation.specifics_set };
  let data = deepMerge(existing?.data ?? {}, patch) as StockData;
  data = pictureDeletes(data, input, ctx);
  if (input.webshop) data.webshop = mergeWebshops((data.webshop ?? []) as Json[], input.webshop);
  // app[] and customs, both keyed by client_id: a client writes its own entry alone (stock-app.ts).
  for (const key of ['app', 'customs'] as const)
    if (input[key] !== undefined) data[key] = appAfterWrite(existing?.data[key], input[key] as Json[], ctx.appClient, f(key));
  const listerIds = await mergeListers(trx, data, input, f, nextListerId);
  // A SKU eBay holds the item's live listing under took eBay's look-up already: no warning (asked only when one would be given).
  const skuWarnings = (listed?: Set<string>) => ebaySkuWarnings(input, data, columns.sku !== undefined ? columns.sku : existing?.sku, f, listed);
  let warnings = skuWarnings();
  if (warnings.length && existing) warnings = skuWarnings(await ebaySkusListed(trx, existing));
  ctx.warnings.push(...warnings);
  if (input.name === undefined) {
    // v1.0.2: the offer name set in a lister also becomes the master name.
    const named = listerGroups.flatMap((g) => input[g] ?? []).filter((l) => typeof l.name === 'string' && l.name !== '');
    if (named.length) columns.name = named[named.length - 1]!.name!;
  }
  columns.data = data;
  columns.market_d_sku =
    typeof (data.market_d as Json | undefined)?.sku === 'string' && (data.market_d as Json).sku !== '' ? ((data.market_d as Json).sku as string) : null;

  return { columns, listerIds };
}

function pictureDeletes(data: StockData, input: StockInput, ctx: SaveContext): StockData {
  const remove = input.picture?.delete_id;
  const picture = (data.picture ?? {}) as Json;
  delete picture.delete_id;
  delete picture.is_upload_to_drive;
  if (remove?.length) {
    // Document 2: a URL is removed only if no portal group links it any more.
    const linked = JSON.stringify({ ...data, picture: undefined });
    const kept: string[] = [];
    for (const url of remove) {
      if (linked.includes(JSON.stringify(url))) {
        kept.push(url);
        ctx.warnings.push({
          warning: 'picture_linked',
          description: `${url} is still used by a portal group and was kept`,
          code: 200,
          field: `${ctx.field}.picture.delete_id`,
        });
      }
    }
    const gone = new Set(remove.filter((u) => !kept.includes(u)));
    if (Array.isArray(picture.id)) picture.id = (picture.id as string[]).filter((u) => !gone.has(u));
    if (typeof picture.small === 'string' && gone.has(picture.small)) delete picture.small;
    if (typeof picture.large === 'string' && gone.has(picture.large)) delete picture.large;
  }
  if (Object.keys(picture).length) data.picture = picture;
  else delete data.picture;
  return data;
}

function mergeWebshops(current: Json[], input: Json[]): Json[] {
  const out = [...current];
  for (const shop of input) {
    const at = out.findIndex((s) => s.shop_id === shop.shop_id);
    const written = { ...(deepMerge(at >= 0 ? out[at] : {}, shop) as Json), ...modifiedToday('webshop') };
    if (at >= 0) out[at] = written;
    else out.push(written);
  }
  return out;
}

/** A conditional write of the item the caller holds locked (README, conditional writes): 412 record_changed unless If-Match, when sent, names its state. */
const checkItemIfMatch = (trx: Knex.Transaction, accountId: number, stockId: number, ifMatch: string | undefined) =>
  checkIfMatch(
    ifMatch,
    () => stockRepository.versionOf(trx, accountId, stockId),
    `stock ${stockId} has changed since the state If-Match names (a sale, a set or variant of it, or another client wrote it); read it again (GET stock/${stockId}/ answers its ETag) and decide on what it holds now`,
  );

/**
 * Deletes an item: its variants become independent items, its own set's links go, CIA hears of it.
 * A part of a set is refused (README, "A set's part is not deleted"): its sets would sell on without it.
 */
export async function deleteStock(trx: Knex.Transaction, accountId: number, stockId: number, ifMatch?: string): Promise<void> {
  await stockRepository.lockSetMainsOf(trx, accountId, stockId);
  const row = await stockRepository.lock(trx, accountId, stockId);
  if (!row) throw notFound(`stock ${stockId}`, 'stock_id');
  await checkItemIfMatch(trx, accountId, stockId, ifMatch);
  const mains = (await stockRepository.setMainsOf(trx, accountId, stockId)).map((l) => l.main_id);
  if (mains.length > 0) throw partOfSets(stockId, mains);
  const variants = row.variation_type === 'main' ? await stockRepository.variantIds(trx, accountId, stockId) : [];
  await stockRepository.separateVariants(trx, accountId, variants);
  const subs = (await stockRepository.setSubs(trx, accountId, stockId)).map((l) => l.sub_id);
  // Queued before the row goes, so set mains are still found; the cia worker finds the item gone
  // and ends its offers. A variant's main is adjusted too: left without variants it offers its own
  // quantity again (lib/cia), and nothing else would adjust it.
  const main = row.variation_type === 'sub' && row.variation_parent_id !== null ? [row.variation_parent_id] : [];
  await queueCiaAdjust(trx, accountId, [stockId, ...variants, ...main], 'stock.deleted');
  await stockRepository.delete(trx, accountId, stockId);
  await stockRepository.refreshSetType(trx, accountId, subs);
  await refreshAvailable(trx, accountId, [...variants, ...subs]);
}

const partOfSets = (stockId: number, mains: number[]) =>
  invalidField(
    'stock_id',
    `stock_id: stock ${stockId} is a part of the set${mains.length > 1 ? 's' : ''} ${mains.join(', ')}, which would go on selling without it; take it out of ${mains.length > 1 ? 'each set' : 'the set'} first (POST stock/{stock_id}/ of the set with set.sub[] without it) or delete the set`,
    'status_conflict',
  );

/** Resolves a path {stock_id} of the account: 404 when unknown or foreign, 300 when ambiguous. */
export async function resolvePathStockId(accountId: number, ref: string, knex: Knex | Knex.Transaction = db()): Promise<number> {
  const id = await resolveStockRef(knex, accountId, ref, 'id', { field: 'stock_id' });
  if (id === undefined) throw notFound(`stock ${ref}`, 'stock_id');
  return id;
}

/** POST stock/{stock_id}/: updates the item the path names, resolved in the same transaction; only in the state If-Match names, when sent. */
export async function updateStockItem(
  caller: AccountWork & AppWriter,
  ref: string,
  input: StockInput,
  warnings: SaveContext['warnings'],
  ifMatch?: string,
): Promise<SaveResult> {
  const { accountId, requestId } = caller;
  return transaction(async (trx) => {
    const stockId = await resolvePathStockId(accountId, ref, trx);
    return saveStock(trx, accountId, input, stockId, { warnings, title: 'stock', field: 'stock', appClient: appClientOf(caller), ifMatch });
  }, requestId);
}

/** DELETE stock/{stock_id}/: deletes the item the path names, resolved in the same transaction; only in the state If-Match names, when sent. */
export async function deleteStockItem({ accountId, requestId }: AccountWork, ref: string, ifMatch?: string): Promise<void> {
  await transaction(async (trx) => deleteStock(trx, accountId, await resolvePathStockId(accountId, ref, trx), ifMatch), requestId);
}

/** GET stock/{stock_id}/history/: one page of the movements of the item the path names that the scope may read. */
export async function searchItemHistory(scope: OrderScope, ref: string, search: SearchRequest) {
  return stockHistoryRepository.search(scope, search, await resolvePathStockId(scope.accountId, ref));
}

/** The item a path {stock_id} names as Stock_type, with its version (the ETag): 404 when unknown or foreign, 300 when ambiguous. */
export async function readStock(reader: AccountWork & AppWriter, ref: string): Promise<{ stock: Record<string, unknown>; version: string }> {
  const { accountId } = reader;
  // A plain id is read at once; an alternative identifier is resolved first.
  // Ten digits: ids of the higher cells reach 2^31 - 1 (lib/db/cells.ts).
  const id = /^\d{1,10}$/.test(ref) && Number(ref) <= 2147483647 ? Number(ref) : await resolvePathStockId(accountId, ref);
  const row = await stockRepository.getVersioned(db(), accountId, id);
  if (!row) throw notFound(`stock ${ref}`, 'stock_id');
  return { stock: stockToApi(row, await stockRepository.linksOf(db(), accountId, [row]), appClientOf(reader)), version: row.version };
}

/** GET stock/: one page of items. */
export async function searchStock(reader: AccountWork & AppWriter, search: SearchRequest) {
  return stockSearchRepository.search(reader.accountId, search, appClientOf(reader));
}

/** GET stock/folder/: every folder in use and its parents ("/a/b" gives "/a" too), sorted. */
export async function listFolders(accountId: number): Promise<string[]> {
  const folders = new Set<string>(['/']);
  for (const folder of await stockRepository.folders(accountId)) {
    const parts = folder.split('/').filter(Boolean);
    for (let i = 1; i <= parts.length; i++) folders.add(`/${parts.slice(0, i).join('/')}`);
  }
  return [...folders].sort();
}
