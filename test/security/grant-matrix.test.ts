/**
 * Issue 31, must deliver 2 (finding 2): the portal-account grant is a property of the caller in
 * every domain. One seller with portal accounts 1 (its default) and 2; a client bound to 1, one
 * bound to 2, one granted all, and the seller's own token. Each domain: the client bound to 1
 * gets 404 (or nothing) for portal account 2's data and changes nothing there; the client
 * granted all and the seller's own token still see everything.
 */
import { expect } from 'chai';
import { config, setConfig } from '../../config';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { db } from '../../lib/db/knex';
import { call, newSeller, query, Seller } from '../support/api';
import { clientToken } from '../support/bound-client';

const scope = 'order_r order_w customer_r stock_r stock_w';

/** An access token of a new client authorized through the consent page for one portal account (or all). */

interface Customer {
  id: string;
  email: string;
  sales: { amount: string };
}

describe('grant matrix: a client bound to one portal account in every domain (issue 31)', () => {
  let seller: Seller;
  let account2: number;
  let bound1: string;
  let bound2: string;
  let everything: string;
  let stockId: number;
  let order1: string;
  let order2: string;
  let customer1: string;
  let customer2: string;
  const saved = config();

  before(async () => {
    setConfig({ ...saved, orderSearchMinAgeSeconds: 0 });
    seller = await newSeller();
    account2 = (await createPortalAccount(seller.id, { name: 'Shop 2', platform: 'shop_g' })).id;
    const item = await call('stock/', { token: seller.token, body: { stock: { name: 'Mug', sku: 'MUG', quantity: 10 } } });
    expect(item.status, item.text).to.equal(201);
    stockId = Number(item.body.stock_id);
    const line = (quantity: number) => [{ id: 1, name: 'Mug', price: '10.00', quantity, stock_align_id: 'MUG' }];
    const a = await call('order/', { token: seller.token, body: { order: { customer: { email: 'one@example.com' }, line: line(1) } } });
    const b = await call('order/', {
      token: seller.token,
      body: { order: { customer: { email: 'two@example.com' }, line: line(2) }, portal_account_id: account2 },
    });
    expect([a.status, b.status], a.text + b.text).to.deep.equal([201, 201]);
    order1 = a.body.order_id as string;
    order2 = b.body.order_id as string;
    const customers = (await call('admin/customer/', { token: seller.token })).body.customer as Customer[];
    customer1 = customers.find((c) => c.email === 'one@example.com')!.id;
    customer2 = customers.find((c) => c.email === 'two@example.com')!.id;
    bound1 = await clientToken(seller, 'shop-one', seller.portalAccountId, scope);
    bound2 = await clientToken(seller, 'shop-two', account2, scope);
    everything = await clientToken(seller, 'accounting', 'all', scope);
  });
  after(() => setConfig(saved));

  describe('customers', () => {
    it("when a client bound to portal account 1 reads portal account 2's customer, then 404 as for an unknown one", async () => {
      const foreign = await call(`admin/customer/${customer2}/`, { token: bound1 });
      const absent = await call('admin/customer/999999/', { token: bound1 });
      expect(foreign.status).to.equal(404);
      expect(foreign.body.error![0]!.error).to.equal(absent.body.error![0]!.error);
      expect((await call(`admin/customer/${customer1}/`, { token: bound1 })).status).to.equal(200);
    });

    it('when it searches customers (also by id or e-mail), then it finds only customers with an order of portal account 1', async () => {
      const all = await call('admin/customer/', { token: bound1 });
      expect(all.status, all.text).to.equal(200);
      expect((all.body.customer as Customer[]).map((c) => c.id)).to.deep.equal([customer1]);
      const byEmail = await call(`admin/customer/?${query({ filter: { email: [{ operator: '=', value: 'two@example.com' }] } })}`, { token: bound1 });
      expect(byEmail.status, byEmail.text).to.equal(200);
      expect(byEmail.body.customer).to.deep.equal([]);
    });

    it("when a customer bought through both portal accounts, then the bound client's sales.amount sums only its portal account's orders", async () => {
      const again = await call('order/', {
        token: seller.token,
        body: { order: { customer: { email: 'one@example.com' }, line: [{ id: 1, name: 'Plate', price: '5.00', quantity: 1 }] }, portal_account_id: account2 },
      });
      expect(again.status, again.text).to.equal(201);
      const asBound = (await call(`admin/customer/${customer1}/`, { token: bound1 })).body.customer as Customer;
      const asSeller = (await call(`admin/customer/${customer1}/`, { token: seller.token })).body.customer as Customer;
      expect(asBound.sales.amount).to.equal('10.00');
      expect(asSeller.sales.amount).to.equal('15.00');
      // The client bound to 2 now sees this customer too (it has an order of 2), with 2's share.
      const asBound2 = (await call(`admin/customer/${customer1}/`, { token: bound2 })).body.customer as Customer;
      expect(asBound2.sales.amount).to.equal('5.00');
    });

    it("when its order names portal account 2's customer by e-mail, then the order gets a customer of its own and 2's customer is unchanged", async () => {
      const before = await call(`admin/customer/${customer2}/`, { token: seller.token });
      for (const body of [
        { order: { customer: { email: 'two@example.com', phone_1: '+49 30 666' }, line: [{ id: 1, name: 'Cup', price: '1.00', quantity: 1 }] } },
        { order: [{ customer: { email: 'TWO@example.com', phone_1: '+49 30 667' }, line: [{ id: 1, name: 'Cup', price: '1.00', quantity: 1 }] }] },
      ]) {
        const res = await call(Array.isArray(body.order) ? 'order/list/' : 'order/', { token: bound1, body });
        expect(res.status, res.text).to.be.oneOf([201, 207]);
        const orderId = (res.body.order_id ?? (res.body.response as { order_id: string }[])[0]!.order_id) as string;
        const created = (await call(`order/${orderId}/`, { token: bound1 })).body.order as { customer: { id: unknown } };
        expect(String(created.customer.id)).to.not.equal(String(customer2));
      }
      expect((await call(`admin/customer/${customer2}/`, { token: seller.token })).body).to.deep.equal(before.body);
    });

    it("when its order names portal account 2's customer by number (create or update), then 404 and nothing is written", async () => {
      const before = await call(`admin/customer/${customer2}/`, { token: seller.token });
      const orders = async () => Number((await db()('sales_order').where({ account_id: seller.id }).count<{ count: string }[]>('* AS count'))[0]!.count);
      const count = await orders();
      const create = await call('order/', {
        token: bound1,
        body: {
          order: { customer: { id: customer2, email: 'two@example.com', phone_1: '+49 30 666' }, line: [{ id: 1, name: 'Cup', price: '1.00', quantity: 1 }] },
        },
      });
      expect(create.status, create.text).to.equal(404);
      expect(create.body.error![0]!.field).to.contain('customer.id');
      const update = await call(`order/${order1}/`, { token: bound1, body: { order: { customer: { id: customer2, phone_1: '+49 30 666' } } } });
      expect(update.status, update.text).to.equal(404);
      expect(await orders()).to.equal(count);
      expect(String(((await call(`order/${order1}/`, { token: seller.token })).body.order as { customer: { id: unknown } }).customer.id)).to.equal(
        String(customer1),
      );
      expect((await call(`admin/customer/${customer2}/`, { token: seller.token })).body).to.deep.equal(before.body);
    });

    it("when the seller's own token names portal account 2's customer by number, then the order is that customer's", async () => {
      const res = await call('order/', {
        token: seller.token,
        body: { order: { customer: { id: customer2, email: 'two@example.com' }, line: [{ id: 1, name: 'Cup', price: '1.00', quantity: 1 }] } },
      });
      expect(res.status, res.text).to.equal(201);
      const read = (await call(`order/${res.body.order_id as string}/`, { token: seller.token })).body.order as { customer: { id: unknown } };
      expect(String(read.customer.id)).to.equal(String(customer2));
    });

    it('when the seller or a client granted all reads, then it finds every customer', async () => {
      for (const token of [seller.token, everything]) {
        const ids = ((await call('admin/customer/', { token })).body.customer as Customer[]).map((c) => c.id);
        expect(ids).to.include.members([customer1, customer2]);
        expect((await call(`admin/customer/${customer2}/`, { token })).status).to.equal(200);
      }
    });
  });

  describe('stock history', () => {
    const orderIds = (res: { body: Record<string, unknown> }) => (res.body.stock_history as { order_id: string | null }[]).map((m) => m.order_id);

    it("when a client bound to portal account 1 reads an item's history, then the movements of portal account 2's orders are left out", async () => {
      const own = await call(`stock/${stockId}/history/`, { token: bound1 });
      expect(own.status, own.text).to.equal(200);
      expect(orderIds(own)).to.include(order1).and.not.include(order2);
      // The item's own movement (its creation) is not an order's: it stays.
      expect(orderIds(own)).to.include(null);
      const overall = await call('stock/history/', { token: bound1 });
      expect(orderIds(overall)).to.include(order1).and.not.include(order2);
      const filtered = await call(`stock/history/?${query({ filter: { order_id: [{ operator: '=', value: order2 }] } })}`, { token: bound1 });
      expect(filtered.status, filtered.text).to.equal(200);
      expect(filtered.body.stock_history).to.deep.equal([]);
    });

    it('when the seller or a client granted all reads it, then every movement is there', async () => {
      for (const token of [seller.token, everything]) {
        expect(orderIds(await call(`stock/${stockId}/history/`, { token }))).to.include.members([order1, order2, null]);
      }
      expect(orderIds(await call(`stock/${stockId}/history/`, { token: bound2 })))
        .to.include(order2)
        .and.not.include(order1);
    });
  });

  describe('jobs', () => {
    const jobOf = async (token: string) => {
      const res = await call(`stock/${stockId}/cia/`, { token, body: {} });
      expect(res.status, res.text).to.equal(202);
      return res.body.job_id as string;
    };

    it('when a client bound to portal account 1 reads a job a client of portal account 2 started, then 404 as for an unknown job', async () => {
      const job2 = await jobOf(bound2);
      const foreign = await call(`job/${job2}/`, { token: bound1 });
      const absent = await call('job/7d1f1a8e-3c1b-4b8e-9d5f-2a6b8c9d0e1f/', { token: bound1 });
      expect(foreign.status).to.equal(404);
      expect(foreign.body.error![0]!.error).to.equal(absent.body.error![0]!.error);
      expect((await call(`job/${job2}/`, { token: bound2 })).status).to.equal(200);
    });

    it("when it reads a job of the seller's own token, then 404; its own job is 200", async () => {
      const sellers = await jobOf(seller.token);
      expect((await call(`job/${sellers}/`, { token: bound1 })).status).to.equal(404);
      const own = await jobOf(bound1);
      const read = await call(`job/${own}/`, { token: bound1 });
      expect(read.status, read.text).to.equal(200);
      expect((read.body.job as { id: string }).id).to.equal(own);
    });

    it('when the seller or a client granted all reads any job, then it is found', async () => {
      const job2 = await jobOf(bound2);
      const sellers = await jobOf(seller.token);
      for (const token of [seller.token, everything]) {
        for (const job of [job2, sellers]) expect((await call(`job/${job}/`, { token })).status).to.equal(200);
      }
    });
  });

  describe('idempotency replays', () => {
    const trigger = (token: string, key: string) => call(`stock/${stockId}/cia/`, { token, body: {}, headers: { 'Idempotency-Key': key } });

    it("when a client sends another client's Idempotency-Key with the same request, then its request runs anew and the first answer is not replayed", async () => {
      const key = `grant-${Date.now()}`;
      const first = await trigger(bound2, key);
      expect(first.status, first.text).to.equal(202);
      const jobs = async () =>
        (await db()('outbox').where({ account_id: seller.id, job_name: 'cia.adjust' }).count<{ count: string }[]>('* AS count'))[0]!.count;
      const before = await jobs();
      const other = await trigger(bound1, key);
      expect(other.status, other.text).to.equal(202);
      expect(other.headers.get('Idempotent-Replayed')).to.equal(null);
      expect(other.body.job_id).to.not.equal(first.body.job_id);
      expect(Number(await jobs())).to.equal(Number(before) + 1);
      // The seller's own token and a client granted all are other clients too.
      for (const token of [seller.token, everything]) {
        const res = await trigger(token, key);
        expect(res.headers.get('Idempotent-Replayed')).to.equal(null);
        expect(res.body.job_id).to.not.be.oneOf([first.body.job_id, other.body.job_id]);
      }
    });

    it('when the same client sends its key again, then it still gets its own answer replayed', async () => {
      const key = `grant-own-${Date.now()}`;
      const first = await trigger(bound1, key);
      const again = await trigger(bound1, key);
      expect(again.headers.get('Idempotent-Replayed')).to.equal('true');
      expect(again.body.job_id).to.equal(first.body.job_id);
    });
  });
});
