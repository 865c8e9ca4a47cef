import type { Knex } from 'knex';

/**
 * Money right on the banks' own files (issue 29): every bank record keeps its currency (a CHF
 * transfer never pays a EUR order), the references the payer gave beside the free text
 * (structured creditor reference, end-to-end id) that the matching reads, and the outcome of the
 * matching: the rule that assigned the record, or the reason it stayed unassigned. Records stored
 * before had no currency: every order and transfer then was taken as EUR, so EUR is their value.
 * And the portal-account grant of whoever stored the record (issue 31: null for all portal
 * accounts): the matching job, and the re-match long after the request, pay only orders that
 * grant covers.
 * None of these columns is indexed, so setting them with order_id stays a HOT update.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('bank', (t) => {
    t.text('currency_id').notNullable().defaultTo('EUR');
    t.text('payer_ref').notNullable().defaultTo('');
    t.text('match_rule');
    t.text('unassigned_reason');
    t.integer('portal_account_grant');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('bank', (t) => {
    t.dropColumn('currency_id');
    t.dropColumn('payer_ref');
    t.dropColumn('match_rule');
    t.dropColumn('unassigned_reason');
    t.dropColumn('portal_account_grant');
  });
}
