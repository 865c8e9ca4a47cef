/**
 * The taxes of an order from a store whose prices exclude tax (admin_schema_2025-01.json:
 * Order.taxesIncluded false, "Whether taxes are included in the subtotal price of the order"; a US
 * store, most Canadian ones), and the gross amounts Kontor imports from them. Kontor's prices are
 * gross (document 2, Order_line_type: price per single element, tax "VAT percent included in
 * price"); imported net, the buyer's payment (netPaymentSet, tax included) stood above the
 * invoice, which document 1 calls only partially paid: no paid_in_full, never shipped.
 *
 * Read by a query of their own, only for such orders: LineItem.taxLines on the orders page cost 3
 * points a line (30 lines, 10 orders: 900 more than the page's 703, beyond the 1000 of one query).
 */
import type { ShopifySession } from './shopify-client';

/** TaxLine: priceSet "The amount of tax ... after discounts and before returns"; rate "The proportion of the line item price that the tax represents as a decimal" (nullable). */
export interface ShopifyTaxLine {
  priceSet: { shopMoney: { amount: string } };
  rate: number | null;
}

/** Per LineItem id its tax lines ("including taxes charged for refunded and removed quantities"), and the shipping line's. */
export interface OrderTaxes {
  lines: Map<string, ShopifyTaxLine[]>;
  shipping: ShopifyTaxLine[];
}

const taxFields = 'taxLines { priceSet { shopMoney { amount } } rate }';

/**
 * The shipping line's and the lines' taxes, `first` lines a page (as many as the order has, at
 * most 100): 8 + 3 points a line with the sandbox's model (14 for two lines, 308 for 100).
 */
export const orderTaxesQuery = `query KontorOrderTaxes($id: ID!, $first: Int!, $after: String) { order(id: $id) { shippingLine { ${taxFields} }
  lineItems(first: $first, after: $after) { pageInfo { hasNextPage endCursor } nodes { id ${taxFields} } } } }`;

type TaxesAnswer = {
  order: {
    shippingLine: { taxLines: ShopifyTaxLine[] } | null;
    lineItems: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: { id: string; taxLines: ShopifyTaxLine[] }[] };
  } | null;
};

/** The order's taxes, its lines paged to the end. */
export async function orderTaxes(s: ShopifySession, orderId: string, lineCount: number): Promise<OrderTaxes> {
  const out: OrderTaxes = { lines: new Map(), shipping: [] };
  const first = Math.min(100, Math.max(1, lineCount));
  let after: string | null = null;
  for (;;) {
    const answer: TaxesAnswer = await s.call<TaxesAnswer>(orderTaxesQuery, { id: orderId, first, after });
    if (!answer.order) return out;
    out.shipping = answer.order.shippingLine?.taxLines ?? [];
    for (const l of answer.order.lineItems.nodes) out.lines.set(l.id, l.taxLines);
    if (!answer.order.lineItems.pageInfo.hasNextPage) return out;
    after = answer.order.lineItems.pageInfo.endCursor;
  }
}

/** Cents of a money amount ("12.3", "-0.50"), exactly. */
function cents(amount: string): number {
  const negative = amount.trim().startsWith('-');
  const [whole = '0', fraction = ''] = amount.trim().replace('-', '').split('.');
  const c = Number(whole) * 100 + Number((fraction + '00').slice(0, 2));
  return negative ? -c : c;
}
const money = (c: number) => `${c < 0 ? '-' : ''}${Math.floor(Math.abs(c) / 100)}.${String(Math.abs(c) % 100).padStart(2, '0')}`;

/** One line as the gross reckoning needs it. */
export interface NetLine {
  id: string;
  /** LineItem.quantity: the units the tax lines were charged for ("including ... refunded and removed"). */
  quantity: number;
  /** The units imported (Kontor's line quantity). */
  kept: number;
  /** The net unit price after discounts (discountedUnitPriceAfterAllDiscountsSet). */
  price: string;
}

/**
 * Gross unit prices, combined rates and the gross shipping fee of a net-price order.
 *
 * **Unit price (decision, README):** the net unit price plus the line's tax per unit, its tax
 * lines' amounts over the units they were charged for, rounded down to the cent. The cents that
 * rounding leaves (fewer than the units: 1.87 over 3 units is 0.62 each, 0.01 left) go to the
 * shipping fee, the order's one amount of quantity one, so that the lines plus shipping add up to
 * exactly what the buyer paid: one cent off and document 1 calls the order partially paid.
 * Rounded down, so the fee only ever rises (a free shipping of 0.00 may become 0.01, never
 * below 0). For a line with units taken out (an edit, a restock) the kept units' share of the
 * tax is rounded half up first.
 *
 * **Rate (decision):** the sum of the tax lines' rates as a percent (US state 6.25 % and county
 * 1 %: 7.25), what the gross price holds, rounded to document 2's two places (New York City's
 * 8.875 % is 8.88). A tax line without a rate (nullable) makes the rate the line's tax over its
 * net amount. A line without tax lines (not taxable, a tax-exempt buyer) is 0.00.
 *
 * **Shipping:** its net price after discounts plus its own tax lines (ShippingLine.taxLines).
 * Kontor's shipping has no rate: the shipping's rate is not kept.
 */
export function grossAmounts(
  lines: NetLine[],
  shippingFee: string,
  taxes: OrderTaxes,
): { lines: Map<string, { price: string; tax: string }>; shippingFee: string } {
  const out = new Map<string, { price: string; tax: string }>();
  let leftOver = 0;
  for (const l of lines) {
    const taxLines = taxes.lines.get(l.id) ?? [];
    const units = Math.max(1, l.quantity);
    const tax = taxLines.reduce((sum, t) => sum + cents(t.priceSet.shopMoney.amount), 0);
    const perUnit = Math.floor(tax / units);
    leftOver += Math.round((tax * l.kept) / units) - perUnit * l.kept;
    const net = cents(l.price);
    const rate = taxLines.every((t) => typeof t.rate === 'number')
      ? taxLines.reduce((sum, t) => sum + t.rate! * 100, 0)
      : net > 0
        ? (tax / (net * units)) * 100
        : 0;
    out.set(l.id, { price: money(net + perUnit), tax: (Math.round(rate * 100) / 100).toFixed(2) });
  }
  const shippingTax = taxes.shipping.reduce((sum, t) => sum + cents(t.priceSet.shopMoney.amount), 0);
  return { lines: out, shippingFee: money(cents(shippingFee) + shippingTax + leftOver) };
}
