import type { Knex } from 'knex';

/**
 * Issued invoices and credit notes (lib/invoice, issue 35): one row per order, written once when
 * its PDF/A-3 and Factur-X XML are stored, never updated (a trigger refuses it: a correction is a
 * credit note and a new invoice). The archive outlives the order: no foreign key to sales_order,
 * so deleting an order keeps its invoice.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('invoice', (t) => {
    t.integer('account_id').notNullable().references('account.id').onDelete('CASCADE');
    t.bigInteger('order_internal_id').notNullable();
    t.text('order_id').notNullable();
    t.bigInteger('invoice_number').notNullable();
    // 380 commercial invoice, 381 credit note (UNTDID 1001).
    t.smallint('type_code').notNullable();
    t.date('issue_date').notNullable();
    t.text('currency_id').notNullable();
    t.decimal('grand_total', 14, 2).notNullable();
    t.decimal('tax_total', 14, 2).notNullable();
    t.decimal('due_amount', 14, 2).notNullable();
    // The invoice number of the invoice a credit note corrects.
    t.bigInteger('corrects_invoice_number');
    t.text('pdf_key').notNullable();
    t.text('xml_key').notNullable();
    t.text('pdf_sha256').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['account_id', 'order_internal_id']);
    t.unique(['account_id', 'invoice_number']);
  });
  await knex.raw(`
    CREATE FUNCTION invoice_is_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'an issued invoice never changes (invoice %)', OLD.invoice_number USING ERRCODE = 'restrict_violation';
    END $$`);
  await knex.raw('CREATE TRIGGER invoice_immutable BEFORE UPDATE ON invoice FOR EACH ROW EXECUTE FUNCTION invoice_is_immutable()');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('invoice');
  await knex.raw('DROP FUNCTION IF EXISTS invoice_is_immutable()');
}
