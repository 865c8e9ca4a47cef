import type { Knex } from 'knex';
import { db } from './knex';
import { migrationSource } from './migrations';

/** Once true, true for good: a process's code never meets an older schema than the one it saw. */
let current = false;

/**
 * Whether the newest migration this code ships has run on the database: a web process started
 * before (or without) the release step would answer 500s on every table it lacks, so readiness
 * asks this (lib/operator/README.md). An empty database (no knex_migrations table yet) is behind.
 */
export async function schemaCurrent(knex: Knex = db()): Promise<boolean> {
  if (current) return true;
  const newest = (await migrationSource.getMigrations([])).at(-1) ?? '';
  const exists = await knex.raw<{ rows: { present: boolean }[] }>("SELECT to_regclass('knex_migrations') IS NOT NULL AS present");
  if (!exists.rows[0]?.present) return false;
  const row = await knex.raw<{ rows: unknown[] }>('SELECT 1 FROM knex_migrations WHERE name = ? LIMIT 1', [newest]);
  current = row.rows.length > 0;
  return current;
}
