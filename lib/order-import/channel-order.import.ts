/**
 * One channel order into Kontor, in one transaction, exactly once: the channel_order row of
 * (account, portal account, the channel's order id) is claimed first (INSERT ... ON CONFLICT DO
 * NOTHING), so a second fetcher of the same order waits for the first one's commit and then
 * finds the order made. New: created through the orders domain's create (stock taken, CIA,
 * events), unlinked lines get a task. Known: only what the channel changed since the last
 * fetch (payment, cancellation, shipment, and prices, shipping and addresses it completed) is
 * applied through the orders domain.
 */
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { allOrdersOf } from '../access';
import { channelCancelled, channelSold } from '../cia';
import { inTransaction } from '../db';
import { DomainError, isPermanent } from '../errors';
import { validate } from '../http';
import { log } from '../log';
import { applyChannelChangeIn, ChannelChange, ChannelDetails, createChannelOrderIn, orderRepository, orderType, OrderInput } from '../order';
import type { OrderReadRow } from '../order';
import type { ChannelOrder } from '../portals';
import { variationMainsAmong } from '../stock';
import { stockIdsOfLineSkus } from './line-items';
import { createTaskOnce, insertTask } from '../task';
import {
  amountsChanged,
  appLinesSince,
  linesBackSince,
  asLastRead,
  channelDetails,
  channelState,
  detailsChanged,
  feeLowered,
  marketDFba,
  onlyFeeChanged,
  orderInputOf,
  paidKept,
  paidWithoutAmount,
  quantitiesChanged,
  requestNotes,
  stateAfter,
  UnlinkedLine,
  withChannelFulfilment,
} from './channel-order.mapper';
import { ChannelState, ImportAccountRow, orderImportRepository } from './order-import.repository';

export type ImportOutcome = 'created' | 'updated' | 'unchanged' | 'deleted' | 'refused';

export const sourceOf = (account: ImportAccountRow, portal: string, order: ChannelOrder) =>
  `${portal} order ${order.external_order_id} (portal account ${account.id})`;

/**
 * What changed at the channel since the state kept at the last fetch, of the order as its last
 * whole read showed it (asLastRead: a part of a price the channel could not show now is not a change).
 */
function changeOf(before: ChannelState, order: ChannelOrder, amountsKnown: boolean, portal: string): ChannelChange {
  const change: ChannelChange = { currency_id: order.currency_id };
  // No amount named (Amazon without grandTotal: paid_amount null) is no amount, not 0.00: the
  // order keeps what it was paid (an order imported paid 28.90 and read SHIPPED without a
  // grandTotal was paid 0.00, unpaid and open to the bank's matching).
  if (amountsKnown && order.paid_amount !== null && before.paid_amount !== order.paid_amount) change.paid_amount = order.paid_amount;
  // Paid since without an amount (paidKept: a row kept before is_paid was, without a paid amount,
  // reads as unpaid): paid in full, as a new order in that shape is; lib/order pays only an order
  // unpaid and not cancelled there whose lines have prices.
  if (amountsKnown && paidWithoutAmount(order) && !paidKept(before)) change.paid_in_full = true;
  if (before.is_cancelled !== order.status.is_cancelled) change.is_cancelled = order.status.is_cancelled;
  if (before.is_shipped !== order.status.is_shipped) change.is_shipped = order.status.is_shipped;
  // A reference the channel names only once paid (eBay's ESCROW paymentReferenceId); the order takes it if it has none.
  if (order.payment_provider_transaction_id) change.payment_provider_transaction_id = order.payment_provider_transaction_id;
  // Shipping the channel gave back since (a refund of it): the fee follows as a line's units do,
  // also on an order invoiced here (whose details are not taken), not on one shipped here.
  const fee = amountsKnown ? feeLowered(before, order) : undefined;
  if (fee !== undefined) change.shipping_fee = fee;
  const completed = fee === undefined || !onlyFeeChanged(before, order);
  // Prices, shipping or addresses the channel gave since (an Amazon order leaving Pending), whatever
  // the channel's state by then: lib/order takes them unless the order is shipped, invoiced or
  // cancelled here. Once the channel has shipped or cancelled it, only new amounts make a change
  // (amountsChanged): Amazon then suppresses the phone and address, which is nothing new, and the
  // contact it stopped showing is kept (keep_unshown), not blanked.
  const unshown = order.status.is_shipped || order.status.is_cancelled;
  if (amountsKnown && completed && detailsChanged(before, channelState(order)) && (!unshown || amountsChanged(before, order)))
    change.details = { ...checkedDetails(order), ...(unshown ? { keep_unshown: true } : {}) };
  // The channel ships the order itself since (eBay's fulfilment program shows only once it is
  // paid): as if imported so, its lines give their stock back. Once: the state keeps it said. A
  // row kept before this was kept: only while a line still takes stock (an order imported so has none).
  if (order.fulfilled_by_channel && before.fulfilled_by_channel !== true) {
    const fba = marketDFba(order, portal);
    change.fulfilled_by_channel = { ...(fba ? { market_d_fba: fba } : {}), ...(before.fulfilled_by_channel === undefined ? { only_if_linked: true } : {}) };
  }
  // Lines the channel gives a fulfilment app since (a Shopify store moving a line to a 3PL's location): their stock goes back.
  const apps = appLinesSince(before, order);
  if (apps.length) change.app_lines = apps;
  // Lines given back to the seller since (moved from the 3PL's location to the seller's): they take stock again (stock ids: withSellerStock).
  const back = linesBackSince(before, order);
  if (back.length) change.seller_lines = back.map((transaction_id) => ({ transaction_id, stock_id: null }));
  // Units the channel took out of a line after the sale (an order edit, an item it cancelled).
  const quantities = quantitiesChanged(before, order);
  if (quantities.length) change.line_quantity = quantities;
  const notes = requestNotes(order, before.requests);
  if (notes.length) change.notes = notes;
  return change;
}

/**
 * The channel's details, validated by Order_type like a request (lengths, amounts) before they
 * reach the order: a refusal is the order's data, answered by a task like a refused create.
 */
function checkedDetails(order: ChannelOrder): ChannelDetails {
  const details = channelDetails(order);
  const valid = validate<OrderInput>(
    orderType(),
    { shipping: details.shipping, customer: details.customer, line: details.line.map((l, i) => ({ id: i + 1, ...l })) },
    'order',
  );
  // The lines as validation gives them, as at the import: Kaufland's VAT rate "19" is Order_line_type's
  // "19.00", and the update's amount check refused the raw one, so no Kaufland order was ever completed.
  return {
    ...details,
    line: details.line.map((l, i) => {
      const checked = valid.line?.[i];
      return { ...l, ...(checked?.price !== undefined ? { price: checked.price } : {}), ...(checked?.tax !== undefined ? { tax: checked.tax } : {}) };
    }),
  };
}

/**
 * The units of an imported order's lines that took the seller's stock (linked to an item,
 * stock_align_id ID_<n>; the channel's and apps' lines are not linked), per item: sold at the
 * channel, which took them off its own offer (lib/cia channelSold). None for an order cancelled
 * at import (it takes no stock).
 */
export function soldLines(input: OrderInput): { stockId: number; units: number }[] {
  if (input.status?.is_cancelled) return [];
  return (input.line ?? []).flatMap((l) => {
    const id = /^ID_(\d+)$/.exec(l.stock_align_id ?? '')?.[1];
    return id && l.quantity ? [{ stockId: Number(id), units: l.quantity }] : [];
  });
}

/** A known order's line as stored. */
type StoredLine = OrderReadRow['lines'][number];

/**
 * The items of a known order's lines whose units the channel took back in this change: every line
 * that took the seller's stock (linked to an item, as soldLines) when the channel cancelled the
 * order, else those it took units out of (line_quantity, below Kontor's quantity). The channel may
 * have put them back on its own offer (lib/cia channelCancelled). The lines as they stood before
 * the change, as the units left the channel's offer when they were linked. An order cancelled at
 * import never flips to cancelled here (its channel state kept it cancelled): it took no stock.
 */
function givenBackItems(lines: Pick<StoredLine, 'transaction_id' | 'stock_id' | 'quantity'>[], change: ChannelChange): number[] {
  const taken = lines.filter((l) => l.stock_id !== null && l.quantity > 0);
  if (change.is_cancelled === true) return taken.map((l) => l.stock_id!);
  const after = new Map((change.line_quantity ?? []).map((q) => [q.transaction_id, q.quantity]));
  return taken.filter((l) => l.transaction_id !== null && (after.get(l.transaction_id) ?? l.quantity) < l.quantity).map((l) => l.stock_id!);
}

/**
 * The items whose units the channel took back (givenBackItems), and the lines as they held stock,
 * read before the change moves the lines.
 */
async function itemsGivenBack(trx: Knex.Transaction, internalId: string, change: ChannelChange): Promise<{ items: number[]; lines: StoredLine[] }> {
  if (change.is_cancelled !== true && !change.line_quantity?.length) return { items: [], lines: [] };
  const lines = await orderRepository.lines(trx, internalId);
  return { items: givenBackItems(lines, change), lines };
}

/** What the order's lines hold of each item (stock_taken), by item. */
function heldByItem(lines: Pick<StoredLine, 'stock_id' | 'stock_taken'>[]): Map<number, number> {
  const held = new Map<number, number>();
  for (const l of lines) if (l.stock_id !== null) held.set(l.stock_id, (held.get(l.stock_id) ?? 0) + l.stock_taken);
  return held;
}

/**
 * Of the items given back, those whose stock the change moved: what the order's lines hold of them
 * differs after it (lib/order: each line holds its stock_taken, and only differences move). The
 * others moved nothing (an order cancelled or shipped in Kontor already), so no stock change queued
 * their adjustment: lib/cia channelCancelled queues it.
 */
async function stockMoved(trx: Knex.Transaction, internalId: string, given: { items: number[]; lines: StoredLine[] }): Promise<Set<number>> {
  if (given.items.length === 0) return new Set();
  const before = heldByItem(given.lines);
  const after = heldByItem(await orderRepository.lines(trx, internalId));
  return new Set(given.items.filter((id) => (before.get(id) ?? 0) !== (after.get(id) ?? 0)));
}

export async function taskForUnlinked(trx: Knex.Transaction, accountId: number, orderId: string, source: string, unlinked: UnlinkedLine[]): Promise<void> {
  if (unlinked.length === 0) return;
  const lines = unlinked.map((l) => `line ${l.position} "${l.name}": ${l.reason}`).join('\n');
  await insertTask(trx, accountId, {
    title: `Order ${orderId}: ${unlinked.length === 1 ? 'a line is' : `${unlinked.length} lines are`} not linked to stock`.slice(0, 255),
    text: `${source} was imported with lines that take no stock; link them to the right item (order line stock_align_id):\n${lines}`,
    priority: 'high',
    reference: { section: 'order', id: orderId },
  });
}

async function create(trx: Knex.Transaction, account: ImportAccountRow, portal: string, order: ChannelOrder): Promise<void> {
  const source = sourceOf(account, portal, order);
  const skus = order.line.map((l) => l.sku).filter((s): s is string => Boolean(s));
  const skuIds = await stockIdsOfLineSkus(trx, account, portal, skus);
  const mains = await variationMainsAmong(trx, account.account_id, [...skuIds.values()].flat());
  const { input: wire, unlinked } = orderInputOf(portal, order, skuIds, source, mains);
  const input = withChannelFulfilment(validate<OrderInput>(orderType(), wire, 'order'), order, portal);
  const caller = { ...allOrdersOf(account.account_id), portalAccountId: account.id };
  const { orderId, internalId } = await createChannelOrderIn(trx, caller, input);
  await channelSold(trx, account.account_id, { portal, portalAccountId: account.id }, soldLines(input));
  await taskForUnlinked(trx, account.account_id, orderId, source, unlinked);
  await orderImportRepository.save(trx, account.account_id, account.id, order.external_order_id, {
    order_id: orderId,
    order_internal_id: internalId,
    channel_state: channelState(order),
  });
}

/** A channel order the orders domain refuses (its data): the seller gets one task per version of it; the others go on. */
export async function refuseOne(account: ImportAccountRow, portal: string, order: ChannelOrder, err: DomainError): Promise<void> {
  const source = sourceOf(account, portal, order);
  const key = crypto
    .createHash('sha256')
    .update(`${account.account_id}|${account.id}|${order.external_order_id}|${order.modified_at}`)
    .digest('hex')
    .slice(0, 32);
  log.warn({ portal, portalAccountId: account.id, externalOrderId: order.external_order_id, error: err.message }, 'channel order not imported');
  await createTaskOnce(
    account.account_id,
    {
      title: `Order not imported: ${source}`.slice(0, 255),
      text: `${source} could not be imported: ${err.message}`,
      priority: 'high',
      portalAccountId: account.id,
    },
    `order-import-${key}`,
  );
}

/**
 * The stock item of each line given back to the seller (ChannelChange.seller_lines), by its SKU as
 * the import links a new order's lines (stockIdsOfLineSkus): one item, not a variation main; else
 * none (the seller links it, told).
 */
async function withSellerStock(
  trx: Knex.Transaction,
  account: ImportAccountRow,
  portal: string,
  order: ChannelOrder,
  change: ChannelChange,
): Promise<ChannelChange> {
  if (!change.seller_lines?.length) return change;
  const lines = order.line.filter((l) => change.seller_lines!.some((b) => b.transaction_id === l.transaction_id));
  const skuIds = await stockIdsOfLineSkus(trx, account, portal, [...new Set(lines.flatMap((l) => (l.sku ? [l.sku] : [])))]);
  const mains = await variationMainsAmong(trx, account.account_id, [...skuIds.values()].flat());
  const stockOf = (sku: string | null | undefined) => {
    const ids = sku ? (skuIds.get(sku) ?? []) : [];
    return ids.length === 1 && !mains.has(ids[0]!) ? ids[0]! : null;
  };
  return { ...change, seller_lines: lines.map((l) => ({ transaction_id: l.transaction_id, stock_id: stockOf(l.sku) })) };
}

export async function importChannelOrder(account: ImportAccountRow, portal: string, order: ChannelOrder): Promise<ImportOutcome> {
  const caller = { ...allOrdersOf(account.account_id), portalAccountId: account.id };
  try {
    return await inTransaction(async (trx): Promise<ImportOutcome> => {
      if (await orderImportRepository.claim(trx, account.account_id, account.id, order.external_order_id)) {
        await create(trx, account, portal, order);
        return 'created';
      }
      const known = await orderImportRepository.lock(trx, account.account_id, account.id, order.external_order_id);
      // The seller deleted the order: a later fetch does not bring it back.
      if (known.order_id === null || known.order_internal_id === null) return 'deleted';
      const before = known.channel_state;
      const { order: seen, amountsKnown } = asLastRead(order, before);
      const change = await withSellerStock(trx, account, portal, seen, changeOf(before, seen, amountsKnown, portal));
      const givenBack = await itemsGivenBack(trx, known.order_internal_id, change);
      const notes = await applyChannelChangeIn(trx, caller, known.order_id, change, sourceOf(account, portal, order));
      // After the order's writes, as channelSold after a create: the states are locked after the
      // order row and the stock items (lib/order/README.md, lock order).
      const moved = await stockMoved(trx, known.order_internal_id, givenBack);
      await channelCancelled(trx, account.account_id, { portal, portalAccountId: account.id }, givenBack.items, moved);
      await orderImportRepository.save(trx, account.account_id, account.id, order.external_order_id, { channel_state: stateAfter(before, seen, amountsKnown) });
      return notes.length ? 'updated' : 'unchanged';
    });
  } catch (err) {
    if (!(err instanceof DomainError) || !isPermanent(err)) throw err;
    await refuseOne(account, portal, order, err);
    return 'refused';
  }
}
