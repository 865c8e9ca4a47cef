import { allOrdersOf } from '../access/caller';
import { db } from '../db/knex';
import { customerRepository } from '../customer/customer.repository';
import { customerIdToApi } from '../customer/customer.type';
import { orderToApi } from '../order/order.mapper';
import { orderRepository } from '../order/order.repository';
import { loadCiaInput } from '../stock/stock-cia.repository';

/** The record an event is about, as the API shows it: conditions and templates read its fields. */
export type EventRecord = Record<string, unknown>;

/**
 * Reads the event's record back: the order (Order_type), the customer (Customer_type) or, for
 * stock/cia, the item's id, its new quantity_available and the per-portal quantities CIA sent.
 * undefined when the record is gone (deleted since the event).
 */
export async function loadEventRecord(
  accountId: number,
  section: string,
  recordId: string,
  data: Record<string, unknown> = {},
): Promise<EventRecord | undefined> {
  switch (section) {
    case 'order': {
      const row = await orderRepository.get(allOrdersOf(accountId), recordId);
      return row ? { ...orderToApi(row), user_id: accountId } : undefined;
    }
    case 'customer': {
      const customer = await customerRepository.get(allOrdersOf(accountId), recordId);
      return customer ? { ...customer, user_id: accountId } : undefined;
    }
    case 'stock': {
      const stockId = Number(recordId);
      const input = Number.isSafeInteger(stockId) ? await loadCiaInput(db(), accountId, stockId) : undefined;
      return input ? { stock_id: String(stockId), quantity: input.quantityAvailable, portal_quantity: data.quantity ?? [], user_id: accountId } : undefined;
    }
    default:
      return undefined;
  }
}

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
