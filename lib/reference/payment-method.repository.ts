import type { Knex } from 'knex';
import { db } from '../db/knex';

/** A row of payment_method (Payment_method_type). */
export interface PaymentMethodRow {
  id: string;
  name: string;
  is_prepaid: boolean;
  placeholder: string;
}

/** Reference data only changes with a release (seed step), so a found row is kept for the process. */
const cache = new Map<string, PaymentMethodRow>();

/** Payment_method_type reference data (account independent). */
export const paymentMethodRepository = {
  /** One payment method by its id; pass the transaction when called inside one. */
  async get(id: string, knex: Knex | Knex.Transaction = db()): Promise<PaymentMethodRow | undefined> {
    const known = cache.get(id);
    if (known) return known;
    const row = (await knex('payment_method').select('id', 'name', 'is_prepaid', 'placeholder').where({ id }).first()) as PaymentMethodRow | undefined;
    if (row) cache.set(id, row);
    return row;
  },
};

/** Every payment method in display order (GET system/payment_method/). */
export async function listPaymentMethods(): Promise<PaymentMethodRow[]> {
  return db()('payment_method').select('id', 'name', 'is_prepaid', 'placeholder').orderBy('sort');
}
