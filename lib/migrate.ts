import { createKnex } from './db/knex';
import { ensureDatabase } from './db/ensure-database';
import { migrationSource } from './db/migrations';
import { seedReferenceData } from './reference/seed';

/**
 * Creates the database if missing, runs every pending migration and loads reference data.
 * It sits above lib/db and lib/reference because it runs both (reference data needs the tables).
 */
export async function migrateDatabase(databaseUrl: string): Promise<string[]> {
  await ensureDatabase(databaseUrl);
  const knex = createKnex(databaseUrl, 2);
  try {
    await knex.raw('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    const [, applied] = (await knex.migrate.latest({ migrationSource })) as [number, string[]];
    await seedReferenceData(knex);
    return applied;
  } finally {
    await knex.destroy();
  }
}
