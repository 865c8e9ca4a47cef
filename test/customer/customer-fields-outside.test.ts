/**
 * Customer_type and Customer_filter_type of document 2 field by field, as a tester holding only
 * documents 1 and 2 meets them (customers are made by orders; the type is read only): JSON types
 * and XML values, filters past their type a 400 naming the field.
 */
import { expect } from 'chai';
import { call, newSeller, query } from '../support/api';
import { createOrder } from '../order/helpers';

describe('Customer_type against document 2 (fields, tried from outside)', () => {
  it('when a customer is made by orders, then its fields have the types of document 2 in JSON and XML', async () => {
    const seller = await newSeller();
    await createOrder(seller, {
      currency_id: 'EUR',
      customer: {
        id: 31,
        email: 'ria@example.com',
        username: 'ria_1',
        comment: 'regular',
        phone_1: '0301',
        phone_2: '0302',
        fax: '0303',
        address: { name: 'Ria Buyer' },
      },
      line: [{ id: 1, quantity: 3, price: '2.5' }],
    });
    await createOrder(seller, { customer: { id: '31', email: 'ria@example.com', username: 'ria_2' }, line: [{ id: 1, price: '0.25' }] });

    const res = await call('admin/customer/31/', { token: seller.token });
    expect(res.status, res.text).to.equal(200);
    const customer = res.body.customer as Record<string, unknown>;
    expect(customer).to.deep.include({
      id: 31,
      email: 'ria@example.com',
      phone_1: '0301',
      phone_2: '0302',
      fax: '0303',
      comment: 'regular',
      sales: { amount: '7.75', currency_id: 'EUR' },
      group_id: 0,
    });
    expect(customer.internal_id).to.be.a('number');
    expect(customer.date).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(customer.shop_username).to.have.members(['ria_1', 'ria_2']);
    expect(customer.username).to.be.a('string');

    const inXml = await call('admin/customer/31/', { token: seller.token, headers: { Accept: 'application/xml' } });
    for (const [name, value] of [
      ['id', '31'],
      ['internal_id', String(customer.internal_id)],
      ['amount', '7.75'],
      ['currency_id', 'EUR'],
      ['group_id', '0'],
      ['date', customer.date],
    ]) {
      expect(inXml.text, String(name)).to.include(`<${String(name)}>${String(value)}</${String(name)}>`);
    }
    expect(inXml.text).to.include('<shop_username>ria_1</shop_username>');
  });

  it('when customers are filtered, then each field of Customer_filter_type works and a value of the wrong type is a 400 naming it', async () => {
    const seller = await newSeller();
    await createOrder(seller, { customer: { id: 'K-17', email: 'kay@example.com', address: { name: 'Kay Kunde' } } });
    await createOrder(seller, { customer: { email: 'lou@example.com', address: { name: 'Lou Other' } } });
    const ids = async (filter: Record<string, unknown>) => {
      const res = await call(`admin/customer/?${query({ filter })}`, { token: seller.token });
      expect(res.status, res.text).to.equal(200);
      return (res.body.customer as { id: unknown }[]).map((c) => c.id);
    };
    expect(await ids({ id: { 0: { value: 'K-17' } } })).to.deep.equal(['K-17']);
    expect(await ids({ name: { 0: { value: 'Kay*', operator: '~' } } })).to.deep.equal(['K-17']);
    expect(await ids({ email: { 0: { value: 'lou@example.com' } } })).to.have.length(1);
    expect(await ids({ group_id: { 0: { value: 0 } } })).to.have.length(2);
    expect(await ids({ group_id: [1, 2, 3, 4, 5, 6, 9] })).to.deep.equal([]);
    expect(await ids({ group_id: { 0: { value: 3, operator: '>' } } })).to.deep.equal([]);
    expect(await ids({ date: { 0: { value: '2001-01-01 00:00:00', operator: '>' } } })).to.have.length(2);

    for (const [filter, field] of [
      [{ group_id: { 0: { value: 'green' } } }, 'filter.group_id[0].value'],
      [{ internal_id: { 0: { value: 'one' } } }, 'filter.internal_id[0].value'],
      [{ date: { 0: { value: '2026-02-30' } } }, 'filter.date[0].value'],
      // Document 2's group_id values are 0 to 6 and 9: 7, 8 or 10 can never match.
      [{ group_id: { 0: { value: 10 } } }, 'filter.group_id[0].value'],
      [{ group_id: { 0: { value: 7, operator: '!=' } } }, 'filter.group_id[0].value'],
    ] as const) {
      const res = await call(`admin/customer/?${query({ filter })}`, { token: seller.token });
      expect(res.status, field).to.equal(400);
      expect(res.body.error!.map((e) => e.field)).to.deep.equal([field]);
    }
  });
});
