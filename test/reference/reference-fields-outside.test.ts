/**
 * The system types of document 2 field by field, as a tester holding only documents 1 and 2
 * meets them: System_currency_type, Payment_method_type (the own ids listed), Stock_condition_type
 * (the default ids), System_country_type with Country_filter_type and pagination defaults,
 * System_gender_type, System_scope_type and the three event types; JSON types and XML values.
 */
import { expect } from 'chai';
import { call, newSeller, query, Seller } from '../support/api';

let seller: Seller;
const xml = { Accept: 'application/xml' };

async function read(path: string): Promise<Record<string, unknown>> {
  const res = await call(path, { token: seller.token });
  expect(res.status, `${path}: ${res.text}`).to.equal(200);
  return res.body as Record<string, unknown>;
}

describe('system types against document 2 (fields, tried from outside)', () => {
  before(async () => {
    seller = await newSeller();
  });

  it('when currencies are read, then internal_id is an integer, id three uppercase letters, and EUR has internal id 0', async () => {
    const { currency } = (await read('system/currency/')) as { currency: { internal_id: unknown; id: unknown }[] };
    expect(currency.length).to.be.greaterThan(100);
    for (const c of currency) {
      expect(Object.keys(c)).to.deep.equal(['internal_id', 'id']);
      expect(c.internal_id).to.be.a('number');
      expect(c.id).to.match(/^[A-Z]{3}$/);
    }
    expect(currency[0]).to.deep.equal({ internal_id: 0, id: 'EUR' });
    const one = await call('system/currency/CHF/', { token: seller.token, headers: xml });
    const chf = currency.find((c) => c.id === 'CHF')!;
    expect(one.text).to.include(`<currency><internal_id>${String(chf.internal_id)}</internal_id><id>CHF</id></currency>`);
    expect((await call('system/currency/EURO/', { token: seller.token })).status).to.equal(404);
  });

  it('when a seller in Curaçao uses ISO 4217 List One as amended (XCG from 2025-03-31, XAD from 2025-05-12), then both are currencies and an order in XCG is taken', async () => {
    const { currency } = (await read('system/currency/')) as { currency: { internal_id: number; id: string }[] };
    for (const id of ['XCG', 'XAD']) {
      const listed = currency.filter((c) => c.id === id);
      expect(listed, id).to.have.length(1);
      expect(await read(`system/currency/${id}/`)).to.deep.equal({ ack: 'success', currency: listed[0] });
    }
    expect(new Set(currency.map((c) => c.internal_id)).size).to.equal(currency.length);

    const created = await call('order/', {
      token: seller.token,
      body: { order: { currency_id: 'XCG', customer: { email: 'cw@example.com' }, line: [{ id: 1, price: '17.90' }] } },
    });
    expect(created.status, created.text).to.equal(201);
    const order = (await read(`order/${created.body.order_id as string}/`)).order as { currency_id: string; invoice_amount: string };
    expect(order).to.deep.include({ currency_id: 'XCG', invoice_amount: '17.90' });
  });

  it('when payment methods are read, then every own id of document 2 is there with a string name, a bool is_prepaid and a string placeholder', async () => {
    const { payment_method: methods } = (await read('system/payment_method/')) as { payment_method: Record<string, unknown>[] };
    const own = ['COD', 'Prepayment', 'OnAccount', 'CCAccepted', 'CashOnPickup', 'Escrow', 'Debit', 'Check', 'MoneyXferAccepted', 'factoring'];
    expect(methods.map((m) => m.id)).to.include.members(own);
    for (const m of methods) {
      expect(Object.keys(m).sort()).to.deep.equal(['id', 'is_prepaid', 'name', 'placeholder']);
      expect(m.name).to.be.a('string').that.is.not.equal('');
      expect(m.is_prepaid).to.be.a('boolean');
      expect(m.placeholder).to.be.a('string');
    }
    const inXml = await call('system/payment_method/', { token: seller.token, headers: xml });
    expect(inXml.text).to.match(/<payment_method><id>COD<\/id><name>[^<]+<\/name><is_prepaid>(true|false)<\/is_prepaid>/);
  });

  it('when stock conditions are read, then the default ids of document 2 are integers with a description each', async () => {
    const { condition } = (await read('system/stock/condition/')) as { condition: { id: unknown; description: unknown }[] };
    expect(condition.map((c) => c.id)).to.deep.equal([100, 200, 300, 400, 500, 600, 700, 800, 900, 1000]);
    for (const c of condition) expect(c.description).to.be.a('string').that.is.not.equal('');
    expect(condition.find((c) => c.id === 100)!.description).to.match(/new/i);
    expect(condition.find((c) => c.id === 1000)!.description).to.match(/refurbished/i);
  });

  it('when a country is read, then its fields have the types of document 2 in JSON and XML, and select names only what it asks', async () => {
    const { country } = (await read('system/country/AT/')) as { country: Record<string, unknown> };
    expect(country).to.deep.include({ id: 'AT', iso3: 'AUT', is_europe: true, is_eu: true });
    const names = country.name as Record<string, unknown>;
    expect(Object.keys(names).sort()).to.deep.equal(['de', 'en', 'other']);
    expect(names.de).to.deep.include('Österreich');
    expect(names.en).to.deep.include('Austria');
    expect(names.other).to.be.an('array');
    const swiss = ((await read('system/country/CH/')) as { country: Record<string, unknown> }).country;
    expect(swiss).to.deep.include({ is_europe: true, is_eu: false });

    const inXml = await call('system/country/AT/', { token: seller.token, headers: xml });
    expect(inXml.text).to.include('<id>AT</id><iso3>AUT</iso3><name><de>Österreich</de>');
    expect(inXml.text).to.include('<is_europe>true</is_europe><is_eu>true</is_eu>');

    const selected = await read(`system/country/AT/?${query({ select: { iso3: 1, name: { en: 1 } } })}`);
    expect(selected.country).to.deep.equal({ id: 'AT', iso3: 'AUT', name: { en: names.en } });
    expect((await call('system/country/AUT/', { token: seller.token })).status).to.equal(404);
  });

  it('when countries are searched, then values of one filter are ORed, filters ANDed, bools checked, and pages default to 20', async () => {
    const or = await read(`system/country/?${query({ filter: { iso2: { 0: { value: { 0: 'DE', 1: 'CH', 2: 'FR' } } }, is_eu: 1 } })}`);
    expect((or.country as { id: string }[]).map((c) => c.id)).to.deep.equal(['DE', 'FR']);
    const iso3 = await read(`system/country/?${query({ filter: { iso3: { 0: { value: 'NO*', operator: '~' } } } })}`);
    expect((iso3.country as { id: string }[]).map((c) => c.id)).to.deep.equal(['NO']);
    const byName = await read(`system/country/?${query({ filter: { name: { 0: { value: 'Schweiz' } } } })}`);
    expect((byName.country as { id: string }[]).map((c) => c.id)).to.deep.equal(['CH']);
    const outside = await read(`system/country/?${query({ filter: { is_europe: 0, iso2: { 0: { value: { 0: 'US', 1: 'AT' } } } } })}`);
    expect((outside.country as { id: string }[]).map((c) => c.id)).to.deep.equal(['US']);

    const bad = await call(`system/country/?${query({ filter: { is_eu: 'maybe' } })}`, { token: seller.token });
    expect(bad.status).to.equal(400);
    expect(bad.body.error!.map((e) => e.field)).to.deep.equal(['filter.is_eu']);

    const first = await read('system/country/');
    expect(first.country).to.have.length(20);
    expect((await read('system/country/?pagination[page]=0')).country).to.deep.equal(first.country);
    expect((await read('system/country/?pagination[page]=1&pagination[limit]=20')).country).to.deep.equal(first.country);
    const tooMany = await call('system/country/?pagination[limit]=201', { token: seller.token });
    expect(tooMany.status).to.equal(400);
  });

  it('when a first name, the scopes and the event types are read, then their fields have the types of document 2', async () => {
    const { gender } = (await read('system/gender/Maria/')) as { gender: Record<string, unknown> };
    expect(Object.keys(gender).sort()).to.deep.equal(['country_iso2', 'gender', 'id', 'name', 'probability']);
    expect(gender).to.deep.include({ id: 'Maria', name: 'Maria', gender: 'female' });
    expect(gender.probability).to.be.a('number').and.satisfy(Number.isInteger).and.within(0, 100);
    expect(gender.country_iso2).to.be.a('string').with.length.below(3);

    const { scope } = (await read('system/scope/')) as { scope: Record<string, unknown>[] };
    expect(scope.map((s) => s.id)).to.include.members(['email_r', 'account_address_r']);
    for (const s of scope) {
      expect(Object.keys(s).sort()).to.deep.equal(['description', 'id', 'title']);
      for (const v of Object.values(s)) expect(v).to.be.a('string').that.is.not.equal('');
    }

    const { event_type: types } = (await read('system/event/type/')) as { event_type: Record<string, unknown>[] };
    for (const t of types) {
      expect(Object.keys(t).sort()).to.deep.equal(['section', 'type']);
      expect(t.section).to.be.a('string');
      expect(t.type).to.be.a('string');
    }
    const { event_action: actions } = (await read('system/event/action/')) as { event_action: Record<string, unknown>[] };
    for (const a of actions) {
      expect(a.section).to.be.a('string');
      expect(a.action).to.be.a('string');
      expect(a.type).to.be.an('array').with.length.above(0);
      for (const t of a.type as string[]) expect(types).to.deep.include({ section: a.section, type: t });
      expect(a.required).to.be.an('object');
    }
    const { event_condition: conditions } = (await read('system/event/condition/')) as { event_condition: Record<string, unknown>[] };
    for (const c of conditions) {
      expect(Object.keys(c).sort()).to.deep.equal(['field', 'operator', 'section']);
      expect(c.operator).to.be.an('array').with.length.above(0);
    }
  });
});
