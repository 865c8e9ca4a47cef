/** Event handlers as the event suites make them through the API. */
import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { call, Seller } from '../support/api';

/** The seller's handler of an order event type that posts a notification to `url` (answers its id). */
export async function orderNotificationHandler(s: Seller, type: string, url: string, targetName: string): Promise<number> {
  const res = await call('admin/event/handler/', {
    token: s.token,
    body: {
      event_handler: {
        type: { id: type },
        section: 'order',
        action: { id: 'notification', required: { url, format: 'post', target_name: targetName } },
      },
    },
  });
  expect(res.status, res.text).to.equal(201);
  return res.body.event_handler_id as number;
}

/** The event.run job of a handler (an outbox row, so GET job/{job_id}/ answers it). */
export async function runJobOf(seller: Seller, handlerId: number): Promise<string | undefined> {
  const rows = (await db()('outbox').where({ account_id: seller.id, job_name: 'event.run' }).select('job_id', 'payload')) as {
    job_id: string;
    payload: { handlerId: number };
  }[];
  return rows.find((r) => r.payload.handlerId === handlerId)?.job_id;
}
