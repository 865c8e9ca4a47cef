import { Client } from 'pg';
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
  // Two processes starting at once (npm start migrates in each; several release processes) run
  // one after the other: the second waits, unbounded, until the first run has ended, then finds
  // nothing left to do. Its wait holds no table lock that requests queue behind, so it need not be
  // bounded; bounded by MIGRATION_LOCK_TIMEOUT_MS (knex's lock row, the cell ranges' and the
  // seed's locks), the second start failed whenever the first run took longer than the bound.
  const turn = new Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5000 });
  // A connection lost meanwhile releases the turn; knex's own lock row still keeps two runs of the migrations apart.
  turn.on('error', (err) => log.warn({ err: err.message }, 'migration turn connection lost'));
  await turn.connect();
  try {
    await turn.query("SELECT pg_advisory_lock(hashtextextended('kontor migrate', 0))");
    return await migrateInTurn(databaseUrl, cell);
  } finally {
    // Ending the session releases the lock, also when the run failed.
    await turn.end();
  }
}

async function migrateInTurn(databaseUrl: string, cell: { id: number; count: number }): Promise<string[]> {
  // A migration's ALTER or CREATE INDEX waits for its table's lock behind any open transaction,
  // and every request after it queues behind the migration: bounded, the run fails instead
  // (nothing of the failed migration applied) and the service keeps answering.
  const knex = createKnex(databaseUrl, 2, 5000, 0, config().migrationLockTimeoutMs);
  try {
    await knex.raw('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    const [, applied] = (await knex.migrate.latest({ migrationSource }).catch(explainLockTimeout)) as [number, string[]];
    const ranged = await applyCellRanges(knex, cell.id, cell.count);
    // Once per database and new sequence: the release log shows when a database became a cell.
    if (ranged.length) log.info({ cell: cell.id, cellCount: cell.count, sequences: ranged }, 'sequences given the cell id ranges');
    await seedReferenceData(knex);
    return applied;
  } finally {
    await knex.destroy();
  }
}

/** A lock wait past MIGRATION_LOCK_TIMEOUT_MS (PostgreSQL 55P03): said so, with what to do. */
function explainLockTimeout(err: unknown): never {
  if ((err as { code?: string }).code !== '55P03') throw err;
  throw new Error(
    `a migration waited longer than MIGRATION_LOCK_TIMEOUT_MS (${config().migrationLockTimeoutMs} ms) for a table another transaction holds: nothing of it was applied; run it again when that transaction has ended (${(err as Error).message})`,
    { cause: err },
  );
}
