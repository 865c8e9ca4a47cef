/**
 * A channel's order (ChannelOrder, in Order_type's words) as the input of the orders domain's
 * create: platform, external_order_id, customer, shipping, lines with the stock item each SKU
 * names (stock_align_id ID_<id>), payment and status. Lines whose SKU names no item (or several)
 * stay unlinked and are reported for a task.
 */
import crypto from 'node:crypto';
import { ChannelDetails, channelFulfilmentNote, fromCents, OrderAddress, OrderInput, toCents } from '../order';
import type { ChannelOrder, ChannelOrderAddress } from '../portals';
import { countryOfIso3 } from '../reference';
import type { ChannelState } from './order-import.repository';

export interface UnlinkedLine {
  position: number;
  sku: string | null;
  name: string;
  reason: string;
}

/** A decimal amount other than zero. */
const cents = (value: string) => /^-?\d+(\.\d+)?$/.test(value) && Number(value) !== 0;

/**
 * The channel says the buyer paid and names no amount (Amazon without OrderProceeds.grandTotal, a
 * cash-on-delivery order delivered: paid_amount null) or 0.00: paid in full, at its import
 * (is_paid) as on a later read (ChannelChange.paid_in_full).
 */
export const paidWithoutAmount = (order: ChannelOrder) => order.status.is_paid && (order.paid_amount === null || !cents(order.paid_amount));

/**
 * The channel said the buyer paid at the read a state was kept of. A state kept before is_paid was
 * (decision, README "Known"): paid where it kept a paid amount, else unpaid, so an order paid since
 * without an amount is paid in full on its next read (one the old rule left unpaid is mended).
 */
export const paidKept = (state: ChannelState): boolean => state.is_paid ?? cents(state.paid_amount ?? '0');

/**
 * A channel's text cut to the characters Order_type holds (decision, README "Texts longer than
 * Order_type holds"): the channels' contracts bound none of them (Kaufland's Product.title and
 * Address fields, Shopify's LineItem.name and MailingAddress fields are plain strings), and
 * Order_type's validation refused the whole order for one long product title, so the buyer's
 * order never reached the seller and its stock was never taken. Cut by characters (code points,
 * as Order_type counts them), the last one an ellipsis, so no emoji is split into a lone surrogate.
 */
export function fitted(text: string, max: number): string {
  if (text.length <= max) return text;
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

/** Order_address_type's lengths (document 2's string(n), lib/order order.type.ts). */
const addressLengths: Record<string, number> = { zip: 32 };

/**
 * A channel's address as Order_address_type. A country named by three letters (country_iso3,
 * Kaufland's) is read as ISO 3166-1 alpha-3 (lib/reference): its country_iso2 and, unless the
 * channel spells one, its English name as the spelled-out country (decision, README); a code that
 * is none stays the country's text, as before.
 */
function address(a: ChannelOrderAddress | undefined): OrderAddress {
  const out: OrderAddress = {};
  const { country_iso3: iso3, ...rest } = a ?? {};
  for (const [key, value] of Object.entries(rest))
    if (typeof value === 'string' && value !== '') out[key as keyof OrderAddress] = key === 'country_iso2' ? value : fitted(value, addressLengths[key] ?? 255);
  if (iso3 && !out.country_iso2) {
    const known = countryOfIso3(iso3);
    if (known) out.country_iso2 = known.iso2;
    out.country ??= known ? fitted(known.name, 255) : fitted(iso3, 255);
  }
  return out;
}

/** Order_line_type's name (string(1000)) and sku (string(255), a stock item's SKU too). */
const lineNameLength = 1000;
const skuLength = 255;
/** Order_type's customer.phone_1 (string(64)): Kaufland's Address.phone is a free text. */
const phoneLength = 64;

/** What a channel may give of an order only later (prices, shipping, addresses, contact): ChannelDetails. */
export function channelDetails(order: ChannelOrder): ChannelDetails {
  return {
    line: order.line.map((l) => ({ transaction_id: l.transaction_id, price: l.price, ...(l.tax !== undefined ? { tax: l.tax } : {}) })),
    shipping: { ...(order.shipping.fee !== undefined ? { fee: order.shipping.fee } : {}), address: address(order.shipping.address) },
    customer: {
      ...(order.customer.email ? { email: order.customer.email } : {}),
      ...(order.customer.phone_1 ? { phone_1: fitted(order.customer.phone_1, phoneLength) } : {}),
      address: address(order.customer.address),
    },
  };
}

const digest = (order: ChannelOrder) =>
  crypto
    .createHash('sha256')
    .update(JSON.stringify(channelDetails(order)))
    .digest('base64url')
    .slice(0, 22);

/** The channel's state of an order that later fetches compare against. */
export function channelState(order: ChannelOrder): ChannelState {
  return {
    // No amount named (null) is none kept: stateAfter keeps the one before.
    ...(order.paid_amount !== null ? { paid_amount: order.paid_amount } : {}),
    is_paid: order.status.is_paid,
    fulfilled_by_channel: order.fulfilled_by_channel !== undefined,
    prices: Object.fromEntries(order.line.filter((l) => !l.price_unread).map((l) => [l.transaction_id, l.price])),
    is_shipped: order.status.is_shipped,
    is_cancelled: order.status.is_cancelled,
    modified_at: order.modified_at,
    details: digest(order),
    ...(order.shipping.fee !== undefined ? { shipping_fee: order.shipping.fee } : {}),
    lines: Object.fromEntries(order.line.map((l) => [l.transaction_id, l.quantity])),
    ...(order.line.some((l) => l.fulfilled_by_app !== undefined)
      ? { app_lines: order.line.filter((l) => l.fulfilled_by_app !== undefined).map((l) => l.transaction_id) }
      : {}),
    ...(order.line.some((l) => l.fulfilled_by_seller) ? { seller_lines: order.line.filter((l) => l.fulfilled_by_seller).map((l) => l.transaction_id) } : {}),
    requests: [
      ...order.line.filter((l) => l.cancel_requested !== undefined).map((l) => l.transaction_id),
      ...(order.cancel_requested ? [orderRequestKey(order.cancel_requested.id)] : []),
    ],
  };
}

/**
 * The lines whose quantity the channel changed since the state kept. A row kept before quantities
 * were: every line (the orders domain moves only those that differ from the Kontor line).
 */
export function quantitiesChanged(before: ChannelState, order: ChannelOrder): { transaction_id: string; quantity: number; returned?: number }[] {
  return order.line
    .filter((l) => before.lines === undefined || before.lines[l.transaction_id] !== l.quantity)
    .map((l) => ({ transaction_id: l.transaction_id, quantity: l.quantity, ...(l.returned ? { returned: l.returned } : {}) }));
}

/**
 * A known order as its last whole read showed it, where this read could not show a part of a
 * line's price (`price_unread`, Kaufland's fees of a unit its API answered 404 for): the line
 * takes the price kept (`channel_state.prices`) and `paid_amount` the difference where it counts
 * the line, so the unit the channel cannot show for a moment changes neither the line's price nor
 * the payment. A line never read whole (imported unread) keeps the price shown, as imported. A row
 * kept before prices were: this read's amounts are not known (`amountsKnown` false), so its
 * payment and details are not taken and the state keeps the ones before.
 */
export function asLastRead(order: ChannelOrder, before: ChannelState): { order: ChannelOrder; amountsKnown: boolean } {
  if (!order.line.some((l) => l.price_unread)) return { order, amountsKnown: true };
  const kept = before.prices;
  if (kept === undefined) return { order, amountsKnown: false };
  let paid = order.paid_amount === null ? null : toCents(order.paid_amount);
  const line = order.line.map((l) => {
    const price = l.price_unread ? kept[l.transaction_id] : undefined;
    if (price === undefined) return l;
    if (l.price_unread!.in_paid_amount && paid !== null) paid += (toCents(price) - toCents(l.price)) * BigInt(l.quantity);
    const { price_unread: _unread, ...whole } = l;
    return { ...whole, price };
  });
  return { order: { ...order, line, paid_amount: paid === null ? null : fromCents(paid) }, amountsKnown: true };
}

/** The state kept after a known order's read (asLastRead): what the channel says it ships stays said. */
export function stateAfter(before: ChannelState, order: ChannelOrder, amountsKnown: boolean): ChannelState {
  const now = channelState(order);
  return {
    ...now,
    // A read naming no amount (ChannelOrder.paid_amount null) keeps the amount said before.
    ...(order.paid_amount === null && before.paid_amount !== undefined ? { paid_amount: before.paid_amount } : {}),
    ...(amountsKnown
      ? {}
      : { paid_amount: before.paid_amount, is_paid: before.is_paid, details: before.details, prices: before.prices, shipping_fee: before.shipping_fee }),
    fulfilled_by_channel:
      now.fulfilled_by_channel === true || (before.fulfilled_by_channel === true && !(byApps(before) && linesBackSince(before, order).length > 0)),
    ...(before.app_lines || now.app_lines ? { app_lines: appLinesAfter(before, order, now) } : {}),
  };
}

/** The lines said an app's after this read: those said before or now, less those given back (linesBackSince), so a later move to the app is told again. */
function appLinesAfter(before: ChannelState, order: ChannelOrder, now: ChannelState): string[] {
  const back = new Set(linesBackSince(before, order));
  return [...new Set([...(before.app_lines ?? []), ...(now.app_lines ?? [])])].filter((t) => !back.has(t));
}

/**
 * The channel ships the order whole only because a fulfilment app holds every line (a Shopify
 * store's 3PL, fulfilled_by_app): the store can move a line back, where a channel's own program
 * (Amazon FBA, Kaufland FBK, eBay's) is the channel's for good. Told by the state itself (every
 * line kept is among app_lines; only apps' lines are), so rows kept before this rule read alike (one kept before app_lines was stays the channel's).
 */
function byApps(state: ChannelState): boolean {
  const lines = Object.keys(state.lines ?? {});
  return state.fulfilled_by_channel === true && lines.length > 0 && lines.every((t) => (state.app_lines ?? []).includes(t));
}

/**
 * The lines said an app's before (channel_state.app_lines, their stock given back) that the channel
 * now shows at the seller's locations (fulfilled_by_seller: a Shopify fulfillment order moved back
 * from the 3PL's location): given back to the seller, they take their stock again, once (found by a
 * reviewer of ea9c996). Not in an order the channel ships whole by its own program
 * (fulfilled_by_channel, never unset); one it shipped whole because every line was an app's is
 * the seller's again from the first line given back (stateAfter unsets the flag, so send_mit is
 * taken): before, such an order kept its lines unlinked and refused send_mit while the seller
 * shipped it, and its sale took no stock, so every channel kept offering the units.
 */
export function linesBackSince(before: ChannelState, order: ChannelOrder): string[] {
  if (before.fulfilled_by_channel === true && !byApps(before)) return [];
  const said = new Set(before.app_lines ?? []);
  return order.line.filter((l) => l.fulfilled_by_seller && said.has(l.transaction_id)).map((l) => l.transaction_id);
}

/**
 * The lines the channel gives a fulfilment app since the state kept (ChannelChange.app_lines): a
 * Shopify line the store moved to a 3PL's location after the import (lib/portals, appLines). Said
 * once (the state keeps them); a row kept before app_lines were: only lines that still take stock.
 */
export function appLinesSince(before: ChannelState, order: ChannelOrder): { transaction_id: string; app: string; only_if_linked?: boolean }[] {
  const said = new Set(before.app_lines ?? []);
  return order.line.flatMap((l) =>
    l.fulfilled_by_app !== undefined && !said.has(l.transaction_id)
      ? [{ transaction_id: l.transaction_id, app: l.fulfilled_by_app, ...(before.app_lines === undefined ? { only_if_linked: true } : {}) }]
      : [],
  );
}

/** The key a buyer's request to cancel the whole order is remembered by in channel_state.requests (beside lines' transaction ids): one per request. */
const orderRequestKey = (id: string) => `order:${id}`;

/**
 * What the seller is told once of the buyer's open cancellation requests (lines not told before):
 * the line is not to be shipped until the channel decides. Not a cancellation, so no stock moves.
 */
export function requestNotes(order: ChannelOrder, told: string[] = []): string[] {
  const lines = order.line.flatMap((l, i) =>
    l.cancel_requested !== undefined && !told.includes(l.transaction_id)
      ? [
          `the buyer asks to cancel line ${i + 1} (${fitted(l.name, lineNameLength)}${l.cancel_requested ? `: ${l.cancel_requested}` : ''}); do not ship it before the channel decides`,
        ]
      : [],
  );
  const request = order.cancel_requested;
  if (!request || told.includes(orderRequestKey(request.id))) return lines;
  return [...lines, `the buyer asks to cancel the order${request.reason ? ` (${request.reason})` : ''}; do not ship it before the channel decides`];
}

/**
 * The shipping fee when the channel gives a lower one than the state kept: shipping it gave back
 * (a refund of the shipping, a duty refunded with its units; decision, README "A refund of the
 * shipping"). A higher fee is data completed later (the details). A state kept before the fee was: not compared.
 */
export function feeLowered(before: ChannelState, order: ChannelOrder): string | undefined {
  const fee = order.shipping.fee;
  return fee !== undefined && before.shipping_fee !== undefined && toCents(fee) < toCents(before.shipping_fee) ? fee : undefined;
}

/** The order's details differ from the state kept only by the fee (the rest as it was): the lowered fee alone is the change. */
export const onlyFeeChanged = (before: ChannelState, order: ChannelOrder) =>
  before.shipping_fee !== undefined && digest({ ...order, shipping: { ...order.shipping, fee: before.shipping_fee } }) === before.details;

/** The channel changed the order's details since the state kept (a state kept before details were: not compared). */
export const detailsChanged = (before: ChannelState, now: ChannelState) => before.details !== undefined && before.details !== now.details;

/**
 * The channel gives other amounts than the state kept: a line's unit price other than the one last
 * read whole (`channel_state.prices`; a line never read whole counts as changed), or a higher
 * shipping fee (a lower one is feeLowered's). What tells prices given since (an Amazon order leaving
 * Pending, an eBay total the seller adjusted before payment) from contact the channel only stopped
 * showing once it shipped or cancelled the order. A state kept before prices were: not compared.
 */
export function amountsChanged(before: ChannelState, order: ChannelOrder): boolean {
  const kept = before.prices;
  if (kept === undefined) return false;
  const fee = order.shipping.fee;
  return (
    order.line.some((l) => !l.price_unread && (kept[l.transaction_id] === undefined || toCents(kept[l.transaction_id]!) !== toCents(l.price))) ||
    (fee !== undefined && before.shipping_fee !== undefined && toCents(fee) > toCents(before.shipping_fee))
  );
}

/** Nothing changed at the channel since the state kept: the order is passed over. */
export const sameState = (a: ChannelState, b: ChannelState) =>
  a.modified_at === b.modified_at &&
  // A read naming no amount (no paid_amount in channelState) changes none.
  (b.paid_amount === undefined || a.paid_amount === b.paid_amount) &&
  // Paid since without an amount is a change (paidKept: also against a state kept before is_paid was).
  paidKept(a) === paidKept(b) &&
  a.is_shipped === b.is_shipped &&
  a.is_cancelled === b.is_cancelled &&
  !detailsChanged(a, b) &&
  (a.lines === undefined || Object.entries(b.lines ?? {}).every(([t, q]) => a.lines![t] === q)) &&
  (b.fulfilled_by_channel !== true || a.fulfilled_by_channel === true) &&
  // A line given a fulfilment app since is a change even where the channel's modified time is not
  // (a Shopify move need not change Order.updatedAt; found by a reviewer of ea9c996).
  (b.app_lines ?? []).every((t) => (a.app_lines ?? []).includes(t)) &&
  ((a.fulfilled_by_channel === true && !byApps(a)) || (a.app_lines ?? []).every((t) => !(b.seller_lines ?? []).includes(t))) &&
  (b.requests ?? []).every((t) => (a.requests ?? []).includes(t));

/** Order_type as POST order/ takes it (current_date as ISO 8601), validated by the import like a request. */
export type OrderWire = Omit<OrderInput, 'current_date'> & { current_date: string };

/**
 * The validated input with what only the import may set: shipping.market_d_fba of an order Amazon
 * fulfils (read-only in Order_type, so validation drops it from what a client sends). Document 2's
 * field is Amazon's (its fulfilment centre): an order eBay or Kaufland fulfils does not fill it;
 * its unlinked lines and its history say so (orderInputOf).
 */
export function withChannelFulfilment(input: OrderInput, order: ChannelOrder, portal: string): OrderInput {
  const fba = marketDFba(order, portal);
  return fba ? { ...input, shipping: { ...input.shipping, market_d_fba: fba } } : input;
}

/** shipping.market_d_fba of an order Amazon fulfils (market_d only: document 2's field is Amazon's centre). */
export function marketDFba(order: ChannelOrder, portal: string): { country_iso2: string | null; center_id: string | null } | undefined {
  const by = order.fulfilled_by_channel;
  if (!by || portal !== 'market_d') return undefined;
  return { country_iso2: by.country_iso2 ?? null, center_id: by.center_id ?? null };
}

/**
 * Told at the import of a line the channel could not show whole (price_unread): it comes in at the
 * part shown (decision, README), and the seller knows why its price may change with a later read.
 */
const unreadNotes = (order: ChannelOrder) =>
  order.line.flatMap((l, i) =>
    l.price_unread
      ? [`line ${i + 1}: the channel could not show its whole price (such as Kaufland's fees of the unit); ${l.price} without it until a later read shows it`]
      : [],
  );

/** Told at the import of each line a fulfilment app ships (fulfilled_by_app), in an order whose other lines are the seller's. */
const appLineNotes = (order: ChannelOrder) =>
  order.line.flatMap((l, i) =>
    l.fulfilled_by_app !== undefined
      ? [
          `line ${i + 1} (${fitted(l.name, lineNameLength)}): the fulfilment app ${l.fulfilled_by_app} ships it from the stock it keeps; it takes no stock here, do not ship it`,
        ]
      : [],
  );

/** skuIds: per SKU the stock ids it names; mains: the variation mains among them (lib/stock/stock-channel-sku.ts). */
export function orderInputOf(
  portal: string,
  order: ChannelOrder,
  skuIds: Map<string, number[]>,
  source: string,
  mains: Set<number> = new Set(),
): { input: OrderWire; unlinked: UnlinkedLine[] } {
  const unlinked: UnlinkedLine[] = [];
  // Fulfilled by the channel (Amazon FBA): the goods leave the channel's warehouse, so the lines
  // are not linked to the seller's stock (an unlinked line takes none) and ask for no link.
  const byChannel = order.fulfilled_by_channel !== undefined;
  // A line a fulfilment app ships from the stock it keeps (fulfilled_by_app): the same, for that line alone.
  const line = order.line.map((l, i) => {
    const elsewhere = byChannel || l.fulfilled_by_app !== undefined;
    // A SKU longer than a stock item's can name no item: the line keeps the rest and is the seller's to link.
    const sku = l.sku && [...l.sku].length <= skuLength ? l.sku : null;
    const found = elsewhere ? [] : sku ? (skuIds.get(sku) ?? []) : [];
    // A variation main holds no stock of its own (its variants do): the line is left for the seller to link.
    const main = found.length === 1 && mains.has(found[0]!);
    const ids = main ? [] : found;
    if (ids.length !== 1 && !elsewhere) {
      const reason = !l.sku
        ? 'the channel names no SKU'
        : !sku
          ? `the channel's SKU ${fitted(l.sku, 40)} is longer than the ${skuLength} characters a stock item's SKU has`
          : main
            ? `SKU ${l.sku} names a variation main, whose variants hold the stock`
            : found.length === 0
              ? `SKU ${l.sku} matches no stock item`
              : `SKU ${l.sku} matches several stock items`;
      unlinked.push({ position: i + 1, sku, name: fitted(l.name, lineNameLength), reason });
    }
    return {
      id: i + 1,
      name: fitted(l.name, lineNameLength),
      quantity: l.quantity,
      price: l.price,
      transaction_id: l.transaction_id,
      ...(sku ? { sku } : {}),
      ...(l.tax !== undefined ? { tax: l.tax } : {}),
      ...(ids.length === 1 ? { stock_align_id: `ID_${ids[0]}` } : {}),
    };
  });
  const paid = order.paid_amount !== null && cents(order.paid_amount);
  const inFull = paidWithoutAmount(order);
  // Cancelled and shipped exclude each other in Kontor: a cancelled order is not also shipped.
  const status = { is_cancelled: order.status.is_cancelled, is_shipped: order.status.is_shipped && !order.status.is_cancelled };
  const input: OrderWire = {
    platform: portal,
    external_order_id: order.external_order_id,
    current_date: order.created_at,
    currency_id: order.currency_id,
    customer: {
      ...(order.customer.username ? { username: fitted(order.customer.username, 255) } : {}),
      ...(order.customer.email ? { email: order.customer.email } : {}),
      ...(order.customer.phone_1 ? { phone_1: fitted(order.customer.phone_1, phoneLength) } : {}),
      address: address(order.customer.address),
    },
    shipping: {
      ...(order.shipping.fee !== undefined ? { fee: order.shipping.fee } : {}),
      ...(order.shipping.method ? { method: fitted(order.shipping.method, 255) } : {}),
      address: address(order.shipping.address),
    },
    line,
    // Paid at the channel without an amount: paid in full (is_paid at creation).
    ...(paid && order.paid_amount !== null ? { paid_amount: order.paid_amount } : {}),
    status: { ...status, ...(inFull ? { is_paid: true } : {}) },
    ...(order.payment_provider_transaction_id ? { payment_provider_transaction_id: order.payment_provider_transaction_id } : {}),
    ...(order.payment_method_id ? { payment_method_id: order.payment_method_id } : {}),
    history: [
      `${source}: imported`,
      ...(byChannel ? [`${source}: ${channelFulfilmentNote}`] : appLineNotes(order).map((note) => `${source}: ${note}`)),
      ...[...requestNotes(order), ...unreadNotes(order), ...(order.import_notes ?? [])].map((note) => `${source}: ${note}`),
    ],
  };
  return { input, unlinked };
}
