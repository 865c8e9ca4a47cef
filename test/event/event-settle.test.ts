import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { settleUnhandledEvents } from '../../lib/event';
import { addToOutbox } from '../../lib/queue/outbox';
import { queues } from '../../lib/queue/queue.registry';
import { OutboxRelay } from '../../lib/queue/relay';
import { call, newSeller, Seller } from '../support/api';
import { forgetOtherSellersBacklog } from '../fleet/support';

/** Commits one event.emit of the seller per type given, and a cia.adjust; their job ids. */
async function commitEvents(seller: Seller, types: string[]): Promise<{ events: string[]; adjust: string }> {
  return db().transaction(async (trx) => {
    const events: string[] = [];
    for (const type of types)
      events.push(await addToOutbox(trx, seller.id, 'event.emit', { accountId: seller.id, section: 'order', type, recordId: '1_2026_11' }));
    const adjust = await addToOutbox(trx, seller.id, 'cia.adjust', { accountId: seller.id, stockId: 1, reason: 'test' });
    return { events, adjust };
  });
}

const rowOf = async (jobId: string) =>
  (await db()('outbox').where({ job_id: jobId }).first('relayed_at', 'state', 'result', 'attempts_made', 'finished_at')) as {
    relayed_at: Date | null;
    state: string | null;
    result: unknown;
    attempts_made: number | null;
    finished_at: Date | null;
  };

async function createHandler(seller: Seller, type: string): Promise<number> {
  const res = await call('admin/event/handler/', {
    token: seller.token,
    body: { event_handler: { section: 'order', type: { id: type }, action: { id: 'order_flag', required: { flag: 'is_parked', value: 'true' } } } },
  });
  expect(res.status, res.text).to.equal(201);
  return res.body.event_handler_id as number;
}

describe('event: the relay finishes events no handler takes without a job', () => {
  let seller: Seller;
  let relay: OutboxRelay | undefined;
  beforeEach(async () => {
    seller = await newSeller();
    await forgetOtherSellersBacklog(seller.id);
  });
  afterEach(async () => {
    await relay?.stop();
  });

  async function relayAll(): Promise<void> {
    relay = new OutboxRelay({ pollMs: 3600000, repairEveryMs: 0, merge: true, settle: settleUnhandledEvents });
    await relay.start();
    await relay.idle();
  }

  it("when the seller has no handler, then the event rows are completed with dispatch's empty result, no event job exists, and the other rows still become jobs", async () => {
    const { events, adjust } = await commitEvents(seller, ['created', 'paid']);
    await relayAll();
    for (const jobId of events) {
      const row = await rowOf(jobId);
      expect(row.relayed_at, jobId).to.be.an.instanceOf(Date);
      expect(row.state).to.equal('completed');
      expect(row.result).to.deep.equal({ runs: [], skipped: [] });
      expect(row.attempts_made).to.equal(0);
      expect(row.finished_at).to.be.an.instanceOf(Date);
      expect(await queues().get('events').getJob(jobId)).to.equal(undefined);
    }
    expect((await queues().get('cia').getJob(adjust))?.name).to.equal('cia.adjust');
    expect((await rowOf(adjust)).state).to.equal(null);
  });

  it('when a handler takes one type, then that type is queued for the events worker and only the other is finished by the relay', async () => {
    await createHandler(seller, 'created');
    const {
      events: [created, paid],
    } = await commitEvents(seller, ['created', 'paid']);
    await relayAll();
    expect((await queues().get('events').getJob(created!))?.name).to.equal('event.emit');
    expect((await rowOf(created!)).state).to.equal(null);
    expect((await rowOf(paid!)).state).to.equal('completed');
    expect(await queues().get('events').getJob(paid!)).to.equal(undefined);
  });

  it('when the handler is paused, then its events are still queued (their deliveries are held, not dropped)', async () => {
    const id = await createHandler(seller, 'created');
    await db()('event_handler').where({ id }).update({ is_active: false, paused_at: new Date(), pause_reason: 'test' });
    const {
      events: [created],
    } = await commitEvents(seller, ['created']);
    await relayAll();
    expect((await queues().get('events').getJob(created!))?.name).to.equal('event.emit');
  });

  it("when another seller has a handler of the type, then this seller's event is still finished without a job", async () => {
    const other = await newSeller();
    await createHandler(other, 'created');
    const {
      events: [created],
    } = await commitEvents(seller, ['created']);
    await relayAll();
    expect((await rowOf(created!)).state).to.equal('completed');
  });
});
