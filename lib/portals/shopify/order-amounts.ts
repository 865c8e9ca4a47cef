/**
 * What the buyer paid for each line of a Shopify order, exact to the cent, and what Kontor's lines
 * (one gross unit price for a quantity, document 2's Order_line_type) and shipping fee make of it,
 * so that lines plus shipping are the order's payment: one cent off and document 1 (states, rule 2)
 * calls the order only partially paid (no paid_in_full, never shipped).
 *
 * The page's unit price, LineItem.discountedUnitPriceAfterAllDiscountsSet, is "the approximate
 * unit price" (admin_schema_2025-01.json): a discount over a line of 3 units is rounded per unit
 * (1.00 off 3 x 10.00 is 9.67 a unit: 29.01 for the 29.00 the buyer paid). The exact amount of a
 * line is originalTotalSet ("the total price of the line item when the order was created ...
 * doesn't include discounts") less its discountAllocations' allocatedAmountSet ("The discounts
 * that have been allocated to the line item by discount applications, including discounts
 * allocated to refunded and removed quantities": code, automatic and order-level ones alike).
 * Both cost 5 points a line, 150 an order of 30 lines on the page: read by a query of their own,
 * only for orders where the unit price can be off (`needsLineTotals`).
 */
import { shopifyDocument, type ShopifySession } from './shopify-client';
import { CENT, IncludedTaxOrder, includedRates, mills, money, OrderTaxes, rateOf, ShopifyTaxLine, taxFields, taxMills } from './order-taxes';

type ShopifyMoney = { presentmentMoney: { amount: string } };

/** What this file reads of an order from the orders page (order-mapping.ts's ShopifyOrderNode has it). */
export interface AmountsOrder extends IncludedTaxOrder {
  id: string;
  /** "Whether duties are included in the subtotal price of the order" and the duties and fees after returns ("`null`" when none): whether their taxes are read. */
  dutiesIncluded: boolean;
  currentTotalDutiesSet: ShopifyMoney | null;
  currentTotalAdditionalFeesSet: ShopifyMoney | null;
  /** Order.taxesIncluded: false, the lines' and shipping's prices are net. */
  taxesIncluded: boolean;
  /** Order.totalDiscountsSet: "The total amount discounted on the order before returns ... both order and line level discounts" (nullable). */
  totalDiscountsSet: ShopifyMoney | null;
  lineItems: { nodes: { id: string; quantity: number; taxable: boolean; discountedUnitPriceAfterAllDiscountsSet: ShopifyMoney }[] };
  /** The shipping line: its price after discounts, and after refunds too (`currentDiscountedPriceSet`): a refund of shipping lowers the latter only. */
  shippingLine: { discountedPriceSet: ShopifyMoney; currentDiscountedPriceSet: ShopifyMoney } | null;
}

const lineTotalFields = 'originalTotalSet { presentmentMoney { amount } } discountAllocations { allocatedAmountSet { presentmentMoney { amount } } }';

/**
 * What the query of an order's lines reads: the exact line totals, the taxes, or both; with the
 * taxes, those of the duties (`duties`) and of the additional fees (`fees`) that come on top
 * (`onTopTaxesNeeded`).
 */
export interface LineNeeds {
  totals: boolean;
  taxes: boolean;
  duties?: boolean;
  fees?: boolean;
}

/** A duty's or fee's amount and its taxes ("A list of taxes charged on the duty", "... on the additional fee"). */
const chargeFields = `price { presentmentMoney { amount } } ${taxFields}`;
type Charge = { price: ShopifyMoney; taxLines: ShopifyTaxLine[] };

/**
 * The order's lines with what `need` names, and the shipping line's taxes when taxes are asked,
 * `first` lines a page (as many as the order has, at most 100). Measured with the sandbox's cost
 * model: taxes 8 + 3 points a line (14 for two lines, 308 for 100), totals 4 + 5 (154 for 30),
 * both 8 + 8 (808 for 100), within the 1000 of one query.
 */
export const orderLinesQuery = (need: LineNeeds) =>
  shopifyDocument(`query KontorOrderLineAmounts($id: ID!, $first: Int!, $after: String) { order(id: $id) { ${need.taxes ? `shippingLine { ${taxFields} }` : 'id'}
  ${need.fees ? `additionalFees { ${chargeFields} }` : ''}
  lineItems(first: $first, after: $after) { pageInfo { hasNextPage endCursor } nodes { id ${need.totals ? lineTotalFields : ''} ${need.taxes ? taxFields : ''} ${need.duties ? `duties { ${chargeFields} }` : ''} } } } }`);

interface LineAmountsNode {
  id: string;
  duties?: Charge[];
  originalTotalSet?: ShopifyMoney;
  discountAllocations?: { allocatedAmountSet: ShopifyMoney }[];
  taxLines?: ShopifyTaxLine[];
}
type LinesAnswer = {
  order: {
    shippingLine?: { taxLines: ShopifyTaxLine[] } | null;
    additionalFees?: Charge[];
    lineItems: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: LineAmountsNode[] };
  } | null;
};

/** What was read of an order beyond its page: exact line totals (mills after all discounts, all units) and tax lines, per LineItem id. */
export interface OrderLineAmounts {
  totals: Map<string, number>;
  taxes: OrderTaxes;
}

const nothingRead = (): OrderLineAmounts => ({ totals: new Map(), taxes: { lines: new Map(), shipping: [], shippingRefunded: 0, onTop: 0 } });

/**
 * The taxes of charges after returns, in mills: their tax lines' amounts (as charged) in the share
 * of the charges still standing (`current`, the order's current total of them, over their sum):
 * all of it without returns, none once they were all refunded. Shopify gives a refunded duty's
 * amount (RefundDuty) but not its tax, so a part refunded keeps its share of the tax (our reading).
 */
function chargeTaxes(charges: Charge[], current: number): number {
  const whole = charges.reduce((sum, c) => sum + mills(c.price.presentmentMoney.amount), 0);
  const taxes = charges.reduce((sum, c) => sum + taxMills(c.taxLines), 0);
  return whole > 0 ? Math.round((taxes * Math.min(whole, current)) / whole) : 0;
}

/**
 * The tax refunds gave back with the shipping (RefundShippingLine.taxAmountSet, "The tax amount of
 * the refund shipping line"), of the order's first 20 refunds, 5 shipping lines each (an order has
 * one shipping line; several refunds of it are rare): 1 + 20 x (1 + 2 + 5 x 2) = 261 points requested.
 */
const shippingRefundsQuery = shopifyDocument(`query KontorShippingRefunds($id: ID!) { order(id: $id) { id
  refunds(first: 20) { refundShippingLines(first: 5) { nodes { taxAmountSet { presentmentMoney { amount } } } } } } }`);
type ShippingRefundsAnswer = { order: { refunds: { refundShippingLines: { nodes: { taxAmountSet: ShopifyMoney }[] } }[] } | null };

/** Whether a refund gave back some of the shipping: its price after refunds below its price after discounts. */
export const shippingRefunded = (o: Pick<AmountsOrder, 'shippingLine'>) =>
  o.shippingLine !== null &&
  mills(o.shippingLine.currentDiscountedPriceSet.presentmentMoney.amount) < mills(o.shippingLine.discountedPriceSet.presentmentMoney.amount);

/** Reads what `need` names of the order's lines into `into`, its lines paged to the end. */
async function readLines(s: ShopifySession, o: AmountsOrder, need: LineNeeds, into: OrderLineAmounts): Promise<void> {
  // 50 lines a page with the duties' taxes (6 points a line more: 708 for 50 with totals and taxes), else 100.
  const first = Math.min(need.duties ? 50 : 100, Math.max(1, o.lineItems.nodes.length));
  const duties: Charge[] = [];
  let after: string | null = null;
  for (;;) {
    const answer: LinesAnswer = await s.call<LinesAnswer>(orderLinesQuery(need), { id: o.id, first, after });
    if (!answer.order) return;
    if (need.taxes) into.taxes.shipping = answer.order.shippingLine?.taxLines ?? [];
    if (need.duties) duties.push(...answer.order.lineItems.nodes.flatMap((l) => l.duties ?? []));
    if (need.fees && after === null) into.taxes.onTop = chargeTaxes(answer.order.additionalFees ?? [], amountOf(o.currentTotalAdditionalFeesSet));
    for (const l of answer.order.lineItems.nodes) {
      if (need.totals && l.originalTotalSet)
        into.totals.set(
          l.id,
          mills(l.originalTotalSet.presentmentMoney.amount) -
            (l.discountAllocations ?? []).reduce((sum, d) => sum + mills(d.allocatedAmountSet.presentmentMoney.amount), 0),
        );
      if (need.taxes) into.taxes.lines.set(l.id, l.taxLines ?? []);
    }
    if (!answer.order.lineItems.pageInfo.hasNextPage) break;
    after = answer.order.lineItems.pageInfo.endCursor;
  }
  if (need.duties) into.taxes.onTop += chargeTaxes(duties, amountOf(o.currentTotalDutiesSet));
}

const amountOf = (m: ShopifyMoney | null) => (m ? mills(m.presentmentMoney.amount) : 0);

/**
 * Whose taxes on the order's duties and fees are read (decision, README "Taxes on duties and
 * fees"): in a net-price store (taxesIncluded false) they come on top of the duties and fees the
 * buyer paid (`onTop` in order-mapping.ts), as a line's or the shipping's do. The duties' only where
 * they come on top of the prices (dutiesIncluded false), as `onTop` takes the duties themselves: a
 * store whose prices include the duties, charging an additional fee, had its duties' taxes added to
 * the fee though neither they nor the duties are (found by a reviewer of 2a93db1: the order stood
 * above its payment by that tax, only partially paid). A tax-included store's duties and fees hold theirs.
 */
const onTopTaxesNeeded = (o: AmountsOrder) => ({
  duties: o.taxesIncluded === false && o.dutiesIncluded === false && amountOf(o.currentTotalDutiesSet) > 0,
  fees: o.taxesIncluded === false && amountOf(o.currentTotalAdditionalFeesSet) > 0,
});

/**
 * Whether the page's unit prices can be off (decision, README): only a discount spreads an amount
 * over a line's units, so an order without one (Order.totalDiscountsSet 0, "order and line level
 * discounts") has exact unit prices (originalUnitPriceSet x quantity), and a line of one unit
 * is its own total. The order's discounts include a shipping discount: a free-shipping code reads
 * the lines once more, harmless.
 */
export function needsLineTotals(o: Pick<AmountsOrder, 'totalDiscountsSet' | 'lineItems'>): boolean {
  return mills(o.totalDiscountsSet?.presentmentMoney.amount ?? '0') !== 0 && o.lineItems.nodes.some((l) => l.quantity > 1);
}

/** Each line's total after all discounts in mills (gross in a tax-included store, net otherwise): read exactly, else the page's unit price times the units. */
function lineTotals(o: AmountsOrder, read: OrderLineAmounts): Map<string, number> {
  return new Map(
    o.lineItems.nodes.map((l) => [
      l.id,
      read.totals.get(l.id) ?? mills(l.discountedUnitPriceAfterAllDiscountsSet.presentmentMoney.amount) * Math.max(1, l.quantity),
    ]),
  );
}

/**
 * What the import reads of an order beyond its page, at most two queries: the exact line totals
 * where the unit prices can be off, with the taxes of a net-price store in the same query; for a
 * tax-included store the lines' taxes only when Order.taxLines does not give their rates
 * (includedRates: several rates in one order).
 */
export async function readOrderLineAmounts(s: ShopifySession, o: AmountsOrder): Promise<OrderLineAmounts> {
  const read = nothingRead();
  const need = { totals: needsLineTotals(o), taxes: o.taxesIncluded === false, ...onTopTaxesNeeded(o) };
  if (need.totals || need.taxes) await readLines(s, o, need, read);
  if (o.taxesIncluded !== false && !includedRates(o, lineTotals(o, read))) await readLines(s, o, { totals: false, taxes: true }, read);
  // A net-price store's shipping tax (ShippingLine.taxLines, as charged) less what refunds of the
  // shipping gave back of it: read only when the shipping was refunded (its current price lower).
  if (need.taxes && shippingRefunded(o)) {
    const answer = await s.call<ShippingRefundsAnswer>(shippingRefundsQuery, { id: o.id });
    read.taxes.shippingRefunded = (answer.order?.refunds ?? [])
      .flatMap((r) => r.refundShippingLines.nodes)
      .reduce((sum, n) => sum + mills(n.taxAmountSet.presentmentMoney.amount), 0);
  }
  return read;
}

/** One line's units: LineItem.quantity (what it was charged for, removed and refunded units included) and those imported. */
export interface LineUnits {
  quantity: number;
  kept: number;
}

/**
 * Kontor's gross unit price and rate per line and the shipping fee (`shippingMills`: what the
 * buyer paid for the shipping and on top of the prices, order-mapping.ts).
 *
 * **A line's total is split into one unit price and a rest (decision, README).** The gross total
 * (exact, net-price stores' tax lines added) over `quantity` is the unit price, rounded down to
 * the cent; the cents that leaves (fewer than the units: 29.00 over 3 is 9.66 each, 0.02 left)
 * go to the shipping fee, the order's one amount of quantity one, so lines plus shipping are
 * exactly what the buyer paid. Rounded down, the fee only ever rises (a free shipping of 0.00 may
 * become 0.02). Not two lines at adjacent cent prices (9.66 and 9.67): the line's
 * transaction_id is its identity in every later change of the order (units removed, refunded,
 * returned; lib/order-import follows them by it), and two lines of one id collided (2dc2087);
 * which of the two prices units removed later had cannot be told either. For a line with units
 * taken out (an edit, a restock) the kept units' share of the total is rounded half up first.
 *
 * **Three decimals (decision, README):** the amounts are summed in mills (order-taxes.ts `mills`)
 * and the unit price rounded down to Kontor's cent like any other rest: the mills it leaves join
 * the fee, which alone is rounded to the cent (half away from zero, as the payment is). So the
 * invoice is what the buyer paid rounded to the cent (a Kuwaiti 4.995 + 4.995 + 1.250 is two
 * lines of 4.99 and a fee of 1.26: 11.24 for 11.240), never a fils more than half a cent off.
 *
 * **Rate** (order-taxes.ts rateOf): from the line's tax lines when read, else for a tax-included
 * store from the order's (includedRates). No rate at all when neither was read (a caller that
 * read nothing).
 *
 * **Shipping:** its price after discounts and refunds (`shippingMills`, order-mapping.ts), plus
 * its own tax lines in a net-price store (ShippingLine.taxLines; Kontor's shipping has no rate)
 * less the tax refunds of the shipping gave back, plus the taxes on the duties and fees in such a
 * store (`onTopTaxesNeeded`), plus the lines' rest.
 */
export function orderAmounts(
  o: AmountsOrder,
  units: Map<string, LineUnits>,
  shippingMills: number,
  read: OrderLineAmounts = nothingRead(),
): { lines: Map<string, { price: string; tax?: string }>; shippingFee: string } {
  const net = o.taxesIncluded === false;
  const totals = lineTotals(o, read);
  const orderRates = net ? undefined : includedRates(o, totals);
  const out = new Map<string, { price: string; tax?: string }>();
  let rest = 0;
  for (const l of o.lineItems.nodes) {
    const { quantity, kept } = units.get(l.id) ?? { quantity: l.quantity, kept: l.quantity };
    const total = totals.get(l.id)!;
    const taxLines = read.taxes.lines.get(l.id);
    const tax = taxLines ? taxMills(taxLines) : 0;
    const gross = net ? total + tax : total;
    const n = Math.max(1, quantity);
    const unit = Math.floor(gross / n / CENT) * CENT;
    // The kept units' share to the cent (the share of a line kept whole is its total, to the mill).
    rest += (kept === n ? gross : Math.round((gross * kept) / n / CENT) * CENT) - unit * kept;
    const rate = taxLines ? rateOf(taxLines, net ? total : total - tax) : orderRates?.get(l.id);
    out.set(l.id, { price: money(unit), ...(rate !== undefined ? { tax: rate } : {}) });
  }
  const shippingTax = net ? taxMills(read.taxes.shipping) - read.taxes.shippingRefunded : 0;
  return { lines: out, shippingFee: money(shippingMills + shippingTax + (net ? read.taxes.onTop : 0) + rest) };
}
