/**
 * Document 2's administration types field by field, as a tester holding only documents 1 and 2
 * meets them: Admin_shipping_group_type (prices decimal(8,2)), Admin_user_type (R fields, settings
 * mixed R/W, scope-dependent fields), Admin_person_type, Admin_portal_account_type and
 * Admin_event_handler_type, each read in JSON and in XML.
 */
import { expect } from 'chai';
import { call, newSeller } from '../support/api';
import { clientToken } from '../support/bound-client';
import { kontor } from '../support/cli';
import { setAccountAddress } from '../../lib/account';

const xml = { Accept: 'application/xml' };

/** The text of each <name> element of an XML answer, in order. */
function xmlValues(text: string, name: string): string[] {
  return [...text.matchAll(new RegExp(`<${name}>([^<]*)</${name}>`, 'g'))].map((m) => m[1]!);
}

describe('administration types against document 2 (fields, tried from outside)', () => {
  it('when a shipping group price is past decimal(8,2), then support is refused naming the field and nothing is created; 999999.99 is kept to the cent', async () => {
    const seller = await newSeller();
    // 999999.999 has 6 digits before the point but rounds to 1000000.00.
    for (const [option, field] of [
      [['--price-first', '1000000'], 'price.first'],
      [['--price-first', '999999.999'], 'price.first'],
      [['--price-more', '1000000'], 'price.more'],
      [['--cash-surcharge=-1000000'], 'cash_surcharge'],
    ] as const) {
      const res = await kontor('shipping-group', 'create', '--login', seller.login, '--name', 'Too dear', ...option);
      expect(res.code, `${option.join(' ')}: ${res.out}`).to.equal(1);
      expect(res.err.split('\n').filter(Boolean), res.err).to.have.length(1);
      expect(res.err).to.include(field);
    }
    const none = await call('admin/shipping_group/', { token: seller.token });
    expect(none.body.shipping_group).to.deep.equal([]);

    const res = await kontor(
      'shipping-group',
      'create',
      '--login',
      seller.login,
      '--name',
      'Freight',
      '--price-first',
      '999999.99',
      '--price-more',
      '0.5',
      '--cash-surcharge',
      '999999.994',
    );
    expect(res.code, res.err).to.equal(0);
    const { id } = JSON.parse(res.out) as { id: number };
    const one = await call(`admin/shipping_group/${id}/`, { token: seller.token });
    expect(one.body.shipping_group).to.deep.include({
      id,
      price: { first: '999999.99', more: '0.50' },
      cash_surcharge: '999999.99',
      portal_account_id: 0,
      currency: 'EUR',
    });
    const inXml = await call(`admin/shipping_group/${id}/`, { token: seller.token, headers: xml });
    expect(xmlValues(inXml.text, 'first')).to.deep.equal(['999999.99']);
    expect(xmlValues(inXml.text, 'worldwide')).to.deep.equal(['false']);
  });

  it('when Admin_user_type is read, then its types are those of document 2 in JSON and XML, and R fields posted are ignored with a warning each', async () => {
    const seller = await newSeller();
    const before = await call('admin/user/', { token: seller.token });
    expect(before.status).to.equal(200);
    const user = before.body.user as Record<string, unknown>;
    expect(user.id).to.be.a('number');
    expect(user.scope).to.be.an('array').that.includes('admin_r');
    expect(user.created).to.match(/^\d{4}-\d{2}-\d{2}$/);
    expect(user.is_banking_active).to.be.a('boolean');
    expect(user.email).to.be.a('string');
    // Order_address_type: all nine fields, '' without value (as email), for an account support gave no address.
    const empty = { name: '', name_2: '', street: '', street_2: '', zip: '', city: '', province: '', country: '', country_iso2: '' };
    expect(user.address).to.deep.equal(empty);

    const posted = await call('admin/user/', {
      token: seller.token,
      body: {
        user: {
          id: 999,
          scope: ['stock_r'],
          created: '2001-01-01',
          is_banking_active: true,
          email: 'x@example.com',
          address: { name: 'Other Ltd' },
          settings: { colour: 'blue', rows: 50, wide: true },
        },
      },
    });
    expect(posted.status, posted.text).to.equal(200);
    expect(posted.body.ack).to.equal('warning');
    expect(posted.body.warning!.map((w) => `${w.warning} ${w.field}`).sort()).to.deep.equal(
      ['user.address', 'user.created', 'user.email', 'user.id', 'user.is_banking_active', 'user.scope'].map((f) => `read_only_field ${f}`),
    );
    const after = await call('admin/user/', { token: seller.token });
    expect(after.body.user).to.deep.equal({ ...user, settings: { colour: 'blue', rows: 50, wide: true } });

    const scalar = await call('admin/user/', { token: seller.token, body: { user: { settings: 'blue' } } });
    expect(scalar.status).to.equal(400);
    expect(scalar.body.error!.map((e) => e.field)).to.deep.equal(['user.settings']);
    expect((await call('admin/user/', { token: seller.token })).body.user).to.deep.equal(after.body.user);

    const inXml = await call('admin/user/', { token: seller.token, headers: xml });
    expect(xmlValues(inXml.text, 'id')).to.deep.equal([String(user.id)]);
    expect(xmlValues(inXml.text, 'is_banking_active')).to.deep.equal([String(user.is_banking_active)]);
    expect(xmlValues(inXml.text, 'created')).to.deep.equal([user.created]);
    expect(xmlValues(inXml.text, 'scope')).to.deep.equal(user.scope);
    expect(xmlValues(inXml.text, 'rows')).to.deep.equal(['50']);
    expect(/<address>.*<\/address>/s.exec(inXml.text)?.[0]).to.equal(
      '<address><name/><name_2/><street/><street_2/><zip/><city/><province/><country/><country_iso2/></address>',
    );

    // An address support set with some fields reads with the others ''.
    await setAccountAddress(seller.id, { name: 'Berg Handel GmbH', city: 'Berlin', country_iso2: 'DE' });
    expect((await call('admin/user/', { token: seller.token })).body.user).to.have.deep.property('address', {
      ...empty,
      name: 'Berg Handel GmbH',
      city: 'Berlin',
      country_iso2: 'DE',
    });
  });

  it('when a client grows settings past 65536 bytes of JSON, in one POST or key by key, then 400 names user.settings and the stored settings stay; smaller keys are still taken', async () => {
    const seller = await newSeller();
    const settingsNow = async () => ((await call('admin/user/', { token: seller.token })).body.user as { settings: unknown }).settings;
    const tooMuch = await call('admin/user/', { token: seller.token, body: { user: { settings: { cache: 'x'.repeat(70000) } } } });
    expect(tooMuch.status, tooMuch.text).to.equal(400);
    expect(tooMuch.body.error!.map((e) => `${e.error} ${e.field}`)).to.deep.equal(['invalid_field user.settings']);
    expect(await settingsNow()).to.deep.equal({});

    const first = await call('admin/user/', { token: seller.token, body: { user: { settings: { a: 'x'.repeat(40000) } } } });
    expect(first.status, first.text).to.equal(200);
    const second = await call('admin/user/', { token: seller.token, body: { user: { settings: { b: 'y'.repeat(40000) } } } });
    expect(second.status, second.text).to.equal(400);
    expect(second.body.error!.map((e) => e.field)).to.deep.equal(['user.settings']);
    expect(await settingsNow()).to.deep.equal({ a: 'x'.repeat(40000) });

    const replaced = await call('admin/user/', { token: seller.token, body: { user: { settings: { a: 'short', b: 'y'.repeat(40000) } } } });
    expect(replaced.status, replaced.text).to.equal(200);
    expect(await settingsNow()).to.deep.equal({ a: 'short', b: 'y'.repeat(40000) });
  });

  it('when Admin_person_type and Admin_portal_account_type are read, then id is an integer, is_default a bool and name a string, in JSON and XML', async () => {
    const seller = await newSeller();
    const persons = await call('admin/person/', { token: seller.token });
    expect(persons.body.person).to.deep.equal([{ id: (persons.body.person as { id: number }[])[0]!.id, name: seller.login }]);
    expect((persons.body.person as { id: unknown }[])[0]!.id).to.be.a('number');
    const accounts = await call('admin/portal_account/', { token: seller.token });
    expect(accounts.body.portal_account).to.deep.equal([{ id: seller.portalAccountId, is_default: true, name: seller.login }]);
    const byDefault = await call('admin/portal_account/default/', { token: seller.token, headers: xml });
    expect(xmlValues(byDefault.text, 'id')).to.deep.equal([String(seller.portalAccountId)]);
    expect(xmlValues(byDefault.text, 'is_default')).to.deep.equal(['true']);

    const long = await kontor('portal-account', 'create', '--login', seller.login, '--name', 'n'.repeat(256));
    expect(long.code).to.equal(1);
    expect(long.err).to.include('name');
    expect((await call('admin/portal_account/', { token: seller.token })).body.portal_account).to.have.length(1);
  });

  it('when a client bound to a second portal account reads the portal accounts, then it sees that one alone as the default of its access, the default word names it, and the other answers 404', async () => {
    const seller = await newSeller();
    const second = await kontor('portal-account', 'create', '--login', seller.login, '--name', 'Second shop');
    expect(second.code, second.err).to.equal(0);
    const p2 = (JSON.parse(second.out) as { id: number }).id;
    const token = await clientToken(seller, `bound-${p2}`, p2, 'admin_r customer_r');
    const own = { id: p2, is_default: true, name: 'Second shop' };

    expect((await call('admin/portal_account/', { token })).body).to.deep.equal({ ack: 'success', portal_account: [own] });
    expect((await call('admin/portal_account/default/', { token })).body).to.deep.equal({ ack: 'success', portal_account: own });
    expect((await call(`admin/portal_account/${p2}/`, { token })).body).to.deep.equal({ ack: 'success', portal_account: own });
    const other = await call(`admin/portal_account/${seller.portalAccountId}/`, { token });
    expect(other.status, other.text).to.equal(404);
    expect(other.body.error!.map((e) => `${e.error} ${e.field}`)).to.deep.equal(['not_found portal_account_id']);
    // The word default in any request is the same account: its requests work in it.
    const byWord = await call('admin/customer/?portal_account_id=default', { token });
    expect(byWord.status, byWord.text).to.equal(200);

    // The seller's own token still sees every portal account, its default marked.
    expect((await call('admin/portal_account/', { token: seller.token })).body.portal_account).to.deep.equal([
      { id: seller.portalAccountId, is_default: true, name: seller.login },
      { id: p2, is_default: false, name: 'Second shop' },
    ]);
    expect((await call('admin/portal_account/default/', { token: seller.token })).body.portal_account).to.deep.include({ id: seller.portalAccountId });
  });

  it('when support names a shipping group or a portal account with 255 characters outside the BMP, then they are taken (a name counts characters, as varchar(255) does), and 256 are refused naming name', async () => {
    const seller = await newSeller();
    // U+1F69A is one character and two UTF-16 code units.
    const truck = (n: number) => '\u{1F69A}'.repeat(n);
    const group = await kontor('shipping-group', 'create', '--login', seller.login, '--name', truck(255), '--price-first', '4.90');
    expect(group.code, group.err).to.equal(0);
    const { id } = JSON.parse(group.out) as { id: number };
    expect((await call(`admin/shipping_group/${id}/`, { token: seller.token })).body.shipping_group).to.deep.include({ name: truck(255) });
    const account = await kontor('portal-account', 'create', '--login', seller.login, '--name', truck(255));
    expect(account.code, account.err).to.equal(0);
    const names = ((await call('admin/portal_account/', { token: seller.token })).body.portal_account as { name: string }[]).map((a) => a.name);
    expect(names).to.include(truck(255));
    for (const args of [
      ['shipping-group', 'create', '--login', seller.login, '--name', truck(256), '--price-first', '4.90'],
      ['portal-account', 'create', '--login', seller.login, '--name', truck(256)],
    ]) {
      const refused = await kontor(...args);
      expect(refused.code, args[0]).to.equal(1);
      expect(refused.err, args[0]).to.include('name');
    }
    expect((await call('admin/shipping_group/', { token: seller.token })).body.shipping_group).to.have.length(1);
    expect((await call('admin/portal_account/', { token: seller.token })).body.portal_account).to.have.length(2);
  });

  it('when an event handler is posted with its R fields and one condition too many, then the R fields are ignored with a warning and the second condition refused naming the field', async () => {
    const seller = await newSeller();
    const action = { id: 'mail', required: { to: '{customer.email}', subject: 'Paid', template: 'Thank you' } };
    const two = await call('admin/event/handler/', {
      token: seller.token,
      body: {
        event_handler: {
          type: { id: 'paid' },
          section: 'order',
          action,
          condition: [
            { field: 'platform', operator: '=', value: 'auction_a' },
            { field: 'currency_id', operator: '=', value: 'EUR' },
          ],
        },
      },
    });
    expect(two.status).to.equal(400);
    expect(two.body.error!.map((e) => e.field)).to.deep.equal(['event_handler.condition']);
    expect((await call('admin/event/handler/', { token: seller.token })).body.event_handler).to.deep.equal([]);

    const created = await call('admin/event/handler/', {
      token: seller.token,
      body: {
        event_handler: {
          id: 77,
          modified: '2001-01-01 00:00:00',
          is_active: false,
          type: { id: 'paid' },
          section: 'order',
          action,
          condition: [{ field: 'invoice_amount', operator: '>', value: '100' }],
        },
      },
    });
    expect(created.status, created.text).to.equal(201);
    expect(created.body.warning!.map((w) => w.field).sort()).to.deep.equal(['event_handler.id', 'event_handler.is_active', 'event_handler.modified']);
    const id = created.body.event_handler_id as number;
    expect(id).to.be.a('number').and.not.equal(77);
    const one = await call(`admin/event/handler/${id}/`, { token: seller.token });
    const handler = one.body.event_handler as Record<string, unknown>;
    expect(handler).to.deep.include({
      id,
      type: { id: 'paid' },
      section: 'order',
      action,
      condition: [{ field: 'invoice_amount', operator: '>', value: '100' }],
      is_active: true,
    });
    expect(handler.modified).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    expect(handler.modified).to.not.match(/^2001/);
  });
});
