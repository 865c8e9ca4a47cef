/**
 * The listener of lib/db's change notices as a short-lived process meets it: a CLI command that
 * reads through the caches and ends at once closes the listener while it is still connecting; and
 * as a long-lived one does: its connection cut off by a partition that closes no socket (a NAT or
 * firewall that forgot the flow), through a TCP proxy of the test's own (test/support/cuttable-proxy.ts).
 */
import { expect } from 'chai';
import { config, setConfig } from '../../config';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { changesSettled, listening, stopChangeNotices } from '../../lib/db/change-notices';
import { db } from '../../lib/db/knex';
import { capturedLog } from '../security/log-capture';
import { call, newSeller } from '../support/api';
import { startCuttableProxy } from '../support/cuttable-proxy';

describe('change notices (lib/db)', () => {
  it('when the listener is stopped while it still connects (a CLI command ending), then no warning is logged, and the next use listens again', async () => {
    await stopChangeNotices();
    const { lines } = await capturedLog(async () => {
      // The moment a command ends falls anywhere in the listener's start: before, during and after connecting.
      for (let ms = 0; ms < 12; ms++) {
        listening();
        await new Promise((resolve) => setTimeout(resolve, ms));
        await stopChangeNotices();
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
    });
    expect(lines.map((l) => l.msg)).to.deep.equal([]);
    listening();
    await changesSettled();
    expect(listening()).to.equal(true);
  });
});

/** Polls check until it answers true, or fails naming what it waited for after ms. */
async function waitFor(what: string, check: () => Promise<boolean> | boolean, ms: number, everyMs: number): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** A cuttable proxy in front of the test database, and the database URL through it. */
async function proxiedDatabase() {
  const original = config();
  const target = new URL(original.databaseUrl);
  const proxy = await startCuttableProxy(Number(target.port || 5432), target.hostname);
  const viaProxy = new URL(original.databaseUrl);
  viaProxy.hostname = '127.0.0.1';
  viaProxy.port = String(proxy.port);
  return { original, proxy, viaProxy };
}

describe('change notices (lib/db) after a partition', () => {
  it("when the listening connection is cut off (no reset, no close), then the process stops serving its caches within seconds: a seller's new default portal account files the next orders, and once the network heals it listens again", async function () {
    this.timeout(90000);
    const seller = await newSeller();
    const { original, proxy, viaProxy } = await proxiedDatabase();
    const order = async () => {
      const res = await call('order/', {
        token: seller.token,
        body: { order: { customer: { email: 'p@example.com' }, line: [{ id: 1, name: 'cup', quantity: 1, price: '2.50' }] } },
      });
      expect(res.status, res.text).to.equal(201);
      const row = (await db()('sales_order')
        .where({ account_id: seller.id, id: String(res.body.order_id) })
        .first('portal_account_id')) as {
        portal_account_id: number;
      };
      return row.portal_account_id;
    };
    try {
      // Only the listening session goes through the proxy (the pool was made before): the listener alone is cut off.
      await stopChangeNotices();
      setConfig({ ...original, databaseUrl: viaProxy.toString() });
      listening();
      await changesSettled();
      expect(listening()).to.equal(true);
      expect(await order(), 'the default, kept in memory from now on').to.equal(seller.portalAccountId);
      proxy.cut();
      const second = await createPortalAccount(seller.id, { name: 'new default', is_default: true });
      // Its notice never comes: without a heartbeat the old default was served for as long as the process ran.
      await waitFor('an order filed under the new default', async () => (await order()) === Number(second.id), 30000, 500);
      proxy.heal();
      await waitFor('listening again', () => listening(), 30000, 200);
      const third = await createPortalAccount(seller.id, { name: 'newer default', is_default: true });
      await changesSettled();
      expect(await order(), 'served by the notice on the new connection').to.equal(Number(third.id));
    } finally {
      await stopChangeNotices();
      setConfig(original);
      await proxy.close();
    }
  });
});

describe('change notices (lib/db) cut off before they listen', () => {
  it('when the listening connection is cut off between its connect and its LISTEN (no reset, no close), then it listens again within seconds once the network heals', async function () {
    this.timeout(60000);
    const { original, proxy, viaProxy } = await proxiedDatabase();
    try {
      await stopChangeNotices();
      setConfig({ ...original, databaseUrl: viaProxy.toString() });
      proxy.cutOnSent('LISTEN');
      listening();
      await waitFor('the LISTEN cut off', () => proxy.isCut(), 10000, 20);
      expect(listening(), 'not listening while its LISTEN is unanswered').to.equal(false);
      proxy.heal();
      // Two heartbeat periods unanswered (4 s), a second before the next try: it never listened again before.
      await waitFor('listening again', () => listening(), 15000, 200);
    } finally {
      await stopChangeNotices();
      setConfig(original);
      await proxy.close();
    }
  });
});
