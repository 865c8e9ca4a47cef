import { expect } from 'chai';
import { config, setConfig } from '../config';
import { endpoint } from '../lib/http/endpoint';
import { createApp } from '../server/app';
import { call, newSeller } from './support/api';

describe('limits (document 1, Limits)', () => {
  const original = config();
  afterEach(() => setConfig(original));

  it('when the call quota of the window is used up, then 429 with Retry-After and X-RateLimit-Remaining 0', async () => {
    const seller = await newSeller();
    setConfig({ ...original, rateLimitPerWindow: 3 });
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

describe('failures inside the service', () => {
  it('when a handler fails unexpectedly, then 500 in the envelope without stack or SQL text; a lost deadlock is a 503 to retry', async () => {
    const failing = endpoint({
      method: 'GET', path: 'test/failing/', summary: 'fails', response: [],
      handle: async () => { throw new Error('select * from secret_table where password = 1'); },
    });
    const deadlocked = endpoint({
      method: 'GET', path: 'test/deadlocked/', summary: 'loses a deadlock', response: [],
      handle: async () => { throw Object.assign(new Error('deadlock detected'), { code: '40P01' }); },
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
