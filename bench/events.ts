/**
 * The events worker's event.emit step for an order of a seller with 50 handlers of that type
 * (half with a condition that holds), against a baseline of the unavoidable reads done directly
 * with Knex (the handlers and the order). Also reference reads: GET system/gender/{id}/ and a
 * global category name search, each against the same query with Knex.
 */
import crypto from 'node:crypto';
import type { BenchCase } from './cases';
import { db } from '../lib/db/knex';
import { dispatchEvent } from '../lib/event/event-dispatch.service';
import { benchBase, benchCall, benchSeller, median, report, time } from './order-support';

const samples = 30;

async function measure(label: string, subject: () => Promise<unknown>, baseline: () => Promise<unknown>): Promise<void> {
  await subject();
  await baseline();
  const a: number[] = [];
  const k: number[] = [];
  for (let i = 0; i < samples; i++) {
    a.push(await time(subject));
    k.push(await time(baseline));
  }
  report(label, median(a), median(k), 'knex');
}

export const eventsBench: BenchCase = {
  name: 'events',
  description: 'event.emit dispatch with 50 handlers (outbox rows written), and reference reads (gender, global categories)',
  async run() {
    await benchBase();
    const seller = await benchSeller();
    const order = await benchCall('order/', seller.token, { order: { platform: 'market_c', customer: { email: 'bench@example.com' } } }, 201);
    const orderId = String(order.order_id);
    for (let i = 0; i < 50; i++) {
      const condition = i % 2 === 0 ? [{ field: 'platform', operator: '=', value: 'market_c' }] : [{ field: 'platform', operator: '=', value: 'auction_a' }];
      await benchCall(
        'admin/event/handler/',
        seller.token,
        {
          event_handler: {
            type: { id: 'created' },
            section: 'order',
            condition,
            action: { id: 'notification', required: { url: `https://receiver.example/${i}`, format: 'post', target_name: `t${i}` } },
          },
        },
        201,
      );
    }
    await measure(
      'event.emit, 50 handlers, 25 conditions hold (25 outbox rows)',
      () => dispatchEvent(crypto.randomUUID(), { accountId: seller.id, section: 'order', type: 'created', recordId: orderId }, new Date()),
      async () => {
        await db()('event_handler').where({ account_id: seller.id, section: 'order', type: 'created', is_active: true });
        await db()('sales_order').where({ account_id: seller.id, id: orderId }).first();
      },
    );
    // The dispatch writes outbox rows no relay picks up here: leave the bench database clean.
    await db()('outbox').where({ account_id: seller.id, job_name: 'event.run' }).delete();

    await measure(
      'GET system/gender/Andrea_US/',
      () => benchCall('system/gender/Andrea_US/', seller.token),
      () => db()('first_name_gender').where({ name_key: 'andrea' }).whereIn('country_iso2', ['US', '']),
    );
    await measure(
      'GET system/stock/category/ name ~ *coffee* (auction_a)',
      () => benchCall('system/stock/category/?filter[platform]=auction_a&filter[name][0][operator]=~&filter[name][0][value][]=*coffee*', seller.token),
      () => db()('global_category').where({ platform: 'auction_a' }).whereILike('name', '%coffee%').orderBy('id').limit(21),
    );
  },
};
