/**
 * A fetch chain kept on a portal account (a fetch cut at its page cap, b07dfb2) whose cursor the
 * channel no longer takes: Amazon's searchOrders pagination tokens expire after 24 hours
 * ("Token handling with 24-hour expiration", Orders API migration guide), and a chain waits that
 * long whenever the account's fetches stop for a day (refused credentials, workers down). The
 * fetch starts the chain's query again from its since, instead of failing for good with a task
 * telling the seller to connect again, after which the same cursor was refused again.
 */
import { expect } from 'chai';
import { connectPortalAccount } from '../../lib/admin/portal-account-connect.service';
import { db } from '../../lib/db/knex';
import { importOrders, marketDOverlapMs } from '../../lib/order-import/order-import.service';
import { amazonOf } from '../../sandbox/amazon.sandbox';
import { Sandbox, sandboxKeepingContract } from '../fleet/support';
import { createStock } from '../order/helpers';
import { newSeller } from '../support/api';
import { amazonSandboxOrder, kontorOrder } from '../portals/channel-support';

const hour = 3_600_000;

describe('order import: a kept fetch chain whose cursor the channel refuses', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  sandboxKeepingContract('amazon', (started) => (sandbox = started));

  it('when Amazon refuses the kept pagination token as expired, then the fetch reads the chain again from its since: the order is in Kontor, no refusal, no task, no chain left', async () => {
    const seller = await newSeller();
    await createStock(seller, 'CHAIN-AZ', 5);
    const { amazonId, orderId } = await amazonSandboxOrder(sandbox, seller, 'A1PA6795UKMFR9', {
      lines: [{ sku: 'CHAIN-AZ', quantity: 1, price: '9.90' }],
    });
    // A chain begun 25 hours ago, its cursor a token of that time (the sandbox's token: base64 of its place, query and time).
    const since = new Date(Date.now() - 26 * hour);
    const started = new Date(Date.now() - 25 * hour);
    const token = Buffer.from(JSON.stringify({ scope: 'x', offset: 2, at: started.getTime() })).toString('base64');
    await db()('portal_account')
      .where({ account_id: seller.id, id: amazonId })
      .update({
        // The scheduler's chain: its since the watermark less market_d's overlap.
        orders_fetched_until: new Date(since.getTime() + marketDOverlapMs),
        orders_fetch_cursor: JSON.stringify({ after: since.toISOString(), token }),
        orders_fetch_since: since,
        orders_fetch_started: started,
      });

    const run = await importOrders({ accountId: seller.id, portalAccountId: amazonId }, `chain-refused-${amazonId}`);
    expect(run.orders.created).to.equal(1);
    expect(run.since).to.equal(since.toISOString());
    expect(await kontorOrder(seller, orderId), 'the order in Kontor').to.not.equal(undefined);
    const row = (await db()('portal_account')
      .first('orders_fetch_cursor', 'order_import_error', 'orders_fetched_until')
      .where({ account_id: seller.id, id: amazonId }))!;
    expect(row.order_import_error).to.equal(null);
    expect(row.orders_fetch_cursor).to.equal(null);
    // The chain's first start is the watermark: what changed since is read by the next fetch.
    expect(row.orders_fetched_until!.toISOString()).to.equal(started.toISOString());
    const tasks = await db()('task').where({ account_id: seller.id }).count('* as n');
    expect(Number(tasks[0]!.n)).to.equal(0);
  });

  it("when a portal account with a kept chain is connected again (another store), then the next fetch starts from the watermark, not from the old connection's cursor: an order of the new connection is not passed over", async () => {
    const seller = await newSeller();
    await createStock(seller, 'CHAIN-AZ2', 5);
    const { amazonId, orderId } = await amazonSandboxOrder(sandbox, seller, 'A1PA6795UKMFR9', {
      lines: [{ sku: 'CHAIN-AZ2', quantity: 1, price: '9.90' }],
    });
    amazonOf(sandbox.state).orders.get(orderId)!.lastUpdatedTime = new Date(Date.now() - 2 * hour).toISOString();
    // A chain of the old connection: begun an hour ago from 3 hours back, its cursor a time past this connection's order.
    const since = new Date(Date.now() - 3 * hour);
    await db()('portal_account')
      .where({ account_id: seller.id, id: amazonId })
      .update({
        orders_fetched_until: new Date(since.getTime() + marketDOverlapMs),
        orders_fetch_cursor: JSON.stringify({ after: new Date(Date.now() - 1.5 * hour).toISOString() }),
        orders_fetch_since: since,
        orders_fetch_started: new Date(Date.now() - hour),
      });
    await connectPortalAccount(seller.id, {
      portalAccountId: amazonId,
      connector: 'amazon_sp',
      baseUrl: sandbox.url,
      credentials: {
        client_id: 'c',
        client_secret: 's',
        refresh_token: `Atzr|sandbox-${amazonId}`,
        seller_id: `S${amazonId}`,
        marketplace_id: 'A1PA6795UKMFR9',
      },
    });
    const run = await importOrders({ accountId: seller.id, portalAccountId: amazonId }, `chain-reconnected-${amazonId}`);
    expect(run.orders.created).to.equal(1);
    expect(run.since).to.equal(since.toISOString());
    expect(await kontorOrder(seller, orderId), 'the order in Kontor').to.not.equal(undefined);
  });
});
