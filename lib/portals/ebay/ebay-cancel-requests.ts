/**
 * A buyer's open request to cancel an eBay order. getOrders returns `cancelStatus.cancelRequests`
 * "but is always empty"; getOrder "returns this array fully populated" (sell_fulfillment_v1_oas3.json,
 * CancelStatus and the getOrders description). cancelState (eBay's CancelStateEnum, linked from the
 * contract) is NONE_REQUESTED, IN_PROGRESS ("One or more cancellation requests have been made
 * against the order") or CANCELED; a request's cancelRequestState (CancelRequestStateEnum) is
 * REQUESTED ("the seller has yet to accept or reject"), COMPLETED or REJECTED.
 *
 * So an order listed IN_PROGRESS is read once more with getOrder: one call per such order, not per
 * order. Orders of the fetch's overlap are listed again by the next fetches (lib/order-import);
 * the cancel status read is remembered per order and lastModifiedDate in the process, so an order
 * that did not change is not read again (a process restart reads it once more).
 */
import type { ChannelOrder } from '../channel-order.type';
import type { components } from 'ebay-api/lib/types/restful/specs/sell_fulfillment_v1_oas3';

type EbayOrder = components['schemas']['Order'];

/** Cancel statuses read with getOrder, per portal account and order, with the order's lastModifiedDate then. */
const statusesRead = new Map<string, { modified: string; cancelStatus: EbayOrder['cancelStatus'] }>();
const statusesReadMax = 20_000;

/** eBay shows a cancellation request on this order that only getOrder details. */
export const hasCancelRequests = (order: EbayOrder) => order.cancelStatus?.cancelState === 'IN_PROGRESS';

/**
 * The orders of a getOrders page with the cancel status getOrder gives for those with requests
 * (`read` calls getOrder); the others as they are.
 */
export async function withCancelRequests(portalAccountId: number, orders: EbayOrder[], read: (orderId: string) => Promise<EbayOrder>): Promise<EbayOrder[]> {
  const out: EbayOrder[] = [];
  for (const order of orders) {
    if (!hasCancelRequests(order) || !order.orderId) {
      out.push(order);
      continue;
    }
    const key = `${portalAccountId}|${order.orderId}`;
    const modified = order.lastModifiedDate ?? '';
    let known = statusesRead.get(key);
    if (known?.modified !== modified) {
      known = { modified, cancelStatus: (await read(order.orderId)).cancelStatus };
      statusesRead.delete(key);
      if (statusesRead.size >= statusesReadMax) statusesRead.delete(statusesRead.keys().next().value!);
      statusesRead.set(key, known);
    }
    out.push({ ...order, cancelStatus: known.cancelStatus });
  }
  return out;
}

/**
 * The buyer's open request (the latest REQUESTED one; a seller's own request is not the buyer
 * asking): its id, by which the import tells it once, and reason. Undefined when none is open.
 */
export function openCancelRequest(order: EbayOrder): ChannelOrder['cancel_requested'] {
  const open = (order.cancelStatus?.cancelRequests ?? []).filter(
    (r) => r.cancelRequestState === 'REQUESTED' && (r.cancelInitiator ?? '').toLowerCase() !== 'seller',
  );
  const latest = open.at(-1);
  if (!latest) return undefined;
  return { id: latest.cancelRequestId ?? latest.cancelRequestedDate ?? 'request', reason: latest.cancelReason ?? '' };
}
