/**
 * Cancellations of single items of an Amazon order while the order stays open, as the Orders API
 * v2026-01-01 shows them (orders_2026-01-01.json, OrderItem `cancellation`, data set CANCELLATION:
 * "Cancellation information applied to the order and order items"):
 * - `cancellationRequest` {requester: BUYER, cancelReason}: the buyer asked; nothing is cancelled yet;
 * - `cancellationExecution` {cancelledBy: BUYER, MERCHANT or AMAZON, cancelReason}: the item was cancelled.
 * Where the contract is silent the sandbox chooses (lib/portals/README.md): an executed
 * cancellation takes every unit of the item not shipped yet (the contract counts no cancelled
 * units); the item's proceeds then count only the units shipped (nothing is charged for a
 * cancelled unit), so the order's grandTotal falls; the order turns CANCELLED when no item has a
 * unit left ("The order has been canceled and will not be fulfilled"), SHIPPED when every unit
 * left is shipped; a request is refused for an item cancelled or shipped whole already.
 */
import express, { Request, Response } from 'express';
import type { AmazonOrderStore, SandboxOrder, SandboxOrderLine } from './amazon-orders.sandbox';

/** How an item of the sandbox's order was cancelled, or asked to be. */
export interface SandboxItemCancellation {
  request?: { cancelReason: string };
  execution?: { cancelledBy: 'BUYER' | 'MERCHANT' | 'AMAZON'; cancelReason: string };
}

/** The units of an item the buyer still buys: all ordered, or after an executed cancellation the ones shipped before it. */
export const unitsOf = (l: SandboxOrderLine) => (l.cancellation?.execution ? l.quantityShipped : l.quantity);

/** ItemCancellation as the contract has it (undefined when the item has none). */
export function itemCancellation(l: SandboxOrderLine): Record<string, unknown> | undefined {
  const c = l.cancellation;
  if (!c?.request && !c?.execution) return undefined;
  return {
    ...(c.request ? { cancellationRequest: { requester: 'BUYER', cancelReason: c.request.cancelReason } } : {}),
    ...(c.execution ? { cancellationExecution: { ...c.execution } } : {}),
  };
}

const cancellers = ['BUYER', 'MERCHANT', 'AMAZON'] as const;

/** The order's status once an item's units changed: CANCELLED with no unit left, SHIPPED with every unit left shipped. */
function settleStatus(o: SandboxOrder): void {
  if (o.lines.every((l) => unitsOf(l) === 0)) o.status = 'CANCELLED';
  else if (o.lines.every((l) => l.quantityShipped >= unitsOf(l))) o.status = 'SHIPPED';
}

/** Cancels an item (executed); the refusal in words, or undefined. */
export function cancelItem(o: SandboxOrder, itemId: string, by: string, reason: string): string | undefined {
  const line = o.lines.find((l) => l.orderItemId === itemId);
  if (!line) return `Order ${o.orderId} has no item ${itemId}.`;
  if (!(cancellers as readonly string[]).includes(by)) return `by must be one of ${cancellers.join(', ')}.`;
  if (o.status === 'CANCELLED' || o.status === 'SHIPPED' || line.cancellation?.execution || line.quantityShipped >= line.quantity)
    return `Item ${itemId} of order ${o.orderId} has no unit left to cancel.`;
  line.cancellation = { ...line.cancellation, execution: { cancelledBy: by as (typeof cancellers)[number], cancelReason: reason } };
  settleStatus(o);
  o.lastUpdatedTime = new Date().toISOString();
  return undefined;
}

/** The buyer asks to cancel an item (a request only); the refusal in words, or undefined. */
export function requestCancel(o: SandboxOrder, itemId: string, reason: string): string | undefined {
  const line = o.lines.find((l) => l.orderItemId === itemId);
  if (!line) return `Order ${o.orderId} has no item ${itemId}.`;
  if (o.status === 'CANCELLED' || o.status === 'SHIPPED' || line.cancellation?.execution || line.quantityShipped >= line.quantity)
    return `Item ${itemId} of order ${o.orderId} cannot be asked to be cancelled any more.`;
  line.cancellation = { ...line.cancellation, request: { cancelReason: reason } };
  o.lastUpdatedTime = new Date().toISOString();
  return undefined;
}

/**
 * The controls: `POST /_sandbox/amazon/orders/:id/items/:itemId/cancel {by?, reason?}` (the item
 * is cancelled; by BUYER, MERCHANT or AMAZON, default AMAZON) and
 * `POST /_sandbox/amazon/orders/:id/items/:itemId/cancel_request {reason?}` (the buyer asks).
 */
export function mountItemCancellation(app: express.Express, store: AmazonOrderStore): void {
  const answer = (res: Response, o: SandboxOrder, refused: string | undefined) => {
    if (refused) res.status(400).json({ message: refused });
    else
      res.json({
        order_id: o.orderId,
        status: o.status,
        items: o.lines.map((l) => ({ order_item_id: l.orderItemId, units: unitsOf(l), cancellation: itemCancellation(l) ?? null })),
      });
  };
  const orderOf = (req: Request, res: Response) => {
    const o = store.orders.get(String(req.params.id));
    if (!o) res.status(404).json({ message: `no order ${String(req.params.id)}` });
    return o;
  };
  app.post('/_sandbox/amazon/orders/:id/items/:itemId/cancel', (req: Request, res: Response) => {
    const o = orderOf(req, res);
    const body = (req.body ?? {}) as { by?: unknown; reason?: unknown };
    if (o) answer(res, o, cancelItem(o, String(req.params.itemId), String(body.by ?? 'AMAZON'), String(body.reason ?? 'Out of stock')));
  });
  app.post('/_sandbox/amazon/orders/:id/items/:itemId/cancel_request', (req: Request, res: Response) => {
    const o = orderOf(req, res);
    const body = (req.body ?? {}) as { reason?: unknown };
    if (o) answer(res, o, requestCancel(o, String(req.params.itemId), String(body.reason ?? 'Buyer requested cancellation')));
  });
}
