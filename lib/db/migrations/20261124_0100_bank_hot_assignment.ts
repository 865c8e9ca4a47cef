import type { Knex } from 'knex';

/**
 * A bank record's assignment (order_id, order_no) as a HOT update: no index of bank names
 * order_id any more, and pages are filled to half, so the new version of a record fits beside
 * the old one. The matching of a 10,000-entry statement updated every record it had just
 * inserted, each update writing a new entry in all six indexes (as much WAL as the insert
 * itself); HOT writes the heap only (lib/bank/README.md). The re-match finds the unassigned
 * records through (account_id, type, transfer_date), as the import reads them by number.
 * The fillfactor applies to pages written from now on.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS bank_unassigned');
  await knex.raw('ALTER TABLE bank SET (fillfactor = 50)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE bank RESET (fillfactor)');
  await knex.raw('CREATE INDEX IF NOT EXISTS bank_unassigned ON bank (account_id, transfer_date) WHERE order_id IS NULL');
}
