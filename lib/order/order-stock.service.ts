/**
 * The stock link of order lines. Each stored line remembers how many units it holds out of its
 * stock item (stock_taken); every write brings that to the target (the line's quantity, or 0
 * while the order is cancelled or once it is deleted unshipped). A write settles its lines against
 * a StockBatch (a plan of the moves, the references checked) and the batch is applied once for all
 * the writes of a request through adjustStockQuantities, which locks the items, writes the
 * movements naming the orders and queues cia.adjust. A line records the parts of a set it took
 * (stock_taken_parts; [] when it took the item itself) and every later move of it goes by them
 * (planLineStock).
 */
import type { Knex } from 'knex';
import { domainError, invalidField } from '../errors';
import type { PendingWrites } from '../queue';
import { adjustStockQuantities, StockChange, matchAlignRefs, SetPart, stockIdOf } from '../stock';
import type { LineRow } from './order.repository';

/** A line about to be stored, before its stock link is settled. */
export type LineDraft = Omit<LineRow, 'stock_id' | 'stock_taken' | 'stock_taken_parts'>;

/** A move of an order write's stock, planned (settle) before its order has an id. */
export interface PlannedMove {
  /** The item, as an ID_<stock id> reference. */
  stockRef: string;
  difference: number;
  /** The movement's title. */
  title: string;
  /** A line takes from the item: it must still exist when the batch is applied. */
  take?: { field: string; ref: string | null };
  /** The parts its line recorded (StockChange.parts): a set's, or [] for the item itself. */
  parts?: SetPart[];
}

/** A planned move of a written order, held in its StockBatch until the batch is applied. */
interface HeldChange {
  change: StockChange;
  take?: PlannedMove['take'];
}

/**
 * The stock side of a batch of order writes (one POST order/, order/list/'s creates and updates,
 * a channel page): each write's lines are settled against it (their references checked, their
 * moves planned), the batch's writer holds the moves of each order it writes under that order's
 * id (OrderWrites.flush), and the caller applies it once, after the batch's orders are written:
 * stock items are the last locks of an order write (lib/order/README.md, lock order).
 */
export class StockBatch {
  private held: HeldChange[] = [];

  /**
   * known: references already resolved in the transaction (resolveLineRefs); settle adds what it
   * resolves. mains: the variation mains among the items found, which no line may take from.
   * sets: the parts of the set mains found, which a line taking from one records.
   */
  constructor(
    private readonly known = new Map<string, number[]>(),
    private readonly mains = new Set<number>(),
    private readonly sets = new Map<number, SetPart[]>(),
  ) {}

  /** A batch for these orders, their lines' stock_align_ids resolved in one query. */
  static async forOrders(trx: Knex.Transaction, accountId: number, inputs: { line?: { stock_align_id?: string }[] }[]): Promise<StockBatch> {
    const refs = inputs.flatMap((input) => (input.line ?? []).map((l) => l.stock_align_id?.trim()).filter((r): r is string => Boolean(r)));
    const { ids, mains, sets } = await matchAlignRefs(trx, accountId, refs);
    return new StockBatch(ids, mains, sets);
  }

  /**
   * The lines to store of an order write and its stock moves, the batch unchanged (hold adds the
   * moves once the order is written). `hold` is false while the order is cancelled: then no line
   * holds stock. A line whose stock_align_id names no item of the account is a 400 naming that
   * field, here, before anything of the order is written.
   */
  async settle(trx: Knex.Transaction, accountId: number, write: LineStockWrite): Promise<{ lines: LineRow[]; moves: PlannedMove[] }> {
    const plan = planLineStock(write);
    const unknown = plan.refs.filter((ref) => !this.known.has(ref));
    if (unknown.length > 0) {
      const { ids, mains, sets } = await matchAlignRefs(trx, accountId, unknown);
      for (const [ref, found] of ids) this.known.set(ref, found);
      for (const id of mains) this.mains.add(id);
      for (const [id, parts] of sets) this.sets.set(id, parts);
    }
    return { lines: plan.lines, moves: resolvePlan(plan, this.known, this.mains, this.sets, write.title) };
  }

  /** The moves of a written order, its movements naming it. */
  hold(orderId: string, moves: PlannedMove[]): void {
    for (const { take, ...move } of moves) {
      this.held.push({
        change: {
          stockRef: move.stockRef,
          difference: move.difference,
          cause: { title: move.title, orderId, personId: null },
          field: take?.field ?? 'order.line',
          ...(move.parts ? { parts: move.parts } : {}),
        },
        take,
      });
    }
  }

  /** A batch for one item of a list: it shares what is resolved, and joins this one only when adopted (the item succeeded). */
  forItem(): StockBatch {
    return new StockBatch(this.known, this.mains, this.sets);
  }

  adopt(item: StockBatch): void {
    this.held.push(...item.held);
    item.held = [];
  }

  /**
   * Applies the held changes as one batch in the caller's transaction (`later`: its writes join
   * those, PendingWrites). A line's item deleted since it was settled: a 400 naming the line.
   */
  async apply(trx: Knex.Transaction, accountId: number, later?: PendingWrites): Promise<void> {
    const held = this.held;
    this.held = [];
    const moved = await adjustStockQuantities(
      trx,
      accountId,
      held.map((h) => h.change),
      later,
    );
    const gone = held.find((h, i) => h.take && !moved[i]);
    if (gone) throw unknownItem(gone.take!.field, gone.take!.ref);
  }
}

/** One order write's lines as settle sees them. */
export interface LineStockWrite {
  before: LineRow[];
  after: LineDraft[];
  hold: boolean;
  /** The movements' title. */
  title: string;
  fieldPrefix: string;
  /** The line ids in the order the request sent them: a field names the line as the client wrote it (after is sorted by id). */
  sentOrder?: number[];
}

interface Move {
  stockRef: string;
  difference: number;
  line?: LineRow;
  field?: string;
  /** The parts the line recorded: the move goes by them, not by the set as it is now. */
  parts?: SetPart[];
  /** A take by a line that held nothing: it takes the item as it is now and records a set's parts (resolvePlan). */
  fresh?: boolean;
}

const idRef = (stockId: number) => `ID_${stockId}`;

/** A line naming an item the account does not have: 404 (document 1, Errors: a contained object with a given id). */
const unknownItem = (field: string, ref: string | null) => domainError('unknown_stock_item', `${field} ${ref} is not a stock item of this account`, { field });

/**
 * A line naming a variation main: the main's quantities are "invalid; variant values count"
 * (document 1), so a unit taken from it would leave every variant offered at every channel (sold
 * twice). The channel import links such a SKU to no item and asks the seller (lib/order-import).
 */
const variationMain = (field: string, ref: string | null) =>
  invalidField(field, `${field} ${ref} is a variation main, whose variants hold the stock: name the variant`);

/** What a write does to its lines' stock, before the references are resolved. */
interface LineStockPlan {
  lines: LineRow[];
  moves: Move[];
  /** Links that take nothing now (cancelled order, quantity 0) but must name a real item. */
  checks: { ref: string; field: string; line: LineRow }[];
  /** Every reference to resolve. */
  refs: string[];
}

/**
 * Each stored line remembers what it holds out of its item (stock_taken); a write brings that to
 * the target (the quantity, or 0 while the order is cancelled). A line kept on the same item moves
 * only its difference; lines dropped or moved to another item give theirs back.
 * A line of a set also remembers the parts one unit took (stock_taken_parts), and every move of
 * it goes by them while it holds stock, so a recomposed set gets back what the line took: more
 * units are more of what it sold, fewer give back those parts. A line that took the item itself
 * (no set then) records [] and moves the item's own quantity, even once the item is a set. A line
 * that holds nothing (new, un-cancelled, raised from 0, moved to another item) takes as a new sale
 * does, the item as it is now, and records that. A line that took stock before the record existed
 * (null while it holds stock) moves by the set as it is now, as it always did, until it holds nothing.
 */
function planLineStock({ before, after, hold, fieldPrefix, sentOrder }: LineStockWrite): LineStockPlan {
  const old = new Map(before.map((l) => [l.position, l]));
  const kept = new Set<number>();
  const moves: Move[] = [];
  const checks: LineStockPlan['checks'] = [];
  const lines: LineRow[] = [];

  for (const [index, draft] of after.entries()) {
    const ref = draft.stock_align_id?.trim() || null;
    const target = hold && ref ? draft.quantity : 0;
    const line: LineRow = { ...draft, stock_align_id: ref, stock_id: null, stock_taken: 0, stock_taken_parts: null };
    lines.push(line);
    if (!ref) continue;
    const sent = sentOrder?.indexOf(draft.position) ?? -1;
    const field = `${fieldPrefix}.line[${sent >= 0 ? sent : index}].stock_align_id`;
    const previous = old.get(draft.position);
    if (previous && previous.stock_id !== null && previous.stock_align_id === ref) {
      kept.add(previous.position);
      line.stock_id = previous.stock_id;
      line.stock_taken = target;
      if (previous.stock_taken === 0) {
        if (target > 0) moves.push({ stockRef: idRef(previous.stock_id), difference: -target, line, field, fresh: true });
        continue;
      }
      const parts = previous.stock_taken_parts ?? undefined;
      if (target > 0) line.stock_taken_parts = previous.stock_taken_parts;
      const difference = previous.stock_taken - target;
      if (difference !== 0) moves.push({ stockRef: idRef(previous.stock_id), difference, line, field, ...(parts ? { parts } : {}) });
      continue;
    }
    if (target > 0) {
      line.stock_taken = target;
      moves.push({ stockRef: ref, difference: -target, line, field, fresh: true });
    } else {
      checks.push({ ref, field, line });
    }
  }
  for (const previous of before) {
    if (!kept.has(previous.position) && previous.stock_id !== null && previous.stock_taken !== 0) {
      const parts = previous.stock_taken_parts ?? undefined;
      moves.push({ stockRef: idRef(previous.stock_id), difference: previous.stock_taken, ...(parts ? { parts } : {}) });
    }
  }
  // Put-backs first, then takes, each in a stable order: the movements keep this order.
  moves.sort((a, b) => Number(a.difference < 0) - Number(b.difference < 0) || a.stockRef.localeCompare(b.stockRef));
  return { lines, moves, checks, refs: [...checks.map((c) => c.ref), ...moves.map((m) => m.stockRef)] };
}

/**
 * The plan's moves with their items; the lines get their stock_id, and a line that takes a set
 * afresh the set's parts (sets). An unknown item a line names, or a variation main: 400. A
 * put-back to a set deleted meanwhile goes to the parts its line recorded (partsPutBack).
 */
function resolvePlan(plan: LineStockPlan, matches: Map<string, number[]>, mains: Set<number>, sets: Map<number, SetPart[]>, title: string): PlannedMove[] {
  for (const check of plan.checks) {
    const stockId = stockIdOf(check.ref, matches.get(check.ref), check.field);
    if (stockId === undefined) throw unknownItem(check.field, check.ref);
    if (mains.has(stockId)) throw variationMain(check.field, check.ref);
    check.line.stock_id = stockId;
  }
  const planned: PlannedMove[] = [];
  for (const move of plan.moves) {
    const stockId = stockIdOf(move.stockRef, matches.get(move.stockRef), move.field);
    const takes = move.line !== undefined && move.difference < 0;
    if (stockId === undefined) {
      if (takes) throw unknownItem(move.field!, move.line!.stock_align_id);
      planned.push(...partsPutBack(move, title));
      continue;
    }
    if (takes && mains.has(stockId)) throw variationMain(move.field!, move.line!.stock_align_id);
    if (takes) move.line!.stock_id = stockId;
    // A fresh take records what it took: the set's parts, or [] for the item itself (no set, or a
    // set without parts), so that a set made of the item later does not redirect its moves. The
    // move carries the same record, so record and moves agree even if the item changed since.
    const parts = move.fresh ? (sets.get(stockId) ?? []) : move.parts;
    if (move.fresh) move.line!.stock_taken_parts = parts ?? null;
    planned.push({
      stockRef: idRef(stockId),
      difference: move.difference,
      title,
      ...(takes ? { take: { field: move.field!, ref: move.line!.stock_align_id } } : {}),
      ...(parts ? { parts } : {}),
    });
  }
  return planned;
}

/**
 * A put-back to an item deleted meanwhile. A set's line recorded the parts it took, and they
 * outlive the set (lib/stock refuses to delete a part, not a set): each gets its share back as a
 * plain item, with its own movement; a part deleted too moves nothing (adjustStockQuantities
 * finds no item), as any deleted item's put-back. Anything else (a line that took the item itself,
 * recorded [], even if the item was a set when deleted; a set line older than the record) has
 * nowhere to go and is dropped. Before, a deleted set's parts stayed short of what the line took
 * for good. Each share is the part's own unit ([]): a part the seller has made a set since gets it
 * back itself, not its new parts.
 */
const partsPutBack = (move: Move, title: string): PlannedMove[] =>
  (move.parts ?? []).map((part) => ({ stockRef: idRef(part.stock_id), difference: move.difference * part.quantity, title, parts: [] }));
