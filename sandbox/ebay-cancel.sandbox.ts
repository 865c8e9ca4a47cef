/**
 * A buyer's request to cancel an eBay order, as the Fulfillment API shows it
 * (sell_fulfillment_v1_oas3.json, CancelStatus, CancelRequest): the order's cancelState turns
 * IN_PROGRESS (CancelStateEnum: "One or more cancellation requests have been made against the
 * order") with a CancelRequest in state REQUESTED that getOrder returns, while getOrders returns
 * the array "but is always empty" (ebay-orders.sandbox.ts). Where the contract is silent the
 * sandbox chooses: a request is refused for an order cancelled or fulfilled already, the request
 * id is `CR` and a number, the initiator 'Buyer'.
 */
import type { EbayOrder } from './ebay-state.sandbox';

/** Opens a buyer's cancellation request on the order; the refusal in words, or undefined. */
export function requestOrderCancel(order: EbayOrder, id: string, reason: string): string | undefined {
  if (order.cancelStatus?.cancelState === 'CANCELED') return `Order ${order.orderId ?? ''} is cancelled already.`;
  if (order.orderFulfillmentStatus === 'FULFILLED') return `Order ${order.orderId ?? ''} is shipped already.`;
  const now = new Date().toISOString();
  const request = { cancelRequestId: id, cancelInitiator: 'Buyer', cancelReason: reason, cancelRequestedDate: now, cancelRequestState: 'REQUESTED' };
  order.cancelStatus = { cancelState: 'IN_PROGRESS', cancelRequests: [...(order.cancelStatus?.cancelRequests ?? []), request] };
  order.lastModifiedDate = now;
  return undefined;
}

/** The order as getOrders answers it: cancelStatus.cancelRequests "is returned but is always empty". */
export const asListed = (order: EbayOrder): EbayOrder => ({ ...order, cancelStatus: { ...order.cancelStatus, cancelRequests: [] } });
