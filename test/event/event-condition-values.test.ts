import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { orderImportProcessors } from '../../lib/order-import/order-import.processor';
import type { ChannelOrder } from '../../lib/portals/channel-order.type';
import { startWorker } from '../../lib/queue/worker';
import { call, newSeller, Seller } from '../support/api';
import { channelOrder, importNow, jsonAuctionAccount } from '../order-import/support';
import { Receiver, startReceiver, waitFor } from './servers';
import { useEventsWorker } from './events-worker';

async function createHandler(seller: Seller, handler: Record<string, unknown>): Promise<number> {
  const res = await call('admin/event/handler/', { token: seller.token, body: { event_handler: handler } });
  expect(res.status, res.text).to.equal(201);
  return res.body.event_handler_id as number;
}

/** The event.run outbox rows of a handler (one per event it ran for). */
async function runsOf(seller: Seller, handlerId: number): Promise<string[]> {
  const rows = (await db()('outbox').where({ account_id: seller.id, job_name: 'event.run' }).select('job_id', 'payload')) as {
    job_id: string;
    payload: { handlerId: number };
  }[];
  return rows.filter((r) => r.payload.handlerId === handlerId).map((r) => r.job_id);
}

/** Every order created event of the seller dispatched (its outbox row finished: the job's state GET job/{job_id}/ answers). */
async function createdDispatched(seller: Seller, count: number): Promise<void> {
  await waitFor(async () => {
    const rows = (await db()('outbox')
      .where({ account_id: seller.id, job_name: 'event.emit' })
      .whereRaw("payload->>'section' = 'order' AND payload->>'type' = 'created'")
      .select('state')) as { state: string | null }[];
    return rows.length >= count && rows.every((r) => r.state === 'completed');
  }, 'the created events to be dispatched');
}

describe('event conditions on empty values (events worker)', function () {
  this.timeout(60000);
  let importer: { close(): Promise<void> } | undefined;
  // A channel speaking the JSON connector's dialect: its orders, on one page.
  const sold: ChannelOrder[] = [];
  let channel: Receiver;

  const setting = useEventsWorker('cond', { mail: true, settings: () => ({ jobBackoffMs: 50, jobAttempts: 3 }) });
  before(async () => {
    channel = await startReceiver((r) => (r.path.startsWith('/auction_a/orders') ? { status: 200, body: { orders: sold, next: null } } : { status: 404 }));
    importer = await startWorker('order_import', orderImportProcessors, { skipEvictionCheck: true, registerShutdown: false });
  });

  after(async () => {
    await importer?.close();
    await channel.close();
  });

  it("when a condition compares a field with '' and the order has no value there, then = '' holds and != '' does not; with a value, the reverse", async () => {
    const seller = await newSeller();
    // The mail to the buyer only where there is a buyer address; the ERP told of orders without one.
    const mail = await createHandler(seller, {
      type: { id: 'created' },
      section: 'order',
      action: { id: 'mail', required: { to: '{customer.email}', subject: 'Order {id}', template: 'Thank you for order {id}.' } },
      condition: [{ field: 'customer.email', operator: '!=', value: '' }],
    });
    const noAddress = await createHandler(seller, {
      type: { id: 'created' },
      section: 'order',
      action: { id: 'notification', required: { url: `${setting.receiver.base}/no-address/${seller.id}`, format: 'post', target_name: 'erp' } },
      condition: [{ field: 'customer.email', operator: '=', value: '' }],
    });
    // A channel order without the buyer's address (Amazon before the Restricted Data Token, a marketplace hiding it) and one with it.
    const portalAccountId = await jsonAuctionAccount(seller, { base: channel.base } as Parameters<typeof jsonAuctionAccount>[1]);
    const email = `buyer-${seller.id}@example.com`;
    const hidden = channelOrder();
    delete hidden.customer.email;
    sold.splice(0, sold.length, hidden, channelOrder({ customer: { ...channelOrder().customer, email } }));
    const job = await importNow(seller, portalAccountId);
    expect(job.state, job.error).to.equal('completed');
    const ids = (await db()('sales_order').where({ account_id: seller.id }).select('id', 'external_order_id')) as { id: string; external_order_id: string }[];
    const without = ids.find((o) => o.external_order_id === hidden.external_order_id)!.id;
    const readBack = await call(`order/${without}/`, { token: seller.token });
    expect((readBack.body.order as { customer: { email: unknown } }).customer.email ?? '').to.equal('');
    await createdDispatched(seller, 2);

    // The order without an address: the ERP hears of it, no mail run (which could only fail).
    expect(await runsOf(seller, noAddress)).to.have.length(1);
    const told = await waitFor(
      async () => setting.receiver.received.filter((r) => r.path === `/no-address/${seller.id}`).length === 1 && setting.receiver.received,
      'the notification',
    );
    const bodies = told.filter((r) => r.path === `/no-address/${seller.id}`).map((r) => JSON.parse(r.body) as { order_id: string });
    expect(bodies.map((b) => b.order_id)).to.deep.equal([without]);
    // The order with an address: one mail run, to the buyer.
    const mailRuns = await runsOf(seller, mail);
    expect(mailRuns).to.have.length(1);
    const mailJob = await waitFor(async () => {
      const j = (await call(`job/${mailRuns[0]}/`, { token: seller.token })).body.job as { state: string; error?: string } | undefined;
      return j && (j.state === 'completed' || j.state === 'failed') ? j : undefined;
    }, 'the mail run');
    expect(mailJob.state, mailJob.error).to.equal('completed');
    expect(setting.mails.filter((m) => m.to === email)).to.have.length(1);
  });

  it('when a numeric comparison (<, >) is given an empty or non-decimal value, then 400 names the value and nothing is stored', async () => {
    const seller = await newSeller();
    const base = {
      type: { id: 'created' },
      section: 'order',
      action: { id: 'notification', required: { url: `${setting.receiver.base}/x`, format: 'post', target_name: 'erp' } },
    };
    for (const value of ['', ' ', '0x10', 'Infinity', '1e400']) {
      const res = await call('admin/event/handler/', {
        token: seller.token,
        body: { event_handler: { ...base, condition: [{ field: 'invoice_amount', operator: '>', value }] } },
      });
      expect(res.status, `${JSON.stringify(value)}: ${res.text}`).to.equal(400);
      expect(res.body.error![0]!.field, res.text).to.equal('event_handler.condition[0].value');
    }
    for (const value of ['100', '-1.5', '0.50', 99.9]) {
      const res = await call('admin/event/handler/', {
        token: seller.token,
        body: { event_handler: { ...base, condition: [{ field: 'invoice_amount', operator: '<', value }] } },
      });
      expect(res.status, `${JSON.stringify(value)}: ${res.text}`).to.equal(201);
    }
    const [{ count }] = (await db()('event_handler').where({ account_id: seller.id }).count({ count: '*' })) as [{ count: string }];
    expect(Number(count)).to.equal(4);
  });

  it('when = or != on a numeric field (one that takes < and >) is given a value that is no number, then 400 names the value; a decimal or the empty value is taken', async () => {
    const seller = await newSeller();
    const base = {
      type: { id: 'created' },
      section: 'order',
      action: { id: 'notification', required: { url: `${setting.receiver.base}/x`, format: 'post', target_name: 'erp' } },
    };
    const post = (operator: string, value: unknown) =>
      call('admin/event/handler/', { token: seller.token, body: { event_handler: { ...base, condition: [{ field: 'invoice_amount', operator, value }] } } });
    for (const operator of ['=', '!=']) {
      // Before, each was stored: = never held and != always did, whatever the order's amount.
      for (const value of ['lots', '12 EUR', '12,50', '0x10']) {
        const res = await post(operator, value);
        expect(res.status, `${operator} ${JSON.stringify(value)}: ${res.text}`).to.equal(400);
        expect(res.body.error![0]!.field, res.text).to.equal('event_handler.condition[0].value');
      }
    }
    for (const [operator, value] of [
      ['=', '12.50'],
      ['!=', 0],
      ['=', ''],
      ['!=', ''],
    ] as const) {
      const res = await post(operator, value);
      expect(res.status, `${operator} ${JSON.stringify(value)}: ${res.text}`).to.equal(201);
    }
    // A text field keeps any text.
    const text = await call('admin/event/handler/', {
      token: seller.token,
      body: { event_handler: { ...base, condition: [{ field: 'platform', operator: '!=', value: 'auction_a' }] } },
    });
    expect(text.status, text.text).to.equal(201);
    const [{ count }] = (await db()('event_handler').where({ account_id: seller.id }).count({ count: '*' })) as [{ count: string }];
    expect(Number(count)).to.equal(5);
  });

  it('when a condition value comes with spaces around it, then it is kept without them and holds on the record as the value does', async () => {
    const seller = await newSeller();
    const notify = (name: string, condition: Record<string, unknown>) =>
      createHandler(seller, {
        type: { id: 'created' },
        section: 'order',
        action: { id: 'notification', required: { url: `${setting.receiver.base}/${name}/${seller.id}`, format: 'post', target_name: name } },
        condition: [condition],
      });
    const platform = await notify('platform', { field: 'platform', operator: '=', value: ' market_c ' });
    const buyer = await notify('buyer', { field: 'customer.email', operator: '=', value: `buyer-${seller.id}@example.com\n` });
    const read = (await call(`admin/event/handler/${platform}/`, { token: seller.token })).body.event_handler as { condition: unknown };
    expect(read.condition).to.deep.equal([{ field: 'platform', operator: '=', value: 'market_c' }]);

    const order = await call('order/', {
      token: seller.token,
      body: { order: { platform: 'market_c', customer: { email: `buyer-${seller.id}@example.com` } } },
    });
    expect(order.status, order.text).to.equal(201);
    await createdDispatched(seller, 1);
    expect(await runsOf(seller, platform)).to.have.length(1);
    expect(await runsOf(seller, buyer)).to.have.length(1);
  });
});
