import { expect } from 'chai';
import { Config, config, setConfig } from '../../config';
import { db } from '../../lib/db/knex';
import { apiBase, call, newSeller } from '../support/api';
import { createItem } from '../stock/helpers';

describe('request id and job location', () => {
  let original: Config;
  before(async () => {
    original = config();
    // Location is built from PUBLIC_URL; here the test server is the public address.
    setConfig({ ...original, publicUrl: await apiBase() });
  });
  after(() => setConfig(original));

  it('when an endpoint answers 202 with a job_id, then Location names {base_url}job/{id}/ and resolves to that job', async () => {
    const seller = await newSeller();
    const id = await createItem(seller, { name: 'Mug', sku: 'MUG-L', quantity: 3 });
    const res = await call(`stock/${id}/cia/`, { token: seller.token, body: {} });
    expect(res.status, res.text).to.equal(202);
    const jobId = res.body.job_id as string;
    expect(res.headers.get('location')).to.equal(`${await apiBase()}/v1.1/job/${jobId}/`);

    const job = await fetch(res.headers.get('location')!, { headers: { Authorization: `Bearer ${seller.token}` } });
    expect(job.status).to.equal(200);
    expect(((await job.json()) as { job: { id: string } }).job.id).to.equal(jobId);
  });

  it('when the client sends X-Request-Id, then it is answered and stored in the job the request queued', async () => {
    const seller = await newSeller();
    const id = await createItem(seller, { name: 'Cup', sku: 'CUP-R', quantity: 3 });
    const res = await call(`stock/${id}/cia/`, { token: seller.token, body: {}, version: 'v1.0', headers: { 'X-Request-Id': 'erp-4711.a' } });
    expect(res.status, res.text).to.equal(202);
    expect(res.headers.get('x-request-id')).to.equal('erp-4711.a');
    expect(res.headers.get('location')).to.equal(`${await apiBase()}/v1.0/job/${res.body.job_id as string}/`);
    const row = (await db()('outbox')
      .where({ job_id: res.body.job_id as string })
      .first('payload'))!;
    expect(row.payload.request_id).to.equal('erp-4711.a');
  });

  it('when the client sends an X-Request-Id that is not sane, then another one is made and answered', async () => {
    const seller = await newSeller();
    const res = await call('job/00000000-0000-4000-8000-000000000000/', { token: seller.token, headers: { 'X-Request-Id': 'a b<script>' } });
    expect(res.status).to.equal(404);
    expect(res.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
  });

  it('when an answer is not a 202, then it carries no Location', async () => {
    const seller = await newSeller();
    const res = await call('stock/', { token: seller.token, body: { stock: { name: 'Pen', sku: 'PEN-L', quantity: 1 } } });
    expect(res.status, res.text).to.equal(201);
    expect(res.headers.get('location')).to.equal(null);
  });
});
