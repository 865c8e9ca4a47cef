/**
 * The one way another domain (orders) changes an item's quantity. Quantity may go below 0: an
 * order from a portal is a fact that already happened, and the seller must see the oversold
 * item (negative quantity and quantity_available) rather than lose the movement.
 */
import type { Knex } from 'knex';
import { invalidField } from '../errors';
import type { PendingWrites } from '../queue';
import { availableOf, partsGive } from './stock-available';
import { queueCiaAdjusts, refreshSetMains } from './stock-available.repository';
import { Movement, MovementCause, writeMovements } from './stock-history.repository';
import { matchStockRefs, refMatches, SetPart, stockIdOf } from './stock-ref';
import { QuantityRow, SetLink, stockRepository } from './stock.repository';

/** One change for adjustStockQuantities: a stock reference (as stock_align_id), the difference and its cause. */
export interface StockChange {
  stockRef: string;
  difference: number;
  cause: MovementCause;
  /** Where the client wrote the change (an order line's stock_align_id), named when it is refused. */
  field?: string;
  /**
   * A change of a set main by the parts one unit of it moves (what an order line recorded when it
   * took the set): they move instead of the set as it is composed now, so a line gives back what
   * it took after the seller recomposed the set. []: the line took the item itself, whose own
   * quantity moves though it may be a set main now (a plain item made a set after the sale gave
   * back to parts it never took). Without it a set main moves its current parts.
   */
  parts?: SetPart[];
}

/**
 * The farthest an item's quantity may move either way (twice what a client may set, lib/stock
 * stock.type.ts). Orders move it without bound otherwise (1,000 lines of up to 1,000,000, a set's
 * parts times their count in the set), and past the integer column's range (with the reserved
 * quantities subtracted for quantity_available) the statement failed: a 500 answering an order.
 */
const quantityBound = 1_000_000_000;

/** A quantity a change would leave beyond quantityBound: a 400 naming the change's field, before anything moves. */
function checkBound(quantity: number, stockId: number, change: StockChange): void {
  if (Math.abs(quantity) <= quantityBound) return;
  const field = change.field ?? 'stock.quantity';
  throw invalidField(field, `${field}: the quantity of stock ${stockId} would become ${quantity}, beyond the ${quantityBound} a quantity may reach either way`);
}

/** What a change did: the item and its quantity before and after (a set main: its available quantity). */
export interface StockMoved {
  stockId: number;
  quantityOld: number;
  quantityNew: number;
}

/** Changes an item's quantity inside the caller's transaction: locks the row (FOR UPDATE),
 *  writes a Stock_history_type movement and queues cia.adjust (item and its main items). */
export async function adjustStockQuantity(
  trx: Knex.Transaction,
  accountId: number,
  stockRef: string,
  difference: number,
  cause: { title: string; orderId?: string; personId?: number | null },
): Promise<StockMoved | undefined> {
  const [moved] = await adjustStockQuantities(trx, accountId, [{ stockRef, difference, cause }]);
  return moved;
}

/**
 * Applies the changes in the caller's transaction as if adjustStockQuantity ran for each in
 * turn (the same movements, in that order, with the same quantities before and after), in a
 * fixed number of statements: one to resolve the references, one to lock every affected row in
 * the lock order (set mains first, then the rest, each in id order), one UPDATE, one history
 * INSERT and one outbox INSERT with one cia.adjust per distinct item, main item and reason.
 * Answers per change, in order: undefined when its reference names no item of the account
 * (nothing moves for it). A reference naming several items is a 300 before anything moves.
 * With `later`, the cia.adjust jobs, the stock history and (unless a set main must be refreshed
 * from them) the new quantities join the caller's deferred writes (one statement at its end).
 */
export async function adjustStockQuantities(
  trx: Knex.Transaction,
  accountId: number,
  changes: StockChange[],
  later?: PendingWrites,
): Promise<(StockMoved | undefined)[]> {
  if (changes.length === 0) return [];
  const matches = await resolveRefs(
    trx,
    accountId,
    changes.map((c) => c.stockRef),
  );
  const ids = changes.map((c) => stockIdOf(c.stockRef, matches.get(c.stockRef)));
  // A change by recorded parts locks them too: they may be parts of the set no longer.
  const wanted = [...new Set([...ids.filter((id): id is number => id !== undefined), ...changes.flatMap((c) => (c.parts ?? []).map((p) => p.stock_id))])];
  if (ids.every((id) => id === undefined)) return changes.map(() => undefined);

  const rows = new Map((await stockRepository.lockForQuantityChange(trx, accountId, wanted)).map((r) => [r.id, r]));
  const links = await stockRepository.setSubsOfMains(
    trx,
    accountId,
    wanted.filter((id) => rows.get(id)?.set_type === 'main'),
  );
  // A set changed between the lock and the read of its subs (rare): lock the new subs too.
  const unlocked = [...new Set(links.map((l) => l.sub_id))].filter((id) => !rows.has(id));
  for (const row of await stockRepository.lockForQuantityChange(trx, accountId, unlocked)) if (!rows.has(row.id)) rows.set(row.id, row);

  const book = new QuantityBook(rows, links);
  const movements: Movement[] = [];
  const cia = new Map<string, { stockIds: number[]; links: boolean }>();
  const queue = (reason: string, stockIds: number[], linked: boolean) => {
    const group = cia.get(reason) ?? { stockIds: [], links: false };
    group.stockIds.push(...stockIds);
    group.links ||= linked;
    cia.set(reason, group);
  };

  const results = changes.map((change, index): StockMoved | undefined => {
    const stockId = ids[index];
    const item = stockId === undefined ? undefined : rows.get(stockId);
    if (!item) return undefined;
    const { difference, cause } = change;
    const itself = change.parts?.length === 0;
    const subs = change.parts ? book.partsOf(item.id, change.parts) : item.set_type === 'main' ? book.subsOf(item.id) : [];
    if (!itself && (subs.length > 0 || change.parts)) {
      // A set is sold as its parts: each sub moves by difference times its quantity in the set
      // (or in the set as the line took it: change.parts); the main's own movement records its
      // derived available quantity before and after.
      const quantityOld = book.available(item.id);
      for (const link of subs) {
        const old = book.quantity(link.sub_id);
        const next = old + difference * link.quantity;
        checkBound(next, link.sub_id, change);
        book.setQuantity(link.sub_id, next);
        movements.push({ stockId: link.sub_id, quantityOld: old, quantityNew: next, cause });
      }
      const quantityNew = book.available(item.id);
      movements.push({ stockId: item.id, quantityOld, quantityNew, cause });
      queue(cause.title, [item.id, ...subs.map((l) => l.sub_id)], true);
      return { stockId: item.id, quantityOld, quantityNew };
    }
    const quantityOld = book.quantity(item.id);
    const quantityNew = quantityOld + difference;
    checkBound(quantityNew, item.id, change);
    book.setQuantity(item.id, quantityNew);
    movements.push({ stockId: item.id, quantityOld, quantityNew, cause });
    // Only a set sub has others to adjust (its set mains); a variant's main offers nothing (lib/cia).
    queue(cause.title, [item.id], item.set_type !== 'none');
    return { stockId: item.id, quantityOld, quantityNew };
  });

  const changed = book.changed();
  // Quantities and their own quantity_available in one statement; set mains after, when linked
  // (they read the new quantities: not deferred then).
  const linked = changed.some((c) => hasLinks(rows.get(c.id)!));
  await stockRepository.setQuantities(trx, accountId, changed, linked ? undefined : later);
  if (linked)
    await refreshSetMains(
      trx,
      accountId,
      changed.map((c) => c.id),
    );
  await writeMovements(trx, accountId, movements, later);
  await queueCiaAdjusts(
    trx,
    accountId,
    [...cia].map(([reason, group]) => ({ reason, ...group })),
    later,
  );
  return results;
}

/**
 * matchStockRefs, without its query when every reference is an ID_ one (order lines hold theirs
 * so): the lock that follows finds only the account's items, so an id naming none moves nothing,
 * as when matchStockRefs found none.
 */
async function resolveRefs(trx: Knex.Transaction, accountId: number, refs: string[]): Promise<Map<string, number[]>> {
  const direct = new Map<string, number[]>();
  for (const ref of refs) {
    const [match, ...more] = refMatches(ref, 'align');
    if (!match || more.length > 0 || match.column !== 'id' || !ref.trim().toUpperCase().startsWith('ID_')) return matchStockRefs(trx, accountId, refs, 'align');
    direct.set(ref, [match.value as number]);
  }
  return direct;
}

const hasLinks = (row: QuantityRow) => row.set_type !== 'none' || row.variation_type === 'sub';

/**
 * The locked rows as the changes go: quantities, and quantity_available as refreshAvailable
 * would store it after each change (stock-available.ts: own quantities; a set main follows its
 * subs, less its own reservations), so that the movements of a batch equal those of single
 * changes made one after another.
 */
class QuantityBook {
  private readonly quantities = new Map<number, number>();
  private readonly availables = new Map<number, number>();
  private readonly subs = new Map<number, SetLink[]>();
  private readonly mainsOfSub = new Map<number, number[]>();
  private readonly touched = new Set<number>();

  constructor(
    private readonly rows: Map<number, QuantityRow>,
    links: SetLink[],
  ) {
    for (const row of rows.values()) {
      this.quantities.set(row.id, row.quantity);
      this.availables.set(row.id, row.quantity_available);
    }
    for (const link of links) {
      this.subs.set(link.main_id, [...(this.subs.get(link.main_id) ?? []), link]);
      this.mainsOfSub.set(link.sub_id, [...(this.mainsOfSub.get(link.sub_id) ?? []), link.main_id]);
    }
  }

  /** The subs of a set main that exist (locked), by sub id. */
  subsOf(mainId: number): SetLink[] {
    return (this.subs.get(mainId) ?? []).filter((l) => this.rows.has(l.sub_id));
  }

  /** Recorded parts of a set main that exist (locked), as links. */
  partsOf(mainId: number, parts: SetPart[]): SetLink[] {
    return parts.filter((p) => this.rows.has(p.stock_id)).map((p) => ({ main_id: mainId, sub_id: p.stock_id, quantity: p.quantity }));
  }

  quantity(id: number): number {
    return this.quantities.get(id)!;
  }

  available(id: number): number {
    return this.availables.get(id)!;
  }

  setQuantity(id: number, quantity: number): void {
    const row = this.rows.get(id)!;
    this.touched.add(id);
    this.quantities.set(id, quantity);
    // A set main's available follows its subs, not its own quantity (moved by a line that took the item itself).
    if (this.subsOf(id).length === 0) this.availables.set(id, availableOf(quantity, row, row.auction_a_subtracted));
    // Set mains of the batch that hold this item follow it: what their subs give, less their own reservations.
    for (const mainId of this.mainsOfSub.get(id) ?? []) {
      const subs = this.subsOf(mainId);
      const main = this.rows.get(mainId)!;
      if (subs.length > 0)
        this.availables.set(
          mainId,
          availableOf(partsGive(subs.map((l) => ({ available: this.available(l.sub_id), quantity: l.quantity }))), main, main.auction_a_subtracted),
        );
    }
  }

  /** Items whose quantity the changes set, with their final quantity, in id order. */
  changed(): { id: number; quantity: number }[] {
    return [...this.touched].sort((a, b) => a - b).map((id) => ({ id, quantity: this.quantity(id) }));
  }
}
