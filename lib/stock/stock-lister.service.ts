/** Lister groups (auction_a, auction_b, market_c, shop): lister ids and the fields all listers of one id share. */
import type { Knex } from 'knex';
import { invalidField, notFound } from '../errors';
import { deepMerge, getPath, Json, modifiedToday, setPath } from './stock-merge';
import { StockData, stockRepository } from './stock.repository';
import { ListerGroup, listerGroups } from '../portals';
import type { StockInput } from './stock.type';

/** Lister fields identical for all listers (auction_a, auction_b, market_c, shop) with one lister_id. */
const sharedListerFields: string[][] = [['payment', 'advice'], ['refund'], ['location'], ['freetext'], ['picture', 'type_id'], ['picture', 'url']];

const listerNumber = (raw: string | number) => Number(String(raw).replace(/^NO_/i, ''));

/**
 * Merges the lister groups by lister_id: absent with zero or one lister of the group, the one;
 * 0, a new lister; a number or NO_<number>, that lister of the item (404 when the item has no
 * such lister). A lister_id used in several groups is one lister: its shared fields are kept
 * identical in every group. Returns the lister ids the request touched.
 */
export async function mergeListers(
  trx: Knex.Transaction,
  data: StockData,
  input: StockInput,
  f: (name: string) => string,
  nextId: () => Promise<number> = () => stockRepository.nextListerId(trx),
): Promise<number[]> {
  const known = new Set<number>();
  for (const g of listerGroups) for (const l of (data[g] ?? []) as Json[]) known.add(Number(l.lister_id));
  const touched: number[] = [];
  const sent: { group: ListerGroup; id: number; entry: Json }[] = [];
  const joined: { group: ListerGroup; id: number; lister: Json }[] = [];
  for (const g of listerGroups) {
    const entries = input[g];
    if (!entries) continue;
    const current = [...((data[g] ?? []) as Json[])];
    for (const [i, entry] of entries.entries()) {
      const { lister_id: raw, ...fields } = entry;
      let id: number;
      if (raw === undefined || raw === '') {
        if (current.length > 1) throw invalidField(f(`${g}[${i}].lister_id`), `${f(`${g}[${i}].lister_id`)} is needed: the item has several ${g} listers`);
        id = current.length === 1 ? Number(current[0]!.lister_id) : await nextId();
      } else {
        const n = listerNumber(raw);
        if (n === 0) id = await nextId();
        else if (known.has(n)) id = n;
        else throw notFound(`lister ${String(raw)} of this item`, f(`${g}[${i}].lister_id`));
      }
      const joins = known.has(id);
      known.add(id);
      const at = current.findIndex((l) => Number(l.lister_id) === id);
      const merged = { ...(deepMerge(at >= 0 ? current[at] : {}, fields) as Json), lister_id: id, ...modifiedToday(g) };
      if (at >= 0) current[at] = merged;
      else current.push(merged);
      if (at < 0 && joins) joined.push({ group: g, id, lister: merged });
      sent.push({ group: g, id, entry: fields });
      if (!touched.includes(id)) touched.push(id);
    }
    data[g] = current;
  }
  for (const { group, id, lister } of joined) takeOverShared(data, group, id, lister);
  for (const { group, id, entry } of sent) {
    for (const path of sharedListerFields) {
      const value = getPath(entry, path);
      if (value === undefined) continue;
      for (const g of listerGroups) {
        if (g === group) continue;
        for (const other of (data[g] ?? []) as Json[]) if (Number(other.lister_id) === id) setPath(other, path, value);
      }
    }
  }
  return touched;
}

/**
 * A lister new to its group that joins a lister_id of another group takes that lister's shared
 * fields at once; what the request sends for them is merged on top (and copied on afterwards).
 */
function takeOverShared(data: StockData, group: ListerGroup, id: number, lister: Json): void {
  const others = listerGroups
    .filter((g) => g !== group)
    .flatMap((g) => (data[g] ?? []) as Json[])
    .filter((l) => Number(l.lister_id) === id);
  for (const path of sharedListerFields) {
    const value = others.map((l) => getPath(l, path)).find((v) => v !== undefined);
    if (value === undefined) continue;
    const own = getPath(lister, path);
    setPath(lister, path, own === undefined ? structuredClone(value) : deepMerge(structuredClone(value), own));
  }
}
