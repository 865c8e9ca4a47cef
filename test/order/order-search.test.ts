import { expect } from 'chai';
import { config, Config, setConfig } from '../../config';
import { call, newSeller, query, Seller } from '../support/api';
import { createOrder } from './helpers';

describe('order: GET order/ search', () => {
  let seller: Seller;
  let saved: Config;
  let paid: string;
  let shipped: string;
  let plain: string;
  let percent: string;

  before(async () => {
    saved = config();
    setConfig({ ...saved, orderSearchMinAgeSeconds: 0 });
    seller = await newSeller();
    paid = await createOrder(seller, {
      status: { is_paid: true },
      customer: { id: 'C-1', email: 'paid@shop.example', username: 'payer', address: { name: 'Anna Berg', city: 'Berlin', zip: '10115', country_iso2: 'DE' } },
      line: [{ id: 1, price: '5', transaction_id: 'TX-1' }],
    });
    shipped = await createOrder(seller, {
      status: { is_shipped: true },
      customer: { id: 'C-2', email: 'ship@other.example', address: { name: 'Bert Kohl', city: 'Köln', zip: '50667', country_iso2: 'DE' } },
      line: [{ id: 1, transaction_id: 'TX-2' }],
    });
    plain = await createOrder(seller, { customer: { id: 'C-3', email: 'axb@shop.example' } });
    percent = await createOrder(seller, { customer: { id: 'C-4', email: 'a%b@shop.example' } });
    const other = await newSeller();
    await createOrder(other, { status: { is_paid: true }, customer: { email: 'paid@shop.example' } });
  });
  after(() => setConfig(saved));

  const search = async (params: Record<string, unknown>) => {
    const res = await call(`order/?${query(params)}`, { token: seller.token });
    expect(res.status, res.text).to.equal(200);
    return res;
  };
  const ids = async (params: Record<string, unknown>) => ((await search(params)).body.order as { id: string }[]).map((o) => o.id);
  const refused = async (params: Record<string, unknown>) => {
    const res = await call(`order/?${query(params)}`, { token: seller.token });
    expect(res.status, res.text).to.equal(400);
    return res.body.error![0]!;
  };

  it("when orders are searched without a filter, then only the account's orders come, in number order", async () => {
    expect(await ids({})).to.deep.equal([paid, shipped, plain, percent]);
  });

  it('when an order is younger than ORDER_SEARCH_MIN_AGE_SECONDS, then the search leaves it out (reads by id still work)', async () => {
    setConfig({ ...saved, orderSearchMinAgeSeconds: 10 });
    try {
      const fresh = await createOrder(seller, { infos: 'fresh' });
      const found = await ids({ filter: { id: fresh } });
      expect(found).to.deep.equal([]);
      expect((await call(`order/${fresh}/`, { token: seller.token })).status).to.equal(200);
      await call(`order/${fresh}/`, { token: seller.token, method: 'DELETE' });
    } finally {
      setConfig({ ...saved, orderSearchMinAgeSeconds: 0 });
    }
  });

  it('when status flags are filtered, then only matching orders come; several filter objects are joined by OR', async () => {
    expect(await ids({ filter: { status: { is_paid: 1 } } })).to.deep.equal([paid]);
    expect(await ids({ filter: { status: { is_paid: 'false', is_shipped: '0' } } })).to.deep.equal([plain, percent]);
    expect(await ids({ filter: [{ status: { is_paid: 1 } }, { status: { is_shipped: 1 } }] })).to.deep.equal([paid, shipped]);
  });

  it('when customer.email is filtered with ~ and *, then * is the wildcard and % and _ are literal', async () => {
    expect(await ids({ filter: { customer: { email: { operator: '~', value: ['*@shop.example'] } } } })).to.deep.equal([paid, plain, percent]);
    expect(await ids({ filter: { customer: { email: { operator: '~', value: ['a%b*'] } } } })).to.deep.equal([percent]);
    expect(await ids({ filter: { customer: { email: { operator: '~', value: ['a_b*'] } } } })).to.deep.equal([]);
    expect(await ids({ filter: { customer: { email: { operator: '!~', value: ['*shop*'] } } } })).to.deep.equal([shipped]);
    expect(await ids({ filter: { customer: { email: 'SHIP@other.example' } } })).to.deep.equal([]);
    expect(await ids({ filter: { customer: { email: 'ship@other.example' } } })).to.deep.equal([shipped]);
    expect(await ids({ filter: { customer: { username: { operator: '~', value: ['pay*'] } } } })).to.deep.equal([paid]);
  });

  it('when customer.address fields are filtered, then each field of the billing address matches with = and ~', async () => {
    expect(await ids({ filter: { customer: { address: { city: 'Köln' } } } })).to.deep.equal([shipped]);
    expect(await ids({ filter: { customer: { address: { country_iso2: 'DE', name: { operator: '~', value: ['anna*'] } } } } })).to.deep.equal([paid]);
    expect(await ids({ filter: { customer: { address: { zip: { operator: '~', value: ['10*', '50*'] } } } } })).to.deep.equal([paid, shipped]);
    expect(await ids({ filter: { customer: { address: { city: { operator: '!=', value: ['Berlin'] } } } } })).to.deep.equal([shipped, plain, percent]);
    expect((await refused({ filter: { customer: { address: { planet: 'Mars' } } } })).field).to.equal('filter.customer.address.planet');
  });

  it('when customer.id is filtered, then = and != work and other operators are refused', async () => {
    expect(await ids({ filter: { customer: { id: ['C-1', 'C-3'] } } })).to.deep.equal([paid, plain]);
    expect(await ids({ filter: { customer: { id: { operator: '!=', value: ['C-1'] } } } })).to.deep.equal([shipped, plain, percent]);
    expect(await refused({ filter: { customer: { id: { operator: '~', value: ['C*'] } } } })).to.include({ error: 'invalid_operator' });
  });

  it('when id is filtered, then only = is allowed and only in the first filter object, where it applies to all', async () => {
    expect(await ids({ filter: { id: paid } })).to.deep.equal([paid]);
    // The first object's branch is 'true' within the ids (nothing of it remains), so both listed orders come.
    expect(await ids({ filter: [{ id: [paid, shipped] }, { status: { is_shipped: 1 } }] })).to.deep.equal([paid, shipped]);
    expect(await refused({ filter: { id: { operator: '!=', value: [paid] } } })).to.include({ error: 'invalid_operator' });
    expect(await refused({ filter: [{ status: { is_paid: 1 } }, { id: paid }] })).to.include({ error: 'singleton_filter', field: 'filter[1]' });
  });

  it('when the first filter object holds only the id list and a later object matches none of the listed orders, then the listed orders come', async () => {
    expect(await ids({ filter: [{ id: [paid] }, { customer: { email: 'axb@shop.example' } }] })).to.deep.equal([paid]);
    expect(await ids({ filter: [{ id: [paid, plain] }, { customer: { email: 'nobody@nowhere.example' } }] })).to.deep.equal([paid, plain]);
    expect(await ids({ filter: [{ id: [paid] }] })).to.deep.equal([paid]);
  });

  it('when the first filter object holds the id list and a further condition, then that condition is one OR branch within the ids', async () => {
    expect(await ids({ filter: [{ id: [paid, plain], status: { is_paid: 1 } }] })).to.deep.equal([paid]);
    expect(await ids({ filter: [{ id: [paid, plain], status: { is_paid: 1 } }, { customer: { email: 'axb@shop.example' } }] })).to.deep.equal([paid, plain]);
    expect(await ids({ filter: [{ id: [paid, plain], status: { is_shipped: 1 } }, { customer: { email: 'nobody@nowhere.example' } }] })).to.deep.equal([]);
  });

  it('when OR branches match orders outside the id list, then only listed orders come', async () => {
    expect(
      await ids({ filter: [{ id: [paid], status: { is_paid: 1 } }, { customer: { email: 'ship@other.example' } }, { status: { is_paid: 0 } }] }),
    ).to.deep.equal([paid]);
    expect(
      await ids({ filter: [{ id: [plain, percent], status: { is_paid: 1 } }, { customer: { email: { operator: '~', value: ['*@shop.example'] } } }] }),
    ).to.deep.equal([plain, percent]);
    expect(await ids({ filter: [{ id: [shipped] }, { status: { is_paid: 1 } }, { customer: { id: 'C-3' } }] })).to.deep.equal([shipped]);
  });

  it('when transaction_id is filtered, then = finds the order with that line and != leaves it out', async () => {
    expect(await ids({ filter: { transaction_id: 'TX-2' } })).to.deep.equal([shipped]);
    expect(await ids({ filter: { transaction_id: { operator: '!=', value: ['TX-2'] } } })).to.deep.equal([paid, plain, percent]);
  });

  it('when invoice_number or a status date is filtered, then the comparison applies', async () => {
    expect(await ids({ filter: { invoice_number: 1 } })).to.deep.equal([paid]);
    const today = new Date().toISOString().slice(0, 10);
    expect(await ids({ filter: { status: { paid_date: { operator: '>=', value: [today] } } } })).to.deep.equal([paid]);
    expect(await ids({ filter: { status: { shipped_date: today } } })).to.deep.equal([shipped]);
    expect(await ids({ filter: { status: { paid_date: { operator: '<', value: [today] } } } })).to.deep.equal([]);
    expect(await refused({ filter: { status: { paid_date: 'yesterday' } } })).to.include({ field: 'filter.status.paid_date' });
    expect(await ids({ filter: { status: { arrived_date: today } } })).to.deep.equal([]);
  });

  it('when number (the order number) is filtered, then comparisons apply to it', async () => {
    const secondNumber = Number(shipped.split('_')[0]);
    expect(await ids({ filter: { number: { operator: '>=', value: [secondNumber] } } })).to.deep.equal([shipped, plain, percent]);
    expect(await ids({ filter: { number: secondNumber } })).to.deep.equal([shipped]);
  });

  it('when an unknown filter field is sent, then 400 names it', async () => {
    expect(await refused({ filter: { colour: 'red' } })).to.include({ field: 'filter.colour', error: 'unknown_filter' });
  });

  it('when a filter value is not of its type, then 400 names the field and the type, in words', async () => {
    const res = await call(`order/?${query({ filter: { invoice_number: { value: ['abc'] } } })}`, { token: seller.token });
    expect(res.status).to.equal(400);
    expect(res.text).to.match(/"description":"filter\.invoice_number\.value\[0\] must be an integer"/);
  });

  it('when select names fields, then only those (and the id) come back', async () => {
    const res = await search({ select: { status: { is_paid: '' }, invoice_amount: '' }, filter: { id: paid } });
    expect(res.body.order).to.deep.equal([{ id: paid, status: { is_paid: true }, invoice_amount: '5.00' }]);
    const lines = await search({ select: { line: { transaction_id: '' } }, filter: { id: paid } });
    expect(lines.body.order).to.deep.equal([{ id: paid, line: [{ transaction_id: 'TX-1' }] }]);
  });

  it('when pages or min_id are used, then the pages walk the orders in number order without overlap', async () => {
    expect(await ids({ pagination: { limit: 2, page: 2 } })).to.deep.equal([plain, percent]);
    const first = await search({ pagination: { limit: 3, min_id: paid } });
    expect((first.body.order as { id: string }[]).map((o) => o.id)).to.deep.equal([paid, shipped, plain]);
    expect(first.body.next_min_id).to.equal(percent);
    const second = await search({ pagination: { limit: 3, min_id: first.body.next_min_id } });
    expect((second.body.order as { id: string }[]).map((o) => o.id)).to.deep.equal([percent]);
    expect(second.body).to.not.have.property('next_min_id');
    expect(await refused({ pagination: { min_id: 'nope' } })).to.include({ field: 'pagination[min_id]' });
  });
});
