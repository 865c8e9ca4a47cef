/** Sets of stock items: a main made of subs with quantities; no nesting. */
import type { Knex } from 'knex';
import { invalidField } from '../errors';
import { resolveLinked, SaveContext } from './stock-save';
import { stockRepository } from './stock.repository';
import { StockInput } from './stock.type';

/** Sets (document 1: main or sub, never both, no nesting; none dissolves). */
export async function applySet(
  trx: Knex.Transaction,
  accountId: number,
  stockId: number,
  set: NonNullable<StockInput['set']>,
  ctx: SaveContext,
  touched: Set<number>,
): Promise<void> {
  const f = (name: string) => `${ctx.field}.set.${name}`;
  const row = (await stockRepository.get(trx, accountId, stockId))!;
  const types = [...new Set(set.type ?? [])];
  if (types.length > 1) throw invalidField(f('type'), `${f('type')} takes one of main, sub or none (nested sets are not handled)`);
  const type = types[0] ?? (set.sub ? 'main' : row.set_type);
  if (type === 'none') {
    if (set.sub?.length) throw invalidField(f('sub'), `${f('sub')} cannot be combined with type none`);
    const subs = (await stockRepository.setSubs(trx, accountId, stockId)).map((l) => l.sub_id);
    const mains = (await stockRepository.setMainsOf(trx, accountId, stockId)).map((l) => l.main_id);
    await stockRepository.replaceSetSubs(trx, accountId, stockId, []);
    await stockRepository.removeSetLinksOfSub(trx, accountId, stockId);
    await stockRepository.setType(trx, accountId, stockId, 'none');
    await stockRepository.refreshSetType(trx, accountId, subs);
    // Former mains are recomputed (refreshAvailable) from their remaining subs or own quantity.
    [...subs, ...mains].forEach((id) => touched.add(id));
    return;
  }
  if (type === 'sub') {
    if (row.set_type !== 'sub') throw invalidField(f('type'), `${f('type')}: an item becomes a set sub only through its set main's set.sub[]`);
    if (set.sub) throw invalidField(f('sub'), `${f('sub')} is only valid on a set main`);
    return;
  }
  if (row.set_type === 'sub')
    throw invalidField(f('type'), `${f('type')}: stock ${stockId} is a sub of a set and cannot be a set main (nested sets are not handled)`);
  await stockRepository.setType(trx, accountId, stockId, 'main');
  if (!set.sub) return;
  const subs: { id: number; quantity: number }[] = [];
  for (const [i, sub] of set.sub.entries()) {
    const at = f(`sub[${i}].id`);
    // Read first, locked below all at once in id order (as a sale of the set locks them).
    const linked = await resolveLinked(trx, accountId, sub.id, at, false);
    if (linked.id === stockId) throw invalidField(at, `${at}: an item cannot be a part of its own set`);
    if (linked.set_type === 'main') throw invalidField(at, `${at}: stock ${linked.id} is a set main; nested sets are not handled`);
    // A variation main holds no goods of its own (its variants do): a set of it took its quantity
    // at each sale while the variants, the real items, stayed offered everywhere.
    if (linked.variation_type === 'main') throw invalidField(at, `${at}: stock ${linked.id} is a variation main; name the variant the set contains`);
    if (subs.some((s) => s.id === linked.id)) throw invalidField(at, `${at}: stock ${linked.id} is listed twice`);
    subs.push({ id: linked.id, quantity: sub.quantity });
  }
  await stockRepository.lockQuantities(
    trx,
    accountId,
    subs.map((s) => s.id),
  );
  const before = (await stockRepository.setSubs(trx, accountId, stockId)).map((l) => l.sub_id);
  await stockRepository.replaceSetSubs(trx, accountId, stockId, subs);
  const all = [...new Set([...before, ...subs.map((s) => s.id)])];
  await stockRepository.refreshSetType(trx, accountId, all);
  all.forEach((id) => touched.add(id));
}
