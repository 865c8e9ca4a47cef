/**
 * A migration waits for its table's lock behind any open transaction, and every request after it
 * queues behind the migration: MIGRATION_LOCK_TIMEOUT_MS bounds the wait (lib/migrate.ts). Shown
 * on a database of its own with a migration that builds an index (CREATE INDEX takes a SHARE lock,
 * which an open writing transaction's ROW EXCLUSIVE holds off).
 */
import { expect } from 'chai';
import { Client } from 'pg';
import { config, setConfig } from '../../config';
import { migrationSource } from '../../lib/db';
import { recreateDatabase } from '../../lib/db/ensure-database';
import { createKnex } from '../../lib/db/knex';
import { migrateDatabase } from '../../lib/migrate';

const indexMigration = '20261128_1100_portal_listing_listed_sku_index';

describe('migrate: a migration waiting for a table lock gives up after MIGRATION_LOCK_TIMEOUT_MS', function () {
  this.timeout(60000);
  const before = config();
  const url = (() => {
    const u = new URL(config().databaseUrl);
    u.pathname = `/${u.pathname.slice(1)}_migrate_lock`;
    return u.toString();
  })();
  after(async () => {
    setConfig(before);
    const maintenance = new URL(url);
    maintenance.pathname = '/postgres';
    const client = new Client({ connectionString: maintenance.toString() });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS "${new URL(url).pathname.slice(1)}" WITH (FORCE)`);
    await client.end();
  });

  const indexExists = async (client: Client) =>
    (await client.query("SELECT 1 FROM pg_indexes WHERE indexname = 'portal_listing_account_listed_sku'")).rowCount === 1;
  const applied = async (client: Client) => (await client.query('SELECT 1 FROM knex_migrations WHERE name = $1', [indexMigration])).rowCount === 1;

  it('when a transaction writing to the table is open, then the run fails within the bound, naming the setting, with nothing of the migration applied; once it ends, the run applies it', async () => {
    await recreateDatabase(url);
    await migrateDatabase(url);
    const knex = createKnex(url, 1);
    try {
      await knex.migrate.down({ migrationSource, name: indexMigration });
    } finally {
      await knex.destroy();
    }
    const writer = new Client({ connectionString: url });
    const reader = new Client({ connectionString: url });
    await Promise.all([writer.connect(), reader.connect()]);
    try {
      expect(await applied(reader)).to.equal(false);
      // A request's transaction that wrote to portal_listing and has not committed yet.
      await writer.query('BEGIN');
      await writer.query('LOCK TABLE portal_listing IN ROW EXCLUSIVE MODE');
      setConfig({ ...before, migrationLockTimeoutMs: 300 });
      const started = Date.now();
      const failure = await migrateDatabase(url).then(
        () => undefined,
        (err: Error) => err,
      );
      expect(failure, 'the run failed').to.be.instanceOf(Error);
      expect(failure!.message).to.contain('MIGRATION_LOCK_TIMEOUT_MS (300 ms)').and.contain('nothing of it was applied');
      // Bounded: well below a request's own 20 s statement timeout (the machine is shared: no exact time).
      expect(Date.now() - started).to.be.below(15000);
      expect(await indexExists(reader)).to.equal(false);
      expect(await applied(reader)).to.equal(false);

      await writer.query('COMMIT');
      expect(await migrateDatabase(url)).to.deep.equal([indexMigration]);
      expect(await indexExists(reader)).to.equal(true);
    } finally {
      await writer.query('ROLLBACK').catch(() => undefined);
      await Promise.all([writer.end(), reader.end()]);
    }
  });

  it('when two processes start at once (npm start migrates in each), then the second waits for the first run however long it takes, and both start', async () => {
    await recreateDatabase(url);
    // A database whose migrations are all pending (knex's tables and pg_trgm there, as after any earlier release).
    const prepare = createKnex(url, 1);
    try {
      await prepare.raw('CREATE EXTENSION IF NOT EXISTS pg_trgm');
      await prepare.migrate.latest({ migrationSource: { ...migrationSource, getMigrations: async () => [] } });
    } finally {
      await prepare.destroy();
    }
    // Far below the first run's length on a new database: a wait for the first run bounded by it failed the second start.
    setConfig({ ...before, migrationLockTimeoutMs: 300 });
    const runs = await Promise.allSettled([migrateDatabase(url), migrateDatabase(url)]);
    const failures = runs.flatMap((r) => (r.status === 'rejected' ? [String((r.reason as Error).message)] : []));
    expect(failures, 'no start failed').to.deep.equal([]);
    const applied = runs.map((r) => (r.status === 'fulfilled' ? r.value.length : -1));
    // One run applied every migration, the other found nothing left to do.
    expect(Math.min(...applied)).to.equal(0);
    expect(Math.max(...applied)).to.equal((await migrationSource.getMigrations([])).length);
  });
});
