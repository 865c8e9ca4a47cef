import { expect } from 'chai';
import { createPerson } from '../../lib/admin/person.service';
import { db } from '../../lib/db/knex';
import { call, newSeller, query, Seller, tokenFor } from '../support/api';

async function createTask(seller: Seller, task: Record<string, unknown>): Promise<number> {
  const res = await call('task/', { token: seller.token, body: { task } });
  expect(res.status, res.text).to.equal(201);
  return res.body.task_id as number;
}

describe('tasks', () => {
  it('when a task is created with a stock_lister reference, then 201 answers its id and task/ returns it', async () => {
    const seller = await newSeller();
    const person = await createPerson(seller.id, 'Lister Lisa');
    const id = await createTask(seller, {
      reference: { section: 'stock_lister', platform: 'auction_a', stock_id: '4711', id: 'NO_12' },
      person_id: String(person.id),
      title: 'Relist',
      text: 'Relist the offer after the price change',
      appointment_date: '2026-12-01 09:30:00',
      priority: 'high',
    });
    const res = await call(`task/?${query({ filter: { id: id } })}`, { token: seller.token });
    expect(res.status).to.equal(200);
    const [task] = res.body.task as Record<string, unknown>[];
    expect(task).to.deep.include({
      id,
      reference: { section: 'stock_lister', id: 'NO_12', platform: 'auction_a', stock_id: '4711' },
      person_id: String(person.id),
      title: 'Relist',
      text: 'Relist the offer after the price change',
      priority: 'high',
      is_completed: false,
    });
    expect(task!.appointment_date).to.match(/^2026-12-01T/);
    expect(task!.modified_date).to.be.a('string');
  });

  it('when a task is completed by POST task/ with its id, then is_completed=false leaves it out', async () => {
    const seller = await newSeller();
    const open = await createTask(seller, { title: 'Call the carrier' });
    const done = await createTask(seller, { title: 'Pack order 12' });
    const update = await call('task/', { token: seller.token, body: { task: { id: done, is_completed: true } } });
    expect(update.status, update.text).to.equal(200);
    expect(update.body.task_id).to.equal(done);

    const openOnly = await call(`task/?${query({ filter: { is_completed: 'false' } })}`, { token: seller.token });
    expect((openOnly.body.task as { id: number }[]).map((t) => t.id)).to.deep.equal([open]);
    const all = await call('task/', { token: seller.token });
    expect((all.body.task as { id: number }[]).map((t) => t.id)).to.deep.equal([open, done]);
  });

  it('when a task is updated through task/{task_id}/, then the fields sent change and the others stay', async () => {
    const seller = await newSeller();
    const id = await createTask(seller, { title: 'Check stock', priority: 'low' });
    const res = await call(`task/${id}/`, { token: seller.token, body: { task: { is_completed: 1, text: 'done by phone' } } });
    expect(res.status).to.equal(200);
    const read = await call(`task/?${query({ filter: { id } })}`, { token: seller.token });
    expect((read.body.task as Record<string, unknown>[])[0]).to.deep.include({
      title: 'Check stock',
      priority: 'low',
      text: 'done by phone',
      is_completed: true,
    });
  });

  it("when a task read from GET task/ is posted back unchanged, then 200; reference.id and reference.stock_id '' clear them", async () => {
    const seller = await newSeller();
    const plain = await createTask(seller, { title: 'T' });
    const lister = await createTask(seller, { title: 'L', reference: { section: 'stock_lister', platform: 'auction_a', stock_id: '4711', id: 'NO_12' } });
    const read = async (id: number) => {
      const res = await call(`task/?${query({ filter: { id } })}`, { token: seller.token });
      expect(res.status, res.text).to.equal(200);
      return (res.body.task as Record<string, unknown>[])[0]!;
    };
    const asRead = await read(plain);
    expect(asRead.reference).to.deep.equal({ section: '', id: '' });
    for (const id of [plain, lister]) {
      const task = await read(id);
      const back = await call(`task/${id}/`, { token: seller.token, body: { task } });
      expect(back.status, back.text).to.equal(200);
      const inBody = await call('task/', { token: seller.token, body: { task } });
      expect(inBody.status, inBody.text).to.equal(200);
      expect(await read(id)).to.deep.include({ reference: task.reference, title: task.title });
    }

    const withRef = await createTask(seller, { title: 'R', reference: { section: 'stock', id: '5' } });
    const clear = await call(`task/${withRef}/`, { token: seller.token, body: { task: { reference: { id: '' } } } });
    expect(clear.status, clear.text).to.equal(200);
    expect((await read(withRef)).reference).to.deep.equal({ section: 'stock', id: '' });
    const moved = await call(`task/${lister}/`, {
      token: seller.token,
      body: { task: { reference: { section: 'order', id: '', platform: '', stock_id: '' } } },
    });
    expect(moved.status, moved.text).to.equal(200);
    expect((await read(lister)).reference).to.deep.equal({ section: 'order', id: '' });
    // stock_lister still needs a stock item: '' there is the missing value it is.
    const noStock = await call('task/', {
      token: seller.token,
      body: { task: { reference: { section: 'stock_lister', platform: 'auction_a', stock_id: '' } } },
    });
    expect(noStock.status, noStock.text).to.equal(400);
    expect(noStock.body.error![0]!.field).to.equal('task.reference.stock_id');
  });

  it('when tasks are paged, then limit and page answer in id order', async () => {
    const seller = await newSeller();
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push(await createTask(seller, { title: `t${i}` }));
    const page2 = await call(`task/?${query({ pagination: { limit: 2, page: 2 } })}`, { token: seller.token });
    expect((page2.body.task as { id: number }[]).map((t) => t.id)).to.deep.equal(ids.slice(2, 4));
    const fromMin = await call(`task/?${query({ pagination: { limit: 2, min_id: ids[3] } })}`, { token: seller.token });
    expect((fromMin.body.task as { id: number }[]).map((t) => t.id)).to.deep.equal(ids.slice(3, 5));
    expect(fromMin.body).to.not.have.key('next_min_id');
  });

  it('when a task is bad (stock_lister without platform, unknown priority), then 400 names the field and nothing is written', async () => {
    const seller = await newSeller();
    const cases: [Record<string, unknown>, string][] = [
      [{ reference: { section: 'stock_lister', stock_id: '1' } }, 'task.reference.platform'],
      [{ reference: { section: 'stock_lister', platform: 'auction_a' } }, 'task.reference.stock_id'],
      [{ priority: 'urgent' }, 'task.priority'],
      [{ reference: { section: 'moon' } }, 'task.reference.section'],
      [{ appointment_date: 'tomorrow' }, 'task.appointment_date'],
    ];
    for (const [task, field] of cases) {
      const res = await call('task/', { token: seller.token, body: { task } });
      expect(res.status, JSON.stringify(task)).to.equal(400);
      expect(res.body.error![0]!.field).to.equal(field);
    }
    const [{ count }] = (await db()('task').where({ account_id: seller.id }).count({ count: '*' })) as [{ count: string }];
    expect(Number(count)).to.equal(0);
  });

  it("when person_id names no person of the account (another seller's, or none), then 404 names task.person_id (document 1: a contained object's id) and nothing is written", async () => {
    const seller = await newSeller();
    const other = await newSeller();
    const foreignPerson = await createPerson(other.id, 'Not yours');
    const own = await createTask(seller, { title: 'mine' });
    for (const personId of [foreignPerson.id, 999999, String(foreignPerson.id)]) {
      const created = await call('task/', { token: seller.token, body: { task: { title: 'x', person_id: personId } } });
      const updated = await call(`task/${own}/`, { token: seller.token, body: { task: { person_id: personId } } });
      for (const res of [created, updated]) {
        expect(res.status, res.text).to.equal(404);
        expect(res.body.error!.map((e) => [e.error, e.field])).to.deep.equal([['not_found', 'task.person_id']]);
      }
    }
    const tasks = await call('task/', { token: seller.token });
    expect((tasks.body.task as { id: number; person_id: string }[]).map((t) => [t.id, t.person_id])).to.deep.equal([[own, '']]);
  });

  it("when another seller's task is updated or filtered, then 404 and it is not listed", async () => {
    const seller = await newSeller();
    const other = await newSeller();
    const theirs = await createTask(other, { title: 'theirs' });
    const res = await call('task/', { token: seller.token, body: { task: { id: theirs, is_completed: true } } });
    expect(res.status).to.equal(404);
    const path = await call(`task/${theirs}/`, { token: seller.token, body: { task: { is_completed: true } } });
    expect(path.status).to.equal(404);
    const list = await call(`task/?${query({ filter: { id: theirs } })}`, { token: seller.token });
    expect(list.body.task).to.deep.equal([]);
  });

  it('when tasks are read or written without the task scopes, then 403', async () => {
    const seller = await newSeller();
    const token = await tokenFor(seller.login, seller.password, 'task_r');
    expect((await call('task/', { token })).status).to.equal(200);
    expect((await call('task/', { token, body: { task: { title: 'x' } } })).status).to.equal(403);
    const noRead = await tokenFor(seller.login, seller.password, 'order_r');
    expect((await call('task/', { token: noRead })).status).to.equal(403);
  });
});
