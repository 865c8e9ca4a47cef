/** Variants of a stock item: linked, created and separated only through the main item. */
import type { Knex } from 'knex';
import { invalidField } from '../errors';
import { Json } from './stock-merge';
import { resolveLinked, SaveContext } from './stock-save';
import { writeMovement } from './stock-history.repository';
import { stockRepository, StockRow } from './stock.repository';
import { NameValue, StockInput } from './stock.type';

/** Variants (document 1: created and combined only through the main item; none separates all). */
export async function applyVariation(
  trx: Knex.Transaction,
  accountId: number,
  stockId: number,
  existing: StockRow | undefined,
  variation: NonNullable<StockInput['variation']>,
  ctx: SaveContext,
  touched: Set<number>,
): Promise<void> {
  const f = (name: string) => `${ctx.field}.variation.${name}`;
  const current = existing?.variation_type ?? 'none';
  const type = variation.type ?? (variation.sub ? 'main' : current);
  if (type === 'sub') {
    if (current !== 'sub') throw invalidField(f('type'), `${f('type')}: an item becomes a variant only through its main item's variation.sub[]`);
    if (variation.sub) throw invalidField(f('sub'), `${f('sub')} is only valid on a main item`);
    if (variation.specifics_set) throw invalidField(f('specifics_set'), `${f('specifics_set')} is only valid on a main item`);
    return;
  }
  if (type === 'none') {
    if (variation.sub?.length) throw invalidField(f('sub'), `${f('sub')} cannot be combined with type none`);
    if (current === 'main') {
      const variants = await stockRepository.variantIds(trx, accountId, stockId);
      await stockRepository.separateVariants(trx, accountId, variants);
      variants.forEach((v) => touched.add(v));
    }
    // A variant leaving its main: its former main is adjusted too, it may have no variant left and
    // offer its own quantity again (lib/cia: a main with variants offers nothing, and a variant's
    // adjustment no longer adjusts its main, nor would it find it once separated).
    if (current === 'sub' && existing?.variation_parent_id) touched.add(existing.variation_parent_id);
    if (current !== 'none') await stockRepository.separateVariants(trx, accountId, [stockId]);
    if (variation.specifics_set) throw invalidField(f('specifics_set'), `${f('specifics_set')} is only valid on a main item`);
    return;
  }
  // type main
  if (current === 'sub') throw invalidField(f('type'), `${f('type')}: a variant cannot be a main item; separate it first (type none)`);
  // The other way of stock-set.service's rule: a set's part must be goods, which a variation main is not.
  if (existing?.set_type === 'sub' && current !== 'main')
    throw invalidField(f('type'), `${f('type')}: stock ${stockId} is a part of a set and cannot be a variation main; take it out of the set first`);
  await stockRepository.setVariationType(trx, accountId, stockId, 'main');
  if (!variation.sub) return;
  const matrix = ((await stockRepository.get(trx, accountId, stockId))!.data.variation as Json | undefined)?.specifics_set as
    { name_value?: NameValue[] } | undefined;
  const before = await stockRepository.variantIds(trx, accountId, stockId);
  const after: number[] = [];
  // Each variant's combination of specifics, by its key (combinationKey), with the sub that gave it.
  const combinations = new Map<string, number>();
  for (const [i, sub] of variation.sub.entries()) {
    const at = (name: string) => f(`sub[${i}]${name ? `.${name}` : ''}`);
    const specifics = sub.specifics;
    if (specifics) checkSpecifics(specifics.name_value, matrix?.name_value ?? [], at('specifics'));
    let variantId: number;
    if (sub.id !== undefined) {
      const row = await resolveLinked(trx, accountId, sub.id, at('id'));
      if (row.id === stockId) throw invalidField(at('id'), `${at('id')}: an item cannot be its own variant`);
      if (row.variation_type === 'main') throw invalidField(at('id'), `${at('id')}: stock ${row.id} is itself a main item`);
      if (row.variation_type === 'sub' && row.variation_parent_id !== stockId)
        throw invalidField(at('id'), `${at('id')}: stock ${row.id} is a variant of another item; separate it first`);
      variantId = row.id;
      await stockRepository.linkVariant(trx, accountId, variantId, stockId, specifics);
    } else {
      if (sub.create_quantity === undefined)
        throw invalidField(at('create_quantity'), `${at('create_quantity')} is needed to create a variant (or give its id)`);
      if (!specifics) throw invalidField(at('specifics'), `${at('specifics')} is needed to create a variant`);
      const main = (await stockRepository.get(trx, accountId, stockId))!;
      variantId = await stockRepository.insert(trx, accountId, {
        name: main.name,
        folder: main.folder,
        price: main.price,
        manufacturer: main.manufacturer,
        condition_id: main.condition_id,
        quantity: sub.create_quantity,
        data: main.data.tax !== undefined ? { tax: main.data.tax } : {},
      });
      await stockRepository.linkVariant(trx, accountId, variantId, stockId, specifics);
      if (sub.create_quantity !== 0)
        await writeMovement(trx, accountId, variantId, 0, sub.create_quantity, { title: ctx.title, personId: ctx.personId ?? null });
    }
    if (after.includes(variantId)) throw invalidField(at('id'), `${at('id')}: stock ${variantId} is listed twice`);
    const key = combinationKey(specifics?.name_value ?? storedSpecifics(await stockRepository.get(trx, accountId, variantId)));
    const twin = key === undefined ? undefined : combinations.get(key);
    if (twin !== undefined)
      throw invalidField(at('specifics'), `${at('specifics')}: sub[${twin}] already has this combination of specifics; each variant needs its own`);
    if (key !== undefined) combinations.set(key, i);
    after.push(variantId);
    touched.add(variantId);
  }
  const dropped = before.filter((id) => !after.includes(id));
  await stockRepository.separateVariants(trx, accountId, dropped);
  dropped.forEach((id) => touched.add(id));
}

/** The specifics a variant holds (variation.specifics.name_value), or none. */
function storedSpecifics(row: StockRow | undefined): NameValue[] | undefined {
  const variation = row?.data.variation as { specifics?: { name_value?: NameValue[] } } | undefined;
  return variation?.specifics?.name_value;
}

/**
 * One variant's combination as a key (names sorted, one value each), or undefined when it has no
 * specifics. Two variants of one main with the same combination are one choice for the buyer
 * (document 2: specifics_set is the variant matrix, each variant a cell of it): a buyer picks a
 * variant by its specifics, and which of the two items a sale of that choice takes is undefined.
 */
function combinationKey(specifics: NameValue[] | undefined): string | undefined {
  if (!specifics?.length) return undefined;
  const pairs = specifics.map((nv): [string, string] => [nv.name, nv.value[0] ?? '']);
  return JSON.stringify(pairs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** A variant's specifics: one value per name; names and values from the main's specifics_set when it has one. */
function checkSpecifics(specifics: NameValue[], matrix: NameValue[], field: string): void {
  const seen = new Set<string>();
  for (const [i, nv] of specifics.entries()) {
    const at = `${field}.name_value[${i}]`;
    if (nv.value.length !== 1) throw invalidField(`${at}.value`, `${at}.value must hold exactly one value`);
    if (seen.has(nv.name)) throw invalidField(`${at}.name`, `${at}.name ${nv.name} is given twice`);
    seen.add(nv.name);
    if (matrix.length === 0) continue;
    const dimension = matrix.find((m) => m.name === nv.name);
    if (!dimension) throw invalidField(`${at}.name`, `${at}.name ${nv.name} is not in the main item's specifics_set`);
    if (!dimension.value.includes(nv.value[0]!))
      throw invalidField(`${at}.value`, `${at}.value ${nv.value[0]} is not a value of ${nv.name} in the main item's specifics_set`);
  }
}
