import type { Knex } from 'knex';

/** An issued invoice or credit note (table invoice, migration 20261126_0900): written once, never updated. */
export interface InvoiceRow {
  account_id: number;
  order_internal_id: string;
  order_id: string;
  invoice_number: string;
  type_code: number;
  issue_date: string;
  currency_id: string;
  grand_total: string;
  tax_total: string;
  due_amount: string;
  /** BT-114: grand_total plus it is what the document bills; null on rows issued before it was kept (read as 0). */
  rounding_amount: string | null;
  corrects_invoice_number: string | null;
  pdf_key: string;
  xml_key: string;
  /** The XRechnung (CII) of the invoice; null for none. */
  xrechnung_key: string | null;
  pdf_sha256: string;
  created_at: Date;
}

/** The invoices of an account; every query takes the account. */
export const invoiceRepository = {
  async byOrder(knex: Knex | Knex.Transaction, accountId: number, orderInternalId: string): Promise<InvoiceRow | undefined> {
    return knex('invoice').select('*', knex.raw('issue_date::text AS issue_date')).where({ account_id: accountId, order_internal_id: orderInternalId }).first();
  },

  /** Writes the row unless the order has one (a second run of the job); true when written. */
  async insert(trx: Knex.Transaction, row: Omit<InvoiceRow, 'created_at'>): Promise<boolean> {
    const written = await trx('invoice').insert(row).onConflict(['account_id', 'order_internal_id']).ignore().returning('invoice_number');
    return written.length === 1;
  },

  /** Serializes issuing the credit notes of one invoice (the ceiling's check and the insert) until the transaction ends. */
  async lockCredits(trx: Knex.Transaction, accountId: number, invoiceNumber: string): Promise<void> {
    await trx.raw("SELECT pg_advisory_xact_lock(hashtextextended('invoice-credit:' || ? || ':' || ?, 0))", [accountId, invoiceNumber]);
  },

  /**
   * What the credit notes issued for an invoice add up to (cents as a decimal string): what each
   * bills (grand total plus rounding), or, `withRounding` false, their grand totals alone (the
   * measure of an invoice issued before its rounding amount was kept, invoice.service creditCeiling).
   */
  async creditedTotal(knex: Knex | Knex.Transaction, accountId: number, invoiceNumber: string, withRounding: boolean): Promise<string> {
    const row = (await knex('invoice')
      .where({ account_id: accountId, corrects_invoice_number: invoiceNumber, type_code: 381 })
      .select(knex.raw(`sum(grand_total${withRounding ? ' + coalesce(rounding_amount, 0)' : ''})::text AS total`))
      .first()) as { total: string | null } | undefined;
    return row?.total ?? '0.00';
  },
};
