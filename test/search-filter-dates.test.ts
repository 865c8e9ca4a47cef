import { expect } from 'chai';
import { config, Config, setConfig } from '../config';
import { call, newSeller, Seller } from './support/api';
import { createOrder } from './order/helpers';

/**
 * Date and datetime filter values as a client writes them (document 2: Operator_filter_type<date>,
 * Bank_filter_type's date.from/date.to, Customer_filter_type's date[]): every value is either taken
 * with its offset or a 400 naming the field, on every search endpoint; never a 500.
 */
describe('search: date and datetime filter values', () => {
  let seller: Seller;
  let saved: Config;
  let stockId: number;
  before(async () => {
    saved = config();
    setConfig({ ...saved, orderSearchMinAgeSeconds: 0 });
    seller = await newSeller();
    const created = await call('stock/', { token: seller.token, body: { stock: { name: 'Enamel mug', quantity: 2 } } });
    expect(created.status, created.text).to.equal(201);
    stockId = Number(created.body.stock_id);
    await createOrder(seller, { status: { is_paid: true }, customer: { id: 'C-1', email: 'anna@shop.example' } });
  });
  after(() => setConfig(saved));

  const get = (path: string) => call(path, { token: seller.token });
  const after_ = (field: string, value: string) => `filter[${field}][operator]=%3E&filter[${field}][value]=${encodeURIComponent(value)}`;

  // Each search with a datetime filter field, and the field a 400 names.
  const datetimeSearches = (value: string): [string, string][] => [
    [`stock/?${after_('created_date', value)}`, 'filter.created_date.value'],
    [`admin/customer/?${after_('date', value)}`, 'filter.date.value'],
    [`stock/history/?${after_('movement_date', value)}`, 'filter.movement_date.value'],
    [`stock/${stockId}/history/?${after_('movement_date', value)}`, 'filter.movement_date.value'],
    [`bank/transfer/?filter[date][from]=${encodeURIComponent(value)}`, 'filter.date.from'],
    [`bank/payment_provider/?filter[date][to]=${encodeURIComponent(value)}`, 'filter.date.to'],
  ];

  it('when a datetime filter has an offset of hours only or a zone name, then 400 names the field (the forms a body datetime takes), not 500', async () => {
    for (const value of ['2026-11-01 10:00:00+01', '2026-11-01 10:00:00 UTC', '2026-11-01T10:00:00 GMT+0100', '2026-11-01T10:00:61Z']) {
      for (const [path, field] of datetimeSearches(value)) {
        const res = await get(path);
        expect(res.status, `${path}: ${res.text}`).to.equal(400);
        expect(res.body.error![0], path).to.include({ error: 'invalid_field', field });
      }
    }
  });

  it('when a date or datetime filter names a year PostgreSQL does not hold (0000, or past 9999 by its offset), then 400 names the field, not 500', async () => {
    for (const value of ['0000-12-31', '0001-01-01T00:30:00+01:00', '9999-12-31T23:00:00-14:00']) {
      for (const [path, field] of datetimeSearches(value)) {
        const res = await get(path);
        expect(res.status, `${path}: ${res.text}`).to.equal(400);
        expect(res.body.error![0], path).to.include({ field });
      }
    }
    const paid = await get('order/?filter[status][paid_date][operator]=%3E&filter[status][paid_date][value]=0000-12-31');
    expect(paid.status, paid.text).to.equal(400);
    expect(paid.body.error![0]).to.include({ field: 'filter.status.paid_date.value' });
  });

  it('when a datetime filter carries an offset in any form a body takes, then the instant it names is compared', async () => {
    const created = new Date(((await get(`stock/${stockId}/`)).body.stock as { created_date?: string; modified_date?: string }).modified_date ?? Date.now());
    // The same instants an hour ahead, written in +01:00 three ways, and with a space before the offset.
    const inBerlin = (at: Date) => new Date(at.getTime() + 3600000).toISOString().slice(0, 19);
    const before = new Date(created.getTime() - 60000);
    const later = new Date(created.getTime() + 60000);
    for (const zone of ['+01:00', '+0100', ' +01:00']) {
      const hit = await get(`stock/?select[id]=&${after_('created_date', `${inBerlin(before).replace('T', ' ')}${zone}`)}`);
      expect(hit.status, hit.text).to.equal(200);
      expect(
        (hit.body.stock as { id: string }[]).map((s) => Number(s.id)),
        zone,
      ).to.deep.equal([stockId]);
      const miss = await get(`stock/?select[id]=&${after_('created_date', `${inBerlin(later)}${zone}`)}`);
      expect(miss.status, miss.text).to.equal(200);
      expect(miss.body.stock, zone).to.deep.equal([]);
    }
  });
});
