/**
 * Issue 31, finding 7: the operator area (/operator/) throttles failed logins, logs them without
 * the password, and in production stays off with a missing or weak password instead of taking it.
 */
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { config, setConfig } from '../../config';
import { setClock } from '../../lib/clock';
import { queues } from '../../lib/queue/queue.registry';
import { queueNames } from '../../lib/queue/queues';
import { createApp } from '../../server/app';
import { apiBase } from '../support/api';
import { capturedLog } from './log-capture';

const basic = (user: string, password: string) => ({ Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });
const strong = 'a-long-operator-password-4711';

describe('operator area: throttled, logged, no weak password in production (issue 31)', () => {
  const original = config();
  const windowSeconds = 900;
  // Each test in a throttle window of its own: failures of one never count in another.
  let window = Math.floor(Date.UTC(2026, 4, 4, 9) / 1000 / windowSeconds);
  beforeEach(() => {
    window += 4;
    const at = window * windowSeconds * 1000;
    setClock(() => at);
    setConfig({ ...original, operatorUser: 'ops', operatorPassword: strong, loginThrottleWindowSeconds: windowSeconds, loginAttemptsPerLoginAndAddress: 3 });
  });
  afterEach(() => {
    setConfig(original);
    setClock(undefined);
  });
  const metrics = async (headers: Record<string, string> = {}) => fetch(`${await apiBase()}/operator/metrics`, { headers });

  it('when wrong operator passwords come from one address, then 429 with Retry-After, even for the right password, until the window ends', async () => {
    for (let i = 0; i < 3; i++) expect((await metrics(basic('ops', `wrong-${i}`))).status).to.equal(401);
    const refused = await metrics(basic('ops', strong));
    expect(refused.status).to.equal(429);
    expect(Number(refused.headers.get('retry-after'))).to.be.within(1, windowSeconds);
    const next = (window + 1) * windowSeconds * 1000;
    setClock(() => next);
    expect((await metrics(basic('ops', strong))).status).to.equal(200);
  });

  it('when the right password is used again and again, then it is never throttled', async () => {
    for (let i = 0; i < 5; i++) expect((await metrics(basic('ops', strong))).status).to.equal(200);
  });

  it('when an operator login fails, then a warn line names the user and address, never the password', async () => {
    const password = 'operator-wrong-password-99';
    const { lines, text } = await capturedLog(async () => {
      expect((await metrics(basic('ops', password))).status).to.equal(401);
    });
    expect(
      lines.find((l) => l.login_failed === 'operator'),
      text,
    ).to.include({ login: 'ops' });
    expect(text).to.not.contain(password);
  });

  it('when production runs with a weak operator password, then the pages stay off (503), also for that password', async () => {
    for (const weak of ['short-pw', 'ops', 'operator', 'changeme']) {
      setConfig({ ...config(), env: 'production', operatorPassword: weak });
      const res = await metrics(basic('ops', weak));
      expect(res.status, weak).to.equal(503);
      expect(((await res.json()) as { message: string }).message).to.contain('OPERATOR_PASSWORD');
    }
    setConfig({ ...config(), env: 'production', operatorPassword: '' });
    expect((await metrics(basic('ops', ''))).status).to.equal(503);
  });

  it("when another site's page makes the operator's browser POST to the queue dashboard, then 403 and no job is added; the dashboard's own write is taken; no CORS header (found by the security pass)", async () => {
    const events = queues().get('events');
    const before = await events.getWaitingCount();
    // An app of its own: the dashboard holds the queues open when its router is made, and the
    // suite's shared app was made before other files closed theirs (closeQueues), as only a
    // shutdown does in a running service.
    const server = createApp().listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const add = async (headers: Record<string, string>, contentType = 'text/plain') =>
        fetch(`${base}/operator/queues/api/queues/${queueNames.events}/add`, {
          method: 'POST',
          headers: { ...basic('ops', strong), 'Content-Type': contentType, ...headers },
          body: JSON.stringify({ name: 'forged', data: {} }),
        });
      // A form of another site, as a browser with Fetch Metadata sends it, and as an older one (Origin only).
      expect((await add({ 'Sec-Fetch-Site': 'cross-site', Origin: 'https://evil.example' })).status).to.equal(403);
      expect((await add({ 'Sec-Fetch-Site': 'same-site', Origin: 'https://shop.kontor.example' })).status).to.equal(403);
      expect((await add({ Origin: 'https://evil.example' })).status).to.equal(403);
      expect((await add({ Origin: 'null' })).status).to.equal(403);
      expect(await events.getWaitingCount()).to.equal(before);
      // The dashboard itself: same origin, JSON.
      const own = await add({ 'Sec-Fetch-Site': 'same-origin', Origin: base }, 'application/json');
      expect(own.status, await own.text()).to.equal(200);
      expect(await events.getWaitingCount()).to.equal(before + 1);
      for (const job of await events.getJobs(['waiting'])) if (job.name === 'forged') await job.remove();
      const read = await metrics({ ...basic('ops', strong), Origin: 'https://evil.example' });
      expect(read.status).to.equal(200);
      expect(read.headers.get('access-control-allow-origin')).to.equal(null);
    } finally {
      server.close();
    }
  });

  it('when production runs with a strong operator password, then the pages answer it', async () => {
    setConfig({ ...config(), env: 'production', operatorPassword: strong });
    expect((await metrics(basic('ops', strong))).status).to.equal(200);
    expect((await metrics(basic('ops', 'wrong'))).status).to.equal(401);
  });
});
