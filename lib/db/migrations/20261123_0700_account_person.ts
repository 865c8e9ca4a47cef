import type { Knex } from 'knex';

/**
 * Every account has its own user as a person (document 1: GET admin/person/ lists all users), so
 * a new seller can assign a task to itself at once. New accounts get theirs in createSeller; this
 * gives one to every account made before, named after its login (lib/account's rule). An account
 * that already has a person of that name keeps it, so running the backfill again adds nothing.
 */
export async function backfillAccountPersons(knex: Knex | Knex.Transaction): Promise<number> {
  const result = await knex.raw(`
    INSERT INTO person (account_id, name)
    SELECT a.id, a.login FROM account a
    WHERE NOT EXISTS (SELECT 1 FROM person p WHERE p.account_id = a.id AND p.name = a.login)
    ORDER BY a.id`);
  return (result as { rowCount: number }).rowCount;
}

export async function up(knex: Knex): Promise<void> {
  await backfillAccountPersons(knex);
}

/** The persons stay: tasks may name them by now, and they cannot be told from persons made by support. */
export async function down(): Promise<void> {}
