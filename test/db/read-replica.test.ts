/**
 * The read replica (lib/db/read-replica.ts) against a real streaming standby started here.
 *
 * The machine's PostgreSQL (127.0.0.1:5432) allows no replication connection (its pg_hba.conf
 * has no `replication` line, and that is a system file the tests do not edit), so the test makes
 * its own pair with Debian's PostgreSQL 15 binaries: a primary (initdb, whose pg_hba allows
 * replication from loopback) and a standby (pg_basebackup -R -X stream), each on a free port with
 * its socket in a temporary directory, both stopped and removed afterwards even on failure. The
 * app runs on that primary, migrated, with DATABASE_READ_URL on the standby.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { config, Config, setConfig } from '../../config';
import { recreateDatabase } from '../../lib/db/ensure-database';
import { closeDb, createKnex, Knex } from '../../lib/db/knex';
import { migrateDatabase } from '../../lib/migrate';
import { call, newSeller, Seller } from '../support/api';
import { orderIdPattern } from '../../lib/order/order.type';
import { createOrder } from '../order/helpers';
import { pg, pgTempDir } from '../support/pg-server';
import { freePort } from '../support/process';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('db: read replica (DATABASE_READ_URL, lib/db/read-replica.ts) on a real streaming standby', function () {
  this.timeout(60000);
  let dir: string;
  let primaryDir: string;
  let standbyDir: string;
  let primaryUrl: string;
  let standbyUrl: string;
  let primary: Knex;
  let standby: Knex;
  let standbyRunning = false;
  let primaryRunning = false;
  let saved: Config;
  let seller: Seller;

  const startCluster = (dataDir: string, port: number) =>
    pg('pg_ctl', ['-D', dataDir, '-l', `${dataDir}.log`, '-w', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`, 'start']);
  const stopCluster = (dataDir: string) => pg('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);

  /** Waits until the standby has replayed everything the primary has written so far. */
  async function caughtUp(): Promise<void> {
    const { rows } = (await primary.raw('SELECT pg_current_wal_lsn()::text AS lsn')) as { rows: { lsn: string }[] };
    for (let i = 0; i < 200; i++) {
      const check = (await standby.raw('SELECT pg_last_wal_replay_lsn() >= ?::pg_lsn AS done', [rows[0]!.lsn])) as { rows: { done: boolean }[] };
      if (check.rows[0]!.done) return;
      await sleep(25);
    }
    throw new Error('the standby did not catch up within 5 s');
  }

  const searchIds = async (): Promise<string[]> => {
    const res = await call('order/', { token: seller.token });
    expect(res.status, res.text).to.equal(200);
    return (res.body.order as { id: string }[]).map((o) => o.id);
  };
  const orderIsOnStandby = async (orderId: string): Promise<boolean> => {
    const { rows } = (await standby.raw('SELECT count(*)::int AS n FROM sales_order WHERE account_id = ? AND number = ?', [
      seller.id,
      orderIdPattern.exec(orderId)![1]!,
    ])) as { rows: { n: number }[] };
    return rows[0]!.n > 0;
  };

  before(async () => {
    saved = config();
    dir = await pgTempDir('kontor-replica-');
    primaryDir = path.join(dir, 'primary');
    standbyDir = path.join(dir, 'standby');
    const [primaryPort, standbyPort] = [await freePort(), await freePort()];
    await pg('initdb', ['-D', primaryDir, '-U', 'postgres', '-A', 'trust', '--no-sync']);
    await startCluster(primaryDir, primaryPort);
    primaryRunning = true;
    await pg('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', standbyDir, '-R', '-X', 'stream']);
    await startCluster(standbyDir, standbyPort);
    standbyRunning = true;
    primaryUrl = `postgres://postgres@127.0.0.1:${primaryPort}/kontor_replica`;
    standbyUrl = `postgres://postgres@127.0.0.1:${standbyPort}/kontor_replica`;
    await recreateDatabase(primaryUrl);
    await migrateDatabase(primaryUrl);
    primary = createKnex(primaryUrl, 2);
    standby = createKnex(standbyUrl, 2);
    await closeDb();
    // Redis keys apart from the suite's: account ids start at 1 again in this database.
    setConfig({
      ...saved,
      databaseUrl: primaryUrl,
      databaseReadUrl: standbyUrl,
      databaseReadMaxLagMs: 60000,
      orderSearchMinAgeSeconds: 0,
      queuePrefix: `${saved.queuePrefix}-replica`,
    });
    seller = await newSeller();
    await caughtUp();
  });

  after(async () => {
    await closeDb();
    setConfig(saved);
    await primary?.destroy();
    await standby?.destroy();
    if (standbyRunning) await stopCluster(standbyDir).catch(() => undefined);
    if (primaryRunning) await stopCluster(primaryDir).catch(() => undefined);
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('when replay on the standby is paused, then a new order is read by id (primary) but not found by the search (standby) until replay resumes', async () => {
    await standby.raw('SELECT pg_wal_replay_pause()');
    const orderId = await createOrder(seller);
    expect(await orderIsOnStandby(orderId)).to.equal(false);
    const byId = await call(`order/${orderId}/`, { token: seller.token });
    expect(byId.status, byId.text).to.equal(200);
    expect(await searchIds()).to.not.include(orderId);
    await standby.raw('SELECT pg_wal_replay_resume()');
    await caughtUp();
    expect(await orderIsOnStandby(orderId)).to.equal(true);
    expect(await searchIds()).to.include(orderId);
  });

  it('when the paused standby lags beyond DATABASE_READ_MAX_LAG_MS, then the search reads the primary and finds the new order', async () => {
    setConfig({ ...config(), databaseReadMaxLagMs: 300 });
    await standby.raw('SELECT pg_wal_replay_pause()');
    try {
      const orderId = await createOrder(seller);
      // Past the bound, and past the guard's one-second cache.
      await sleep(1200);
      expect(await orderIsOnStandby(orderId)).to.equal(false);
      expect(await searchIds()).to.include(orderId);
    } finally {
      await standby.raw('SELECT pg_wal_replay_resume()');
      setConfig({ ...config(), databaseReadMaxLagMs: 60000 });
    }
    // Caught up again, the standby answers once the guard measures afresh: an order written
    // while it is paused is missing from the search again.
    await caughtUp();
    await sleep(1100);
    await standby.raw('SELECT pg_wal_replay_pause()');
    const later = await createOrder(seller);
    expect(await searchIds()).to.not.include(later);
    await standby.raw('SELECT pg_wal_replay_resume()');
    await caughtUp();
  });

  it('when a search fails on the replica mid-query (its session is ended), then the primary answers it: 200, no 500', async () => {
    const orderId = await createOrder(seller);
    await caughtUp();
    await sleep(1100); // the guard measures afresh: the standby is in use
    // The primary's exclusive lock, replayed on the standby, holds the search there; then its
    // session is ended, as a stopped replica or a cancel by a conflict with recovery would.
    const trx = await primary.transaction();
    try {
      await trx.raw('LOCK TABLE sales_order IN ACCESS EXCLUSIVE MODE');
      await primary.raw('SELECT txid_current()'); // a commit flushes the lock's WAL to the standby
      const waitFor = async (sql: string, what: string) => {
        for (let i = 0; i < 200; i++) {
          const { rows } = (await standby.raw(sql)) as { rows: { n: number }[] };
          if (rows[0]!.n > 0) return;
          await sleep(25);
        }
        throw new Error(`the standby never showed ${what}`);
      };
      await waitFor("SELECT count(*)::int AS n FROM pg_locks WHERE relation = 'sales_order'::regclass AND mode = 'AccessExclusiveLock'", 'the lock');
      const pending = call('order/', { token: seller.token });
      await waitFor("SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND backend_type = 'client backend'", 'the search waiting');
      await standby.raw("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND backend_type = 'client backend'");
      await sleep(200); // the search, run again on the primary, now waits for the lock there
      await trx.rollback();
      const res = await pending;
      expect(res.status, res.text).to.equal(200);
      expect((res.body.order as { id: string }[]).map((o) => o.id)).to.include(orderId);
    } finally {
      if (!trx.isCompleted()) await trx.rollback();
    }
  });

  it('when the replica does not answer at all (a silent peer), then searches read the primary within about a second: 200, no 500', async () => {
    // Accepts TCP and never speaks: a replica behind a dead route, not one that refuses.
    const sockets: net.Socket[] = [];
    const silent = net.createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const before = config();
    try {
      await closeDb();
      setConfig({ ...before, databaseReadUrl: `postgres://postgres@127.0.0.1:${(silent.address() as net.AddressInfo).port}/kontor_replica` });
      const orderId = await createOrder(seller);
      const started = Date.now();
      expect(await searchIds()).to.include(orderId);
      expect(Date.now() - started).to.be.below(4000);
      expect(sockets.length).to.be.above(0);
    } finally {
      await closeDb();
      setConfig(before);
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('when the standby is stopped, then searches fall back to the primary: 200 with every order, no 500', async () => {
    const orderId = await createOrder(seller);
    await standby.destroy();
    await stopCluster(standbyDir);
    standbyRunning = false;
    await sleep(1100);
    for (let i = 0; i < 3; i++) expect(await searchIds()).to.include(orderId);
  });
});
