/**
 * Document 1, Authentication 5, for tasks: a task that refers to an order (reference.section
 * order) carries that order's data: the event action task fills its title and text from the order
 * (buyer, address, lines), the order import names its lines. A client bound to one portal account
 * read and completed the tasks of every portal account's orders; now it sees and changes only
 * those of its own portal account's orders (and tasks of no order), as it sees only those orders.
 */
import { expect } from 'chai';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { call, newSeller, query, Seller } from '../support/api';
import { clientToken } from '../support/bound-client';

interface Task {
  id: number;
  title: string;
  is_completed: boolean;
}

describe('tasks under a portal-account grant', () => {
  let seller: Seller;
  let bound1: string;
  let account2: number;
  let order1: string;
  let order2: string;
  const ids: Record<'own' | 'foreign' | 'general', number> = { own: 0, foreign: 0, general: 0 };

  const order = async (portalAccountId: number) => {
    const res = await call('order/', {
      token: seller.token,
      body: { order: { customer: { email: 'buyer@example.com' } }, portal_account_id: portalAccountId },
    });
    expect(res.status, res.text).to.equal(201);
    return res.body.order_id as string;
  };
  const task = async (title: string, reference?: { section: string; id: string }) => {
    const res = await call('task/', { token: seller.token, body: { task: { title, text: title, ...(reference ? { reference } : {}) } } });
    expect(res.status, res.text).to.equal(201);
    return Number(res.body.task_id);
  };
  const titles = async (token: string, params: Record<string, unknown> = {}) => {
    const res = await call(`task/?${query(params)}`, { token });
    expect(res.status, res.text).to.equal(200);
    return (res.body.task as Task[]).map((t) => t.title).sort();
  };

  before(async () => {
    seller = await newSeller();
    account2 = (await createPortalAccount(seller.id, { name: 'Shop 2', platform: 'shop_g' })).id;
    [order1, order2] = [await order(seller.portalAccountId), await order(account2)];
    ids.own = await task('ship to Anna Own, Berlin', { section: 'order', id: order1 });
    ids.foreign = await task('ship to Bert Foreign, Hamburg', { section: 'order', id: order2 });
    ids.general = await task('inventory day');
    bound1 = await clientToken(seller, 'task-one', seller.portalAccountId, 'task_r task_w');
  });

  it("when a client bound to portal account 1 searches tasks, also by the id of portal account 2's order's task, then that task is not there", async () => {
    expect(await titles(bound1)).to.deep.equal(['inventory day', 'ship to Anna Own, Berlin']);
    expect(await titles(bound1, { filter: { id: [{ value: ids.foreign }] } })).to.deep.equal([]);
  });

  it("when it completes portal account 2's order's task (either path), then 404 on task_id and the task stays open", async () => {
    for (const [path, body] of [
      [`task/${ids.foreign}/`, { task: { is_completed: true } }],
      ['task/', { task: { id: ids.foreign, is_completed: true } }],
    ] as const) {
      const res = await call(path, { token: bound1, body });
      expect(res.status, res.text).to.equal(404);
      expect(res.body.error![0]!.field).to.equal('task_id');
    }
    const seen = await call(`task/?${query({ filter: { id: [{ value: ids.foreign }] } })}`, { token: seller.token });
    expect((seen.body.task as Task[])[0]!.is_completed).to.equal(false);
    const own = await call(`task/${ids.own}/`, { token: bound1, body: { task: { is_completed: true } } });
    expect(own.status, own.text).to.equal(200);
  });

  it("when it creates a task naming portal account 2's order, or an absent one, or moves a task onto it, then 404 on task.reference.id and nothing is stored", async () => {
    const count = async () => ((await call('task/', { token: seller.token })).body.task as Task[]).length;
    const before = await count();
    const absent = await call('task/', { token: bound1, body: { task: { title: 'x', reference: { section: 'order', id: '99999_2026_11' } } } });
    for (const body of [
      { task: { title: 'planted on 2', text: 'planted', reference: { section: 'order', id: order2 } } },
      { task: { title: 'planted on 2', reference: { section: 'order', id: order2 } }, portal_account_id: account2 },
      { task: { title: 'no order', reference: { section: 'order' } } },
    ]) {
      const res = await call('task/', { token: bound1, body });
      expect(res.status, res.text).to.be.oneOf([404, 400]);
      if (res.status === 404) {
        expect(res.body.error![0]!.field).to.equal('task.reference.id');
        expect(res.body.error![0]!.error).to.equal(absent.body.error![0]!.error);
      }
    }
    expect(absent.status, absent.text).to.equal(404);
    const moved = await call(`task/${ids.general}/`, { token: bound1, body: { task: { reference: { section: 'order', id: order2 } } } });
    expect(moved.status, moved.text).to.equal(404);
    expect(moved.body.error![0]!.field).to.equal('task.reference.id');
    expect(await count()).to.equal(before);
    expect(await titles(seller.token)).to.deep.equal(['inventory day', 'ship to Anna Own, Berlin', 'ship to Bert Foreign, Hamburg']);
    const general = await call(`task/?${query({ filter: { id: [{ value: ids.general }] } })}`, { token: seller.token });
    expect((general.body.task as { reference: { section: string } }[])[0]!.reference.section).to.equal('');
    // Its own portal account's order: created, and seen.
    const own = await call('task/', { token: bound1, body: { task: { title: 'call Anna', reference: { section: 'order', id: order1 } } } });
    expect(own.status, own.text).to.equal(201);
    expect(await titles(bound1)).to.include('call Anna');
  });

  it("when portal account 2's customer has a task, then the client bound to 1 neither sees, completes nor creates one on it; its own customer's it does", async () => {
    const customerOf = async (email: string, portalAccountId: number) => {
      const res = await call('order/', { token: seller.token, body: { order: { customer: { email } }, portal_account_id: portalAccountId } });
      expect(res.status, res.text).to.equal(201);
      const read = await call(`order/${res.body.order_id as string}/`, { token: seller.token });
      return String((read.body.order as { customer: { id: unknown } }).customer.id);
    };
    const [mine, theirs] = [await customerOf('carla@example.com', seller.portalAccountId), await customerOf('dora@example.com', account2)];
    const secret = await task('Dora Foreign, Hamburg, dora@example.com', { section: 'customer', id: theirs });
    expect(await titles(bound1)).to.not.include('Dora Foreign, Hamburg, dora@example.com');
    expect(await titles(bound1, { filter: { id: [{ value: secret }] } })).to.deep.equal([]);
    const complete = await call(`task/${secret}/`, { token: bound1, body: { task: { is_completed: true } } });
    expect(complete.status, complete.text).to.equal(404);
    expect(complete.body.error![0]!.field).to.equal('task_id');
    const count = async () => ((await call('task/', { token: seller.token })).body.task as Task[]).length;
    const before = await count();
    const planted = await call('task/', { token: bound1, body: { task: { title: 'planted', reference: { section: 'customer', id: theirs } } } });
    expect(planted.status, planted.text).to.equal(404);
    expect(planted.body.error![0]!.field).to.equal('task.reference.id');
    expect(await count()).to.equal(before);
    const own = await call('task/', { token: bound1, body: { task: { title: 'call Carla', reference: { section: 'customer', id: mine } } } });
    expect(own.status, own.text).to.equal(201);
    expect(await titles(bound1)).to.include('call Carla');
    const open = await call(`task/?${query({ filter: { id: [{ value: secret }] } })}`, { token: seller.token });
    expect((open.body.task as Task[])[0]!.is_completed).to.equal(false);
  });

  it('when the seller reads the tasks, then it sees all of them', async () => {
    expect(await titles(seller.token)).to.deep.equal([
      'Dora Foreign, Hamburg, dora@example.com',
      'call Anna',
      'call Carla',
      'inventory day',
      'ship to Anna Own, Berlin',
      'ship to Bert Foreign, Hamburg',
    ]);
  });

  it('when the client bound to 1 creates a bank task, or moves a task of no section into bank, then it reads and completes it; a client bound to 2 does not see it', async () => {
    const bound2 = await clientToken(seller, 'task-two', account2, 'task_r task_w');
    const created = await call('task/', { token: bound1, body: { task: { title: 'book the refund of 12.00', reference: { section: 'bank' } } } });
    expect(created.status, created.text).to.equal(201);
    const bankTask = Number(created.body.task_id);
    expect(await titles(bound1, { filter: { id: [{ value: bankTask }] } })).to.deep.equal(['book the refund of 12.00']);
    const done = await call(`task/${bankTask}/`, { token: bound1, body: { task: { is_completed: true } } });
    expect(done.status, done.text).to.equal(200);
    const general = await task('count the cash box');
    const moved = await call(`task/${general}/`, { token: bound1, body: { task: { reference: { section: 'bank' } } } });
    expect(moved.status, moved.text).to.equal(200);
    expect(await titles(bound1, { filter: { id: [{ value: general }] } })).to.deep.equal(['count the cash box']);
    const again = await call('task/', { token: bound1, body: { task: { id: general, priority: 'high' } } });
    expect(again.status, again.text).to.equal(200);
    expect(await titles(bound2)).to.not.include.members(['book the refund of 12.00', 'count the cash box']);
    const foreign = await call(`task/${bankTask}/`, { token: bound2, body: { task: { is_completed: false } } });
    expect(foreign.status, foreign.text).to.equal(404);
    expect(await titles(seller.token)).to.include.members(['book the refund of 12.00', 'count the cash box']);
  });
});
