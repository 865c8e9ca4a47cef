import type { Knex } from 'knex';

/**
 * The portal account a task the service raised belongs to (lib/task README): an order fetch's
 * refusal names that account's channel, a listing check its listing, a statement import by a client
 * bound to one portal account its records. A client bound to another portal account does not see
 * it (document 1, Authentication 5). Null: the seller's own (every caller sees it, bank tasks only
 * the callers granted all). Set to null when the portal account goes. Nullable without default: no
 * table rewrite.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE task ADD COLUMN portal_account_id integer REFERENCES portal_account (id) ON DELETE SET NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE task DROP COLUMN IF EXISTS portal_account_id');
}
