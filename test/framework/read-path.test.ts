import { expect } from 'chai';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { config, setConfig } from '../../config';
import { forgetTokens } from '../../lib/auth/token.service';
import { secretHash } from '../../lib/auth/secret';
import { changesSettled } from '../../lib/db/change-notices';
import { createKnex, db, Knex } from '../../lib/db/knex';
import { endpoint, ok } from '../../lib/http/endpoint';
import { acquire } from '../../lib/http/rate-limit';
import { createRedis } from '../../lib/redis';
import { createApp } from '../../server/app';
import type { DomainError } from '../../lib/errors';
import { call, newSeller, Seller } from '../support/api';
import { kontor } from '../support/cli';
import { heldEndpoint } from '../support/held-endpoint';
import { MonitoredCommand, monitorRedis, RedisMonitor } from '../support/redis-monitor';

/**
 * The read path (issue 17): what a request keeps in memory follows changes made by other
 * processes at once, and a request costs no Postgres query and one Redis round trip beyond its
 * endpoint's own work. "Another process" writes through its own database session (or the CLI);
 * changesSettled() waits until this process has handled the notices committed before it.
 */
describe('read path: memory that follows the database', () => {
  let other: Knex;
  before(() => {
    other = createKnex(config().databaseUrl, 1);
  });
  after(async () => {
    await other('currency').where({ id: 'QQQ' }).delete();
    await other.destroy();
  });

  it('when another process adds and removes a currency, then system/currency/ answers the change at once', async () => {
    const seller = await newSeller();
    await changesSettled();
    expect((await call('system/currency/QQQ/', { token: seller.token })).status).to.equal(404);
    const before = (await call('system/currency/', { token: seller.token })).body.currency as { id: string }[];

    await other('currency').insert({ internal_id: 9999, id: 'QQQ', name: 'Test currency' });
    await changesSettled();
    const added = await call('system/currency/QQQ/', { token: seller.token });
    expect(added.status).to.equal(200);
    expect(added.body.currency).to.deep.equal({ internal_id: 9999, id: 'QQQ' });
    expect(((await call('system/currency/', { token: seller.token })).body.currency as unknown[]).length).to.equal(before.length + 1);

    await other('currency').where({ id: 'QQQ' }).delete();
    await changesSettled();
    expect((await call('system/currency/QQQ/', { token: seller.token })).status).to.equal(404);
  });

  it('when the CLI moves the default portal account, then the next request without portal_account_id works with the new default', async () => {
    const whoami = endpoint({
      method: 'GET',
      path: 'test/whoami/',
      summary: 'the portal account the request works with',
      response: ['portal_account_id'],
      handle: async ({ caller }) => ok({ portal_account_id: caller.portalAccountId }),
    });
    const server: Server = createApp([whoami]).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const seller = await newSeller();
      await changesSettled();
      const first = await call('test/whoami/', { token: seller.token, base });
      expect(first.body.portal_account_id).to.equal(seller.portalAccountId);
      const created = await kontor('portal-account', 'create', '--login', seller.login, '--name', 'second shop', '--platform', 'auction_a', '--default');
      expect(created.code, created.err).to.equal(0);
      await changesSettled();
      const moved = await call('test/whoami/', { token: seller.token, base });
      expect(moved.body.portal_account_id).to.equal((JSON.parse(created.out) as { id: number }).id);
    } finally {
      server.close();
    }
  });

  it('when another process deletes an access token that was just used, then the next call with it is refused with 401 invalid_token', async () => {
    const seller = await newSeller();
    await changesSettled();
    expect((await call('system/currency/EUR/', { token: seller.token })).status).to.equal(200);
    await other('access_token')
      .where({ token_hash: secretHash(seller.token) })
      .delete();
    await changesSettled();
    const refused = await call('system/currency/EUR/', { token: seller.token });
    expect(refused.status).to.equal(401);
    expect(refused.body.error![0]!.error).to.equal('invalid_token');
  });

  it('when another process makes a token expire (expires_at in the past), then the next call with it is refused with 401', async () => {
    const seller = await newSeller();
    await changesSettled();
    expect((await call('system/currency/EUR/', { token: seller.token })).status).to.equal(200);
    await other('access_token')
      .where({ token_hash: secretHash(seller.token) })
      .update({ expires_at: other.raw("now() - interval '1 second'") });
    await changesSettled();
    expect((await call('system/currency/EUR/', { token: seller.token })).status).to.equal(401);
  });

  it('when a revocation no trigger sees calls forgetTokens, then the token is refused at once', async () => {
    const seller = await newSeller();
    await changesSettled();
    expect((await call('system/currency/EUR/', { token: seller.token })).status).to.equal(200);
    const hash = secretHash(seller.token);
    await other.transaction(async (trx) => {
      // Triggers off for this session: a revocation the access_token trigger does not announce.
      await trx.raw('SET LOCAL session_replication_role = replica');
      await trx('access_token').where({ token_hash: hash }).delete();
      await forgetTokens([hash], trx);
    });
    await changesSettled();
    expect((await call('system/currency/EUR/', { token: seller.token })).status).to.equal(401);
  });
});

describe('read path: round trips of a request', () => {
  const original = config();
  let monitor: RedisMonitor;
  let seen: MonitoredCommand[] = [];
  before(async () => {
    monitor = await monitorRedis((command) => seen.push(command));
  });
  after(() => {
    monitor.close();
  });

  /** The commands sent by clients (not by scripts) that name keys of this seller. */
  const commandsOf = (seller: Seller) => {
    const mine = new RegExp(`^${config().queuePrefix}:\\{a${seller.id}\\}:(rate|calls)(:|$)`);
    return seen.filter((c) => c.source !== 'lua' && c.args.some((a) => mine.test(a)));
  };

  /** Waits until MONITOR has shown a command naming this marker key (MONITOR's feed is asynchronous). */
  async function fence(marker: string): Promise<void> {
    const fencing = createRedis('worker');
    await fencing.get(marker);
    fencing.disconnect();
    while (!seen.some((c) => c.args.includes(marker))) await new Promise((resolve) => setImmediate(resolve));
  }

  it('when an authenticated call is answered, then the rate limit and the concurrency gate took one EVALSHA, and the release one more (alone when no acquire of another call came to carry it)', async () => {
    const seller = await newSeller();
    await call('system/currency/EUR/', { token: seller.token });
    await fence(`${config().queuePrefix}:fence:a:${seller.id}`);
    seen = [];
    const res = await call('system/currency/EUR/', { token: seller.token });
    expect(res.status).to.equal(200);
    expect(res.headers.get('x-ratelimit-limit')).to.equal(String(config().rateLimitPerWindow));
    await fence(`${config().queuePrefix}:fence:b:${seller.id}`);
    const commands = commandsOf(seller).map((c) => c.args);
    expect(commands.map((c) => c[0]!.toLowerCase())).to.deep.equal(['evalsha', 'evalsha']);
    const [acquire, release] = commands;
    const rateKey = new RegExp(`^${config().queuePrefix}:\\{a${seller.id}\\}:rate$`);
    expect(acquire!.some((a) => rateKey.test(a))).to.equal(true);
    expect(acquire).to.include(`${config().queuePrefix}:{a${seller.id}}:calls`);
    expect(release).to.include(`${config().queuePrefix}:{a${seller.id}}:calls`);
  });

  it('when several calls acquire in one turn of the event loop, then one script call admits them all, each in its own account, and carries the releases', async () => {
    setConfig({ ...config(), concurrentCallsPerAccount: 1 });
    try {
      const [first, second, third] = [900001, 900002, 900003];
      const earlier = await acquire(third!, 10);
      await fence(`${config().queuePrefix}:fence:c`);
      seen = [];
      earlier.release();
      // Three calls in one turn: the release of the third account's earlier call goes first, so
      // its new call is admitted; the first account's second call is one too many in flight.
      const calls = await Promise.allSettled([acquire(first!, 10), acquire(second!, 10), acquire(first!, 10), acquire(third!, 10)]);
      expect(calls.map((c) => c.status)).to.deep.equal(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
      expect(((calls[2] as PromiseRejectedResult).reason as DomainError).id).to.equal('too_many_concurrent_calls');
      await fence(`${config().queuePrefix}:fence:d`);
      // Only the scripts that touch these accounts: MONITOR sees every client of the Redis server (a
      // worker of another suite or another checkout's run on the same machine).
      const ours = (c: MonitoredCommand) => [first, second, third].some((id) => c.args.includes(`${config().queuePrefix}:{a${id}}:calls`));
      const scripts = seen.filter((c) => c.source !== 'lua' && c.args[0]!.toLowerCase() === 'evalsha' && ours(c));
      expect(scripts).to.have.length(1);
      for (const id of [first, second, third]) expect(scripts[0]!.args).to.include(`${config().queuePrefix}:{a${id}}:calls`);
      for (const c of calls) if (c.status === 'fulfilled') c.value.release();
    } finally {
      setConfig(original);
    }
  });

  it('when a client gives up on a call while it runs, then the call stays in flight until its handler ends, and the next call passes after', async () => {
    expect(config().concurrentCallsPerAccount, 'the tests run with the default').to.equal(1);
    const held = heldEndpoint();
    const server: Server = createApp([held.endpoint]).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const seller = await newSeller();
      const inside = held.nextEntry();
      const client = new AbortController();
      const gaveUp = fetch(`${base}/v1.1/test/held/`, { headers: { Authorization: `Bearer ${seller.token}` }, signal: client.signal }).catch(() => 'aborted');
      await inside;
      client.abort();
      expect(await gaveUp).to.equal('aborted');
      expect((await call('system/currency/EUR/', { token: seller.token, base })).status).to.equal(429);
      held.release();
      // The handler ends on the next turns of the event loop; its release is queued then.
      await new Promise((resolve) => setImmediate(resolve));
      expect((await call('system/currency/EUR/', { token: seller.token, base })).status).to.equal(200);
    } finally {
      server.close();
    }
  });

  it('when a cached token reads reference data, then no Postgres query is made; GET order/{id}/ makes one', async () => {
    const seller = await newSeller();
    const created = await call('order/', {
      token: seller.token,
      body: { order: { customer: { email: 'reader@example.com' }, line: [{ id: 1, quantity: 1, price: '1.00' }] } },
    });
    expect(created.status).to.equal(201);
    await changesSettled();
    await call('system/currency/EUR/', { token: seller.token });
    await call(`order/${created.body.order_id as string}/`, { token: seller.token });
    const queries: string[] = [];
    const onQuery = (q: { sql: string }) => queries.push(q.sql);
    db().on('query', onQuery);
    try {
      expect((await call('system/currency/EUR/', { token: seller.token })).status).to.equal(200);
      expect(queries).to.deep.equal([]);
      expect((await call(`order/${created.body.order_id as string}/`, { token: seller.token })).status).to.equal(200);
      expect(queries.length).to.equal(1);
      expect(queries[0]).to.match(/from "sales_order"/);
    } finally {
      db().off('query', onQuery);
    }
  });
});
