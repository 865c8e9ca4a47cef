import { allOrdersOf, OrderScope } from '../access';
import { eventOffer } from '../cia';
import { db } from '../db';
import { customerRepository, customerIdToApi } from '../customer';
import { orderToApi, orderRepository } from '../order';
import { loadCiaInput } from '../stock';

/** The record an event is about, as the API shows it: conditions and templates read its fields. */
export type EventRecord = Record<string, unknown>;

/**
 * Reads the event's record back: the order (Order_type), the customer (Customer_type) or, for
 * stock/cia, the item's id, its `quantity` now as cia.event offers it (lib/cia eventOffer: never
 * negative, cia.event's max_quantity caps it, -1 gives 0; what the notification tells, what a
 * condition on quantity compares) and the per-portal quantities CIA sent.
 * undefined when the record is gone (deleted since the event) or outside the scope: a handler of
 * a client bound to one portal account reads only that portal account's orders and customers, and
 * of a stock item only that portal account's quantities (items are shared).
 */
export async function loadEventRecord(
  scope: OrderScope | number,
  section: string,
  recordId: string,
  data: Record<string, unknown> = {},
): Promise<EventRecord | undefined> {
  const within = typeof scope === 'number' ? allOrdersOf(scope) : scope;
  const accountId = within.accountId;
  switch (section) {
    case 'order': {
      const row = await orderRepository.get(within, recordId);
      return row ? { ...orderToApi(row), user_id: accountId } : undefined;
    }
    case 'customer': {
      const customer = await customerRepository.get(within, recordId);
      return customer ? { ...customer, user_id: accountId } : undefined;
    }
    case 'stock': {
      const stockId = Number(recordId);
      const input = Number.isSafeInteger(stockId) ? await loadCiaInput(db(), accountId, stockId) : undefined;
      const portalQuantity = Array.isArray(data.quantity) ? data.quantity.filter((q) => grantCovers(within, q)) : [];
      return input ? { stock_id: String(stockId), quantity: eventOffer(input), portal_quantity: portalQuantity, user_id: accountId } : undefined;
    }
    default:
      return undefined;
  }
}

/** A per-portal entry the scope covers (entries without a portal account id are the item's own). */
function grantCovers(scope: OrderScope, entry: unknown): boolean {
  if (scope.portalAccountGrant === 'all' || entry === null || typeof entry !== 'object') return true;
  const id = (entry as Record<string, unknown>).portal_account_id;
  return id === undefined || Number(id) === scope.portalAccountGrant;
}

/** The scope a handler acts in: its creator's grant (lib/event/event-handler.repository.ts). */
export const handlerScope = (accountId: number, grant: number | null): OrderScope => ({ accountId, portalAccountGrant: grant ?? 'all' });

/**
 * The ids a receiver needs to read the record back (notification payloads), each of the JSON type
 * the API's own GET answers give it: order id and stock id text (Order_type, Stock_type id),
 * customer id as GET admin/customer/ (an integer when numeric), user_id an integer.
 */
export function recordIds(section: string, recordId: string, record: EventRecord | undefined, accountId: number): Record<string, unknown> {
  switch (section) {
    case 'order':
      return { order_id: recordId, user_id: accountId };
    case 'customer':
      return { customer_id: customerIdToApi(recordId), user_id: accountId };
    case 'stock':
      return { stock_id: recordId, quantity: record?.quantity ?? null, user_id: accountId };
    default:
      return { record_id: recordId, user_id: accountId };
  }
}

/** A field of the record by dotted path (customer.email). */
export function fieldOf(record: EventRecord, path: string): unknown {
  let value: unknown = record;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}
