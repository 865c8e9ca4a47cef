/**
 * Helpers of the order and customer tests: a valid order body, stock items to link lines to,
 * and reads of what a request left behind (stock quantities, movements, outbox rows).
 */
import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { call, Seller } from '../support/api';

/** A minimal valid Order_type for a create, with the fields given merged in. */
export function orderBody(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return { customer: { email: 'buyer@example.com' }, ...fields };
}

/** Creates an order and returns its order_id (fails the test on anything but 201). */
export async function createOrder(seller: Seller, fields: Record<string, unknown> = {}): Promise<string> {
  const res = await call('order/', { token: seller.token, body: { order: orderBody(fields) } });
  expect(res.status, res.text).to.equal(201);
  return res.body.order_id as string;
}

/** Order_type as the tests read it. */
export interface OrderView {
  id: string;
  invoice_amount: string;
  paid_amount: string | null;
  invoice_number: number | null;
  bill_date: string | null;
  currency_id: string;
  platform: string | null;
  payment_provider_transaction_id: string | null;
  history: string[];
  customer: Record<string, unknown>;
  shipping: Record<string, unknown>;
  status: Record<string, boolean | string | null>;
  line: Record<string, unknown>[];
  [key: string]: unknown;
}

/** Reads one order through the API. */
export async function readOrder(seller: Seller, orderId: string): Promise<OrderView> {
  const res = await call(`order/${orderId}/`, { token: seller.token });
  expect(res.status, res.text).to.equal(200);
  return res.body.order as OrderView;
}

/** A stock item of the seller with a quantity, created through the API; returns its stock id. */
export async function createStock(seller: Seller, sku: string, quantity: number, barcode?: string): Promise<number> {
  const res = await call('stock/', { token: seller.token, body: { stock: { name: `item ${sku}`, sku, quantity, ...(barcode ? { barcode } : {}) } } });
  expect(res.status, res.text).to.equal(201);
  return Number(res.body.stock_id);
}

/** The item's quantity, read through the API. */
export async function stockQuantity(seller: Seller, stockId: number): Promise<number> {
  const res = await call(`stock/${stockId}/`, { token: seller.token });
  expect(res.status, res.text).to.equal(200);
  return Number((res.body.stock as { quantity: unknown }).quantity);
}

export interface Movement {
  quantity: { old: number; difference: number; new: number };
  order_id: string | null;
  title: string;
}

/** The item's movements (Stock_history_type), read through the API. */
export async function movements(seller: Seller, stockId: number): Promise<Movement[]> {
  const res = await call(`stock/${stockId}/history/?pagination[limit]=200`, { token: seller.token });
  expect(res.status, res.text).to.equal(200);
  return res.body.stock_history as Movement[];
}

/** The cia.adjust jobs queued for an item. */
export async function ciaJobs(seller: Seller, stockId: number): Promise<number> {
  return (await outbox(seller)).filter((r) => r.job_name === 'cia.adjust' && r.payload.stockId === stockId).length;
}

export interface OutboxRow {
  job_name: string;
  payload: Record<string, unknown>;
}

export async function outbox(seller: Seller): Promise<OutboxRow[]> {
  return db()('outbox').select('job_name', 'payload').where({ account_id: seller.id }).orderBy('id');
}

/** The order events (section order) of the seller's outbox, as type:recordId; a batch gives one per record. */
export async function orderEvents(seller: Seller): Promise<string[]> {
  return (await outbox(seller))
    .filter((r) => (r.job_name === 'event.emit' || r.job_name === 'event.emit_batch') && r.payload.section === 'order')
    .flatMap((r) => ((r.payload.recordIds as string[] | undefined) ?? [r.payload.recordId]).map((id) => `${String(r.payload.type)}:${String(id)}`));
}
