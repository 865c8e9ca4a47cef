/**
 * The contract between lib/order and lib/bank, which keeps the bank transfers and payment-provider
 * payments (table bank) and which order each paid (order_id): deleting an order gives its records
 * back to the unassigned ones (README, "Deleting a paid order"). lib/bank sits above lib/order (it
 * pays orders through it), so lib/order cannot import it: lib/bank implements this and the web
 * process's entry provides it at startup (provideOrderPaymentRecords of lib/bank in server/app.ts).
 */
import type { Knex } from 'knex';

/** A record given back to the unassigned ones: its bank id, amount (numeric text) and currency, and whether the bank reversed it (no money). */
export interface ReleasedPayment {
  id: string;
  amount: string;
  currency: string;
  reversed: boolean;
}

export interface OrderPaymentRecords {
  /**
   * Locks the records assigned to the order (its id), before the order's row is locked: the
   * bank's lock order is its records, then orders (lib/bank/README.md).
   */
  lockOf(trx: Knex.Transaction, accountId: number, orderId: string): Promise<void>;
  /** Sets the records assigned to the order unassigned (reason order_deleted, the payer's words kept) and answers them. */
  releaseOf(trx: Knex.Transaction, accountId: number, orderId: string): Promise<ReleasedPayment[]>;
}

let provided: OrderPaymentRecords | undefined;

/** lib/bank gives its implementation (once per process, at startup). */
export function provideOrderPaymentRecordsQuery(records: OrderPaymentRecords): void {
  provided = records;
}

/** lib/bank's implementation; throws when the process's entry did not provide it. */
export function orderPaymentRecords(): OrderPaymentRecords {
  if (!provided) throw new Error('lib/bank has not provided its payment records: call provideOrderPaymentRecords (lib/bank) at startup');
  return provided;
}
