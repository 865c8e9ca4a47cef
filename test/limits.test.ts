import { expect } from 'chai';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { config, setConfig } from '../config';
import { setClock } from '../lib/clock';
import { endpoint } from '../lib/http/endpoint';
import { acquire, livenessKeyOf } from '../lib/http/rate-limit';
import { closeRedis, redis } from '../lib/redis';
import type { Redis } from 'ioredis';
import { createApp } from '../server/app';
import { call, newSeller, Seller, tokenFor } from './support/api';
import { heldEndpoint } from './support/held-endpoint';

describe('limits (document 1, Limits)', () => {
  const original = config();
  afterEach(() => setConfig(original));

  it('when the call quota of the window is used up, then 429 with Retry-After and X-RateLimit-Remaining 0', async () => {
    const seller = await newSeller();
    setConfig({ ...original, rateLimitPerWindow: 3, rateLimitReliefDays: 0 });
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 4; i++) {
      last = await call('system/currency/EUR/', { token: seller.token });
      statuses.push(last.status);
    }
    expect(statuses).to.deep.equal([200, 200, 200, 429]);
    expect(last!.body.error![0]!.error).to.equal('too_many_requests');
    expect(last!.headers.get('x-ratelimit-remaining')).to.equal('0');
    expect(last!.headers.get('x-ratelimit-limit')).to.equal('3');
    expect(Number(last!.headers.get('retry-after'))).to.be.above(0);
    expect(Number(last!.headers.get('x-ratelimit-reset'))).to.be.above(Date.now() / 1000);
  });

  it('when a call is refused before it counts (a missing scope, a body that cannot be read), then the answer still carries the quota as it stands, uncounted; an unknown caller gets none', async () => {
    const seller = await newSeller();
    const reader = await tokenFor(seller.login, seller.password, 'order_r');
    setConfig({ ...original, rateLimitPerWindow: 5, rateLimitReliefDays: 0 });
    const counted = await call('system/currency/EUR/', { token: seller.token });
    expect(counted.headers.get('x-ratelimit-remaining')).to.equal('4');
    const refusals = [
      await call('order/', { token: reader, body: { order: { customer: { email: 'a@example.com' } } } }),
      await call('order/', { token: seller.token, body: '{"order": ', headers: { 'Content-Type': 'application/json' } }),
    ];
    expect(refusals.map((r) => [r.status, r.body.error?.[0]?.error])).to.deep.equal([
      [403, 'insufficient_scope'],
      [400, 'malformed_json'],
    ]);
    for (const refused of refusals) {
      expect(refused.headers.get('x-ratelimit-limit')).to.equal('5');
      expect(refused.headers.get('x-ratelimit-remaining')).to.equal('4');
      expect(refused.headers.get('x-ratelimit-reset')).to.equal(counted.headers.get('x-ratelimit-reset'));
    }
    expect((await call('system/currency/EUR/', { token: seller.token })).headers.get('x-ratelimit-remaining')).to.equal('3');
    const unknown = await call('system/currency/EUR/', { token: 'not-a-token' });
    expect(unknown.status).to.equal(401);
    expect(unknown.headers.has('x-ratelimit-limit')).to.equal(false);
  });

  it('when more calls of one account run at once than allowed, then the surplus gets 429 and others are unaffected', async () => {
    const busy = await newSeller();
    const calm = await newSeller();
    setConfig({ ...original, concurrentCallsPerAccount: 1 });
    const answers = await Promise.all(Array.from({ length: 6 }, () => call('system/currency/', { token: busy.token })));
    const codes = answers.map((a) => a.status);
    expect(codes).to.include(200);
    expect(codes).to.include(429);
    expect(codes.every((c) => c === 200 || c === 429)).to.equal(true);
    expect((await call('system/currency/', { token: calm.token })).status).to.equal(200);
    // Calls in flight are released when answered: sequential calls all pass.
    for (let i = 0; i < 3; i++) expect((await call('system/currency/', { token: busy.token })).status).to.equal(200);
  });
});

describe('limits: one call at a time (document 1: only 1 call is processed at a time)', () => {
  let server: Server;
  let base = '';
  // An endpoint that stays in flight until the test lets it go, so two calls overlap for sure.
  const held = heldEndpoint();
  const get = (path: string, seller: Seller) => fetch(`${base}/v1.1/${path}`, { headers: { Authorization: `Bearer ${seller.token}` } });

  before(async () => {
    server = createApp([held.endpoint]).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.close();
  });

  it('when a second call of an account arrives while its first is in flight, then 429 too_many_concurrent_calls with Retry-After; another account is unaffected; afterwards calls pass again', async () => {
    expect(config().concurrentCallsPerAccount, 'the tests run with the default').to.equal(1);
    const busy = await newSeller();
    const calm = await newSeller();
    const inside = held.nextEntry();
    const first = get('test/held/', busy);
    await inside;

    const second = await get('system/currency/EUR/', busy);
    expect(second.status).to.equal(429);
    // A live call may end at any moment: the documented short value (lib/http/README.md).
    expect(second.headers.get('retry-after')).to.equal('1');
    expect(second.headers.get('x-ratelimit-limit')).to.equal(String(config().rateLimitPerWindow));
    const body = (await second.json()) as { ack: string; error: { error: string; code: number }[] };
    expect(body.ack).to.equal('error');
    expect(body.error[0]).to.include({ error: 'too_many_concurrent_calls', code: 429 });
    expect((await get('system/currency/EUR/', calm)).status).to.equal(200);

    held.release();
    expect((await first).status).to.equal(200);
    for (let i = 0; i < 3; i++) expect((await get('system/currency/EUR/', busy)).status).to.equal(200);
  });
});

describe('limits: calls in flight of a web process that is gone (document 1 counts the calls being processed)', () => {
  // An entry written under a tag whose liveness key is absent is what a killed process leaves.
  const callsKey = (seller: Seller) => `${config().queuePrefix}:{a${seller.id}}:calls`;
  const get = (seller: Seller) => call('system/currency/EUR/', { token: seller.token });

  it("when the account's call in flight belongs to a process that is gone (no liveness key, as after kill -9), then the next call is served at once, and the entry is gone", async () => {
    const seller = await newSeller();
    await redis().zadd(callsKey(seller), Date.now(), 'gone-process:7');

    const next = await get(seller);
    expect(next.status, next.text).to.equal(200);
    expect(next.headers.get('x-ratelimit-remaining')).to.equal(String(config().rateLimitPerWindow - 1));
    expect(await redis().zscore(callsKey(seller), 'gone-process:7')).to.equal(null);
    expect((await get(seller)).status).to.equal(200);
  });

  it('when the call in flight belongs to a live process (its liveness key present), then 429 too_many_concurrent_calls with Retry-After: 1; once its key runs out, the next call is served', async () => {
    const seller = await newSeller();
    const tag = `live-process-${seller.id}`;
    await redis().set(livenessKeyOf(tag), '1', 'PX', 60_000);
    await redis().zadd(callsKey(seller), Date.now(), `${tag}:3`);

    const refused = await get(seller);
    expect(refused.status, refused.text).to.equal(429);
    expect(refused.body.error?.map((e) => e.error)).to.deep.equal(['too_many_concurrent_calls']);
    expect(refused.headers.get('retry-after')).to.equal('1');
    expect(refused.headers.get('x-ratelimit-limit')).to.equal(String(config().rateLimitPerWindow));
    expect(await redis().zscore(callsKey(seller), `${tag}:3`), 'a live call stays counted').to.not.equal(null);

    await redis().del(livenessKeyOf(tag));
    expect((await get(seller)).status).to.equal(200);
  });

  it("when a live process's call has been in flight for more than 120 s, then it no longer counts (the bound for a stuck call)", async () => {
    const seller = await newSeller();
    const tag = `stuck-process-${seller.id}`;
    await redis().set(livenessKeyOf(tag), '1', 'PX', 60_000);
    await redis().zadd(callsKey(seller), Date.now() - 121_000, `${tag}:1`);
    expect((await get(seller)).status).to.equal(200);
    await redis().del(livenessKeyOf(tag));
  });
});

describe('limits: daily relief (document 1: reaching the limit at most 3 times in 30 days doubles it for the day)', () => {
  const original = config();
  const day = 86400 * 1000;
  const start = Date.UTC(2026, 0, 5, 10, 0, 0);
  let at = start;
  beforeEach(() => {
    setConfig({ ...original, rateLimitPerWindow: 2, rateLimitWindowSeconds: 3600 });
    setClock(() => at);
  });
  afterEach(() => {
    setConfig(original);
    setClock(undefined);
  });

  /** Calls until the first refusal (at most 10); the statuses and the limit each answer showed. */
  async function callsUntilRefused(seller: Seller): Promise<{ statuses: number[]; limits: string[]; refusal: Awaited<ReturnType<typeof call>> }> {
    const statuses: number[] = [];
    const limits: string[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await call('system/currency/EUR/', { token: seller.token });
      statuses.push(res.status);
      limits.push(res.headers.get('x-ratelimit-limit') ?? '');
      if (res.status === 429) return { statuses, limits, refusal: res };
    }
    throw new Error(`no 429 after ${statuses.length} calls`);
  }

  it('when an account reaches its limit on a first day, then the limit is doubled for the rest of that day (UTC) and X-RateLimit-Limit shows it', async () => {
    const seller = await newSeller();
    at = start;
    const first = await callsUntilRefused(seller);
    expect(first.statuses).to.deep.equal([200, 200, 200, 200, 429]);
    expect(first.limits).to.deep.equal(['2', '4', '4', '4', '4']);
    expect(first.refusal.body.error![0]!.error).to.equal('too_many_requests');
    expect(Number(first.refusal.headers.get('retry-after'))).to.be.at.least(1);

    // A later window of the same day: still doubled.
    at = start + 3600 * 1000;
    expect((await callsUntilRefused(seller)).limits).to.deep.equal(['4', '4', '4', '4', '4']);
    // The last second of the day: still doubled; the next day starts at the plain limit.
    at = Date.UTC(2026, 0, 5, 23, 59, 59);
    expect((await call('system/currency/EUR/', { token: seller.token })).headers.get('x-ratelimit-limit')).to.equal('4');
    at = Date.UTC(2026, 0, 6, 0, 0, 1);
    expect((await call('system/currency/EUR/', { token: seller.token })).headers.get('x-ratelimit-limit')).to.equal('2');
  });

  it('when an account reaches its limit a fourth time in 30 days, then there is no relief that day; once old days leave the 30 days, relief comes back', async () => {
    const seller = await newSeller();
    for (const d of [0, 3, 9]) {
      at = start + d * day;
      expect((await callsUntilRefused(seller)).statuses, `day ${d}`).to.deep.equal([200, 200, 200, 200, 429]);
    }
    at = start + 20 * day;
    const fourth = await callsUntilRefused(seller);
    expect(fourth.statuses).to.deep.equal([200, 200, 429]);
    expect(fourth.limits).to.deep.equal(['2', '2', '2']);
    expect(fourth.refusal.body.error![0]!.error).to.equal('too_many_requests');

    // Day 35: days 0 and 3 are more than 30 days back; days 9 and 20 remain, this is the third time.
    at = start + 35 * day;
    const later = await callsUntilRefused(seller);
    expect(later.statuses).to.deep.equal([200, 200, 200, 200, 429]);
    expect(later.limits).to.deep.equal(['2', '4', '4', '4', '4']);
  });
});

describe('failures inside the service', () => {
  it('when a handler fails unexpectedly, then 500 in the envelope without stack or SQL text; a lost deadlock is a 503 to retry', async () => {
    const failing = endpoint({
      method: 'GET',
      path: 'test/failing/',
      summary: 'fails',
      response: [],
      handle: async () => {
        throw new Error('select * from secret_table where password = 1');
      },
    });
    const deadlocked = endpoint({
      method: 'GET',
      path: 'test/deadlocked/',
      summary: 'loses a deadlock',
      response: [],
      handle: async () => {
        throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
      },
    });
    const server = createApp([failing, deadlocked]).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const { port } = server.address() as { port: number };
      const seller = await newSeller();
      const res = await fetch(`http://127.0.0.1:${port}/v1.1/test/failing/`, { headers: { Authorization: `Bearer ${seller.token}` } });
      const text = await res.text();
      expect(res.status).to.equal(500);
      expect(JSON.parse(text)).to.deep.equal({
        error: [{ error: 'internal_error', description: 'the request could not be processed; it has been logged', code: 500 }],
        ack: 'error',
        error_description: 'the request could not be processed; it has been logged',
      });
      expect(text).not.to.contain('secret_table');
      expect(text).not.to.contain('.ts:');

      const retry = await fetch(`http://127.0.0.1:${port}/v1.1/test/deadlocked/`, { headers: { Authorization: `Bearer ${seller.token}` } });
      expect(retry.status).to.equal(503);
      expect(retry.headers.get('retry-after')).to.equal('1');
      expect(((await retry.json()) as { error: { error: string }[] }).error[0]!.error).to.equal('retry_later');
    } finally {
      server.close();
    }
  });
});

describe('limits when Redis cannot be reached (the limits must neither take the service down nor fail open)', () => {
  const original = config();
  afterEach(async () => {
    await closeRedis();
    setConfig(original);
  });

  /** Counts the commands this process's producer connection is asked to send from now on. */
  function countCommands(): { count: number } {
    const counter = { count: 0 };
    const connection = redis() as Redis;
    const send = connection.sendCommand.bind(connection);
    connection.sendCommand = ((...args: Parameters<typeof send>) => {
      counter.count += 1;
      return send(...args);
    }) as typeof send;
    return counter;
  }

  it('when Redis goes away, then calls are counted by this process instead of let through, and a release that could not be sent is not retried every turn', async () => {
    const admitted = await acquire(900101, 10);
    expect(admitted.state).to.not.equal(null);
    await closeRedis();
    setConfig({ ...original, redisUrl: 'redis://127.0.0.1:1' });
    const commands = countCommands();

    admitted.release();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(commands.count, 'the release was tried once').to.equal(1);

    const counted = await acquire(900101, 10);
    expect(counted.state).to.include({ limit: original.rateLimitPerWindow, remaining: original.rateLimitPerWindow - 1 });
    counted.release();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(commands.count, 'one more for the acquire, none for its release (counted here)').to.equal(2);
  });
});
