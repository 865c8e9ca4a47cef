import type { Knex } from 'knex';

/**
 * A payment's UPDATE of sales_order as a HOT update: the invoice number, set on an order's first
 * payment, is looked up in a table of its own (order_invoice_number) instead of an index of
 * sales_order, so no index of sales_order names a column the payment sets; and sales_order's
 * pages keep room for the new row version (fillfactor). A first payment wrote a new entry in all
 * twelve indexes of sales_order, three of them GIN (lib/order/README.md). The column
 * sales_order.invoice_number stays: every read of an order takes it from the row.
 * The fillfactor applies to pages written from now on.
 */
export async function up(knex: Knex): Promise<void> {
  // An index kept by lib/order's repository, in the statements that set an invoice number or delete
  // an order. No foreign keys: their checks are one trigger call per row, 10,000 for a statement's
  // payments, as long as the HOT UPDATE itself; a row left by an order deleted another way finds no
  // order (lookups go through sales_order.internal_id) and invoice numbers are never given twice.
  await knex.schema.createTable('order_invoice_number', (t) => {
    t.integer('account_id').notNullable();
    t.bigInteger('invoice_number').notNullable();
    t.bigInteger('order_internal_id').notNullable();
    t.primary(['account_id', 'invoice_number']);
  });
  await backfillOrderInvoiceNumbers(knex);
  await knex.raw('DROP INDEX IF EXISTS sales_order_account_id_invoice_number_index');
  await knex.raw('ALTER TABLE sales_order SET (fillfactor = 85)');
}

/**
 * The invoice numbers of orders invoiced before order_invoice_number existed. An order that has
 * its row already is left, so running it again adds nothing. Answers the rows added.
 */
export async function backfillOrderInvoiceNumbers(knex: Knex | Knex.Transaction): Promise<number> {
  const result = await knex.raw(`
    INSERT INTO order_invoice_number (account_id, invoice_number, order_internal_id)
    SELECT o.account_id, o.invoice_number, o.internal_id FROM sales_order o
    WHERE o.invoice_number IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM order_invoice_number n WHERE n.account_id = o.account_id AND n.invoice_number = o.invoice_number)
    ORDER BY o.account_id, o.invoice_number`);
  return (result as { rowCount: number }).rowCount;
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE sales_order RESET (fillfactor)');
  await knex.raw('CREATE INDEX IF NOT EXISTS sales_order_account_id_invoice_number_index ON sales_order (account_id, invoice_number)');
  await knex.schema.dropTableIfExists('order_invoice_number');
}
