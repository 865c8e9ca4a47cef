/**
 * A notification's occurred_at is when the write that caused the event happened, also when the
 * relay carries its outbox row late (a backlog, the events worker down, Redis restarted): a
 * receiver ordering by it gets the order of the writes, not of the relay's passes.
 */
import { expect } from 'chai';
import { call, newSeller } from '../support/api';
import { EventsWorker, startEventsWorker, useEventsWorker } from './events-worker';
import { waitFor } from './servers';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('events: occurred_at of a notification relayed late (events worker)', function () {
  this.timeout(60000);
  // The worker starts in the test, after the writes.
  const setting = useEventsWorker('occurred', { start: false });
  let events: EventsWorker | undefined;
  after(async () => events?.stop());

  /** Creates orders one after another while no relay runs; returns each one's window [before, after] in ms. */
  async function ordersWhileNothingRelays(token: string, count: number): Promise<{ id: string; from: number; to: number }[]> {
    const made: { id: string; from: number; to: number }[] = [];
    for (let i = 0; i < count; i++) {
      const from = Date.now();
      const order = await call('order/', { token, body: { order: { customer: { email: `buyer${i}@example.com` } } } });
      expect(order.status, order.text).to.equal(201);
      made.push({ id: String(order.body.order_id), from: from - 5, to: Date.now() + 5 });
      await sleep(150);
    }
    return made;
  }

  async function deliveredFor(path: string, orders: { id: string }[]): Promise<Map<string, number>> {
    return waitFor(async () => {
      const times = new Map<string, number>();
      for (const r of setting.receiver.received.filter((got) => got.path === path)) {
        const body = JSON.parse(r.body) as { order_id: string; occurred_at: string };
        times.set(body.order_id, Date.parse(body.occurred_at));
      }
      return orders.every((o) => times.has(o.id)) ? times : undefined;
    }, 'the notifications');
  }

  it('when the events worker starts after the writes, then each notification (one job, or parts of one merged job) names the time of its own order, not the relay pass', async () => {
    const seller = await newSeller();
    const path = `/occurred/${seller.id}`;
    const handler = await call('admin/event/handler/', {
      token: seller.token,
      body: {
        event_handler: {
          type: { id: 'created' },
          section: 'order',
          action: { id: 'notification', required: { url: `${setting.receiver.base}${path}`, format: 'post', target_name: 'erp' } },
        },
      },
    });
    expect(handler.status, handler.text).to.equal(201);

    for (const count of [1, 3]) {
      const orders = await ordersWhileNothingRelays(seller.token, count);
      await sleep(1000);
      const relayedFrom = Date.now();
      events = await startEventsWorker();
      const times = await deliveredFor(path, orders);
      await events.stop();
      events = undefined;
      for (const order of orders) {
        const at = times.get(order.id)!;
        expect(at, `order ${order.id} of ${count}`).to.be.within(order.from, order.to);
        expect(at).to.be.below(relayedFrom);
      }
    }
  });
});
