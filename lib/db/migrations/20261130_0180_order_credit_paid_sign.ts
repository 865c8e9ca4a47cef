import type { Knex } from 'knex';

/**
 * paid_amount of a credit order (invoice_amount below 0.00) in the invoice's sign, the one form
 * lib/order keeps now (lib/order/README.md, paid_amount of a credit order; order-paid.ts
 * paidAmountSent): is_paid at creation stored -16.36 already, while a refund sent as paid_amount
 * had to be positive (a negative one was a 400), so 16.36 was the only way to state it and
 * lib/invoice read both as the refund. Kept positive, such an order reads as refunded in the
 * wrong direction: never paid in full, and posting back its magnitude would flip it with a second
 * paid_in_full.
 *
 * Which rows: invoice_amount < 0 and paid_amount > 0, flipped to -paid_amount, with a history entry
 * naming the old value. A positive amount booked while the invoice was still positive (lines made
 * negative since) reads the same and is flipped too: nothing stored tells the two apart, and a
 * refund is what a positive paid_amount on a credit order was sent as. No bank payment is among
 * them (the matching never paid an order owing less than 0.00). Running it again changes nothing.
 */
export async function paidInCreditSign(knex: Knex | Knex.Transaction): Promise<number> {
  const result = (await knex.raw(
    `WITH flipped AS (
       UPDATE sales_order o SET paid_amount = -o.paid_amount
        WHERE o.invoice_amount < 0 AND o.paid_amount > 0
        RETURNING o.internal_id, o.paid_amount
     )
     INSERT INTO sales_order_history (order_internal_id, text)
     SELECT internal_id, 'paid_amount ' || paid_amount::text || ': a credit order''s refund is kept in its invoice''s sign (was ' || (-paid_amount)::text || ')'
       FROM flipped`,
  )) as { rowCount: number };
  return result.rowCount;
}

export async function up(knex: Knex): Promise<void> {
  await paidInCreditSign(knex);
}

/** Nothing: the old rule read either sign as the refund (lib/invoice), and the new one keeps it so. */
export async function down(): Promise<void> {}
