import type { Knex } from 'knex';

/**
 * The listings marked fulfilled by the channel whole and not read per marketplace since
 * (20261130_0170): each order import of a market_d account asks for them (a few a time), every
 * 3 minutes. Partial: such rows are the marks made before fulfilled_markets only (every mark since
 * records its read), so the index stays small and the account's other listings are not read.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `CREATE INDEX portal_listing_marked_whole_unread ON portal_listing (account_id, portal_account_id)
      WHERE fulfilled_by_channel AND fulfilled_markets IS NULL AND fulfilment_read_at IS NULL`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS portal_listing_marked_whole_unread');
}
