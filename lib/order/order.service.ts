/**
 * The writes of orders, each in one transaction: a create is planned (order-plan.ts, over what
 * checkReferences and the batch read), then written by its batch's writer (OrderWrites) with its
 * stock (StockBatch); an update reads its order locked, plans and writes it; deletion and history.
 */
import type { Knex } from 'knex';
import type { OrderScope } from '../access';
import { linkCustomer } from '../customer';
import { inTransaction, transaction } from '../db';
import type { Warning } from '../errors';
import { domainError, invalidField, notFound } from '../errors';
import { checkIfMatch } from '../http';
import { PendingWrites } from '../queue';
import { cancelsAtChannel, queueChannelCancel } from './order-channel-cancel.service';
import { checkAddressCountries } from './order-country';
import { checkCurrency, checkPaymentMethod, checkPlatform } from './order-references';
import { checkAmount, fromCents, toCents } from './order-money';
import { orderPaymentRecords, ReleasedPayment } from './order-payment-records';
import { checkUnchangeable, planNewOrder, planOrderUpdate, transactionIds } from './order-plan';
import { PlannedMove, StockBatch } from './order-stock.service';
import { OrderWrites, WrittenOrder } from './order-writes';
import { LineRow, orderRepository, OrderRow } from './order.repository';
import type { OrderInput } from './order.type';

/** Who writes: the account, the orders its authorization covers, and the request's portal account (new orders get it). */
export interface OrderCaller extends OrderScope {
  portalAccountId: number | null;
}

/** A new order as a request gives it; path: where its fields sit in the request ('order', 'order[3]'), the prefix of their names in errors. */
export interface OrderCreate {
  input: OrderInput;
  path: string;
  /** The seller's own write (POST order/, order/list/, POST order/{order_id}/), not a channel's or send_mit's: a paid_amount it sets is set by hand. */
  byHand?: boolean;
}

/** A change of an order as a request gives it (path as in OrderCreate), and the warnings of its answer. */
export interface OrderChange extends OrderCreate {
  orderId: string;
  warnings: Warning[];
  /** Where the client wrote the order's id, named by a 404: the path's order_id (default), or order[n].id in order/list/. */
  idField?: string;
  /** The request's If-Match (POST order/{order_id}/): the change applies only to the state it names (README, conditional updates). */
  ifMatch?: string;
}

/**
 * The references an order's body names: credit.main_id (another order of the scope), currency,
 * payment method. On an update `current` is the stored order: it cannot be its own credit note's
 * main (a credit note is made from another order; as its own main it listed itself in its
 * credit.sub_id), and the main_id it already holds passes unchecked, so a credit note's read body
 * posts back as it is also when its main went before deletes cleared the link (orderRepository.delete).
 */
async function checkReferences(
  trx: Knex.Transaction,
  scope: OrderScope,
  input: OrderInput,
  prefix: string,
  current?: Pick<OrderRow, 'id' | 'credit_main_id'>,
): Promise<{ prepaid: boolean }> {
  const mainId = input.credit?.main_id;
  if (mainId && current && mainId === current.id) {
    throw invalidField(`${prefix}.credit.main_id`, `${prefix}.credit.main_id ${mainId} is this order: a credit note names the order it was made from`);
  }
  if (mainId && mainId !== current?.credit_main_id && !(await orderRepository.exists(trx, scope, mainId))) {
    // Document 1, Errors: a contained object with a given id that does not exist is a 404.
    throw domainError('unknown_order', `${prefix}.credit.main_id ${mainId} is not an order of this account`, { field: `${prefix}.credit.main_id` });
  }
  // Document 2: platform is the portal id the order was created at (FK), one of document 1's
  // naming table; send_mit reports the shipment to it. Any text was stored, so a typo
  // ('auction-a', 'Ebay') made an order no portal was ever told shipped, silently. Checked at
  // creation only: an update cannot change it (checkUnchangeable), so an order stored before
  // keeps its value. An order of no portal (entered by phone) is sent without one.
  // The lists' rules are order-references.ts, shared with event conditions on these fields.
  if (!current && input.platform !== undefined) checkPlatform(input.platform, `${prefix}.platform`);
  if (input.currency_id !== undefined) await checkCurrency(input.currency_id, `${prefix}.currency_id`);
  let prepaid = false;
  if (input.payment_method_id !== undefined) ({ prepaid } = await checkPaymentMethod(input.payment_method_id, `${prefix}.payment_method_id`));
  checkAmount(input.paid_amount, `${prefix}.paid_amount`);
  checkAmount(input.shipping?.fee, `${prefix}.shipping.fee`);
  // Its sign is read against the invoice after the write (order-paid.ts paidAmountSent, in the plan).
  return { prepaid };
}

/**
 * Plans a new order into `writes` (the batch's writer; outside a run of creates, OrderWrites.
 * startRun, it is a run of its own), its lines settled against the writer's StockBatch, writing
 * nothing: every rule that can refuse it does so here (a DomainError naming the field), so a
 * batch needs no savepoint per create. OrderWrites.flush numbers and inserts it; apply also
 * applies the StockBatch.
 */
export async function planOrderCreate(
  trx: Knex.Transaction,
  caller: OrderCaller,
  { input, path: prefix, byHand = false }: OrderCreate,
  writes: OrderWrites,
): Promise<void> {
  if (!writes.customers) await writes.startRun(trx, [input]);
  const { prepaid } = await checkReferences(trx, caller, input, prefix);
  const now = new Date();
  const plan = planNewOrder(input, prepaid, now, prefix, byHand);
  // Before the customer: an unknown item refuses the order before the run's book holds its buyer.
  const { lines, moves } = await writes.stock.settle(trx, caller.accountId, {
    before: [],
    after: plan.drafts,
    hold: plan.hold,
    title: 'order',
    fieldPrefix: prefix,
    sentOrder: input.line?.map((l) => l.id),
  });
  const customer = await linkCustomer(trx, caller, input.customer ?? {}, plan.columns.currency_id!, writes.customers);
  writes.addCreate({
    columns: {
      ...plan.columns,
      portal_account_id: caller.portalAccountId,
      customer_internal_id: customer.internalId,
      customer_number: customer.number,
      transaction_ids: transactionIds(lines),
    },
    lines,
    history: input.history ?? [],
    events: plan.events,
    at: now,
    moves,
    needsInvoiceNumber: plan.paid.needsInvoiceNumber,
  });
}

/**
 * One new order with its stock in the caller's transaction (POST order/, a channel order on its
 * own): its customer's contact data, lines, stock quantities and history, events and cia.adjust
 * jobs go as one statement at the end.
 */
export async function createOrderIn(trx: Knex.Transaction, caller: OrderCaller, input: OrderInput, byHand = false): Promise<WrittenOrder> {
  const writes = new OrderWrites(caller, await StockBatch.forOrders(trx, caller.accountId, [input]));
  await planOrderCreate(trx, caller, { input, path: 'order', byHand }, writes);
  const later = new PendingWrites();
  const [written] = await writes.apply(trx, later);
  await later.write(trx, caller.accountId);
  return written!;
}

/**
 * A conditional write's If-Match (README, conditional updates), checked under the order row's lock
 * the caller holds: no payment, channel change or other write can come between the check and the
 * write. 412 record_changed when the order no longer has the state the header names.
 */
const checkOrderIfMatch = (trx: Knex.Transaction, accountId: number, orderId: string, internalId: string, ifMatch: string | undefined) =>
  checkIfMatch(
    ifMatch,
    () => orderRepository.versionOf(trx, accountId, internalId),
    `order ${orderId} has changed since the state If-Match names (a payment, a channel or another client wrote it); read it again (GET order/${orderId}/ answers its ETag) and decide on what it holds now`,
  );

/**
 * Plans a change of an order into `writes` (its row read locked; 404 when it is not an order of
 * the account), the caller flushing the writer and applying its StockBatch (updateOneOrderIn: at
 * once). Answers whether the update cancelled it, and whether its channel then hears of it
 * (cancelsAtChannel): the seller's paths queue that in the same transaction (sellerCancelled),
 * the channel's own import does not.
 */
export async function updateOrderIn(
  trx: Knex.Transaction,
  caller: OrderCaller,
  { orderId, input, path: prefix, warnings, idField = 'order_id', ifMatch, byHand = false }: OrderChange,
  writes: OrderWrites,
): Promise<{ cancelledAtChannel: boolean }> {
  const { accountId } = caller;
  // The lock order of every order write (README): the invoice counter before the order row, when
  // the update may make the order paid or bring its invoice back to 0.00 at paid_amount 0.00.
  // Taken after the row, it deadlocked with order/list/ and bank matches.
  await writes.lockInvoiceFor(trx, orderId, input);
  const current = await orderRepository.getForUpdate(trx, caller, orderId);
  if (!current) throw notFound(`order ${orderId}`, idField);
  await checkOrderIfMatch(trx, accountId, orderId, current.internal_id, ifMatch);
  checkUnchangeable(input, current, prefix);
  const { prepaid } = await checkReferences(trx, caller, input, prefix, current);
  const before = await orderRepository.lines(trx, current.internal_id);
  const now = new Date();
  const plan = planOrderUpdate(current, before, input, prepaid, now, prefix, byHand);
  warnings.push(...plan.warnings);
  const { columns } = plan;
  if (input.customer) {
    // Locks in the order creates take them too (counters, customer, stock), so writes never deadlock each other.
    if (plan.paid.needsInvoiceNumber) await writes.lockInvoice(trx);
    const changesCustomer = input.customer.id !== undefined && input.customer.id !== current.customer_number;
    const customer = await linkCustomer(
      trx,
      caller,
      changesCustomer ? input.customer : { ...input.customer, ...(current.customer_number !== null ? { id: current.customer_number } : {}) },
      columns.currency_id ?? current.currency_id,
    );
    columns.customer_internal_id = customer.internalId;
    columns.customer_number = customer.number;
  }
  let settled: { lines: LineRow[]; moves: PlannedMove[] } | undefined;
  if (plan.lines) {
    const { drafts, hold, title } = plan.lines;
    settled = await writes.stock.settle(trx, accountId, { before, after: drafts, hold, title, fieldPrefix: prefix, sentOrder: input.line?.map((l) => l.id) });
    columns.transaction_ids = transactionIds(settled.lines);
  }
  writes.addUpdate({
    orderId,
    internalId: current.internal_id,
    columns,
    ...(settled ? { lines: settled.lines } : {}),
    history: plan.history,
    events: plan.events,
    at: now,
    moves: settled?.moves ?? [],
    needsInvoiceNumber: plan.paid.needsInvoiceNumber,
  });
  return { cancelledAtChannel: plan.cancels && cancelsAtChannel(current) };
}

/** After a seller's update (POST order/{order_id}/, order/list/): a cancellation of a Shopify or Kaufland order is sent there. */
export async function sellerCancelled(trx: Knex.Transaction, accountId: number, orderId: string, update: { cancelledAtChannel: boolean }): Promise<void> {
  if (update.cancelledAtChannel) await queueChannelCancel(trx, accountId, orderId);
}

/**
 * An update with its stock applied at once (a seller's POST order/{order_id}/, a channel's change,
 * send_mit); its lines, events, stock quantities, history and cia.adjust go as one statement at the end.
 */
export async function updateOneOrderIn(
  trx: Knex.Transaction,
  caller: OrderCaller,
  orderId: string,
  input: OrderInput,
  warnings: Warning[],
  ifMatch?: string,
  byHand = false,
): Promise<{ cancelledAtChannel: boolean }> {
  const writes = new OrderWrites(caller, new StockBatch());
  const update = await updateOrderIn(trx, caller, { orderId, input, path: 'order', warnings, ifMatch, byHand }, writes);
  const later = new PendingWrites();
  await writes.apply(trx, later);
  await later.write(trx, caller.accountId);
  return update;
}

/** POST order/: one order in one transaction. */
export async function createOrder(caller: OrderCaller, input: OrderInput): Promise<string> {
  await checkAddressCountries(input, 'order');
  return (await inTransaction((trx) => createOrderIn(trx, caller, input, true), caller.requestId)).id;
}

/** POST order/{order_id}/: one update in one transaction; with If-Match only of the order's state it names. */
export async function updateOrder(caller: OrderCaller, orderId: string, input: OrderInput, warnings: Warning[], ifMatch?: string): Promise<void> {
  await checkAddressCountries(input, 'order');
  // A retry must not repeat the warnings of the failed attempt.
  return inTransaction(async (trx) => {
    const attempt: Warning[] = [];
    await sellerCancelled(trx, caller.accountId, orderId, await updateOneOrderIn(trx, caller, orderId, input, attempt, ifMatch, true));
    warnings.push(...attempt);
  }, caller.requestId);
}

/**
 * The warning of a delete that gave payments back to the unassigned records (README, "Deleting a
 * paid order"): the money per currency and the records, and the invoice number that stays used.
 */
function paymentsReleased(orderId: string, released: ReleasedPayment[], invoiceNumber: string | null): Warning[] {
  const money = released.filter((r) => !r.reversed);
  if (!money.length) return [];
  const sums = new Map<string, bigint>();
  for (const r of money) sums.set(r.currency, (sums.get(r.currency) ?? 0n) + toCents(r.amount));
  const amount = [...sums].map(([currency, cents]) => `${fromCents(cents)} ${currency}`).join(' and ');
  const invoice = invoiceNumber === null ? '' : `; its invoice number ${invoiceNumber} stays used (numbers are never given twice)`;
  return [
    {
      warning: 'payment_unassigned',
      code: 200,
      description: `order ${orderId} was deleted with payments of ${amount} assigned to it (${money.map((r) => r.id).join(', ')}): they went back to the unassigned records (unassigned_reason order_deleted; GET bank/transfer/ or bank/payment_provider/ with filter[is_assigned]=0) to be assigned again${invoice}`,
    },
  ];
}

/**
 * DELETE order/{order_id}/: the lines' stock goes back unless the order was shipped (the goods
 * are gone); a cancelled order holds none any more. With If-Match only of the order's state it
 * names. The bank records assigned to it go back to the unassigned ones (lib/bank, locked before
 * the order's row as the bank locks them), and the answer warns of the money.
 */
export async function deleteOrder(scope: OrderScope, orderId: string, warnings: Warning[], ifMatch?: string): Promise<void> {
  const { accountId } = scope;
  const records = orderPaymentRecords();
  // A retry must not repeat the warnings of the failed attempt.
  const attempt = await inTransaction(async (trx) => {
    await records.lockOf(trx, accountId, orderId);
    const current = await orderRepository.getForUpdate(trx, scope, orderId);
    if (!current) throw notFound(`order ${orderId}`, 'order_id');
    // A delete based on a read: refused when a payment, a channel or another client wrote the order since.
    await checkOrderIfMatch(trx, accountId, orderId, current.internal_id, ifMatch);
    // After the row's lock: also a record a match assigned while this delete waited for it.
    const released = await records.releaseOf(trx, accountId, orderId);
    if (!current.is_shipped) {
      const stock = new StockBatch();
      const before = await orderRepository.lines(trx, current.internal_id);
      const { moves } = await stock.settle(trx, accountId, { before, after: [], hold: false, title: 'order deleted', fieldPrefix: 'order' });
      stock.hold(orderId, moves);
      await stock.apply(trx, accountId);
    }
    await orderRepository.delete(trx, accountId, current.internal_id);
    return paymentsReleased(orderId, released, current.invoice_number);
  }, scope.requestId);
  warnings.push(...attempt);
}

/** POST order/{order_id}/history/: appends one entry. */
export function appendHistory(scope: OrderScope, orderId: string, text: string): Promise<void> {
  return transaction(async (trx) => {
    const current = await orderRepository.getForUpdate(trx, scope, orderId);
    if (!current) throw notFound(`order ${orderId}`, 'order_id');
    await orderRepository.addHistory(trx, current.internal_id, [text]);
  }, scope.requestId);
}
