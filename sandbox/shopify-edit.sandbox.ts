/**
 * The sandbox store's order edits that take units out of a line (orderEditBegin,
 * orderEditSetQuantity with a lower quantity, orderEditCommit in admin_schema_2025-01.json; the
 * store's admin does the same). What the schema says an edit leaves on the order's LineItem:
 * `quantity` "including refunded and removed units" stays, `currentQuantity` "excluding refunded
 * and removed units" and `refundableQuantity` "excluding refunded units" tell the removed ones
 * apart (removed = refundableQuantity - currentQuantity). Only units not yet fulfilled can be
 * taken out, and a cancelled order cannot be edited (Order.merchantEditableErrors: "Canceled
 * orders can't be edited"); the wording of the refusals is ours. The edit also takes the units
 * off the order's fulfillment orders, whose lines no longer ask for them.
 */
import type { SandboxFulfillmentOrder } from './shopify-fulfillment.sandbox';

/** The part of a sandbox order an edit reads and changes. */
export interface EditableOrder {
  cancelledAt: string | null;
  lines: { id: string; quantity: number; removed: number; refundedUnits: number; refundedFulfilled: number; fulfilled: number }[];
  fulfillmentOrders: SandboxFulfillmentOrder[];
}

/** The units of a line still to fulfil: ordered less removed, fulfilled and refunded ones that were not fulfilled. */
export const unfulfilledOf = (l: EditableOrder['lines'][number]) => l.quantity - l.removed - (l.refundedUnits - l.refundedFulfilled) - l.fulfilled;

/**
 * Takes `remove` units out of the order's line `lineId` (an edit lowering its quantity); the
 * refusal in words, or undefined when done. The order's money is left as it was: the store
 * refunds the buyer separately (POST /_sandbox/shopify/orders/:id/refund), as with Shopify an
 * edit of a paid order leaves an amount to refund.
 */
export function removeUnits(o: EditableOrder, lineId: string, remove: number): string | undefined {
  if (o.cancelledAt) return "Canceled orders can't be edited.";
  const line = o.lines.find((l) => l.id === lineId);
  if (!line) return `The order has no line item ${lineId}.`;
  if (!Number.isInteger(remove) || remove < 1) return 'The number of units to remove must be a positive integer.';
  if (remove > unfulfilledOf(line)) return `Only ${unfulfilledOf(line)} unfulfilled units of the line item can be removed.`;
  line.removed += remove;
  takeOffFulfillmentOrders(o, lineId, remove);
  return undefined;
}

/** Units of a line no longer to fulfil (removed by an edit, refunded before fulfilment) leave its fulfillment orders. */
export function takeOffFulfillmentOrders(o: Pick<EditableOrder, 'fulfillmentOrders'>, lineId: string, units: number): void {
  let left = units;
  for (const fo of o.fulfillmentOrders) {
    if (fo.status === 'CANCELLED' || fo.closedByMove) continue;
    for (const fl of fo.lines.filter((x) => x.lineId === lineId)) {
      const take = Math.min(left, fl.quantity - fl.fulfilled);
      fl.quantity -= take;
      left -= take;
    }
  }
}
