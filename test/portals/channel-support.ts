/** What the channel order tests share: the sandbox's controls and the order an import made. */
import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import type { Sandbox } from '../fleet/support';
import { OrderView, readOrder } from '../order/helpers';
import type { Seller } from '../support/api';

/** Sends a control to the sandbox (POST /_sandbox/...) and answers its JSON; anything but 200 or 201 fails the test. */
export async function sandboxPost(sandbox: Sandbox, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${sandbox.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await res.json()) as Record<string, unknown>;
  expect(res.status, JSON.stringify(json)).to.be.oneOf([200, 201]);
  return json;
}

/** The Kontor order the import made of a channel order, or undefined. */
export async function kontorOrder(seller: Seller, externalOrderId: string): Promise<OrderView | undefined> {
  const row = (await db()('sales_order').first('id').where({ account_id: seller.id, external_order_id: externalOrderId })) as { id: string } | undefined;
  return row ? readOrder(seller, row.id) : undefined;
}
