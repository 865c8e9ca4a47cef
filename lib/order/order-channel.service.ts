/**
 * Orders that come from a real channel (lib/order-import): created through planOrderCreate like
 * POST order/ (stock taken, CIA, events), and afterwards moved only by what the channel changed
 * of them: payment, cancellation, shipment, units the channel took out of a line, each by the
 * orders' own rules (updateOrderIn: stock back on cancel and for a smaller line, paid event,
 * invoice number), with a history entry saying it came from the channel.
 */
import type { Knex } from 'knex';
import { DomainError, Warning } from '../errors';
import { fromCents, invoiceAmount, toCents } from './order-money';
import { StockBatch } from './order-stock.service';
import { OrderWrites, WrittenOrder } from './order-writes';
import { createOrderIn, OrderCaller, planOrderCreate, updateOneOrderIn } from './order.service';
import { LineRow, OrderRow, orderRepository } from './order.repository';
import type { OrderAddress, OrderInput, OrderLineInput } from './order.type';

/** What a channel reports changed of an order since the previous fetch. */
export interface ChannelChange {
  paid_amount?: string;
  is_shipped?: boolean;
  is_cancelled?: boolean;
  /** The order's data the channel completed or changed since (an Amazon order leaving Pending gets its prices and address). */
  details?: ChannelDetails;
  /**
   * Lines whose quantity the channel changed since (units an order edit removed, an item it
   * cancelled), by transaction_id: the Kontor line takes the quantity, so the difference of stock
   * moves (back, for fewer units), unless the order is shipped here (the goods left).
   */
  line_quantity?: { transaction_id: string; quantity: number; returned?: number }[];
  /**
   * The shipping fee, lower since: shipping the channel gave back (a refund of the shipping). The
   * order's fee takes it, so invoice_amount follows the payment, unless the order is shipped here
   * (the seller's credit note, as for line_quantity); the details, when applied, carry it already.
   */
  shipping_fee?: string;
  /** What the channel tells the seller once (a buyer's cancellation request): added to the change's history entry. */
  notes?: string[];
  /**
   * The channel ships the order from its own warehouse since (eBay's fulfilment program, shown only
   * once the order is paid): its lines are unlinked, so the stock they took goes back, as for an
   * order imported so (unlinked lines). `market_d_fba` for an Amazon order; `only_if_linked`: only
   * when a line still takes stock (a channel state kept before this was: an order imported so has none).
   */
  fulfilled_by_channel?: { market_d_fba?: { country_iso2: string | null; center_id: string | null }; only_if_linked?: boolean };
  /**
   * The channel's payment reference, which it may name only once the buyer paid (eBay's
   * Payment.paymentReferenceId: "only returned if payment has been made by the buyer, and the
   * paymentMethod is ESCROW"): an order first imported unpaid takes it on the update that pays it.
   * Only an order without one takes it (document 2: it cannot be changed once set).
   */
  payment_provider_transaction_id?: string;
  /**
   * The channel says the buyer paid since and names no amount (Amazon without OrderProceeds.grandTotal,
   * a cash-on-delivery order delivered): an unpaid order is paid its invoice amount as the change
   * leaves it, as a new order in that shape is (is_paid at creation), through the same paid rule
   * (planPaid); not one whose lines are still 0.00 (withPayment).
   */
  paid_in_full?: boolean;
  /**
   * Lines the channel gave a fulfilment app since, which ships them from the stock it keeps (a
   * Shopify line the store moved to a 3PL's location after the import), by transaction_id with the
   * app's name: each is unlinked, so the stock it took goes back, as for a line imported so
   * (lib/order-import README "Lines a fulfilment app ships"). `only_if_linked`: told only when the
   * line still takes stock (a channel state kept before these were: a line imported so has none).
   */
  app_lines?: { transaction_id: string; app: string; only_if_linked?: boolean }[];
  /**
   * Lines given an app before (app_lines) that the channel gives back to the seller (a Shopify
   * fulfillment order moved back to the seller's location), with the stock item the line's SKU
   * names (null: none or several): each is linked again, so it takes its stock, once
   * (lib/order-import "Lines a fulfilment app ships").
   */
  seller_lines?: { transaction_id: string; stock_id: number | null }[];
  /**
   * The currency of the channel's amounts (paid_amount, details). Where it is not the order's, the
   * amounts are not applied and the seller is told (sameCurrency): a Shopify order imported in the
   * shop's currency before the import read the buyer's (lib/portals/README.md "The buyer's
   * currency") would otherwise get the buyer's CHF amounts on its EUR lines and payment.
   */
  currency_id?: string;
}

/**
 * Told of an order the channel fulfils (Amazon FBA, eBay fulfilment, fulfilled by Kaufland), at its
 * import or once the channel says so: the order is paid and unshipped until the channel ships it,
 * and a seller reading only that would ship it a second time from the warehouse.
 */
export const channelFulfilmentNote = 'the channel ships this order from its own warehouse; its lines take no stock here, do not ship it';

/**
 * The data of an order a channel may give only later: each line's unit price (and tax) by its
 * transaction_id, the shipping fee and address, the buyer's address and contact.
 */
export interface ChannelDetails {
  line: { transaction_id: string; price: string; tax?: string }[];
  shipping: { fee?: string; address: OrderAddress };
  customer: { email?: string; phone_1?: string; address: OrderAddress };
  /**
   * The channel shipped or cancelled the order and may have stopped showing its contact (Amazon
   * suppresses the buyer's phone and address after shipment): an address field, e-mail or phone it
   * does not show keeps the order's, not blanked. Else the addresses are the channel's as given.
   */
  keep_unshown?: boolean;
}

/** Creates the order of a channel order in the caller's transaction; its id and internal id. */
export async function createChannelOrderIn(trx: Knex.Transaction, caller: OrderCaller, input: OrderInput): Promise<{ orderId: string; internalId: string }> {
  const written = await createOrderIn(trx, caller, input);
  return { orderId: written.id, internalId: written.internalId };
}

/** Per input of createChannelOrdersIn: the order written, or the rule that refused it (nothing of it was written). */
export type ChannelCreate = { written: WrittenOrder } | { refused: DomainError };

/**
 * Creates the orders of a page of channel orders in the caller's transaction, set-based like a
 * run of creates of POST order/list/ (OrderWrites): each is checked and prepared (a rule that
 * refuses it does so before its first write, so it needs no savepoint and the others go on),
 * then all are numbered and inserted with one statement per table, and their stock changes run
 * as one batch. A failure only the database finds (a set-based statement, an item gone under the
 * stock batch) throws: the caller rolls the transaction back and creates them one by one
 * (createChannelOrderIn), which isolates the order it concerns.
 */
export async function createChannelOrdersIn(trx: Knex.Transaction, caller: OrderCaller, inputs: OrderInput[]): Promise<ChannelCreate[]> {
  const { accountId } = caller;
  const stock = await StockBatch.forOrders(trx, accountId, inputs);
  const writes = new OrderWrites(caller, stock);
  await writes.startRun(trx, inputs);
  const prepared: (DomainError | undefined)[] = [];
  for (const input of inputs) {
    try {
      await planOrderCreate(trx, caller, { input, path: 'order' }, writes);
      prepared.push(undefined);
    } catch (err) {
      // Anything but a rule's refusal may have written half an order: the caller goes one by one.
      if (!(err instanceof DomainError)) throw err;
      prepared.push(err);
    }
  }
  const written = await writes.apply(trx);
  let next = 0;
  return prepared.map((refused) => (refused ? { refused } : { written: written[next++]! }));
}

/**
 * The part of a change the order can take: a shipped order is not cancelled by the channel (goods
 * left: a credit note). The payment is decided once the lines are known (withPayment); its note goes
 * at `paidAt`, after the payment reference and before the status.
 */
function effective(
  current: { is_shipped: boolean; is_cancelled: boolean; payment_provider_transaction_id: string | null },
  change: ChannelChange,
): { input: OrderInput; notes: string[]; paidAt: number } {
  const input: OrderInput = {};
  const notes: string[] = [];
  const reference = change.payment_provider_transaction_id;
  if (reference && current.payment_provider_transaction_id === null) {
    input.payment_provider_transaction_id = reference;
    notes.push(`payment reference ${reference}`);
  }
  const paidAt = notes.length;
  const status: NonNullable<OrderInput['status']> = {};
  let cancelled = current.is_cancelled;
  if (change.is_cancelled !== undefined && change.is_cancelled !== current.is_cancelled) {
    if (change.is_cancelled && current.is_shipped) notes.push('cancelled at the channel, but the order is shipped here: make a credit note');
    else {
      status.is_cancelled = change.is_cancelled;
      cancelled = change.is_cancelled;
      notes.push(change.is_cancelled ? 'cancelled' : 'cancellation undone');
    }
  }
  // Shipping only ever moves forward from the channel: Kontor itself may have shipped the order (send_mit).
  if (change.is_shipped === true && !current.is_shipped && !cancelled) {
    status.is_shipped = true;
    notes.push('shipped');
  }
  if (Object.keys(status).length) input.status = status;
  return { input, notes, paidAt };
}

/**
 * The lines, shipping and customer of the order with the channel's details: the lines keep their
 * position, quantity and stock link (so no stock moves), their price (and tax) replaced by the
 * line of the same transaction_id. An e-mail or phone the channel does not give is kept (not
 * sent); an address is the channel's, field by field over the order's where it stopped showing
 * some (keep_unshown).
 */
function detailsInput(current: OrderRow, lines: LineRow[], details: ChannelDetails): OrderInput {
  const byTransaction = new Map(details.line.map((l) => [l.transaction_id, l]));
  const address = (stored: Record<string, unknown>, given: OrderAddress): OrderAddress =>
    details.keep_unshown ? { ...(stored.address as OrderAddress | undefined), ...given } : given;
  return {
    line: lines.map((l) => {
      const channel = l.transaction_id !== null ? byTransaction.get(l.transaction_id) : undefined;
      return lineInput(l, { price: channel?.price ?? l.price, tax: channel?.tax ?? l.tax });
    }),
    shipping: { fee: details.shipping.fee ?? '0.00', address: address(current.shipping, details.shipping.address) },
    customer: {
      ...(details.customer.email ? { email: details.customer.email } : {}),
      ...(details.customer.phone_1 ? { phone_1: details.customer.phone_1 } : {}),
      address: address(current.customer, details.customer.address),
    },
  };
}

/** A stored line as update input (lines sent on update replace all lines), with the price and tax given. */
function lineInput(l: LineRow, { price, tax }: { price: string | null; tax: string | null }): OrderLineInput {
  return {
    id: l.position,
    quantity: l.quantity,
    ...(l.name !== null ? { name: l.name } : {}),
    ...(l.sku !== null ? { sku: l.sku } : {}),
    ...(price !== null ? { price } : {}),
    ...(tax !== null ? { tax } : {}),
    ...(l.transaction_id !== null ? { transaction_id: l.transaction_id } : {}),
    ...(l.stock_align_id !== null ? { stock_align_id: l.stock_align_id } : {}),
  };
}

/**
 * The channel's new line quantities into the update's lines (those the details gave, else the
 * stored ones): each line keeps its position, price and stock link, and the stock moves by the
 * difference (updateOrderIn: back for fewer units; nothing while the order is cancelled, whose
 * lines hold none). Not on an order shipped here: its goods left, so nothing comes back to stock
 * (the seller's credit note), and the history says so. True when a line changed.
 */
async function withQuantities(trx: Knex.Transaction, current: OrderRow, change: ChannelChange, input: OrderInput, notes: string[]): Promise<boolean> {
  if (!change.line_quantity?.length) return false;
  const lines = input.line ?? (await orderRepository.lines(trx, current.internal_id)).map((l) => lineInput(l, { price: l.price, tax: l.tax }));
  const wanted = new Map(change.line_quantity.map((l) => [l.transaction_id, l.quantity]));
  const moved = lines.flatMap((l) => {
    const quantity = l.transaction_id !== undefined ? wanted.get(l.transaction_id) : undefined;
    return quantity !== undefined && quantity !== Number(l.quantity ?? 1) ? [{ l, quantity }] : [];
  });
  if (moved.length === 0) return false;
  const said = moved.map(({ l, quantity }) => `line ${l.id} quantity ${Number(l.quantity ?? 1)} -> ${quantity}`).join(', ');
  if (current.is_shipped) {
    notes.push(`${said} at the channel, but the order is shipped here: not applied (make a credit note)`);
    notes.push(
      ...returnNotes(
        moved.map(({ l }) => l),
        change.line_quantity,
      ),
    );
    return false;
  }
  for (const { l, quantity } of moved) l.quantity = quantity;
  input.line = lines;
  notes.push(said);
  return true;
}

/**
 * Units the buyer sent back that the channel restocked, on an order shipped here (decision, lib/order
 * README): the line stays (the sale and its invoice stand) and no stock moves, since the import cannot
 * tell whether they reached Kontor's warehouse sellable or were booked in here already (a unit
 * counted twice oversells); the seller books them in. Told with the line's quantity change, once.
 */
function returnNotes(lines: OrderLineInput[], changed: NonNullable<ChannelChange['line_quantity']>): string[] {
  const returned = new Map(changed.filter((c) => c.returned).map((c) => [c.transaction_id, c.returned!]));
  return lines.flatMap((l) => {
    const units = l.transaction_id !== undefined ? returned.get(l.transaction_id) : undefined;
    return units
      ? [
          `line ${l.id}: ${units} returned and restocked at the channel in all; book them in here if sellable (the next count Kontor sends the channel replaces its restock)`,
        ]
      : [];
  });
}

/**
 * The channel ships the order itself since (decision, lib/order-import README): its lines are
 * unlinked as they would have been at its import, so updateOrderIn puts what they hold back to
 * stock (a movement per item, cia.adjust to every channel; nothing while the order is cancelled
 * here, whose lines hold none), and the history says the channel ships it. Not on an order
 * shipped here: its goods left the warehouse, so the lines keep their stock and the history says
 * so. Runs last, on the lines the other parts of the change set.
 */
async function withFulfilmentByChannel(trx: Knex.Transaction, current: OrderRow, change: ChannelChange, input: OrderInput, notes: string[]): Promise<void> {
  const by = change.fulfilled_by_channel;
  if (!by) return;
  const lines = input.line ?? (await orderRepository.lines(trx, current.internal_id)).map((l) => lineInput(l, { price: l.price, tax: l.tax }));
  const linked = lines.filter((l) => l.stock_align_id !== undefined);
  if (by.only_if_linked && linked.length === 0) return;
  if (current.is_shipped) {
    notes.push(`${channelFulfilmentNote.split(';')[0]}, but the order is shipped here: its lines keep their stock (the goods left)`);
    return;
  }
  for (const l of linked) delete l.stock_align_id;
  input.line = lines;
  if (by.market_d_fba) input.shipping = { ...input.shipping, market_d_fba: by.market_d_fba };
  notes.push(channelFulfilmentNote);
}

/**
 * Lines the channel gave a fulfilment app since (ChannelChange.app_lines): each is unlinked, so
 * the stock it took goes back, and the history names the app; not on an order shipped here (the
 * goods left: the lines keep their stock, the history says so). Nothing when the whole order is
 * the channel's (withFulfilmentByChannel unlinks every line).
 */
async function withAppLines(trx: Knex.Transaction, current: OrderRow, change: ChannelChange, input: OrderInput, notes: string[]): Promise<void> {
  if (!change.app_lines?.length || change.fulfilled_by_channel) return;
  const lines = input.line ?? (await orderRepository.lines(trx, current.internal_id)).map((l) => lineInput(l, { price: l.price, tax: l.tax }));
  const apps = new Map(change.app_lines.map((a) => [a.transaction_id, a]));
  const moved = lines.flatMap((l) => {
    const app = l.transaction_id !== undefined ? apps.get(l.transaction_id) : undefined;
    return app && (l.stock_align_id !== undefined || !app.only_if_linked) ? [{ l, app: app.app }] : [];
  });
  if (moved.length === 0) return;
  if (current.is_shipped) {
    for (const { l, app } of moved)
      notes.push(
        `line ${l.id} (${l.name ?? l.sku ?? ''}): the channel gave it to the fulfilment app ${app}, but the order is shipped here: it keeps its stock (the goods left)`,
      );
    return;
  }
  for (const { l, app } of moved) {
    const linked = l.stock_align_id !== undefined;
    delete l.stock_align_id;
    notes.push(
      `line ${l.id} (${l.name ?? l.sku ?? ''}): the fulfilment app ${app} ships it from the stock it keeps; ${linked ? 'its stock goes back' : 'it takes no stock here'}, do not ship it`,
    );
  }
  input.line = lines;
}

/**
 * Lines the channel gave back to the seller (ChannelChange.seller_lines): each unlinked line is
 * linked to its stock item again, so it takes its stock, and the history says so; one whose SKU
 * names no single item is left for the seller to link (told). Not on an order shipped or cancelled
 * here (nothing to ship; a cancelled order's lines hold no stock). Found by a reviewer of ea9c996:
 * such a line stayed unlinked while the seller ships it.
 */
async function withSellerLines(trx: Knex.Transaction, current: OrderRow, change: ChannelChange, input: OrderInput, notes: string[]): Promise<void> {
  if (!change.seller_lines?.length || current.is_shipped || current.is_cancelled) return;
  const lines = input.line ?? (await orderRepository.lines(trx, current.internal_id)).map((l) => lineInput(l, { price: l.price, tax: l.tax }));
  const back = new Map(change.seller_lines.map((b) => [b.transaction_id, b.stock_id]));
  const given = lines.filter((l) => l.transaction_id !== undefined && back.has(l.transaction_id) && l.stock_align_id === undefined);
  if (given.length === 0) return;
  for (const l of given) {
    const stockId = back.get(l.transaction_id!);
    if (stockId !== null && stockId !== undefined) l.stock_align_id = `ID_${stockId}`;
    notes.push(
      stockId !== null && stockId !== undefined
        ? `line ${l.id} (${l.name ?? l.sku ?? ''}): the channel gave it back from the fulfilment app to the seller's location; it takes its stock again, ship it`
        : `line ${l.id} (${l.name ?? l.sku ?? ''}): the channel gave it back from the fulfilment app to the seller's location, but its SKU names no single stock item: link it to take its stock, and ship it`,
    );
  }
  input.line = lines;
}

/**
 * The channel's details are taken while the order is neither shipped, invoiced nor cancelled
 * here (an invoice or a parcel already carries the old data: the seller decides then, told by the
 * history); an order the same change makes paid is completed before it gets its invoice number.
 */
async function withDetails(trx: Knex.Transaction, current: OrderRow, change: ChannelChange, input: OrderInput, notes: string[]): Promise<boolean> {
  if (!change.details) return false;
  if (current.is_shipped || current.invoice_number !== null || current.is_cancelled) {
    notes.push('prices, shipping or address changed at the channel; not applied, as the order is already shipped, invoiced or cancelled here');
    return false;
  }
  Object.assign(input, detailsInput(current, await orderRepository.lines(trx, current.internal_id), change.details));
  return true;
}

/**
 * The channel's payment, decided on the lines the update leaves (the details may price them in the
 * same change): its paid_amount, or for an unpaid order the channel says is paid without naming an
 * amount (paid_in_full), the invoice amount the update leaves, so the order is paid in full as a
 * new order in that shape is; both through updateOrderIn's paid rule (planPaid). Money is never
 * booked on an order it does not fit: while every line is still 0.00 (the channel's prices were
 * not taken: the order is shipped, invoiced or cancelled here, or the channel gave none), neither
 * an amount above the invoice nor a payment in full is taken, and the note says why. Answers the
 * payment's note, if any.
 */
async function withPayment(trx: Knex.Transaction, current: OrderRow, change: ChannelChange, input: OrderInput): Promise<string | undefined> {
  const amount = change.paid_amount !== undefined && toCents(change.paid_amount) !== toCents(current.paid_amount ?? '0') ? change.paid_amount : undefined;
  const inFull = amount === undefined && change.paid_in_full === true && !current.is_paid && !current.is_cancelled && input.status?.is_cancelled !== true;
  if (amount === undefined && !inFull) return undefined;
  const lines = input.line ?? (await orderRepository.lines(trx, current.internal_id)).map((l) => lineInput(l, { price: l.price, tax: l.tax }));
  const priced = lines.some((l) => toCents(l.price ?? '0') !== 0n);
  const fee = input.shipping?.fee !== undefined ? input.shipping.fee : current.shipping_fee;
  const invoice = invoiceAmount(
    lines.map((l) => ({ quantity: Number(l.quantity ?? 1), price: l.price ?? null })),
    fee,
    'order.line',
  );
  const later = 'set paid_amount once its prices are in';
  if (amount !== undefined) {
    if (!priced && toCents(amount) > toCents(invoice)) return `paid ${amount} at the channel, but the order's lines are still 0.00: not booked; ${later}`;
    input.paid_amount = amount;
    return `paid ${amount}`;
  }
  if (!priced) return `paid at the channel without an amount, but the order's lines are still 0.00: not paid here; ${later}`;
  input.paid_amount = invoice;
  return `paid ${invoice} in full (the channel names no amount)`;
}

/** The shipping fee the channel lowered (ChannelChange.shipping_fee) into the update, unless the details carry one or the order is shipped here. */
function withShippingFee(current: OrderRow, change: ChannelChange, input: OrderInput, notes: string[]): void {
  if (change.shipping_fee === undefined || input.shipping?.fee !== undefined) return;
  if (toCents(change.shipping_fee) === toCents(current.shipping_fee ?? '0')) return;
  const said = `shipping fee ${current.shipping_fee ?? '0.00'} -> ${change.shipping_fee}`;
  if (current.is_shipped) {
    notes.push(`${said} at the channel (shipping given back), but the order is shipped here: not applied (make a credit note)`);
    return;
  }
  input.shipping = { ...input.shipping, fee: change.shipping_fee };
  notes.push(said);
}

/**
 * Whether the update may move the amount of an order whose invoice is issued (bill_url set once the
 * invoice job archived it): a line quantity or a shipping fee the channel lowered (details are not
 * taken once invoiced).
 */
const issuedInvoiceMayDiffer = (current: OrderRow, input: OrderInput) => !!current.bill_url && (input.line !== undefined || input.shipping?.fee !== undefined);

/**
 * An order whose invoice is issued and whose invoice_amount the channel's change moved (a refund of
 * the shipping, units taken out of a line; applied so the order stays paid as the channel's
 * payment says): the invoice never changes (lib/invoice), so the history names it, the amount it
 * was issued for and the credit note the seller makes (decision, README "Writes"; found by a
 * reviewer of 2a93db1: the history said only `shipping fee 4.90 -> 0.00`, while the invoice the
 * buyer holds kept 4.90 more than the order, and nothing told the seller to correct it).
 */
function issuedInvoiceNote(current: OrderRow, after: OrderRow): string[] {
  const moved = toCents(after.invoice_amount) - toCents(current.invoice_amount);
  if (!current.bill_url || moved === 0n) return [];
  const said = `invoice ${current.invoice_number} stays as issued (invoice amount ${current.invoice_amount} -> ${after.invoice_amount})`;
  return [moved < 0n ? `${said}: make a credit note of ${fromCents(-moved)}` : `${said}: it bills ${fromCents(moved)} less than the order now`];
}

/** The change without its amounts when the channel gives them in another currency than the order's, and the note that says so. */
function sameCurrency(current: OrderRow, change: ChannelChange): { change: ChannelChange; notes: string[] } {
  // As the order took it (Order_type's currency_id: trimmed, upper case): a channel naming "eur" had every later payment held back.
  const given = change.currency_id?.trim().toUpperCase();
  if (given === undefined || given === current.currency_id) return { change, notes: [] };
  if (change.paid_amount === undefined && change.details === undefined && change.shipping_fee === undefined && change.paid_in_full === undefined)
    return { change, notes: [] };
  const { paid_amount: _paid, details: _details, shipping_fee: _fee, paid_in_full: _inFull, ...rest } = change;
  return {
    change: rest,
    notes: [
      `the channel now gives this order's amounts in ${given}, not in its ${current.currency_id}: paid amount and prices not applied, check them at the channel`,
    ],
  };
}

/**
 * Applies a channel's change to the order in the caller's transaction, with one history entry
 * (`<source>: paid 19.90, shipped`); nothing when the order is gone or nothing changes. Returns
 * what was noted.
 */
export async function applyChannelChangeIn(
  trx: Knex.Transaction,
  caller: OrderCaller,
  orderId: string,
  change: ChannelChange,
  source: string,
): Promise<string[]> {
  const current = await orderRepository.getForUpdate(trx, caller, orderId);
  if (!current) return [];
  const { change: applied, notes: currencyNotes } = sameCurrency(current, change);
  const { input, notes, paidAt } = effective(current, applied);
  const completed = await withDetails(trx, current, applied, input, notes);
  await withQuantities(trx, current, applied, input, notes);
  withShippingFee(current, applied, input, notes);
  const paid = await withPayment(trx, current, applied, input);
  if (paid) notes.splice(paidAt, 0, paid);
  notes.unshift(...currencyNotes);
  await withAppLines(trx, current, applied, input, notes);
  await withSellerLines(trx, current, applied, input, notes);
  await withFulfilmentByChannel(trx, current, applied, input, notes);
  notes.push(...(applied.notes ?? []));
  if (notes.length === 0 && !completed) return [];
  if (Object.keys(input).length) {
    const warnings: Warning[] = [];
    await updateOneOrderIn(trx, caller, orderId, input, warnings);
  }
  const after = completed || issuedInvoiceMayDiffer(current, input) ? (await orderRepository.getForUpdate(trx, caller, orderId))! : current;
  if (completed) notes.unshift(`prices, shipping and address completed (invoice amount ${current.invoice_amount} -> ${after.invoice_amount})`);
  notes.push(...issuedInvoiceNote(current, after));
  await orderRepository.addHistory(trx, current.internal_id, [`${source}: ${notes.join(', ')}`]);
  return notes;
}
