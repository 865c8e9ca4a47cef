/**
 * Root hooks: the test database (test/env.ts) created afresh, migrated and seeded once;
 * outbound HTTP blocked except to loopback (nock); pools closed at the end.
 */
import nock from 'nock';
import { config } from '../config';
import { recreateDatabase } from '../lib/db/ensure-database';
import { closeDb } from '../lib/db/knex';
import { migrateDatabase } from '../lib/migrate';
import { closeRedis } from '../lib/redis';

export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(120000);
    await recreateDatabase(config().databaseUrl);
    await migrateDatabase(config().databaseUrl);
    nock.disableNetConnect();
    nock.enableNetConnect(/^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/);
  },
  async afterAll() {
    await closeDb();
    await closeRedis();
  },
};
