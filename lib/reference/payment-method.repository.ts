import { db } from '../db';
import { cachedTable } from './reference-cache';

/** A row of payment_method (Payment_method_type). */
export interface PaymentMethodRow {
  id: string;
  name: string;
  is_prepaid: boolean;
  placeholder: string;
}

/** Held in memory, kept current by change notices (reference-cache.ts). */
const allMethods = cachedTable('payment_method', async () => {
  const rows = (await db()('payment_method').select('id', 'name', 'is_prepaid', 'placeholder').orderBy('sort')) as PaymentMethodRow[];
  return { rows, byId: new Map(rows.map((r) => [r.id, r])) };
});

/** Payment_method_type reference data (account independent). */
export const paymentMethodRepository = {
  /** One payment method by its id. */
  async get(id: string): Promise<PaymentMethodRow | undefined> {
    return (await allMethods()).byId.get(id);
  },
};

/** Every payment method in display order (GET system/payment_method/). */
export async function listPaymentMethods(): Promise<PaymentMethodRow[]> {
  return (await allMethods()).rows;
}
