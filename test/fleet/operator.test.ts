import { expect } from 'chai';
import { config, setConfig } from '../../config';
import { apiBase, call, newSeller } from '../support/api';
import './support';

const basic = (user: string, password: string) => ({ Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });

describe('fleet: operator pages', () => {
  const saved = { user: config().operatorUser, password: config().operatorPassword };
  before(() => {
    setConfig({ ...config(), operatorUser: 'ops', operatorPassword: 'ops-secret' });
  });
  after(() => {
    setConfig({ ...config(), operatorUser: saved.user, operatorPassword: saved.password });
  });

  it('when liveness and readiness are asked, then both answer 200 with Postgres and Redis ok', async () => {
    const base = await apiBase();
    expect((await fetch(`${base}/health/live`)).status).to.equal(200);
    const ready = await fetch(`${base}/health/ready`);
    expect(ready.status).to.equal(200);
    expect(await ready.json()).to.deep.equal({ ready: true, postgres: 'ok', redis: 'ok', schema: 'ok' });
  });

  it('when metrics are asked without or with wrong operator credentials, then the answer is 401', async () => {
    const base = await apiBase();
    expect((await fetch(`${base}/operator/metrics`)).status).to.equal(401);
    expect((await fetch(`${base}/operator/metrics`, { headers: basic('ops', 'wrong') })).status).to.equal(401);
    expect((await fetch(`${base}/operator/queues/`, { headers: basic('ops', 'wrong') })).status).to.equal(401);
  });

  it('when metrics are asked with operator credentials, then queue depth, job figures, the outbox and HTTP latency are there', async () => {
    const seller = await newSeller();
    await call('system/currency/', { token: seller.token });
    const base = await apiBase();
    const res = await fetch(`${base}/operator/metrics`, { headers: basic('ops', 'ops-secret') });
    expect(res.status).to.equal(200);
    const text = await res.text();
    expect(text).to.match(/kontor_queue_jobs\{queue="cia",state="waiting"\} \d+/);
    expect(text).to.contain('kontor_jobs_failed{queue="portal_upload"}');
    expect(text).to.match(/kontor_outbox_pending \d+/);
    expect(text).to.match(/kontor_http_request_duration_seconds_count\{method="GET",route="\/system\/currency",status="200"\} \d+/);
  });

  it('when the queue dashboard is opened with operator credentials, then it answers its page', async () => {
    const res = await fetch(`${await apiBase()}/operator/queues/`, { headers: basic('ops', 'ops-secret') });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.contain('text/html');
  });

  it('when /operator/ itself is opened, then credentials are asked, and with them it leads to the queue dashboard', async () => {
    const base = await apiBase();
    expect((await fetch(`${base}/operator/`, { redirect: 'manual' })).status).to.equal(401);
    for (const path of ['/operator', '/operator/']) {
      const res = await fetch(`${base}${path}`, { headers: basic('ops', 'ops-secret'), redirect: 'manual' });
      expect(res.status, path).to.equal(302);
      expect(res.headers.get('location'), path).to.equal('/operator/queues/');
    }
  });

  it('when no operator password is configured, then the operator pages are off', async () => {
    setConfig({ ...config(), operatorPassword: '' });
    try {
      expect((await fetch(`${await apiBase()}/operator/metrics`, { headers: basic('ops', '') })).status).to.equal(503);
    } finally {
      setConfig({ ...config(), operatorPassword: 'ops-secret' });
    }
  });
});
