/**
 * lib/order's DELETE order/{order_id}/ gives the order's bank records back to the unassigned ones
 * (lib/order order-payment-records.ts); this folder keeps them (table bank) and does it. Provided
 * at startup by the web process's entry (server/app.ts).
 */
import { provideOrderPaymentRecordsQuery } from '../order';
import { firstReference, payerReferencesOf } from './bank-reference';
import { bankRepository } from './bank.repository';

export function provideOrderPaymentRecords(): void {
  provideOrderPaymentRecordsQuery({
    lockOf: (trx, accountId, orderId) => bankRepository.lockAssignedTo(trx, accountId, orderId),
    async releaseOf(trx, accountId, orderId) {
      const records = await bankRepository.assignedToForUpdate(trx, accountId, orderId);
      // Unassigned as the matching leaves a record: order_no the first reference the payer wrote
      // (the deleted order's id, when it was named), the reason what happened; sender, subject
      // and references stay as the payer wrote them, for the re-match and the seller.
      await bankRepository.setAssignments(
        trx,
        accountId,
        records.map((r) => ({
          number: r.number,
          order_id: null,
          order_no: firstReference(payerReferencesOf(r.subject, r.payer_ref)),
          match_rule: null,
          unassigned_reason: 'order_deleted',
        })),
      );
      return records.map((r) => ({ id: r.id, amount: r.amount, currency: r.currency_id, reversed: r.reversed_by !== null }));
    },
  });
}
