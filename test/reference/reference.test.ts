import { expect } from 'chai';
import { XMLValidator } from 'fast-xml-parser';
import { scopes } from '../../lib/access/scopes';
import { call, newSeller, query, Seller } from '../support/api';

describe('reference data (system/*)', () => {
  let seller: Seller;
  before(async () => {
    seller = await newSeller();
  });

  it('when payment methods are read, then every own id of document 2 is there with name, is_prepaid and placeholder', async () => {
    const res = await call('system/payment_method/', { token: seller.token });
    expect(res.status).to.equal(200);
    const methods = res.body.payment_method as { id: string; name: string; is_prepaid: boolean; placeholder: string }[];
    const ids = methods.map((m) => m.id);
    for (const id of ['COD', 'Prepayment', 'OnAccount', 'CCAccepted', 'CashOnPickup', 'Escrow', 'Debit', 'Check', 'MoneyXferAccepted', 'factoring']) {
      expect(ids).to.include(id);
    }
    const cod = methods.find((m) => m.id === 'COD')!;
    expect(cod).to.have.keys('id', 'name', 'is_prepaid', 'placeholder');
    expect(cod.is_prepaid).to.equal(false);
    expect(methods.find((m) => m.id === 'CCAccepted')!.is_prepaid).to.equal(true);
  });

  it('when stock conditions are read, then they run from 100 new to 1000 refurbished', async () => {
    const res = await call('system/stock/condition/', { token: seller.token });
    expect(res.status).to.equal(200);
    const conditions = res.body.condition as { id: number; description: string }[];
    expect(conditions.map((c) => c.id)).to.deep.equal([100, 200, 300, 400, 500, 600, 700, 800, 900, 1000]);
    expect(conditions[0]).to.deep.equal({ id: 100, description: 'New' });
    expect(conditions[9]!.description).to.equal('Refurbished');
  });

  it('when description icons are read, then portal markers and a flag per country are listed', async () => {
    const res = await call('system/stock/description/icon/', { token: seller.token });
    expect(res.status).to.equal(200);
    const icons = res.body.icon_id as string[];
    expect(icons).to.include.members(['portal_market_d', 'flag_de', 'flag_fr', 'flag_us']);
    expect(icons.length).to.be.greaterThan(240);
  });

  it('when global categories of a platform are read, then the taxonomy answers with pagination and filters', async () => {
    const roots = await call(`system/stock/category/?${query({ filter: { platform: 'auction_a', parent_id: '0' }, pagination: { limit: 50 } })}`, {
      token: seller.token,
    });
    expect(roots.status).to.equal(200);
    const items = roots.body.category as { platform: string; id: string; name: string; parent_id: string }[];
    expect(items.length).to.be.within(15, 50);
    expect(items).to.deep.include({ platform: 'auction_a', id: '1', name: 'Animals & Pet Supplies', parent_id: '0' });

    const children = await call(`system/stock/category/?${query({ filter: { platform: 'market_e', parent_id: '1' } })}`, { token: seller.token });
    expect((children.body.category as { name: string }[]).map((c) => c.name)).to.include.members(['Live Animals', 'Pet Supplies']);

    const byName = await call(`system/stock/category/?${query({ filter: { platform: 'auction_b', name: { operator: '~', value: ['dog*'] } } })}`, {
      token: seller.token,
    });
    expect((byName.body.category as { name: string }[]).length).to.be.greaterThan(0);
    for (const c of byName.body.category as { name: string }[]) expect(c.name.toLowerCase()).to.match(/^dog/);

    const page1 = await call(`system/stock/category/?${query({ filter: { platform: 'market_c' }, pagination: { limit: 200, min_id: '1' } })}`, {
      token: seller.token,
    });
    expect(page1.body.category as unknown[]).to.have.length(200);
    expect(page1.body.next_min_id).to.be.a('string');
  });

  it('when global categories are read without a platform or with an own or unknown one, then 400 names filter.platform', async () => {
    for (const filter of [{}, { filter: { platform: 'shop_g' } }, { filter: { platform: 'nowhere' } }, { filter: { platform: ['auction_a', 'auction_b'] } }]) {
      const res = await call(`system/stock/category/?${query(filter)}`, { token: seller.token });
      expect(res.status, JSON.stringify(filter)).to.equal(400);
      expect(res.body.error![0]!.field).to.equal('filter.platform');
    }
  });

  it('when scopes are read, then every scope the service checks is listed with title and description', async () => {
    const res = await call('system/scope/', { token: seller.token });
    expect(res.status).to.equal(200);
    const list = res.body.scope as { id: string; title: string; description: string }[];
    expect(list.map((s) => s.id).sort()).to.deep.equal(Object.keys(scopes).sort());
    for (const s of list) expect(s.title).to.be.a('string').and.not.equal('');
    expect(list.find((s) => s.id === 'email_r')!.description).to.match(/email/);
  });

  it('when a first name is looked up worldwide or with a country, then the most probable gender and its probability answer', async () => {
    const mary = await call('system/gender/Mary/', { token: seller.token });
    expect(mary.status).to.equal(200);
    expect(mary.body.gender).to.deep.include({ id: 'Mary', name: 'Mary', country_iso2: '', gender: 'female' });
    expect((mary.body.gender as { probability: number }).probability).to.be.within(99, 100);

    const peter = await call('system/gender/peter_US/', { token: seller.token });
    expect(peter.body.gender).to.deep.include({ id: 'peter_US', name: 'Peter', country_iso2: 'US', gender: 'male' });

    const kim = await call('system/gender/Kim/', { token: seller.token });
    expect((kim.body.gender as { probability: number }).probability).to.be.within(60, 95);
  });

  it('when a first name is looked up for a country without statistics, then the worldwide figures answer with a warning', async () => {
    const res = await call('system/gender/Peter_DE/', { token: seller.token });
    expect(res.status).to.equal(200);
    expect(res.body.ack).to.equal('warning');
    expect(res.body.warning![0]!.warning).to.equal('country_not_covered');
    expect(res.body.gender).to.deep.include({ country_iso2: '', gender: 'male' });
  });

  it('when an unknown first name is looked up, then 404', async () => {
    const res = await call('system/gender/Xqzzyv/', { token: seller.token });
    expect(res.status).to.equal(404);
    expect(res.body.error![0]!.error).to.equal('not_found');
  });

  it('when event types, actions and conditions are read, then the notification action answers order created', async () => {
    const types = await call('system/event/type/', { token: seller.token });
    expect(types.body.event_type).to.deep.include({ section: 'order', type: 'created' });
    expect(types.body.event_type).to.deep.include({ section: 'customer', type: 'created' });
    expect(types.body.event_type).to.deep.include({ section: 'stock', type: 'cia' });

    const actions = await call('system/event/action/', { token: seller.token });
    const notification = (actions.body.event_action as { section: string; action: string; type: string[]; required: Record<string, unknown> }[]).find(
      (a) => a.section === 'order' && a.action === 'notification',
    )!;
    expect(notification.type).to.include('created');
    expect(notification.required).to.have.keys('url', 'format', 'target_name');
    expect(notification.required.format).to.have.key('post');

    const conditions = await call('system/event/condition/', { token: seller.token });
    expect(conditions.body.event_condition).to.deep.include({ section: 'order', field: 'platform', operator: ['=', '!='] });
  });

  it('when event types and actions are read, then order paid_in_full is listed beside paid and every order action responds to it', async () => {
    const types = await call('system/event/type/', { token: seller.token });
    expect(types.status).to.equal(200);
    expect(types.body.event_type).to.deep.include({ section: 'order', type: 'paid' });
    expect(types.body.event_type).to.deep.include({ section: 'order', type: 'paid_in_full' });
    const actions = await call('system/event/action/', { token: seller.token });
    const order = (actions.body.event_action as { section: string; action: string; type: string[] }[]).filter((a) => a.section === 'order');
    expect(order.map((a) => a.action).sort()).to.deep.equal(['mail', 'notification', 'order_flag', 'task']);
    for (const action of order) expect(action.type, action.action).to.include('paid_in_full');
  });

  it('when the event lists are read as XML, then the answer is well-formed XML', async () => {
    for (const path of ['system/event/type/', 'system/event/action/', 'system/event/condition/', 'system/stock/description/icon/']) {
      const res = await call(path, { token: seller.token, headers: { Accept: 'application/xml' } });
      expect(res.status).to.equal(200);
      expect(XMLValidator.validate(res.text), path).to.equal(true);
    }
  });

  it('when reference data is read without a token, then 401', async () => {
    const res = await call('system/scope/');
    expect(res.status).to.equal(401);
  });
});
