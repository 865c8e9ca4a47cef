import crypto from 'node:crypto';
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { config, loadConfig, setConfig } from '../../config';
import { db } from '../../lib/db/knex';
import { standardSignature } from '../../lib/event/notification';
import { nextAttemptAt, plannedSchedule, retryAfterMs, retryPolicy } from '../../lib/event/webhook-retry';
import { setResolver } from '../../lib/event/webhook-host';
import { apiBase, call, newSeller, query, Seller } from '../support/api';
import { Answer, waitFor } from './servers';
import { useEventsWorker } from './events-worker';

const hour = 3600 * 1000;

interface LoggedAttempt {
  attempt: number;
  date: string;
  trigger: string;
  status: number | null;
  error: string;
  description: string;
  duration_ms: number;
  outcome: string;
  next_attempt_date: string;
}

interface LoggedDelivery {
  id: string;
  state: string;
  attempt_count: number;
  request_id: string;
  next_attempt_date: string;
  attempt: LoggedAttempt[];
}

async function createHandler(seller: Seller, url: string): Promise<{ id: number; secret: string }> {
  const res = await call('admin/event/handler/', {
    token: seller.token,
    body: {
      event_handler: { type: { id: 'created' }, section: 'order', action: { id: 'notification', required: { url, format: 'post', target_name: 'erp' } } },
    },
  });
  expect(res.status, res.text).to.equal(201);
  return { id: res.body.event_handler_id as number, secret: res.body.signing_secret as string };
}

async function createOrder(seller: Seller, headers: Record<string, string> = {}): Promise<string> {
  const res = await call('order/', { token: seller.token, headers, body: { order: { customer: { email: 'buyer@example.com' } } } });
  expect(res.status, res.text).to.equal(201);
  return res.body.order_id as string;
}

async function deliveryLog(seller: Seller, handlerId: number, params: Record<string, unknown> = {}): Promise<LoggedDelivery[]> {
  const res = await call(`admin/event/handler/${handlerId}/delivery/?${query(params)}`, { token: seller.token });
  expect(res.status, res.text).to.equal(200);
  return res.body.delivery as LoggedDelivery[];
}

/** The handler's log once check holds on its first delivery. */
async function firstDeliveryWhen(seller: Seller, handlerId: number, check: (d: LoggedDelivery) => boolean, what: string): Promise<LoggedDelivery> {
  return waitFor(async () => {
    const [first] = await deliveryLog(seller, handlerId);
    return first && check(first) ? first : undefined;
  }, what);
}

async function handler(seller: Seller, id: number): Promise<Record<string, unknown>> {
  const res = await call(`admin/event/handler/${id}/`, { token: seller.token });
  expect(res.status, res.text).to.equal(200);
  return res.body.event_handler as Record<string, unknown>;
}

describe('webhook deliveries: retries, log, pause, redelivery', function () {
  this.timeout(60000);
  /** Answers per path prefix, in order; the last one repeats. */
  const script = new Map<string, Answer[]>();
  const calls = (path: string) => setting.receiver.received.filter((r) => r.path === path);

  const setting = useEventsWorker('webhook', {
    answer: (r) => {
      const answers = script.get(r.path) ?? [{ status: 204 }];
      const n = calls(r.path).length - 1;
      return answers[Math.min(n, answers.length - 1)]!;
    },
    settings: () => ({
      jobBackoffMs: 50,
      jobAttempts: 4,
      webhookTimeoutMs: 1000,
      webhookRetryBaseMs: 100,
      webhookRetryMaxDelayMs: 300,
      webhookRetryHours: 60 / 3600,
      webhookPauseAfterHours: 1,
    }),
  });

  it('when the receiver answers 503 then 200, then the delivery is delivered and the log shows both attempts with the request id', async () => {
    const seller = await newSeller();
    const path = `/flaky/${seller.id}`;
    script.set(path, [{ status: 503 }, { status: 200 }]);
    const { id, secret } = await createHandler(seller, `${setting.receiver.base}${path}`);
    await createOrder(seller, { 'X-Request-Id': `shop-${seller.id}` });

    const delivery = await firstDeliveryWhen(seller, id, (d) => d.state === 'delivered', 'the delivery');
    expect(delivery).to.deep.include({ attempt_count: 2, request_id: `shop-${seller.id}`, next_attempt_date: '' });
    expect(delivery.attempt.map((a) => [a.attempt, a.trigger, a.status, a.error, a.outcome])).to.deep.equal([
      [1, 'event', 503, 'http', 'retry'],
      [2, 'retry', 200, '', 'delivered'],
    ]);
    expect(Date.parse(delivery.attempt[0]!.next_attempt_date)).to.be.at.least(Date.parse(delivery.attempt[0]!.date) + 100);
    expect(delivery.attempt[0]!.duration_ms).to.be.a('number');

    const sent = calls(path);
    expect(sent).to.have.length(2);
    // The retry is the same notification: same body, delivery id and request id, signed anew.
    expect(sent[1]!.body).to.equal(sent[0]!.body);
    for (const r of sent) {
      expect(r.headers['x-kontor-delivery']).to.equal(delivery.id);
      expect(r.headers['x-request-id']).to.equal(`shop-${seller.id}`);
      const expected = `v1=${crypto
        .createHmac('sha256', secret)
        .update(`${String(r.headers['x-kontor-timestamp'])}.${r.body}`)
        .digest('hex')}`;
      expect(r.headers['x-kontor-signature']).to.equal(expected);
      // A receiver's stock Standard Webhooks verifier takes it as sent, with the secret as answered.
      expect(r.headers['webhook-id']).to.equal(delivery.id);
      expect(r.headers['webhook-timestamp']).to.equal(r.headers['x-kontor-timestamp']);
      expect(new Webhook(secret).verify(r.body, r.headers as Record<string, string>)).to.deep.include({ delivery_id: delivery.id });
      expect(() => new Webhook(secret).verify(r.body.replace('"erp"', '"ERP"'), r.headers as Record<string, string>)).to.throw('No matching signature');
    }
  });

  it('when a handler still has a secret of the earlier base64url form, then its Standard Webhooks signature verifies once the receiver writes the secret in standard base64', () => {
    const secret = 'whsec_i38KrzsnsADpWSX93pmOxU3Q4aGK2QRJyk1k-xBoyIU';
    const timestamp = String(Math.floor(Date.now() / 1000));
    const body = '{"event":{"section":"order","type":"created"}}';
    const headers = { 'webhook-id': 'd-1', 'webhook-timestamp': timestamp, 'webhook-signature': standardSignature(secret, 'd-1', timestamp, body) };
    // The library decodes the standard alphabet only: as answered, the secret is refused outright.
    expect(() => new Webhook(secret)).to.throw('incorrect characters');
    const standard = `whsec_${secret.slice('whsec_'.length).replace(/-/g, '+').replace(/_/g, '/')}`;
    expect(new Webhook(standard).verify(body, headers)).to.deep.equal(JSON.parse(body));
  });

  it('when the host name does not resolve, then the attempt is logged as a dns error and retried, not failed', async () => {
    const seller = await newSeller();
    const { id } = await createHandler(seller, 'http://kontor-nonexistent.invalid/hook');
    const current = config();
    // The production path: the name is resolved before the POST (private addresses are refused).
    setConfig({ ...current, webhookAllowPrivateHosts: false });
    try {
      await createOrder(seller);
      const delivery = await firstDeliveryWhen(seller, id, (d) => d.attempt.length >= 2, 'a retry');
      expect(delivery.state).to.be.oneOf(['pending']);
      expect(delivery.attempt.slice(0, 2).map((a) => [a.status, a.error, a.outcome])).to.deep.equal([
        [null, 'dns', 'retry'],
        [null, 'dns', 'retry'],
      ]);
      expect(delivery.attempt[0]!.description).to.match(/kontor-nonexistent\.invalid/);
    } finally {
      setConfig(current);
    }
    await call(`admin/event/handler/${id}/`, { token: seller.token, method: 'DELETE' });
  });

  it('when the receiver does not answer within the timeout, then the attempt is logged as a timeout and retried', async () => {
    const seller = await newSeller();
    const path = `/slow/${seller.id}`;
    script.set(path, [{ status: 200, delayMs: 3000 }, { status: 200 }]);
    const { id } = await createHandler(seller, `${setting.receiver.base}${path}`);
    await createOrder(seller);

    const delivery = await firstDeliveryWhen(seller, id, (d) => d.state === 'delivered', 'the delivery after a timeout');
    expect(delivery.attempt.map((a) => [a.status, a.error, a.outcome])).to.deep.equal([
      [null, 'timeout', 'retry'],
      [200, '', 'delivered'],
    ]);
    expect(delivery.attempt[0]!.duration_ms).to.be.at.least(1000);
  });

  it("when the receiver's name takes longer than the timeout to resolve, then the attempt ends at the timeout as one and is retried", async () => {
    const seller = await newSeller();
    const path = `/slow-dns/${seller.id}`;
    const host = `slow-dns-${seller.id}.example`;
    let lookups = 0;
    // The receiver's name server answering late the first time (the receiver's DNS is part of the receiver).
    setResolver(async (name) => {
      if (name !== host) throw Object.assign(new Error(`${name} unknown`), { code: 'ENOTFOUND' });
      if (++lookups === 1) await new Promise((resolve) => setTimeout(resolve, 4000));
      return [{ address: '127.0.0.1', family: 4 }];
    });
    try {
      const { id } = await createHandler(seller, `${setting.receiver.base.replace('127.0.0.1', host)}${path}`);
      await createOrder(seller);
      const delivery = await firstDeliveryWhen(seller, id, (d) => d.state === 'delivered', 'the delivery after a slow lookup');
      expect(delivery.attempt.map((a) => [a.status, a.error, a.outcome])).to.deep.equal([
        [null, 'timeout', 'retry'],
        [204, '', 'delivered'],
      ]);
      // Bounded by WEBHOOK_TIMEOUT_MS (1000 here), not by the name server's 4 s.
      expect(delivery.attempt[0]!.duration_ms).to.be.within(900, 2500);
      expect(delivery.attempt[0]!.description).to.contain(host);
    } finally {
      setResolver();
    }
  });

  it('when the receiver answers 429 with Retry-After, then the next attempt is not before it', async () => {
    const seller = await newSeller();
    const path = `/busy/${seller.id}`;
    script.set(path, [{ status: 429, headers: { 'Retry-After': '1' } }, { status: 204 }]);
    const { id } = await createHandler(seller, `${setting.receiver.base}${path}`);
    await createOrder(seller);

    const delivery = await firstDeliveryWhen(seller, id, (d) => d.state === 'delivered', 'the delivery after 429');
    const [first, second] = delivery.attempt;
    expect([first!.status, first!.outcome, second!.status]).to.deep.equal([429, 'retry', 204]);
    expect(Date.parse(first!.next_attempt_date) - Date.parse(first!.date)).to.be.at.least(1000);
    expect(Date.parse(second!.date)).to.be.at.least(Date.parse(first!.next_attempt_date));
  });

  it('when the receiver answers 410 Gone, then delivery stops for good, the handler is paused and a task tells the seller', async () => {
    const seller = await newSeller();
    const path = `/gone/${seller.id}`;
    script.set(path, [{ status: 410 }]);
    const { id } = await createHandler(seller, `${setting.receiver.base}${path}`);
    await createOrder(seller);

    const delivery = await firstDeliveryWhen(seller, id, (d) => d.state === 'failed', 'the failed delivery');
    expect(delivery.attempt.map((a) => [a.status, a.outcome])).to.deep.equal([[410, 'failed']]);
    const paused = await handler(seller, id);
    expect(paused.is_active).to.equal(false);
    expect((paused.pause as { reason: string }).reason).to.match(/410/);
    const tasks = await call('task/', { token: seller.token });
    expect((tasks.body.task as { title: string }[]).map((t) => t.title)).to.deep.equal([`Webhook paused: event handler ${id} (erp)`]);

    // A later event is kept (held), not sent.
    await createOrder(seller);
    const log = await waitFor(async () => {
      const all = await deliveryLog(seller, id);
      return all.length === 2 ? all : undefined;
    }, 'the second delivery');
    expect(log[1]).to.deep.include({ state: 'held', attempt_count: 0 });
    expect(calls(path)).to.have.length(1);
  });

  it('when deliveries fail for longer than the pause time, then the handler is paused with a task, and resuming it sends what was held', async () => {
    const seller = await newSeller();
    const path = `/down/${seller.id}`;
    script.set(path, [{ status: 503 }]);
    const { id } = await createHandler(seller, `${setting.receiver.base}${path}`);
    const current = config();
    setConfig({ ...current, webhookPauseAfterHours: 0.6 / 3600 });
    try {
      await createOrder(seller);
      await waitFor(async () => (await handler(seller, id)).is_active === false, 'the pause');
    } finally {
      setConfig(current);
    }
    const paused = await handler(seller, id);
    expect((paused.pause as { reason: string }).reason).to.match(/no delivery succeeded.*HTTP 503/);
    const [delivery] = await deliveryLog(seller, id);
    expect(delivery!.state).to.equal('held');
    expect(delivery!.attempt.at(-1)!.outcome).to.equal('held');
    expect(delivery!.attempt.slice(0, -1).every((a) => a.outcome === 'retry' && a.status === 503)).to.equal(true);
    const tasks = await call(`task/?${query({ filter: { is_completed: false } })}`, { token: seller.token });
    const task = (tasks.body.task as { title: string; text: string; priority: string }[])[0]!;
    expect(task).to.deep.include({ title: `Webhook paused: event handler ${id} (erp)`, priority: 'high' });
    expect(task.text).to.match(new RegExp(`POST admin/event/handler/${id}/resume/`));

    const sentWhilePaused = calls(path).length;
    await createOrder(seller);
    await waitFor(async () => (await deliveryLog(seller, id)).length === 2, 'the held delivery of a new event');

    script.set(path, [{ status: 204 }]);
    const resumed = await call(`admin/event/handler/${id}/resume/`, { token: seller.token, method: 'POST' });
    expect(resumed.status, resumed.text).to.equal(200);
    expect(resumed.body.delivery_count).to.equal(2);
    expect((resumed.body.event_handler as { is_active: boolean }).is_active).to.equal(true);
    const log = await waitFor(async () => {
      const all = await deliveryLog(seller, id);
      return all.every((d) => d.state === 'delivered') ? all : undefined;
    }, 'the held deliveries sent');
    expect(log.map((d) => d.attempt.at(-1)!.trigger)).to.deep.equal(['resume', 'resume']);
    expect(calls(path).length).to.equal(sentWhilePaused + 2);
    expect((await handler(seller, id)).pause).to.equal(undefined);
  });

  it('when the events worker restarts and Redis comes back empty while a delivery waits, then its retries go on from Postgres', async () => {
    const seller = await newSeller();
    const path = `/restart/${seller.id}`;
    script.set(path, [{ status: 503 }]);
    const { id } = await createHandler(seller, `${setting.receiver.base}${path}`);
    await createOrder(seller);
    await firstDeliveryWhen(seller, id, (d) => d.attempt_count >= 1, 'the first attempt');

    // The worker process goes (its sweep, its BullMQ worker, the relay) and Redis loses its data (a fresh key prefix).
    let restarted = 0;
    await setting.restart(() => {
      script.set(path, [{ status: 204 }]);
      restarted = Date.now();
    });

    const delivery = await firstDeliveryWhen(seller, id, (d) => d.state === 'delivered', 'the delivery after the restart');
    const attempts = delivery.attempt;
    expect(attempts.map((a) => a.attempt)).to.deep.equal(attempts.map((_, i) => i + 1));
    expect(attempts.at(-1)).to.deep.include({ trigger: 'retry', status: 204, outcome: 'delivered' });
    expect(Date.parse(attempts.at(-1)!.date)).to.be.at.least(restarted);
  });

  it('when the seller asks for a redelivery, then it answers 202 with the job and the receiver gets the same delivery again', async () => {
    const seller = await newSeller();
    const path = `/again/${seller.id}`;
    const { id } = await createHandler(seller, `${setting.receiver.base}${path}`);
    await createOrder(seller);
    const delivery = await firstDeliveryWhen(seller, id, (d) => d.state === 'delivered', 'the first delivery');

    const res = await call(`admin/event/handler/${id}/delivery/${delivery.id}/redeliver/`, { token: seller.token, method: 'POST' });
    expect(res.status, res.text).to.equal(202);
    const jobId = res.body.job_id as string;
    expect(res.headers.get('location')).to.equal(`${config().publicUrl}/v1.1/job/${jobId}/`);
    const job = await waitFor(async () => {
      const status = await call(`job/${jobId}/`, { token: seller.token });
      const j = status.body.job as { state: string; result?: Record<string, unknown>; finished_date?: string } | undefined;
      return j?.state === 'completed' && j.finished_date ? j : undefined;
    }, 'the redelivery job');
    expect(job.result).to.deep.include({ delivery_id: delivery.id, state: 'delivered', status: 204 });

    const sent = calls(path);
    expect(sent).to.have.length(2);
    expect(sent[1]!.headers['x-kontor-delivery']).to.equal(delivery.id);
    expect(sent[1]!.body).to.equal(sent[0]!.body);
    const [after] = await deliveryLog(seller, id);
    expect(after!.attempt.map((a) => a.trigger)).to.deep.equal(['event', 'redeliver']);
  });

  it('when another seller reads the log, redelivers or resumes, then it is 404; the log pages with the usual pagination', async () => {
    const seller = await newSeller();
    const other = await newSeller();
    const path = `/paged/${seller.id}`;
    const { id } = await createHandler(seller, `${setting.receiver.base}${path}`);
    await createOrder(seller);
    await createOrder(seller);
    await waitFor(async () => {
      const all = await deliveryLog(seller, id);
      return all.length === 2 && all.every((d) => d.state === 'delivered');
    }, 'both deliveries');

    const first = await call(`admin/event/handler/${id}/delivery/?${query({ pagination: { limit: 1, min_id: 1 } })}`, { token: seller.token });
    expect(first.status, first.text).to.equal(200);
    expect(first.body.delivery).to.have.length(1);
    const second = await call(`admin/event/handler/${id}/delivery/?${query({ pagination: { limit: 1, min_id: first.body.next_min_id } })}`, {
      token: seller.token,
    });
    expect(second.body.delivery).to.have.length(1);
    expect((second.body.delivery as LoggedDelivery[])[0]!.id).to.not.equal((first.body.delivery as LoggedDelivery[])[0]!.id);
    const deliveryId = (first.body.delivery as LoggedDelivery[])[0]!.id;
    const failed = await call(`admin/event/handler/${id}/delivery/?${query({ filter: { state: 'failed' } })}`, { token: seller.token });
    expect(failed.body.delivery).to.deep.equal([]);
    // A misspelt state is a 400 naming the filter, not an empty log a client reads as "nothing failed".
    const misspelt = await call(`admin/event/handler/${id}/delivery/?${query({ filter: { state: 'faild' } })}`, { token: seller.token });
    expect(misspelt.status, misspelt.text).to.equal(400);
    expect(misspelt.body.error![0]!).to.include({ error: 'invalid_field', field: 'filter.state' });
    expect(misspelt.text).to.include('pending delivered failed held');
    const xml = await call(`admin/event/handler/${id}/delivery/`, { token: seller.token, headers: { Accept: 'application/xml' } });
    expect(xml.status, xml.text).to.equal(200);
    expect(xml.text).to.match(/<delivery>[\s\S]*<attempt>[\s\S]*<trigger>event<\/trigger>/);

    for (const [method, url] of [
      ['GET', `admin/event/handler/${id}/delivery/`],
      ['POST', `admin/event/handler/${id}/delivery/${deliveryId}/redeliver/`],
      ['POST', `admin/event/handler/${id}/resume/`],
    ] as const) {
      const res = await call(url, { token: other.token, method });
      expect(res.status, `${method} ${url}: ${res.text}`).to.equal(404);
    }
    // Another handler's delivery id under this handler is 404 too.
    const otherHandler = await createHandler(seller, `${setting.receiver.base}/other/${seller.id}`);
    const crossed = await call(`admin/event/handler/${otherHandler.id}/delivery/${deliveryId}/redeliver/`, { token: seller.token, method: 'POST' });
    expect(crossed.status).to.equal(404);
  });

  it('when the log is pruned, then deliveries older than the retention go and each handler keeps its newest ones', async () => {
    const seller = await newSeller();
    const { id } = await createHandler(seller, `${setting.receiver.base}/pruned/${seller.id}`);
    for (let i = 0; i < 12; i++) await createOrder(seller);
    await waitFor(async () => {
      const all = await deliveryLog(seller, id, { pagination: { limit: 200 } });
      return all.length === 12 && all.every((d) => d.state === 'delivered');
    }, 'twelve deliveries');
    const all = await deliveryLog(seller, id, { pagination: { limit: 200 } });
    // The oldest one is 40 days old.
    await db()('webhook_delivery')
      .where({ id: all[0]!.id })
      .update({ created_at: db().raw("now() - interval '40 days'") });
    setConfig({ ...config(), webhookLogRetentionDays: 30, webhookLogMaxPerHandler: 10 });
    try {
      expect(await setting.events.sweeper.prune()).to.be.at.least(2);
    } finally {
      setConfig({ ...config(), webhookLogMaxPerHandler: 1000 });
    }
    const kept = await deliveryLog(seller, id, { pagination: { limit: 200 } });
    expect(kept.map((d) => d.id)).to.deep.equal(all.slice(2).map((d) => d.id));
  });

  it('when OPTIONS and openapi.json are read, then the delivery routes are declared like the others', async () => {
    const seller = await newSeller();
    const options = await call('admin/event/handler/1/delivery/', { token: seller.token, method: 'OPTIONS' });
    expect(options.status, options.text).to.equal(200);
    const doc = (await (await fetch(`${await apiBase()}/v1.1/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    expect(doc.paths['/admin/event/handler/{event_handler_id}/delivery/']).to.have.property('get');
    expect(doc.paths['/admin/event/handler/{event_handler_id}/delivery/{delivery_id}/redeliver/']).to.have.property('post');
    expect(doc.paths['/admin/event/handler/{event_handler_id}/resume/']).to.have.property('post');
  });
});

describe('webhook retry schedule', () => {
  const defaults = retryPolicy(loadConfig({}));

  it('when computed from the default config, then the attempts of a receiver that stays down span at least 24 h with growing, capped delays', () => {
    expect(defaults.windowMs).to.be.at.least(24 * hour);
    for (const random of [Math.random, () => 0, () => 0.5, () => 0.999999]) {
      const offsets = plannedSchedule(defaults, random);
      const delays = offsets.slice(1).map((t, i) => t - offsets[i]!);
      expect(offsets.at(-1)).to.be.at.least(24 * hour);
      expect(Math.max(...delays)).to.be.at.most(defaults.maxDelayMs);
      // Each delay at least the base, except the last, which lands on the end of the window.
      expect(Math.min(...delays.slice(0, -1))).to.be.at.least(defaults.baseMs);
    }
    const nominal = plannedSchedule(defaults, () => 0.999999);
    const delays = nominal.slice(1, 6).map((t, i) => t - nominal[i]!);
    // Decorrelated jitter at its top: three times the previous delay until the cap.
    expect(delays[1]! / delays[0]!).to.be.closeTo(3, 0.01);
    expect(delays[2]! / delays[1]!).to.be.closeTo(3, 0.01);
    expect(nominal.length).to.be.within(24, 60);
  });

  it('when the receiver asks for a Retry-After, then the next attempt honours it, within the window', () => {
    const now = new Date('2026-11-24T00:00:00Z');
    const until = new Date(now.getTime() + 24 * hour);
    expect(nextAttemptAt(defaults, now, until, null, 120000)!.at.toISOString()).to.equal('2026-11-24T00:02:00.000Z');
    expect(nextAttemptAt(defaults, now, until, null, 48 * hour)!.at.toISOString()).to.equal(until.toISOString());
    expect(nextAttemptAt(defaults, until, until, null)).to.equal(undefined);
    expect(retryAfterMs('120')).to.equal(120000);
    expect(retryAfterMs('Tue, 24 Nov 2026 00:01:00 GMT', now.getTime())).to.equal(60000);
    expect(retryAfterMs('soon')).to.equal(undefined);
  });
});
