import { hostname } from 'node:os';
import { expect } from 'chai';
import { config, setConfig } from '../../config';
import { postNotification } from '../../lib/event/notification';
import { adapterFor } from '../../lib/portals/portal.registry';
import { processRegistry } from '../../lib/metrics/process-metrics';
import { redis } from '../../lib/redis';
import { startReceiver } from '../event/servers';
import { apiBase } from '../support/api';
import { runEntry } from '../support/process';
import './support';

const basic = { Authorization: `Basic ${Buffer.from('ops:ops-secret').toString('base64')}` };

async function metrics(): Promise<string> {
  const res = await fetch(`${await apiBase()}/operator/metrics`, { headers: basic });
  expect(res.status).to.equal(200);
  return res.text();
}

/** The value of one series in the exposition (0 when absent). */
function valueOf(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.split(' ')[1]) : 0;
}

describe('fleet: process metrics', function () {
  this.timeout(60000);
  const saved = { user: config().operatorUser, password: config().operatorPassword };
  before(() => {
    setConfig({ ...config(), operatorUser: 'ops', operatorPassword: 'ops-secret' });
  });
  after(() => {
    setConfig({ ...config(), operatorUser: saved.user, operatorPassword: saved.password });
  });

  it("when metrics are read, then Node's default metrics are there", async () => {
    const text = await metrics();
    expect(text).to.match(/^process_cpu_user_seconds_total(\{[^}]*\})? [\d.e+-]+$/m);
    expect(text).to.match(/^nodejs_heap_size_used_bytes(\{[^}]*\})? \d+/m);
    expect(text).to.contain('# TYPE kontor_job_run_duration_seconds histogram');
  });

  // Read in this process's own registry: the web answering /operator/metrics runs elsewhere, and
  // holding this loop does not hold its.
  it('when the event loop is held for 300 ms, then the lag metric shows it, sampled every 100 ms (an idle process wakes 10 times a second for it, not 100)', async () => {
    // The lag gauge's collect sets min and max from the histogram of the samples since the last one, then restarts it.
    const sampled = async () => {
      await processRegistry.getSingleMetricAsString('nodejs_eventloop_lag_seconds');
      const value = async (series: string) => Number(/ ([\d.e+-]+)$/m.exec(await processRegistry.getSingleMetricAsString(series))?.[1]);
      return { min: await value('nodejs_eventloop_lag_min_seconds'), max: await value('nodejs_eventloop_lag_max_seconds') };
    };
    await sampled();
    await new Promise((resolve) => setTimeout(resolve, 350));
    // The histogram records each interval between its samples: an idle loop's shortest is the resolution.
    expect((await sampled()).min).to.be.within(0.09, 0.2);
    // After a restart the histogram takes its first sample as a start only: hold the loop after one.
    await new Promise((resolve) => setTimeout(resolve, 150));
    const until = Date.now() + 300;
    while (Date.now() < until); // the loop held, as a long synchronous piece of work holds it
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect((await sampled()).max).to.be.greaterThan(0.25);
  });

  it('when a portal answers a call with 200 and another with 503, then the portal calls are counted by outcome', async () => {
    const portal = await startReceiver((r) => ({ status: r.path.includes('busy') ? 503 : 200, body: {} }));
    try {
      const before = await metrics();
      const shop = adapterFor('shop_g');
      await shop.markShipped({ portalAccountId: 1, baseUrl: portal.base, credentials: {} }, { orderId: 'fine' }, 'k1');
      const busy = await shop.markShipped({ portalAccountId: 1, baseUrl: portal.base, credentials: {} }, { orderId: 'busy' }, 'k2').then(
        () => 'ok',
        (err: Error) => err.message,
      );
      expect(busy).to.contain('503');
      const after = await metrics();
      for (const outcome of ['ok', 'unavailable']) {
        const series = `kontor_portal_calls_total{portal="shop_g",outcome="${outcome}"}`;
        expect(valueOf(after, series) - valueOf(before, series), series).to.equal(1);
      }
    } finally {
      await portal.close();
    }
  });

  it('when webhooks are delivered, refused and answered 503, then the deliveries are counted by outcome', async () => {
    const receiver = await startReceiver((r) => ({ status: r.path === '/ok' ? 204 : r.path === '/gone' ? 410 : 503 }));
    try {
      const before = await metrics();
      const outcomes = await Promise.all(
        ['/ok', '/gone', '/busy'].map((path) =>
          postNotification({ url: `${receiver.base}${path}`, secret: 'secret', body: '{"event":"test"}', deliveryId: `d${path}`, requestId: null }).then(
            (r) => r.outcome,
          ),
        ),
      );
      expect(outcomes).to.deep.equal(['delivered', 'gone', 'retry']);
      const after = await metrics();
      for (const outcome of ['delivered', 'refused', 'retry']) {
        const series = `kontor_webhook_deliveries_total{outcome="${outcome}"}`;
        expect(valueOf(after, series) - valueOf(before, series), series).to.equal(1);
      }
    } finally {
      await receiver.close();
    }
  });

  it("when a worker process runs, then its default metrics reach the web's /operator/metrics labelled with its name", async () => {
    const worker = runEntry('workers/mail.ts', { DATABASE_URL: config().databaseUrl, QUEUE_PREFIX: config().queuePrefix, LOG_LEVEL: 'info' });
    try {
      await worker.waitFor(/worker ready/);
      let text = '';
      for (let i = 0; i < 100 && !/nodejs_heap_size_used_bytes\{process="mail"\}/.test(text); i++) {
        text = await metrics();
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(text).to.match(/^nodejs_heap_size_used_bytes\{process="mail"\} \d+/m);
      expect(text.match(/^# TYPE nodejs_heap_size_used_bytes /gm)).to.have.length(1);
      // Keyed by host name and pid: workers of one name on two hosts (each PID 1 in its container) both count.
      const fields = await redis().hkeys(`${config().queuePrefix}:process-metrics`);
      expect(fields.filter((f) => f.startsWith('mail:'))).to.have.length(1);
      expect(fields.find((f) => f.startsWith('mail:'))).to.match(new RegExp(`^mail:${hostname().replace(/[.]/g, '\\.')}:\\d+$`));
    } finally {
      expect(await worker.stop(), worker.output().slice(-2000)).to.equal(0);
    }
  });
});
