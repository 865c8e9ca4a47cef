import type { Knex } from 'knex';

/**
 * An event handler records the client access whose token created it (NULL: the seller's own
 * tokens). A client's webhook went on receiving the seller's orders, signed with the client's
 * secret, after the seller revoked the access (DELETE admin/client_access/{id}/) and after
 * `kontor client disable`: those delete tokens and accesses only. With the foreign key's cascade,
 * every way a client access goes (the seller's revoke, client disable, user disable, a replayed
 * refresh token or code, its expiry, its portal account deleted) takes the client's handlers in
 * the same statement. Handlers made before this migration keep NULL: nothing recorded who made
 * them (lib/event README, "Rights").
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('event_handler', (t) => {
    t.integer('client_access_id').references('client_access.id').onDelete('CASCADE');
  });
  // The cascade finds a revoked access's handlers by this index, not by a scan of every handler.
  await knex.raw('CREATE INDEX event_handler_client_access ON event_handler (client_access_id) WHERE client_access_id IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS event_handler_client_access');
  await knex.schema.alterTable('event_handler', (t) => t.dropColumn('client_access_id'));
}
