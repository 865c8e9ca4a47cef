import { config } from '../config';
import { applyCellRanges, createKnex, ensureDatabase, migrationSource } from './db';
import { log } from './log';
import { seedReferenceData } from './reference';

/**
 * Creates the database if missing, runs every pending migration, gives the sequences this cell's
 * id ranges (CELL_ID of CELL_COUNT; nothing with one cell; lib/db/cells.ts) and loads reference
 * data. It sits above lib/db and lib/reference because it runs both (reference data needs the
 * tables). The ranges come after the migrations so that a sequence a new migration creates gets
 * its range in the same run, before any row takes an id from it.
 */
export async function migrateDatabase(
  databaseUrl: string,
  cell: { id: number; count: number } = { id: config().cellId, count: config().cellCount },
): Promise<string[]> {
  await ensureDatabase(databaseUrl);
  const knex = createKnex(databaseUrl, 2);
  try {
    await knex.raw('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    const [, applied] = (await knex.migrate.latest({ migrationSource })) as [number, string[]];
    const ranged = await applyCellRanges(knex, cell.id, cell.count);
    // Once per database and new sequence: the release log shows when a database became a cell.
    if (ranged.length) log.info({ cell: cell.id, cellCount: cell.count, sequences: ranged }, 'sequences given the cell id ranges');
    await seedReferenceData(knex);
    return applied;
  } finally {
    await knex.destroy();
  }
}
