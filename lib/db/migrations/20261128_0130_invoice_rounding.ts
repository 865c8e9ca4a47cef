import type { Knex } from 'knex';

/**
 * The rounding amount (EN 16931 BT-114) of an issued invoice or credit note (lib/invoice): its grand
 * total plus it is what the document bills (the order's invoice_amount when issued), and credit
 * notes are measured by that. Without it an invoice of 2 x 16.36 at 19 % (grand total 32.71, 0.01
 * rounding) refused its second credit note of 16.36 (each grand total 16.36). Null on rows issued
 * before it (an UPDATE of an issued invoice is refused): such an invoice and its credit notes are
 * measured by grand totals, as they were (lib/invoice README "Credit notes").
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('invoice', (t) => {
    t.decimal('rounding_amount', 14, 2);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('invoice', (t) => {
    t.dropColumn('rounding_amount');
  });
}
