/** Shopify's Order (the fields the orders query asks for) as document 2's Order_type (channel-order.type.ts). */
import type { ChannelOrder, ChannelOrderAddress } from '../channel-order.type';
import { LineUnits, OrderLineAmounts, orderAmounts } from './order-amounts';
import { mills, money, ShopifyTaxLine } from './order-taxes';

/**
 * A MoneyBag as the import reads it: its presentmentMoney, the amount in the currency the buyer
 * paid (Order.presentmentCurrencyCode), which is the order's (decision, README "The buyer's
 * currency"); shopMoney is the same amount converted to the shop's currency.
 */
export interface ShopifyMoney {
  presentmentMoney: { amount: string; currencyCode?: string };
}

export interface ShopifyMailingAddress {
  name: string | null;
  firstName: string | null;
  lastName: string | null;
  company: string | null;
  address1: string | null;
  address2: string | null;
  zip: string | null;
  city: string | null;
  province: string | null;
  countryCodeV2: string | null;
  phone: string | null;
}

export interface ShopifyOrderNode {
  id: string;
  name: string;
  createdAt: string;
  updatedAt: string;
  cancelledAt: string | null;
  email: string | null;
  phone: string | null;
  currencyCode: string;
  /**
   * "The payment CurrencyCode of the customer for the order": the order's currency_id, and every
   * amount is read in it (presentmentMoney). Shopify Markets lets a shop sell in the buyer's
   * currency; `currencyCode` ("The shop currency when the order was placed") and shopMoney are then
   * the buyer's amounts converted one by one. Read in the shop's currency, the seller's invoice to
   * a Swiss buyer who paid CHF 78.20 said EUR 83.68, an amount the buyer never saw, and each
   * conversion rounded on its own, so the lines stood a cent above the converted payment (83.67):
   * only partially paid by document 1, never shipped; a payment the buyer made in CHF (PayPal) did
   * not fit it either.
   */
  presentmentCurrencyCode: string;
  /** "Whether the order is a test. Test orders are made using the Shopify Bogus Gateway or a payment provider with test mode enabled." */
  test: boolean;
  /** "Whether taxes are included in the subtotal price of the order": false, the lines' and shipping's prices are net (order-taxes.ts). */
  taxesIncluded: boolean;
  /** "A list of all tax lines applied to line items on the order, before returns", one per rate and title: a tax-included order's one rate (order-taxes.ts includedRates). */
  taxLines: ShopifyTaxLine[];
  /** "The total amount discounted on the order before returns ... both order and line level discounts" (nullable): whether its unit prices can be off (order-amounts.ts). */
  totalDiscountsSet: ShopifyMoney | null;
  displayFinancialStatus: string | null;
  displayFulfillmentStatus: string;
  /** "The total amount received minus the total amount refunded" (totalReceivedSet is before returns: a refund left it as it was). */
  netPaymentSet: ShopifyMoney;
  /**
   * The order's shipping summary (null: no shipping line); its discountedPriceSet is after
   * discounts, its currentDiscountedPriceSet "The current shipping price after applying refunds,
   * after applying discounts" (gross when taxesIncluded, net otherwise, as the former).
   */
  shippingLine: { title?: string; discountedPriceSet: ShopifyMoney; currentDiscountedPriceSet: ShopifyMoney } | null;
  /** "Whether duties are included in the subtotal price of the order": false, the duties come on top (onTop). */
  dutiesIncluded: boolean;
  /** "The total amount of duties after returns ... `null` if duties aren't applicable." */
  currentTotalDutiesSet: ShopifyMoney | null;
  /** "The total amount of additional fees after returns ... `null` if there are no additional fees for the order." */
  currentTotalAdditionalFeesSet: ShopifyMoney | null;
  /** "The sum of all tip amounts for the order": what tells a line as a tip (tipLineIds). */
  totalTipReceivedSet: ShopifyMoney;
  shippingAddress: ShopifyMailingAddress | null;
  billingAddress: ShopifyMailingAddress | null;
  lineItems: { pageInfo?: { hasNextPage: boolean; endCursor: string | null }; nodes: ShopifyLineNode[] };
}

export interface ShopifyLineNode {
  id: string;
  sku: string | null;
  name: string;
  /** "The number of units ordered, including refunded and removed units." */
  quantity: number;
  /** "The number of units ordered, excluding refunded and removed units." */
  currentQuantity: number;
  /** "The number of units ordered, excluding refunded units." */
  refundableQuantity: number;
  /** "Whether the variant is taxable": a tax-included order's one rate goes to its taxable lines (order-taxes.ts includedRates). */
  taxable: boolean;
  /** "The approximate unit price": exact unless a discount is spread over several units (order-amounts.ts reads those lines' totals). */
  discountedUnitPriceAfterAllDiscountsSet: ShopifyMoney;
  /** "Whether physical shipping is required for the variant": false for a tip (tipLineIds). */
  requiresShipping: boolean;
  /** "The total number of units that can't be fulfilled. For example, if items have been refunded, or the item is not something that can be fulfilled, like a tip." */
  nonFulfillableQuantity: number;
}

const address = `name firstName lastName company address1 address2 zip city province countryCodeV2 phone`;

/**
 * A line as the import needs it. The unit price is what the buyer paid for it:
 * discountedUnitPriceAfterAllDiscountsSet ("includes discounts", code and order-level ones
 * too), as eBay's and Amazon's lines carry their promotions; originalUnitPriceSet "doesn't
 * include discounts", and with a discount code the lines added up to more than the order's total.
 * It is "approximate" where a discount is spread over units: such orders' lines have their exact
 * totals read (order-amounts.ts). `taxable`, `requiresShipping` and `nonFulfillableQuantity` (tipLineIds) are scalars (0 points).
 */
export const lineFields =
  'id sku name quantity currentQuantity refundableQuantity taxable requiresShipping nonFulfillableQuantity discountedUnitPriceAfterAllDiscountsSet { presentmentMoney { amount } }';

/**
 * The units the buyer still buys before refunds: `quantity` less the units an order edit removed.
 * The schema counts them only by difference: refundableQuantity excludes refunded units,
 * currentQuantity refunded and removed ones, so removed = refundableQuantity - currentQuantity.
 * Refunded units are not told apart here: whether the goods came back is the refund's restockType
 * (order-refunds.ts), read only for orders with refunded units. Read from `quantity` alone, units
 * removed before shipping kept their stock taken in Kontor for good.
 */
export function unitsSold(l: Pick<ShopifyLineNode, 'quantity' | 'currentQuantity' | 'refundableQuantity'>): number {
  const removed = l.refundableQuantity - l.currentQuantity;
  return Number.isInteger(removed) && removed > 0 ? Math.max(0, l.quantity - removed) : l.quantity;
}

/**
 * The selection of an order the import needs (its first 30 lines, what keeps a page of orders
 * within one query's cost limit; the rest are read by the order's own line paging). Order.taxLines
 * and totalDiscountsSet (5 points an order, the page of 10 at 753) tell which orders need more
 * read (order-amounts.ts); totalTipReceivedSet (2 points an order) tells the tips (tipLineIds):
 * the page of 10 costs 813 by the sandbox's cost model (793 before it), within the 1000 of one
 * query. A line's `variant { id }` would cost 1 a line, 300 the page, past that bound: a tip is
 * told by its missing SKU instead.
 */
export const orderFields = `id name createdAt updatedAt cancelledAt email phone currencyCode presentmentCurrencyCode test taxesIncluded displayFinancialStatus displayFulfillmentStatus
  netPaymentSet { presentmentMoney { amount } } shippingLine { title discountedPriceSet { presentmentMoney { amount } } currentDiscountedPriceSet { presentmentMoney { amount } } }
  dutiesIncluded currentTotalDutiesSet { presentmentMoney { amount } } currentTotalAdditionalFeesSet { presentmentMoney { amount } }
  totalDiscountsSet { presentmentMoney { amount } } totalTipReceivedSet { presentmentMoney { amount } } taxLines { rate priceSet { presentmentMoney { amount } } }
  shippingAddress { ${address} } billingAddress { ${address} }
  lineItems(first: 30) { pageInfo { hasNextPage endCursor } nodes { ${lineFields} } }`;

/** The number at the end of a global id (gid://shopify/Order/123 -> 123): Kontor keeps Shopify's ids short, as the admin shows them. */
export const legacyId = (gid: string) => gid.slice(gid.lastIndexOf('/') + 1);

function addressOf(a: ShopifyMailingAddress | null): ChannelOrderAddress {
  if (!a) return {};
  const out: ChannelOrderAddress = {
    name: a.name ?? [a.firstName, a.lastName].filter(Boolean).join(' '),
    street: a.address1 ?? undefined,
    zip: a.zip ?? undefined,
    city: a.city ?? undefined,
    country_iso2: a.countryCodeV2 ?? undefined,
  };
  if (a.company) out.name_2 = a.company;
  if (a.address2) out.street_2 = a.address2;
  if (a.province) out.province = a.province;
  return out;
}

/** Mills of an amount that may be absent (order-taxes.ts `mills`: exact, three decimals kept). */
const amountMills = (amount: string | undefined) => (amount === undefined ? 0 : mills(amount));

/**
 * What the buyer paid on top of the lines and the shipping line, in mills: the duties where the
 * prices do not include them (`dutiesIncluded` false: "Whether duties are included in the subtotal
 * price of the order") and the additional fees (`additionalFees`, a US state's retail delivery fee).
 * Both are in what the buyer paid (netPaymentSet) and on no line, so (decision, README) they go to
 * the shipping fee, the order's one amount of quantity one, as the cents the unit prices cannot
 * hold: lines plus shipping are what the buyer paid. Left out, a cross-border order whose buyer
 * paid the duties at checkout stood above its invoice, only partially paid by document 1 (no
 * paid_in_full, never shipped). Not into the lines: a line's price holds the goods and their VAT
 * (its rate is read from its tax lines), which a duty is not; not a line of its own: it would be
 * no article, ask for a stock link and name no LineItem for send_mit. The amounts after returns
 * (`current...`), as the lines' units are after those the store took back: a refund that gives a
 * duty back with its units (a unit the seller cancels before shipping, a return) lowers what the
 * buyer paid by it, and with the amounts at creation (`original...`) the order stood above its
 * payment by that duty, only partially paid again and never shipped. Their own taxes
 * (Duty.taxLines, AdditionalFee.taxLines) join them in a net-price store (order-amounts.ts
 * onTopTaxesNeeded, read with the lines' taxes), so the order's total is what the buyer paid.
 */
function onTop(o: Pick<ShopifyOrderNode, 'dutiesIncluded' | 'currentTotalDutiesSet' | 'currentTotalAdditionalFeesSet'>): number {
  const duties = o.dutiesIncluded === false ? amountMills(o.currentTotalDutiesSet?.presentmentMoney.amount) : 0;
  return duties + amountMills(o.currentTotalAdditionalFeesSet?.presentmentMoney.amount);
}

/**
 * The order's tip lines (decision, README "Tips at Shopify"). Shopify keeps a tip as an ordinary
 * LineItem, in Order.nonFulfillableLineItems ("tips and fully refunded line items can't be
 * fulfilled"), its amount in Order.totalTipReceivedSet ("The sum of all tip amounts for the
 * order"). A tip is the buyer's gratuity, not goods: as a line it asked the seller for a stock link
 * (it has no SKU) and was invoiced, and taxed, as goods. A line is taken as a tip only when all of
 * these hold, so that no goods line is ever dropped: no SKU (a tip has no variant), nothing to ship
 * (requiresShipping false), every unit not fulfillable (nonFulfillableQuantity at least its
 * quantity: a tip's, while a refunded goods line with no SKU and nothing to ship, a custom service
 * line, is the one look-alike), and the candidates' amounts add up exactly to the order's tip
 * total. Any other order (a tip total the candidates do not make, a digital custom line beside a
 * tip) keeps every line as before. The amount compared is all units (before returns) or the kept
 * ones (after): the schema does not say which a refunded tip leaves in totalTipReceivedSet.
 */
export function tipLineIds(o: Pick<ShopifyOrderNode, 'totalTipReceivedSet' | 'lineItems'>, kept: Map<string, number>): Set<string> {
  const tip = amountMills(o.totalTipReceivedSet?.presentmentMoney.amount);
  if (tip <= 0) return new Set();
  const candidates = o.lineItems.nodes.filter((l) => !l.sku && l.requiresShipping === false && l.nonFulfillableQuantity >= l.quantity && l.quantity > 0);
  const unit = (l: ShopifyLineNode) => amountMills(l.discountedUnitPriceAfterAllDiscountsSet.presentmentMoney.amount);
  const all = candidates.reduce((sum, l) => sum + unit(l) * l.quantity, 0);
  const left = candidates.reduce((sum, l) => sum + unit(l) * (kept.get(l.id) ?? l.quantity), 0);
  return all === tip || left === tip ? new Set(candidates.map((l) => l.id)) : new Set();
}

/**
 * Financial states in which the buyer has paid and kept paying (Shopify's
 * OrderDisplayFinancialStatus): PAID and PARTIALLY_REFUNDED. REFUNDED is money given back, not
 * paid (as eBay's FULLY_REFUNDED): an order refunded before its first fetch was imported paid in
 * full, since a paid order without an amount is taken as paid in full.
 */
const paidStates = new Set(['PAID', 'PARTIALLY_REFUNDED']);

/**
 * The order in Kontor's words. `restocks`: per LineItem id, the units its refunds restocked
 * (order-refunds.ts: CANCEL, a RETURN restocked), which leave the line as removed units do.
 * `read`: what was read of its lines beyond the page (order-amounts.ts: exact totals, tax
 * lines): the lines and shipping add up to what the buyer paid, gross, each line with its rate
 * (order-taxes.ts), whether the store's prices include tax or not. `byApp`: per LineItem id, the
 * fulfilment app that ships the line from its own stock (fulfillment-plan.ts appLines); `bySeller`:
 * the LineItem ids shown at the seller's own locations only (fulfillment-plan.ts sellerLines).
 */
export function channelOrder(
  whole: ShopifyOrderNode,
  restocks = new Map<string, { back: number; returned: number }>(),
  read?: OrderLineAmounts,
  byApp = new Map<string, string>(),
  bySeller = new Set<string>(),
): ChannelOrder {
  const shipTo = addressOf(whole.shippingAddress ?? whole.billingAddress);
  const keptAll = new Map(whole.lineItems.nodes.map((l) => [l.id, Math.max(0, unitsSold(l) - (restocks.get(l.id)?.back ?? 0))]));
  // Tips are no line and not in what pays the invoice (tipLineIds): the buyer's payment less the
  // tip the order still holds (its kept units: a tip refunded is out of netPaymentSet already).
  const tips = tipLineIds(whole, keptAll);
  const tipMills = whole.lineItems.nodes
    .filter((l) => tips.has(l.id))
    .reduce((sum, l) => sum + amountMills(l.discountedUnitPriceAfterAllDiscountsSet.presentmentMoney.amount) * keptAll.get(l.id)!, 0);
  const o: ShopifyOrderNode = { ...whole, lineItems: { ...whole.lineItems, nodes: whole.lineItems.nodes.filter((l) => !tips.has(l.id)) } };
  const kept = new Map(o.lineItems.nodes.map((l) => [l.id, keptAll.get(l.id)!]));
  // The shipping the buyer paid and kept: the shipping line after discounts (a free-shipping code
  // included, 2024-07 on) and after refunds (currentDiscountedPriceSet), not totalShippingPriceSet
  // ("before discounts and returns"). A refund of the shipping (Refund.refundShippingLines) lowers
  // netPaymentSet by it: with the shipping before refunds the fee stayed and the invoice stood above
  // the payment, only partially paid by document 1 (decision, README "A refund of the shipping").
  // Duties and additional fees on top of the prices join it (onTop).
  const shippingMills = amountMills(o.shippingLine?.currentDiscountedPriceSet.presentmentMoney.amount) + onTop(o);
  const units = new Map<string, LineUnits>(o.lineItems.nodes.map((l) => [l.id, { quantity: l.quantity, kept: kept.get(l.id)! }]));
  const amounts = orderAmounts(o, units, shippingMills, read);
  return {
    external_order_id: legacyId(o.id),
    modified_at: o.updatedAt,
    created_at: o.createdAt,
    currency_id: o.presentmentCurrencyCode,
    customer: {
      ...(o.email ? { email: o.email } : {}),
      ...((o.phone ?? o.shippingAddress?.phone) ? { phone_1: (o.phone ?? o.shippingAddress?.phone)! } : {}),
      address: addressOf(o.billingAddress ?? o.shippingAddress),
    },
    // The shipping line's title as the method ("Standard", "Abholung im Laden"): with shippingAddress
    // null (a local pickup, a digital good) the address is the billing one, and without the method
    // the seller could not tell a pickup from a parcel to send (found feeding the contract's nulls).
    // A scalar: no query cost.
    shipping: { fee: amounts.shippingFee, ...(o.shippingLine?.title ? { method: o.shippingLine.title } : {}), address: shipTo },
    line: o.lineItems.nodes.map((l) => {
      const restocked = restocks.get(l.id);
      const amount = amounts.lines.get(l.id)!;
      return {
        transaction_id: legacyId(l.id),
        sku: l.sku || null,
        name: l.name,
        quantity: kept.get(l.id)!,
        ...(restocked?.returned ? { returned: restocked.returned } : {}),
        price: amount.price,
        ...(amount.tax !== undefined ? { tax: amount.tax } : {}),
        ...(byApp.has(l.id) ? { fulfilled_by_app: byApp.get(l.id)! } : {}),
        ...(bySeller.has(l.id) ? { fulfilled_by_seller: true as const } : {}),
      };
    }),
    // What the buyer paid and kept: received less refunded. totalReceivedSet ("before returns")
    // stayed the same after a refund, so a refunded order kept its whole amount in Kontor.
    // A POS cash payment's rounding to the coins (Order.totalCashRoundingAdjustment) is not in
    // totalReceivedSet nor totalRefundedSet (Shopify's changelog: "Rounded total payment:
    // totalReceivedSet + ...paymentSet"), so this is the order's price to the cent and the
    // rounding is left out on purpose (decision, README "Cash rounding").
    // A currency of three decimals is rounded to Kontor's cent here, as the fee is (order-amounts.ts):
    // paid and invoiced alike, half away from zero. Two places or fewer stay as Shopify wrote them
    // (the channel state of orders imported before compares the text).
    paid_amount:
      tipMills || /\.\d{3}/.test(o.netPaymentSet.presentmentMoney.amount)
        ? money(Math.max(0, mills(o.netPaymentSet.presentmentMoney.amount) - tipMills))
        : o.netPaymentSet.presentmentMoney.amount,
    status: {
      is_paid: paidStates.has(o.displayFinancialStatus ?? ''),
      is_shipped: o.displayFulfillmentStatus === 'FULFILLED',
      is_cancelled: o.cancelledAt !== null,
    },
    // Every line a fulfilment app's (fulfillment-plan.ts appLines): the order is the app's to ship,
    // as an order Amazon or Kaufland fulfils is the channel's (send_mit refused, lib/order).
    ...(o.lineItems.nodes.length && o.lineItems.nodes.every((l) => byApp.has(l.id)) ? { fulfilled_by_channel: {} } : {}),
  };
}
