import type { Knex } from 'knex';

/**
 * NOTIFY kontor_changed '<topic>:<key>' when rows that processes keep in memory change
 * (lib/db/change-notices.ts), sent by triggers so every writer is seen: the app, the CLI, a seed,
 * psql. Delivered at commit; identical notices of one transaction once.
 * - reference:<table> for the small reference tables (statement level: a seed is one notice);
 * - portal_account:<account id> when a seller's portal accounts change (the default moves);
 * - token:<hash> when an access token is deleted or changed while still valid (revocation);
 *   expired rows deleted by the sweep send nothing.
 */
const referenceTables = ['currency', 'payment_method', 'stock_condition', 'description_icon'];

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE FUNCTION reference_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM pg_notify('kontor_changed', 'reference:' || TG_TABLE_NAME); RETURN NULL; END $$`);
  for (const table of referenceTables) {
    await knex.raw(`CREATE TRIGGER ${table}_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${table}
      FOR EACH STATEMENT EXECUTE FUNCTION reference_changed()`);
  }
  await knex.raw(`CREATE FUNCTION portal_account_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('kontor_changed', 'portal_account:' || COALESCE(NEW.account_id, OLD.account_id));
      RETURN NULL;
    END $$`);
  await knex.raw(`CREATE TRIGGER portal_account_changed AFTER INSERT OR UPDATE OR DELETE ON portal_account
    FOR EACH ROW EXECUTE FUNCTION portal_account_changed()`);
  await knex.raw(`CREATE FUNCTION access_token_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM pg_notify('kontor_changed', 'token:' || OLD.token_hash); RETURN NULL; END $$`);
  await knex.raw(`CREATE TRIGGER access_token_changed AFTER DELETE OR UPDATE ON access_token
    FOR EACH ROW WHEN (OLD.expires_at > now()) EXECUTE FUNCTION access_token_changed()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS access_token_changed ON access_token');
  await knex.raw('DROP FUNCTION IF EXISTS access_token_changed()');
  await knex.raw('DROP TRIGGER IF EXISTS portal_account_changed ON portal_account');
  await knex.raw('DROP FUNCTION IF EXISTS portal_account_changed()');
  for (const table of referenceTables) await knex.raw(`DROP TRIGGER IF EXISTS ${table}_changed ON ${table}`);
  await knex.raw('DROP FUNCTION IF EXISTS reference_changed()');
}
