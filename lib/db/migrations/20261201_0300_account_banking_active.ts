import type { Knex } from 'knex';

/**
 * account.is_banking_active (Admin_user_type, document 2: "is_banking_active bool (R)") kept by
 * the database: true while the account has a payment provider connected with its credentials
 * (table payment_provider_account, lib/bank's), the one bank connection Kontor keeps and syncs on
 * its own (lib/account README, "is_banking_active"). The column was never written, so every
 * account read false. A trigger on the provider table sets it on every write that can change it
 * (a connect, credentials sealed again or cleared, a row deleted), whoever writes (kontor
 * payment-provider connect, kontor credentials reseal), and lib/account reads its own column
 * without reading lib/bank's table. It writes the account row only when the value changes (a
 * sync's writes of synced_until and last_error cost the EXISTS alone). The trigger names no column
 * (no UPDATE OF credentials): a column it names cannot be dropped, and the down of the migration
 * that sealed credentials drops and adds that column (test/order-import/connect). Existing accounts
 * are set here.
 */
const bankingActive = `EXISTS (SELECT 1 FROM payment_provider_account p WHERE p.account_id = a.id AND p.credentials IS NOT NULL)`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION account_banking_active_refresh() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE account a SET is_banking_active = ${bankingActive}
       WHERE a.id IN (
               SELECT NEW.account_id WHERE TG_OP <> 'DELETE'
               UNION SELECT OLD.account_id WHERE TG_OP <> 'INSERT'
             )
         AND a.is_banking_active IS DISTINCT FROM ${bankingActive};
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE TRIGGER account_banking_active
      AFTER INSERT OR DELETE OR UPDATE ON payment_provider_account
      FOR EACH ROW EXECUTE FUNCTION account_banking_active_refresh()`);
  await knex.raw(`UPDATE account a SET is_banking_active = ${bankingActive} WHERE a.is_banking_active IS DISTINCT FROM ${bankingActive}`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS account_banking_active ON payment_provider_account');
  await knex.raw('DROP FUNCTION IF EXISTS account_banking_active_refresh()');
}
