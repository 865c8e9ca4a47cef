/**
 * What Shopify's refunds say happened to the goods of an order's lines (admin_schema_2025-01.json:
 * Order.refunds, Refund.refundLineItems, RefundLineItem quantity, restockType, restocked,
 * lineItem). RefundLineItemRestockType: CANCEL "canceled. Use this when restocking unfulfilled
 * line items"; RETURN "returned. Use this when restocking line items that were fulfilled";
 * NO_RESTOCK "not restocked"; LEGACY_RESTOCK "restocked, without specifically being identified as
 * a return or cancelation" (older refunds).
 *
 * Decision (README "webshop is a Shopify store", refunds and restocks): a unit refunded and
 * restocked is no longer sold, so it leaves the Kontor line like a unit an order edit removed and
 * the import puts it back to stock: CANCEL always (it never left), RETURN and LEGACY_RESTOCK when
 * `restocked` (the goods came back and the store put them on sale again). NO_RESTOCK stays on the
 * line: the refund is money, the goods are gone or kept by the buyer. On an order shipped here the
 * import changes neither line nor stock and the history says so (lib/order).
 */
import { shopifyDocument, type ShopifySession } from './shopify-client';

export type RestockType = 'RETURN' | 'CANCEL' | 'NO_RESTOCK' | 'LEGACY_RESTOCK';

export interface ShopifyRefundLineNode {
  quantity: number;
  restockType: RestockType;
  /** "Whether the refunded line item was restocked." */
  restocked: boolean;
  lineItem: { id: string };
}

type PageInfo = { hasNextPage: boolean; endCursor: string | null };
interface RefundLines {
  pageInfo: PageInfo;
  nodes: ShopifyRefundLineNode[];
}

const refundLineFields = 'pageInfo { hasNextPage endCursor } nodes { quantity restockType restocked lineItem { id } }';

/**
 * An order's refunds with their first 10 line items each. Cost (the sandbox's model, a list
 * truncated by `first` counted as a connection of that size): 1 + 2 + 20 x (2 + 10 + 1) = 263
 * points, within the 1000 of one query; most of it is refunded, as few orders have many refunds.
 * Order.refunds is a list without a cursor: refunds after an order's 20th are not read, so their
 * units stay on the line (as every refund's did before).
 */
export const orderRefundsQuery = shopifyDocument(`query KontorOrderRefunds($id: ID!) { order(id: $id) { id
  refunds(first: 20) { id refundLineItems(first: 10) { ${refundLineFields} } } } }`);
/** A refund's line items after its first 10: its own paging, 100 at a time (about 104 points). */
const refundLinesQuery = shopifyDocument(
  `query KontorRefundLines($id: ID!, $after: String) { refund(id: $id) { refundLineItems(first: 100, after: $after) { ${refundLineFields} } } }`,
);

/** An order has refunded units when a line's refundableQuantity ("excluding refunded units") is below its quantity: only then are its refunds read. */
export const hasRefundedUnits = (lines: { quantity: number; refundableQuantity: number }[]) => lines.some((l) => l.refundableQuantity < l.quantity);

/** Every refund line item of the order (its first 20 refunds), each refund's line items paged to the end. */
export async function refundLines(s: ShopifySession, orderId: string): Promise<ShopifyRefundLineNode[]> {
  const answer = await s.call<{ order: { refunds: { id: string; refundLineItems: RefundLines }[] } | null }>(orderRefundsQuery, { id: orderId });
  const out: ShopifyRefundLineNode[] = [];
  for (const refund of answer.order?.refunds ?? []) {
    out.push(...refund.refundLineItems.nodes);
    let info = refund.refundLineItems.pageInfo;
    while (info.hasNextPage) {
      const more = await s.call<{ refund: { refundLineItems: RefundLines } | null }>(refundLinesQuery, { id: refund.id, after: info.endCursor });
      if (!more.refund) break;
      out.push(...more.refund.refundLineItems.nodes);
      info = more.refund.refundLineItems.pageInfo;
    }
  }
  return out;
}

/** Per line (LineItem id), the units refunded and restocked (`back`: they leave the line) and of those the returned ones. */
export function restockedUnits(lines: ShopifyRefundLineNode[]): Map<string, { back: number; returned: number }> {
  const out = new Map<string, { back: number; returned: number }>();
  for (const l of lines) {
    const returned = (l.restockType === 'RETURN' || l.restockType === 'LEGACY_RESTOCK') && l.restocked ? l.quantity : 0;
    const back = l.restockType === 'CANCEL' ? l.quantity : returned;
    if (back === 0) continue;
    const sum = out.get(l.lineItem.id) ?? { back: 0, returned: 0 };
    out.set(l.lineItem.id, { back: sum.back + back, returned: sum.returned + returned });
  }
  return out;
}
