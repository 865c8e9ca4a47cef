/**
 * Task_type and Task_filter_type of document 2 field by field, as a tester holding only
 * documents 1 and 2 meets them: values written are read back with their type (JSON and XML),
 * values past a bound are a 400 naming the field with nothing changed, R fields are ignored with
 * a warning, and reference.platform / reference.stock_id exist only "when section is stock_lister".
 */
import { expect } from 'chai';
import { createPerson } from '../../lib/admin/person.service';
import { call, newSeller, query, Seller } from '../support/api';

async function tasks(seller: Seller): Promise<Record<string, unknown>[]> {
  const res = await call('task/', { token: seller.token });
  expect(res.status, res.text).to.equal(200);
  return res.body.task as Record<string, unknown>[];
}

describe('Task_type against document 2 (fields, tried from outside)', () => {
  it('when reference.platform or reference.stock_id is sent with a section other than stock_lister, then 400 names the field and nothing is created or changed', async () => {
    const seller = await newSeller();
    for (const [reference, field] of [
      [{ section: 'order', id: '12_2026_11', platform: 'auction_a' }, 'task.reference.platform'],
      [{ section: 'stock', id: 7, stock_id: '7' }, 'task.reference.stock_id'],
      [{ platform: 'market_d' }, 'task.reference.platform'],
    ] as const) {
      const res = await call('task/', { token: seller.token, body: { task: { title: 'Check', reference } } });
      expect(res.status, res.text).to.equal(400);
      expect(res.body.error!.map((e) => e.field)).to.deep.equal([field]);
    }
    expect(await tasks(seller)).to.deep.equal([]);

    const created = await call('task/', { token: seller.token, body: { task: { title: 'Check', reference: { section: 'order', id: '12_2026_11' } } } });
    expect(created.status).to.equal(201);
    const id = created.body.task_id as number;
    const before = await tasks(seller);
    const update = await call(`task/${id}/`, { token: seller.token, body: { task: { title: 'Changed', reference: { platform: 'auction_a' } } } });
    expect(update.status).to.equal(400);
    expect(update.body.error!.map((e) => e.field)).to.deep.equal(['task.reference.platform']);
    expect(await tasks(seller)).to.deep.equal(before);

    // With stock_lister both are kept and answered.
    const lister = await call(`task/${id}/`, {
      token: seller.token,
      body: { task: { reference: { section: 'stock_lister', id: 'NO_3', platform: 'auction_a', stock_id: '4711' } } },
    });
    expect(lister.status, lister.text).to.equal(200);
    expect((await tasks(seller))[0]!.reference).to.deep.equal({ section: 'stock_lister', id: 'NO_3', platform: 'auction_a', stock_id: '4711' });
  });

  it('when a stock_lister task is moved to another section and back without platform and stock_id, then 400 names them as at a create, and the values it left are not answered again', async () => {
    const seller = await newSeller();
    const created = await call('task/', {
      token: seller.token,
      body: { task: { title: 'Relist', reference: { section: 'stock_lister', id: 3, platform: 'auction_a', stock_id: 'SKU_A1' } } },
    });
    expect(created.status, created.text).to.equal(201);
    const id = created.body.task_id as number;
    const moved = await call(`task/${id}/`, { token: seller.token, body: { task: { reference: { section: 'order', id: '12_2026_11' } } } });
    expect(moved.status, moved.text).to.equal(200);
    const asOrder = await tasks(seller);
    expect(asOrder[0]!.reference).to.deep.equal({ section: 'order', id: '12_2026_11' });

    const back = await call(`task/${id}/`, { token: seller.token, body: { task: { reference: { section: 'stock_lister' } } } });
    expect(back.status, back.text).to.equal(400);
    expect(back.body.error!.map((e) => e.field)).to.deep.equal(['task.reference.platform']);
    expect(await tasks(seller)).to.deep.equal(asOrder);

    const relisted = await call(`task/${id}/`, {
      token: seller.token,
      body: { task: { reference: { section: 'stock_lister', platform: 'market_e', stock_id: 'SKU_B2' } } },
    });
    expect(relisted.status, relisted.text).to.equal(200);
    expect((await tasks(seller))[0]!.reference).to.deep.equal({ section: 'stock_lister', id: '12_2026_11', platform: 'market_e', stock_id: 'SKU_B2' });
  });

  it('when every writable field is set, then JSON and XML read the same values with the types of document 2', async () => {
    const seller = await newSeller();
    const person = await createPerson(seller.id, 'Paula Packer');
    const created = await call('task/', {
      token: seller.token,
      body: {
        task: {
          reference: { section: 'customer', id: '42' },
          person_id: String(person.id),
          title: 'Call back',
          text: 'About the parcel',
          appointment_date: '2026-12-03T08:15:00+01:00',
          priority: 'low',
          is_completed: true,
        },
      },
    });
    expect(created.status, created.text).to.equal(201);
    const id = created.body.task_id;
    expect(id).to.be.a('number');
    const [task] = await tasks(seller);
    expect(task).to.deep.include({
      id,
      reference: { section: 'customer', id: '42' },
      person_id: String(person.id),
      title: 'Call back',
      text: 'About the parcel',
      appointment_date: '2026-12-03T07:15:00.000Z',
      priority: 'low',
      is_completed: true,
    });
    expect(task!.modified_date).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

    const inXml = await call('task/', { token: seller.token, headers: { Accept: 'application/xml' } });
    for (const [name, value] of Object.entries({
      title: 'Call back',
      appointment_date: '2026-12-03T07:15:00.000Z',
      priority: 'low',
      is_completed: 'true',
      person_id: String(person.id),
    })) {
      expect(inXml.text, name).to.include(`<${name}>${value}</${name}>`);
    }
    const selected = await call(`task/?${query({ select: { priority: 1, is_completed: 1 } })}`, { token: seller.token });
    expect(selected.body.task).to.deep.equal([{ id, priority: 'low', is_completed: true }]);
  });

  it('when a value is past its bound or of the wrong type, then 400 names every field and the task is unchanged; modified_date is read only', async () => {
    const seller = await newSeller();
    const created = await call('task/', { token: seller.token, body: { task: { title: 'Keep me', priority: 'high' } } });
    const id = created.body.task_id as number;
    const before = await tasks(seller);
    const bad = await call(`task/${id}/`, {
      token: seller.token,
      body: {
        task: { priority: 'urgent', is_completed: 'maybe', appointment_date: '2026-02-30 10:00:00', title: 't'.repeat(256), reference: { section: 'invoice' } },
      },
    });
    expect(bad.status).to.equal(400);
    expect(bad.body.error!.map((e) => e.field).sort()).to.deep.equal([
      'task.appointment_date',
      'task.is_completed',
      'task.priority',
      'task.reference.section',
      'task.title',
    ]);
    expect(await tasks(seller)).to.deep.equal(before);

    const readOnly = await call(`task/${id}/`, { token: seller.token, body: { task: { modified_date: '2001-01-01 00:00:00', text: 'noted' } } });
    expect(readOnly.status).to.equal(200);
    expect(readOnly.body.warning!.map((w) => `${w.warning} ${w.field}`)).to.deep.equal(['read_only_field task.modified_date']);
    const [after] = await tasks(seller);
    expect(after!.text).to.equal('noted');
    expect(after!.modified_date).to.not.match(/^2001/);

    // A field of alternatives (a value or '' to clear it) says what it takes; Joi's own words read
    // "must be one of [date, ]", the '' showing as nothing.
    for (const [task, description] of [
      [{ appointment_date: '29.11.2026' }, "task.appointment_date must be a datetime (YYYY-MM-DD, optionally with a time) or ''"],
      [{ person_id: 'Anna' }, "task.person_id must be a number or ''"],
    ] as const) {
      const res = await call(`task/${id}/`, { token: seller.token, body: { task } });
      expect(res.status, res.text).to.equal(400);
      expect(res.body.error).to.deep.equal([{ error: 'invalid_field', description, code: 400, field: Object.keys(task).map((k) => `task.${k}`)[0] }]);
    }
    expect((await tasks(seller))[0]!.text).to.equal('noted');

    for (const [filter, field] of [
      [{ is_completed: 'maybe' }, 'filter.is_completed'],
      [{ id: { 0: { value: 'x' } } }, 'filter.id[0].value'],
      [{ id: { 0: { value: id, operator: 'like' } } }, 'filter.id[0].operator'],
    ] as const) {
      const res = await call(`task/?${query({ filter })}`, { token: seller.token });
      expect(res.status, field).to.equal(400);
      expect(res.body.error!.map((e) => e.field)).to.deep.equal([field]);
    }
  });
});
