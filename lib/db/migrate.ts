import { createKnex } from './knex';
import { ensureDatabase } from './ensure-database';
import { migrationSource } from './migrations';
import { seedReferenceData } from '../reference/seed';

/** Creates the database if missing, runs every pending migration and loads reference data. */
export async function migrateDatabase(databaseUrl: string): Promise<string[]> {
  await ensureDatabase(databaseUrl);
  const knex = createKnex(databaseUrl, 2);
  try {
    await knex.raw('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    const [, applied] = await knex.migrate.latest({ migrationSource }) as [number, string[]];
    await seedReferenceData(knex);
    return applied;
  } finally {
    await knex.destroy();
  }
}
