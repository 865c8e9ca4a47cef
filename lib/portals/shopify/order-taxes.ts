/**
 * The taxes of a Shopify order as Kontor's lines carry them: Order_line_type's `tax` is the "VAT
 * percent included in price" (document 2) and its price is gross.
 *
 * - A store whose prices exclude tax (admin_schema_2025-01.json: Order.taxesIncluded false,
 *   "Whether taxes are included in the subtotal price of the order"; a US store, most Canadian
 *   ones) is imported gross: imported net, the buyer's payment (netPaymentSet, tax included) stood
 *   above the invoice, which document 1 calls only partially paid: no paid_in_full, never shipped.
 *   Its lines' tax lines are read by a query of their own (order-amounts.ts): LineItem.taxLines
 *   on the orders page cost 3 points a line (30 lines, 10 orders: 900 more than the page's 753,
 *   beyond the 1000 of one query).
 * - A store whose prices include tax (taxesIncluded true: every EU store) keeps its gross prices
 *   and gets the same rate per line (`rateOf`), read cheaply where the order allows it
 *   (`includedRates`, from Order.taxLines on the page), else by the same query.
 */

/** TaxLine: priceSet "The amount of tax ... after discounts and before returns"; rate "The proportion of the line item price that the tax represents as a decimal" (nullable). */
export interface ShopifyTaxLine {
  priceSet: { presentmentMoney: { amount: string } };
  rate: number | null;
}

/** Per LineItem id its tax lines ("including taxes charged for refunded and removed quantities"), the shipping line's, of those what refunds of the shipping gave back, and the duties' and fees' taxes (mills). */
export interface OrderTaxes {
  lines: Map<string, ShopifyTaxLine[]>;
  shipping: ShopifyTaxLine[];
  shippingRefunded: number;
  /** The taxes on the duties and fees after returns (order-amounts.ts onTopTaxesNeeded), mills. */
  onTop: number;
}

export const taxFields = 'taxLines { priceSet { presentmentMoney { amount } } rate }';

/**
 * A money amount ("12.3", "-0.50", "4.995") in thousandths of its currency's unit (mills),
 * exactly. Shopify's currencies have at most three decimals (KWD, BHD, OMR, JOD, TND: a fils is a
 * thousandth), so every amount of an order is summed and shared in mills; Kontor's own money has
 * two places (numeric(14,2), lib/order), and `money` is the one place a mill is given up.
 * Read in cents, a Kuwaiti order's 4.995 line was 4.99 and its 11.245 payment 11.25: the lines
 * stood below what the buyer paid, only partially paid by document 1, never shipped.
 */
export function mills(amount: string): number {
  const negative = amount.trim().startsWith('-');
  const [whole = '0', fraction = ''] = amount.trim().replace('-', '').split('.');
  const m = Number(whole) * 1000 + Number((fraction + '000').slice(0, 3));
  return negative ? -m : m;
}
/** A cent in mills. */
export const CENT = 10;
/**
 * Mills as Kontor's amount of two places, rounded half away from zero (as lib/http's decimal
 * rounds what a client sends): exact for a currency of two decimals or none.
 */
export function money(m: number): string {
  const c = Math.round(Math.abs(m) / CENT);
  return `${m < 0 && c > 0 ? '-' : ''}${Math.floor(c / 100)}.${String(c % 100).padStart(2, '0')}`;
}

/** The tax lines' amounts in mills. */
export const taxMills = (taxLines: ShopifyTaxLine[]) => taxLines.reduce((sum, t) => sum + mills(t.priceSet.presentmentMoney.amount), 0);

/** A percent (7.25) as document 2's with two places ("7.25"; 8.875 is "8.88"). */
const percent = (p: number) => (Math.round(p * 100) / 100).toFixed(2);

/**
 * **Rate of a line (decision, README):** the sum of its tax lines' rates as a percent (US state
 * 6.25 % and county 1 %: 7.25), what the gross price holds, rounded to document 2's two places. A
 * tax line without a rate (nullable) makes the rate the line's tax over its net amount (`net`:
 * after discounts, before tax, of all its units). A line without tax lines (not taxable, a
 * tax-exempt buyer) is 0.00. The same for both kinds of store.
 */
export function rateOf(taxLines: ShopifyTaxLine[], net: number): string {
  if (taxLines.every((t) => typeof t.rate === 'number')) return percent(taxLines.reduce((sum, t) => sum + t.rate! * 100, 0));
  return net > 0 ? percent((taxMills(taxLines) / net) * 100) : '0.00';
}

/** What includedRates reads of an order on the orders page (Order.taxLines, LineItem.taxable). */
export interface IncludedTaxOrder {
  /** Order.taxLines: "all tax lines applied to line items on the order, before returns ... the total price for all tax lines with the same `rate` and `title`". */
  taxLines: ShopifyTaxLine[];
  lineItems: { nodes: { id: string; taxable: boolean }[] };
}

/**
 * The rates of a tax-included order's lines from the order's own tax lines, without reading each
 * line's (decision, README): Order.taxLines on the page cost 3 points an order, the lines' 3 a line.
 * - No tax line: no line was charged tax (an exempt buyer, a store charging none): 0.00 each.
 * - One tax line with a rate (one VAT rate for the whole order, as most EU orders): each taxable
 *   line (LineItem.taxable) has that rate, the others 0.00, **when the tax line's amount is what
 *   the taxable lines hold at that rate** (their gross totals x rate / (1 + rate)), within a cent
 *   a line for Shopify's rounding. Else a taxable line was charged another tax than the order
 *   shows (none at all), and its rate is not known from here.
 * - Otherwise (several rates, 19 % and 7 %; several titles; a rate not given): undefined, and the
 *   lines' tax lines are read (order-amounts.ts).
 * `totals`: each line's gross total after discounts, in mills, of all its units.
 */
export function includedRates(o: IncludedTaxOrder, totals: Map<string, number>): Map<string, string> | undefined {
  const lines = o.lineItems.nodes;
  if (o.taxLines.length === 0) return new Map(lines.map((l) => [l.id, '0.00']));
  const only = o.taxLines[0]!;
  if (o.taxLines.length !== 1 || typeof only.rate !== 'number') return undefined;
  const rate = only.rate;
  const taxable = lines.filter((l) => l.taxable);
  const held = taxable.reduce((sum, l) => sum + Math.round(((totals.get(l.id) ?? 0) * rate) / (1 + rate)), 0);
  if (Math.abs(held - taxMills([only])) > CENT * Math.max(1, taxable.length)) return undefined;
  return new Map(lines.map((l) => [l.id, l.taxable ? percent(rate * 100) : '0.00']));
}
