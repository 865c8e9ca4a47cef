import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { batchEventId, dispatchEventBatch } from '../../lib/event/event-dispatch.service';
import { newSeller, Seller } from '../support/api';
import { EventsWorker, startEventsWorker } from '../event/events-worker';
import { Received, Receiver, startReceiver, waitFor } from '../event/servers';
import { orderNotificationHandler } from '../event/handlers';
import { createOrder } from '../order/helpers';
import { importStatement, startBankWorker } from './bank-worker';
import { fixture } from './fixtures';

interface BatchRow {
  job_id: string;
  payload: { accountId: number; section: string; type: string; recordIds: string[] };
  created_at: Date;
}

describe('bank: events of orders paid by a statement (bank and events workers)', function () {
  this.timeout(60000);
  let bankWorker: { stop(): Promise<void> } | undefined;
  let eventsWorker: EventsWorker | undefined;
  let receiver: Receiver;
  let received: Received[] = [];

  before(async () => {
    bankWorker = await startBankWorker('bank-events');
    // With the webhook sweep: a seller's attempts beyond WEBHOOK_CONCURRENCY_PER_ACCOUNT wait for it.
    eventsWorker = await startEventsWorker();
    receiver = await startReceiver(() => ({ status: 204 }));
    received = receiver.received;
  });
  after(async () => {
    await eventsWorker?.stop();
    await bankWorker?.stop();
    await receiver.close();
  });

  const handler = (s: Seller, type: string) => orderNotificationHandler(s, type, `${receiver.base}/${s.id}/${type}`, 'erp');

  /** The deliveries of the batch events (event_id names the batch job), as type:order_id. */
  function batchDeliveries(s: Seller, batches: BatchRow[]): string[] {
    return received
      .filter((r) => r.path.startsWith(`/${s.id}/`))
      .map((r) => JSON.parse(r.body) as { event: { type: string }; event_id: string; order_id: string })
      .filter((b) => batches.some((row) => b.event_id === batchEventId(row.job_id, b.order_id)))
      .map((b) => `${b.event.type}:${b.order_id}`)
      .sort();
  }

  it('when a statement pays one order in full and another in part and the batch jobs run twice, then paid and changed arrive once per order, paid_in_full once for the first only', async () => {
    const s = await newSeller();
    const buyer = { email: 'buyer@example.com' };
    const first = await createOrder(s, { customer: { ...buyer, address: { name: 'Jürgen Müller' } }, line: [{ id: 1, price: '49.90', quantity: 1 }] });
    const second = await createOrder(s, { customer: { ...buyer, address: { name: 'Zoë Brandstätter' } }, line: [{ id: 1, price: '30.00', quantity: 1 }] });
    await handler(s, 'paid');
    await handler(s, 'paid_in_full');
    await handler(s, 'changed');
    await importStatement(s, fixture('camt053.001.08.xml', { ORDER_1: first, ORDER_2: second }));

    const batches = await waitFor(async () => {
      const rows = (await db()('outbox').where({ account_id: s.id, job_name: 'event.emit_batch' }).select('job_id', 'payload', 'created_at')) as BatchRow[];
      return rows.length === 3 ? rows : undefined;
    }, 'one batch per event type');
    expect(batches.map((b) => [b.payload.type, [...b.payload.recordIds].sort()]).sort()).to.deep.equal([
      ['changed', [first, second].sort()],
      ['paid', [first, second].sort()],
      // 24.50 of 30.00 leaves the second order partly paid.
      ['paid_in_full', [first]],
    ]);
    const expected = [`changed:${first}`, `changed:${second}`, `paid:${first}`, `paid:${second}`, `paid_in_full:${first}`].sort();
    await waitFor(async () => batchDeliveries(s, batches).length === 5, 'the five webhooks');

    const runsBefore = await db()('outbox').where({ account_id: s.id, job_name: 'event.run' }).count<{ count: string }[]>('* as count');
    for (const batch of batches) {
      const again = await dispatchEventBatch(batch.job_id, batch.payload, batch.created_at);
      expect(again.runs.map((r) => `${batch.payload.type}:${r.record_id}`).sort()).to.deep.equal(
        expected.filter((e) => e.startsWith(`${batch.payload.type}:`)),
      );
    }
    const runsAfter = await db()('outbox').where({ account_id: s.id, job_name: 'event.run' }).count<{ count: string }[]>('* as count');
    expect(runsAfter).to.deep.equal(runsBefore);
    // The re-run queued no run job, so no further delivery can come.
    expect(batchDeliveries(s, batches)).to.deep.equal(expected);
  });

  it('when the account has handlers of another type only, then a batch queues no run', async () => {
    const s = await newSeller();
    await handler(s, 'changed');
    const result = await dispatchEventBatch(
      '00000000-0000-4000-8000-000000000000',
      { accountId: s.id, section: 'order', type: 'paid', recordIds: ['1_2026_11', '2_2026_11'] },
      new Date(),
    );
    expect(result).to.deep.equal({ records: 2, runs: [], skipped: [] });
    expect(await db()('outbox').where({ account_id: s.id, job_name: 'event.run' })).to.have.length(0);
  });
});
