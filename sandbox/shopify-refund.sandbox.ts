/**
 * The sandbox store's refunds as the 2025-01 schema records them (admin_schema_2025-01.json):
 * Order.refunds ("A list of refunds that have been applied to the order", a list truncated by
 * `first`), each a Refund with `refundLineItems` (a connection of RefundLineItem: `quantity`,
 * `restockType`, `restocked`, `lineItem`, `location` "The inventory restock location").
 * RefundLineItemRestockType, the schema's words: RETURN "The refund line item was returned. Use
 * this when restocking line items that were fulfilled"; CANCEL "The refund line item was
 * canceled. Use this when restocking unfulfilled line items"; NO_RESTOCK "Refund line item was
 * not restocked"; LEGACY_RESTOCK "This value is not accepted when creating new refunds" (so the
 * control refuses it too). Where the schema is silent the sandbox chooses (wording of refusals
 * ours): CANCEL takes only unfulfilled units (they leave the line's fulfillment orders), RETURN
 * only fulfilled ones not refunded yet; NO_RESTOCK takes unfulfilled units first (they are no
 * longer to fulfil), then fulfilled ones. CANCEL and RETURN restock at the store's location.
 */
import type { EditableOrder } from './shopify-edit.sandbox';
import { takeOffFulfillmentOrders, unfulfilledOf } from './shopify-edit.sandbox';

export const restockTypes = ['RETURN', 'CANCEL', 'NO_RESTOCK'] as const;
export type RestockType = (typeof restockTypes)[number];

/** A RefundLineItem the sandbox keeps: which line, how many units, how they were restocked and where. */
export interface SandboxRefundLine {
  id: string;
  lineId: string;
  quantity: number;
  restockType: RestockType;
  restocked: boolean;
  locationId: string | null;
}

/**
 * A RefundShippingLine ("A shipping line item that's included in a refund"): its subtotal
 * (subtotalAmountSet, as the shipping's price: gross in a tax-included store) and tax (taxAmountSet).
 */
export interface SandboxRefundShipping {
  id: string;
  subtotal: string;
  tax: string;
}

/** A Refund of an order: when, how much, its refund line items (none for a refund of money only) and shipping refunded. */
export interface SandboxRefund {
  id: string;
  createdAt: string;
  amount: string;
  lines: SandboxRefundLine[];
  shipping: SandboxRefundShipping[];
}

type Line = EditableOrder['lines'][number];

/** The fulfilled units of a line not refunded yet: what a RETURN may name. */
const returnableOf = (l: Line) => l.fulfilled - l.refundedFulfilled;

/** Why these units of the line cannot be refunded with that restock type, or undefined. */
export function refundUnitsProblem(line: Line | undefined, lineId: string, quantity: number, restockType: string): string | undefined {
  if (!(restockTypes as readonly string[]).includes(restockType)) return `restock_type must be one of ${restockTypes.join(', ')}.`;
  if (!line || !Number.isInteger(quantity) || quantity < 1) return `The line item ${lineId} has not ${quantity} units to refund.`;
  const left = line.quantity - line.removed - line.refundedUnits;
  if (restockType === 'CANCEL' && quantity > unfulfilledOf(line)) return `Only ${unfulfilledOf(line)} unfulfilled units of the line item can be canceled.`;
  if (restockType === 'RETURN' && quantity > returnableOf(line)) return `Only ${returnableOf(line)} fulfilled units of the line item can be returned.`;
  if (quantity > left) return `The line item ${lineId} has not ${quantity} units to refund.`;
  return undefined;
}

/**
 * Counts the refunded units on the line and takes those not yet fulfilled off its fulfillment
 * orders; the refund line item to record (its id given by the caller). Checked before by refundUnitsProblem.
 */
export function refundUnits(
  o: Pick<EditableOrder, 'fulfillmentOrders'>,
  line: Line,
  quantity: number,
  restockType: RestockType,
  ids: { id: string; locationId: string },
): SandboxRefundLine {
  const unfulfilled = restockType === 'RETURN' ? 0 : Math.min(quantity, unfulfilledOf(line));
  line.refundedUnits += quantity;
  line.refundedFulfilled += quantity - unfulfilled;
  takeOffFulfillmentOrders(o, line.id, unfulfilled);
  const restocked = restockType !== 'NO_RESTOCK';
  return { id: ids.id, lineId: line.id, quantity, restockType, restocked, locationId: restocked ? ids.locationId : null };
}

/** How refundNodes makes the schema's objects of the order's: its LineItem, a Location, its ShippingLine, a connection and a MoneyBag. */
export interface RefundNodeMakers<T> {
  lineItemNode: (lineId: string) => unknown;
  locationNode: (id: string) => unknown;
  shippingLineNode: () => unknown;
  connection: (items: unknown[], first: number, after: string | null | undefined) => T;
  money: (amount: string) => unknown;
}

/**
 * Order.refunds as the schema's objects (first: "Truncate the array result to this size"), each
 * refund's line items and shipping lines a connection.
 */
export function refundNodes<T>(refunds: SandboxRefund[], first: number | undefined, make: RefundNodeMakers<T>) {
  const { lineItemNode, locationNode, connection, money } = make;
  return refunds.slice(0, first ?? refunds.length).map((r) => ({
    id: r.id,
    createdAt: r.createdAt,
    updatedAt: r.createdAt,
    note: null,
    totalRefundedSet: money(r.amount),
    refundLineItems: ({ first: size, after }: { first?: number; after?: string }) =>
      connection(
        r.lines.map((l) => ({
          id: l.id,
          quantity: l.quantity,
          restockType: l.restockType,
          restocked: l.restocked,
          lineItem: lineItemNode(l.lineId),
          location: l.locationId ? locationNode(l.locationId) : null,
        })),
        size ?? 50,
        after,
      ),
    refundShippingLines: ({ first: size, after }: { first?: number; after?: string }) =>
      connection(
        r.shipping.map((sh) => ({
          id: sh.id,
          shippingLine: make.shippingLineNode(),
          subtotalAmountSet: money(sh.subtotal),
          taxAmountSet: money(sh.tax),
        })),
        size ?? 50,
        after,
      ),
  }));
}
