/**
 * send_mit marks the order shipped once per job, whatever happens between that write's commit and
 * the job's progress being kept: a retry must not write the order again, which would raise the
 * order's changed event a second time (every handler on it runs twice for one cause) and add a
 * second history entry.
 */
import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { runSendMit, SendMitProgress } from '../../lib/order/send-mit-run.service';
import type { JobPayloads } from '../../lib/queue';
import { outboxRepository } from '../../lib/queue/outbox.repository';
import { call, newSeller } from '../support/api';

describe('send_mit: the order is marked shipped once per job', () => {
  it('when the progress cannot be kept after the order was marked shipped (the worker dies, Postgres drops the connection), then the retry writes the order no second time: one changed event, one history entry', async () => {
    const seller = await newSeller();
    const created = await call('order/', { token: seller.token, body: { order: { customer: { email: 'buyer@example.com' } } } });
    expect(created.status, created.text).to.equal(201);
    const orderId = created.body.order_id as string;
    const res = await call(`order/${orderId}/send_mit/`, { token: seller.token, body: { send_mit: { deliverer: 'DHL', code: ['0034'], is_mail: false } } });
    expect(res.status, res.text).to.equal(202);
    const jobId = res.body.job_id as string;
    // The job as the outbox row holds it, run here by hand (no relay or worker in this file).
    const row = (await db()('outbox').where({ job_id: jobId }).first('payload')) as { payload: JobPayloads['order.send_mit'] };

    // The processor's save (send-mit.processor.ts): the outbox row first, then the job's data in Redis (here `redis`).
    let redis: SendMitProgress | undefined;
    const save = async (progress: SendMitProgress) => {
      await outboxRepository.saveProgress(db(), jobId, progress);
      redis = { ...progress };
    };
    // First try: the order is written, then keeping that step fails (a worker killed there keeps nothing either).
    const first = runSendMit(row.payload, {
      jobId,
      lastAttempt: false,
      save: async (progress: SendMitProgress) => {
        if (progress.orderUpdated) throw new Error('connection terminated unexpectedly');
        await save(progress);
      },
    });
    const failed = await first.then(
      () => undefined,
      (err: Error) => err,
    );
    expect(failed?.message).to.equal('connection terminated unexpectedly');
    // The retry starts from the job's data as Redis holds it: the portal step's mark, not the order's.
    expect(redis).to.deep.equal({ platformStatus: null });
    const result = await runSendMit({ ...row.payload, progress: { ...redis } }, { jobId, lastAttempt: false, save });
    expect(result).to.include({ order_id: orderId, is_shipped: true });

    const order = (await call(`order/${orderId}/`, { token: seller.token })).body.order as { history: string[]; status: { is_shipped: boolean } };
    expect(order.status.is_shipped).to.equal(true);
    expect(order.history.filter((h) => h.startsWith('send_mit '))).to.have.length(1);
    const events = (await db()('outbox').where({ account_id: seller.id, job_name: 'event.emit' }).select('payload')) as {
      payload: { type: string; recordId: string };
    }[];
    const ofOrder = events.filter((e) => e.payload.recordId === orderId).map((e) => e.payload.type);
    // Before: changed twice (and the history entry twice).
    expect(ofOrder.filter((t) => t === 'changed')).to.have.length(1);
    expect(ofOrder.filter((t) => t === 'shipped')).to.have.length(1);
  });
});
