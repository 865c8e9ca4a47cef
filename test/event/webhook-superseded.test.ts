/**
 * A stock cia notification is the item's quantity now, not a change to apply: a retry of an older
 * one after a newer one reached the receiver set it back (lib/event README, "Superseded stock
 * notifications"). Before, the first delivery (4) refused once, the second (1) delivered, the
 * retry sent 4 again and the receiver ended on 4 while the item had 1. Now a stock/cia delivery
 * that a newer one to the same handler about the same item overtook (delivered, pending or held)
 * is superseded: not sent again, by the sweep or by a redelivery. Other events keep their
 * promise: every attempt sends the same bytes.
 */
import type { Worker } from 'bullmq';
import { expect } from 'chai';
import { ciaProcessors } from '../../lib/cia/cia.processor';
import { db } from '../../lib/db/knex';
import { startWorker } from '../../lib/queue/worker';
import { call, newSeller, Seller } from '../support/api';
import { useEventsWorker } from './events-worker';
import { waitFor } from './servers';

interface LoggedDelivery {
  id: string;
  state: string;
  attempt_count: number;
  last_error: string;
  attempt: { status: number | null; outcome: string }[];
}

describe('webhook deliveries: a stock notification a newer one overtook is not sent again', function () {
  this.timeout(60000);
  /** Paths whose first request is refused with a 503. */
  const refuseFirst = new Set<string>();
  const received = (path: string) => setting.receiver.received.filter((r) => r.path === path);
  let cia: Worker | undefined;
  // Registered before the events worker's hooks, so it closes before its queues do.
  after(async () => {
    await cia?.close();
  });
  const setting = useEventsWorker('superseded', {
    answer: (r) => (refuseFirst.has(r.path) && received(r.path).length === 1 ? { status: 503 } : { status: 204 }),
    // A retry waits an hour: the test makes it due when it wants it (the hour passed), so the order is known.
    settings: () => ({ jobBackoffMs: 50, jobAttempts: 4, webhookRetryBaseMs: 3600 * 1000, webhookRetryMaxDelayMs: 3600 * 1000 }),
  });
  before(async () => {
    // The cia worker turns an item's quantity change into the cia event of its targets.
    cia = await startWorker('cia', ciaProcessors, { skipEvictionCheck: true, registerShutdown: false, concurrency: 2 });
  });

  async function notificationHandler(seller: Seller, section: string, type: string, path: string): Promise<number> {
    const res = await call('admin/event/handler/', {
      token: seller.token,
      body: {
        event_handler: {
          type: { id: type },
          section,
          action: { id: 'notification', required: { url: `${setting.receiver.base}${path}`, format: 'post', target_name: `sync-${seller.id}` } },
        },
      },
    });
    expect(res.status, res.text).to.equal(201);
    return res.body.event_handler_id as number;
  }
  async function deliveryLog(seller: Seller, handlerId: number): Promise<LoggedDelivery[]> {
    const res = await call(`admin/event/handler/${handlerId}/delivery/`, { token: seller.token });
    expect(res.status, res.text).to.equal(200);
    return res.body.delivery as LoggedDelivery[];
  }
  /** The retry of a delivery waiting out its backoff is due now (the hour passed). */
  const dueNow = (deliveryId: string) => db()('webhook_delivery').where({ id: deliveryId }).update({ next_attempt_at: db().fn.now() });
  const quantities = (path: string) => received(path).map((r) => (JSON.parse(r.body) as { quantity: number }).quantity);

  /** An item of 4 whose first notification is refused, then set to 1, whose notification is delivered: the handler and both deliveries. */
  async function overtaken(seller: Seller, path: string): Promise<{ handlerId: number; first: LoggedDelivery; second: LoggedDelivery }> {
    refuseFirst.add(path);
    const handlerId = await notificationHandler(seller, 'stock', 'cia', path);
    const res = await call('stock/', { token: seller.token, body: { stock: { name: 'Lamp', quantity: 4, cia: { event: { target: [String(handlerId)] } } } } });
    expect(res.status, res.text).to.equal(201);
    await waitFor(async () => (await deliveryLog(seller, handlerId))[0]?.attempt_count === 1 || undefined, 'the refused first attempt');
    const upd = await call(`stock/${String(res.body.stock_id)}/`, { token: seller.token, body: { stock: { quantity: 1 } } });
    expect(upd.status, upd.text).to.equal(200);
    const [first, second] = await waitFor(async () => {
      const log = await deliveryLog(seller, handlerId);
      return log[1]?.state === 'delivered' ? log : undefined;
    }, 'the newer delivery');
    expect(quantities(path)).to.deep.equal([4, 1]);
    expect(first!.state).to.equal('pending');
    return { handlerId, first: first!, second: second! };
  }

  it('when the retry of a refused stock notification comes after a newer one was delivered, then it is not sent: the receiver ends on the newer quantity', async () => {
    const seller = await newSeller();
    const path = `/stock-${seller.id}`;
    const { handlerId, first, second } = await overtaken(seller, path);

    await dueNow(first.id);
    const settled = await waitFor(async () => {
      const [d] = await deliveryLog(seller, handlerId);
      return d && d.state !== 'pending' ? d : undefined;
    }, 'the first delivery settled');
    expect(quantities(path)).to.deep.equal([4, 1]);
    expect(settled).to.deep.include({ state: 'superseded', attempt_count: 1 });
    expect(settled.last_error).to.contain(second.id);
  });

  it('when a redelivery of a superseded stock notification is asked for, then it is not sent either, and its job says why', async () => {
    const seller = await newSeller();
    const path = `/redeliver-${seller.id}`;
    const { handlerId, first, second } = await overtaken(seller, path);

    const res = await call(`admin/event/handler/${handlerId}/delivery/${first.id}/redeliver/`, { token: seller.token, method: 'POST' });
    expect(res.status, res.text).to.equal(202);
    const job = await waitFor(async () => {
      const body = (await call(`job/${String(res.body.job_id)}/`, { token: seller.token })).body as {
        job: { state: string; result?: Record<string, unknown> };
      };
      return body.job.state === 'completed' ? body.job : undefined;
    }, 'the redelivery job');
    expect(job.result).to.deep.include({ delivery_id: first.id, superseded_by: second.id });
    expect(quantities(path)).to.deep.equal([4, 1]);
  });

  it('when the retry of a refused order notification comes after a newer event of the order was delivered, then it is sent with the same bytes (only stock notifications are superseded)', async () => {
    const seller = await newSeller();
    const path = `/order-${seller.id}`;
    refuseFirst.add(path);
    const handlerId = await notificationHandler(seller, 'order', 'changed', path);
    const order = await call('order/', { token: seller.token, body: { order: { customer: { email: 'buyer@example.com' } } } });
    expect(order.status, order.text).to.equal(201);
    const orderId = String(order.body.order_id);
    const park = async (value: boolean) =>
      expect((await call(`order/${orderId}/`, { token: seller.token, body: { order: { status: { is_parked: value } } } })).status).to.equal(200);
    await park(true);
    await waitFor(async () => (await deliveryLog(seller, handlerId))[0]?.attempt_count === 1 || undefined, 'the refused first attempt');
    await park(false);
    const [first] = await waitFor(async () => {
      const log = await deliveryLog(seller, handlerId);
      return log[1]?.state === 'delivered' ? log : undefined;
    }, 'the newer delivery');

    await dueNow(first!.id);
    await waitFor(async () => (await deliveryLog(seller, handlerId))[0]?.state === 'delivered' || undefined, 'the retry delivered');
    const sent = received(path);
    expect(sent).to.have.length(3);
    expect(sent[2]!.body).to.equal(sent[0]!.body);
  });
});
