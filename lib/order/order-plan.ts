/**
 * What a write does to an order, as pure functions of what was read (document 1, Order status
 * flags; document 2, Order_type): the columns a create or an update sets, its lines, status flags
 * and their dates, the paid state (order-paid.ts) and the events. order.service.ts reads what they
 * need and applies what they plan.
 */
import { invalidField, type Warning } from '../errors';
import { checkAmount, fromCents, invoiceAmount, toCents } from './order-money';
import { paidAmountSent, paidBeyond, planPaid, type PaidPlan } from './order-paid';
import type { LineDraft } from './order-stock.service';
import type { EventType } from './order-writes';
import type { LineRow, OrderColumns, OrderRow } from './order.repository';
import type { OrderInput, StatusFlag } from './order.type';

/** Flags with their read-only date column (document 1). is_paid is handled with paid_amount. */
const datedFlags: [Exclude<StatusFlag, 'is_paid'>, keyof OrderRow | null][] = [
  ['is_initial_contact', 'initial_contact_date'],
  ['is_checkout', null],
  ['is_packed', 'packed_date'],
  ['is_shipped', 'shipped_date'],
  ['is_arrived', 'arrived_date'],
  ['is_cancelled', 'cancelled_date'],
  ['is_parked', null],
];

const flagEvents: Partial<Record<StatusFlag, EventType>> = { is_packed: 'packed', is_shipped: 'shipped', is_cancelled: 'cancelled' };

function lineDrafts(input: OrderInput, prefix: string): LineDraft[] {
  const lines = input.line ?? [];
  const seen = new Set<number>();
  lines.forEach((line, i) => {
    if (seen.has(line.id))
      throw invalidField(
        `${prefix}.line[${i}].id`,
        `${prefix}.line[${i}].id ${line.id} is given twice; each line needs its own position id`,
        'duplicate_line_id',
      );
    seen.add(line.id);
    checkAmount(line.price, `${prefix}.line[${i}].price`);
    checkAmount(line.tax, `${prefix}.line[${i}].tax`, 6);
  });
  return [...lines]
    .sort((a, b) => a.id - b.id)
    .map((l) => ({
      position: l.id,
      name: l.name ?? null,
      sku: l.sku ?? null,
      quantity: l.quantity ?? 1,
      price: l.price ?? null,
      tax: l.tax ?? null,
      transaction_id: l.transaction_id ?? null,
      stock_align_id: l.stock_align_id ?? null,
    }));
}

/** Fields of the input that map one to one onto columns. */
function plainColumns(input: OrderInput, current?: OrderRow): Partial<OrderColumns> {
  const columns: Partial<OrderColumns> = {};
  for (const key of [
    'platform',
    'infos',
    'pack_infos',
    'hidden_infos',
    'payment_method_id',
    'currency_id',
    'payment_provider_transaction_id',
    'external_order_id',
  ] as const) {
    if (input[key] !== undefined) columns[key] = input[key];
  }
  if (input.current_date !== undefined) columns.order_date = input.current_date;
  if (input.add_field !== undefined) columns.add_field = input.add_field;
  if (input.credit?.main_id !== undefined) columns.credit_main_id = input.credit.main_id || null;
  if (input.shipping) {
    const { fee, ...rest } = input.shipping;
    if (fee !== undefined) columns.shipping_fee = fee;
    columns.shipping = { ...(current?.shipping ?? {}), ...rest };
  }
  if (input.customer) {
    const { id: _id, username, email, ...rest } = input.customer;
    if (username !== undefined) columns.customer_username = username;
    if (email !== undefined) columns.customer_email = email;
    columns.customer = { ...(current?.customer ?? {}), ...rest };
  }
  return columns;
}

/**
 * The flags a write sets: is_arrived true without is_shipped also ships the order (clients send
 * `{"is_arrived":1}` alone; an arrived order has been shipped). An explicit is_shipped false stays
 * a contradiction for applyStatus to refuse.
 */
function sentFlags(input: OrderInput): { flags: OrderInput['status']; shipImplied: boolean } {
  const status = input.status;
  const shipImplied = status?.is_arrived === true && status.is_shipped === undefined;
  return { flags: shipImplied ? { ...status, is_shipped: true } : status, shipImplied };
}

/**
 * Status flags after this write, with their dates: a date is set when its flag becomes true and
 * cleared when it becomes false. Combinations document 1 leaves open are decided here (see
 * ARCHITECTURE.md): a cancelled order cannot be shipped and a shipped one cannot be cancelled;
 * an arrived order must be shipped (is_arrived alone ships it).
 */
function applyStatus(input: OrderInput, current: OrderRow | undefined, now: Date, prefix: string) {
  const columns: Partial<OrderColumns> = {};
  const became = new Set<StatusFlag>();
  const next = {} as Record<Exclude<StatusFlag, 'is_paid'>, boolean>;
  const { flags, shipImplied } = sentFlags(input);
  for (const [flag, dateColumn] of datedFlags) {
    const before = current?.[flag] ?? false;
    const after = flags?.[flag] ?? before;
    next[flag] = after;
    if (after === before && current) continue;
    columns[flag] = after;
    if (after && !before) became.add(flag);
    if (dateColumn) (columns as Record<string, unknown>)[dateColumn] = after ? now : null;
  }
  const field = (flag: StatusFlag) => `${prefix}.status.${flag}`;
  if (next.is_shipped && next.is_cancelled) {
    // A shipment implied by is_arrived is named by the flag the client sent.
    const at = became.has('is_cancelled') && !became.has('is_shipped') ? 'is_cancelled' : shipImplied ? 'is_arrived' : 'is_shipped';
    throw invalidField(
      field(at),
      at === 'is_cancelled'
        ? `${field(at)}: a shipped order cannot be cancelled; unset is_shipped first`
        : `${field(at)}: a cancelled order cannot be shipped; unset is_cancelled first`,
      'status_conflict',
    );
  }
  if (next.is_arrived && !next.is_shipped) {
    const at = input.status?.is_shipped === false ? 'is_shipped' : 'is_arrived';
    throw invalidField(field(at), `${field(at)}: an arrived order must be shipped`, 'status_conflict');
  }
  return { columns, became, cancelled: next.is_cancelled };
}

/**
 * Values an update cannot change. platform: document 1 (States, rule 4) "cannot be changed after
 * creation" and document 2 "not changeable later", so an order created without one keeps none (a
 * first value later is a change too). payment_provider_transaction_id (document 2 "cannot be
 * changed later"): set once, while empty, since a payment may arrive after the order.
 */
export function checkUnchangeable(input: OrderInput, current: OrderRow, prefix: string): void {
  const { platform } = input;
  if (platform !== undefined && platform !== current.platform) {
    const now = current.platform === null ? 'the order was created without one' : `it is ${current.platform}`;
    throw invalidField(`${prefix}.platform`, `${prefix}.platform cannot be changed after the order is created (${now})`, 'not_changeable');
  }
  const sent = input.payment_provider_transaction_id;
  if (sent !== undefined && current.payment_provider_transaction_id !== null && current.payment_provider_transaction_id !== sent) {
    throw invalidField(
      `${prefix}.payment_provider_transaction_id`,
      `${prefix}.payment_provider_transaction_id cannot be changed once set (it is ${current.payment_provider_transaction_id})`,
      'not_changeable',
    );
  }
  // Money booked or an invoice issued is in the order's currency: bank records keep theirs, and a
  // reversal or refund of that money must find the order in it (lib/order/README.md, currency).
  const currency = input.currency_id;
  // A credit order's refund (below 0.00) is money booked too: it went out in the order's currency.
  const booked = toCents(current.paid_amount ?? '0.00') !== 0n;
  if (currency !== undefined && currency !== current.currency_id && (booked || current.invoice_number !== null)) {
    throw invalidField(
      `${prefix}.currency_id`,
      `${prefix}.currency_id cannot be changed once ${booked ? `money is booked on the order (paid_amount ${current.paid_amount} ${current.currency_id})` : `the order has invoice number ${current.invoice_number}`}; it stays ${current.currency_id}`,
      'not_changeable',
    );
  }
  const isPaid = input.status?.is_paid;
  if (isPaid !== undefined && isPaid !== current.is_paid) {
    throw invalidField(
      `${prefix}.status.is_paid`,
      `${prefix}.status.is_paid can be set only when the order is created; set paid_amount instead`,
      'not_changeable',
    );
  }
}

/** A new order as planned: its columns but the customer's and the lines' stock link. */
export interface NewOrderPlan {
  columns: Partial<OrderColumns>;
  drafts: LineDraft[];
  /** false while the order is cancelled: then no line holds stock. */
  hold: boolean;
  paid: PaidPlan;
  events: EventType[];
}

/**
 * A create: `prepaid` is whether its payment method is prepaid (read by the caller). `byHand`: the
 * seller's create (POST order/, order/list/), whose paid_amount above 0.00 is stamped
 * paid_by_hand_at as an update's is (planOrderUpdate), with that amount as paid_by_hand_amount:
 * money the seller saw arrive before the order.
 */
export function planNewOrder(input: OrderInput, prepaid: boolean, now: Date, prefix: string, byHand = false): NewOrderPlan {
  const drafts = lineDrafts(input, prefix);
  const status = applyStatus(input, undefined, now, prefix);
  const invoice = invoiceAmount(drafts, input.shipping?.fee ?? null, `${prefix}.line`);
  const sent = input.paid_amount !== undefined ? paidAmountSent(input.paid_amount, invoice, null, `${prefix}.paid_amount`) : undefined;
  // is_paid at creation, or a prepaid payment method, without paid_amount: paid in full.
  const paid = planPaid(
    undefined,
    sent !== undefined ? { paidAmount: sent } : input.status?.is_paid || prepaid ? { inFullOf: invoice } : { paidAmount: null },
    invoice,
    now,
  );
  const columns: Partial<OrderColumns> = {
    ...plainColumns(input),
    ...status.columns,
    currency_id: input.currency_id ?? 'EUR',
    invoice_amount: invoice,
    ...paid.columns,
  };
  if (byHand && sent !== undefined && toCents(sent) > 0n) {
    columns.paid_by_hand_at = now;
    columns.paid_by_hand_amount = sent;
  }
  const events: EventType[] = ['created'];
  if (paid.becamePaid) events.push('paid');
  if (paid.becamePaidInFull) events.push('paid_in_full');
  events.push(...statusEvents(status.became));
  return { columns, drafts, hold: !status.cancelled, paid, events };
}

/**
 * The money the seller has booked by hand after a write that changed paid_amount by `rise`: it
 * only grows (a lowered paid_amount books nothing), read by bookedByHand (order-paid-by-hand.ts).
 * An order stamped before it was kept starts at 0.00.
 */
function handAmount(current: OrderRow, rise: bigint): string {
  return fromCents(toCents(current.paid_by_hand_amount ?? '0.00') + (rise > 0n ? rise : 0n));
}

/** An update as planned: its columns but the customer's, and its lines' stock when they change. */
export interface OrderUpdatePlan {
  columns: Partial<OrderColumns>;
  warnings: Warning[];
  paid: PaidPlan;
  /** History entries of the write (a paid_amount set by hand). */
  history: string[];
  /** The lines after the update and the movements' title, when the lines or their hold change. */
  lines?: { drafts: LineDraft[]; hold: boolean; title: string };
  events: EventType[];
  /** The update cancels the order. */
  cancels: boolean;
}

/**
 * An update of `current` (lines `before`); `prepaid` as for planNewOrder. `byHand`: the seller's
 * write (POST order/{order_id}/, order/list/), not a channel's or send_mit's: a paid_amount it
 * changes is stamped (paid_by_hand_at, read by lib/bank's matching) and noted in the history.
 */
export function planOrderUpdate(
  current: OrderRow,
  before: LineRow[],
  input: OrderInput,
  prepaid: boolean,
  now: Date,
  prefix: string,
  byHand = false,
): OrderUpdatePlan {
  const warnings: Warning[] = [];
  if (input.history !== undefined) {
    warnings.push({
      warning: 'read_only_field',
      code: 200,
      field: `${prefix}.history`,
      description: `${prefix}.history is written only when the order is created and was ignored; append entries with POST order/${current.id}/history/`,
    });
  }
  const status = applyStatus(input, current, now, prefix);
  const columns: Partial<OrderColumns> = { ...plainColumns(input, current), ...status.columns };
  const drafts = input.line !== undefined ? lineDrafts(input, prefix) : before;
  const invoice = invoiceAmount(drafts, columns.shipping_fee !== undefined ? columns.shipping_fee : current.shipping_fee, `${prefix}.line`);
  columns.invoice_amount = invoice;
  // A prepaid payment method chosen now makes an unpaid order paid in full, unless paid_amount is sent.
  const choosesPrepaid = prepaid && !current.is_paid && input.payment_method_id !== current.payment_method_id;
  const sent = input.paid_amount !== undefined ? paidAmountSent(input.paid_amount, invoice, current.paid_amount, `${prefix}.paid_amount`) : undefined;
  const paid = planPaid(current, sent !== undefined ? { paidAmount: sent } : choosesPrepaid ? { inFullOf: invoice } : undefined, invoice, now);
  Object.assign(columns, paid.columns);
  const history: string[] = [];
  const was = current.paid_amount ?? '0.00';
  if (byHand && sent !== undefined && toCents(sent) !== toCents(was)) {
    columns.paid_by_hand_at = now;
    columns.paid_by_hand_amount = handAmount(current, toCents(sent) - toCents(was));
    history.push(`paid_amount set to ${sent} by hand (was ${fromCents(toCents(was))})`);
  }
  if (paid.followsInvoice) {
    // The seller did not touch paid_amount: the history and the answer say why the state moved.
    const at = `invoice amount ${fromCents(toCents(current.invoice_amount))} -> ${invoice} at paid_amount ${fromCents(toCents(was))}`;
    history.push(`${paid.isPaid ? 'paid' : 'unpaid'}: ${at}`);
    if (!paid.isPaid) warnings.push(notPaid(prefix, at, current.currency_id));
  }
  const back = paidBeyond(columns.paid_amount !== undefined ? columns.paid_amount : current.paid_amount, invoice, status.cancelled);
  if (back > 0n) warnings.push(overpaid(prefix, back, current.currency_id, status.cancelled, invoice));
  const holdChanges = status.cancelled !== current.is_cancelled;
  const lines =
    input.line !== undefined || holdChanges
      ? {
          drafts,
          hold: !status.cancelled,
          title: holdChanges ? (status.cancelled ? 'order cancelled' : 'order cancellation undone') : 'order changed',
        }
      : undefined;
  const events: EventType[] = [];
  if (paid.becamePaid) events.push('paid');
  if (paid.becamePaidInFull) events.push('paid_in_full');
  events.push(...statusEvents(status.became), 'changed');
  return { columns, warnings, paid, history, lines, events, cancels: status.became.has('is_cancelled') };
}

/**
 * The warning of a write after which the order holds money beyond its invoice (paidBeyond;
 * lib/order/README.md, paid_amount by hand): to give back to the buyer, or on a credit order
 * refunded beyond its credit to claim back from them.
 */
function overpaid(prefix: string, back: bigint, currency: string, cancelled: boolean, invoice: string): Warning {
  const field = `${prefix}.paid_amount`;
  const money = `${fromCents(back)} ${currency}`;
  let description = `${cancelled ? 'the order is cancelled' : `${field} exceeds invoice_amount ${invoice}`}: ${money} are to be given back to the buyer; set paid_amount to what the order keeps once refunded`;
  if (toCents(invoice) < 0n) {
    const why = cancelled
      ? `the credit order is cancelled: ${money} refunded on it are`
      : `${field} refunds ${money} more than invoice_amount ${invoice}, which are`;
    description = `${why} to be claimed back from the buyer; set paid_amount to what the buyer keeps once settled`;
  }
  return { warning: 'overpaid', code: 200, field, description };
}

/** The warning of a write whose new invoice amount left the order unpaid at paid_amount 0.00 (lib/order/README.md, paid_amount). */
function notPaid(prefix: string, at: string, currency: string): Warning {
  return {
    warning: 'not_paid',
    code: 200,
    field: `${prefix}.paid_amount`,
    description: `the order is no longer paid (${at} ${currency}): 0.00 pays only an invoice of 0.00; set paid_amount once the buyer has paid`,
  };
}

const statusEvents = (became: Set<StatusFlag>): EventType[] => [...became].flatMap((flag) => (flagEvents[flag] ? [flagEvents[flag]] : []));

/** The transaction ids of the lines, once each (the order's transaction_ids). */
export const transactionIds = (lines: { transaction_id: string | null }[]) => [
  ...new Set(lines.map((l) => l.transaction_id).filter((t): t is string => Boolean(t))),
];
