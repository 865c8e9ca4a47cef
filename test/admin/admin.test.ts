import { expect } from 'chai';
import { createPerson } from '../../lib/admin/person.service';
import { createShippingGroup } from '../../lib/admin/shipping-group.service';
import { call, newSeller, tokenFor } from '../support/api';
import { kontor, kontorWithInput } from '../support/cli';
import { db } from '../../lib/db/knex';

describe('administration: persons, shipping groups, portal accounts, user', () => {
  it('when support creates a person with kontor, then admin/person/ lists it for that seller only', async () => {
    const seller = await newSeller();
    const other = await newSeller();
    const res = await kontor('person', 'create', '--login', seller.login, '--name', 'Anna Packer');
    expect(res.code, res.err).to.equal(0);
    const created = JSON.parse(res.out) as { id: number; name: string };
    expect(created.name).to.equal('Anna Packer');

    // Each account also lists its own user (issue 11.3), named after its login.
    const list = await call('admin/person/', { token: seller.token });
    expect(list.status).to.equal(200);
    const names = (list.body.person as { id: number; name: string }[]).map((p) => p.name);
    expect(names).to.deep.equal([seller.login, 'Anna Packer']);
    expect(list.body.person).to.deep.include({ id: created.id, name: 'Anna Packer' });
    const foreign = await call('admin/person/', { token: other.token });
    expect((foreign.body.person as { name: string }[]).map((p) => p.name)).to.deep.equal([other.login]);
  });

  it('when support creates a seller with kontor user create, then its admin/person/ lists its own user at once', async () => {
    const login = `cli_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
    const res = await kontor('user', 'create', '--login', login, '--password', 'a-long-password');
    expect(res.code, res.err).to.equal(0);
    const list = await call('admin/person/', { token: await tokenFor(login, 'a-long-password') });
    expect(list.status).to.equal(200);
    expect((list.body.person as { name: string }[]).map((p) => p.name)).to.deep.equal([login]);
  });

  it('when kontor gets a bad or missing argument, then it prints one line and exits 1', async () => {
    const seller = await newSeller();
    const missing = await kontor('person', 'create', '--login', seller.login);
    expect(missing.code).to.equal(1);
    expect(missing.err.trim()).to.equal('kontor: --name is required');
    const unknown = await kontor('person', 'create', '--login', 'nobody_here_at_all', '--name', 'X');
    expect(unknown.code).to.equal(1);
    expect(unknown.err).to.match(/^kontor: --login: no seller account/);
    const badCurrency = await kontor('shipping-group', 'create', '--login', seller.login, '--name', 'G', '--currency', 'XXQ');
    expect(badCurrency.code).to.equal(1);
    expect(badCurrency.err.split('\n').filter(Boolean)).to.have.length(1);
    expect(badCurrency.err).to.match(/currency/);
  });

  it('when kontor is asked for help, then it lists every command one a line on standard output and exits 0; an unknown command is one line pointing to --help, exit 1', async () => {
    for (const ask of [['--help'], ['help'], ['user', 'create', '-h']]) {
      const help = await kontor(...ask);
      expect(help.code, ask.join(' ')).to.equal(0);
      expect(help.err, ask.join(' ')).to.equal('');
      const lines = help.out.trimEnd().split('\n');
      expect(lines[0]).to.equal('usage:');
      expect(lines).to.include.members(['  kontor migrate', '  kontor bank import --login L FILE', '  kontor user disable --login L']);
      // Continuation lines aside, a line names one command: no "| kontor" joining two.
      expect(lines.filter((l) => l.includes('| kontor'))).to.deep.equal([]);
      expect(Math.max(...lines.map((l) => l.length))).to.be.below(140);
    }
    const unknown = await kontor('stock', 'frobnicate');
    expect(unknown.code).to.equal(1);
    expect(unknown.out).to.equal('');
    expect(unknown.err).to.equal('kontor: unknown command: stock frobnicate (kontor --help lists the commands)\n');
  });

  it('when support creates a shipping group with kontor, then admin/shipping_group/ and its id answer it', async () => {
    const seller = await newSeller();
    const res = await kontor(
      'shipping-group',
      'create',
      '--login',
      seller.login,
      '--name',
      'Parcel DE/EU',
      '--price-first',
      '4.9',
      '--price-more',
      '1,50',
      '--ships-to',
      'germany,eu',
      '--eu-more',
      'ch;no',
      '--cash-surcharge',
      '2',
    );
    expect(res.code, res.err).to.equal(0);
    const created = JSON.parse(res.out) as { id: number };

    const one = await call(`admin/shipping_group/${created.id}/`, { token: seller.token });
    expect(one.status).to.equal(200);
    expect(one.body.shipping_group).to.deep.equal({
      id: created.id,
      name: 'Parcel DE/EU',
      portal_account_id: 0,
      type_id: 0,
      ships_to: {
        worldwide: false,
        europe: false,
        eu: true,
        germany: true,
        switzerland: false,
        usa: false,
        canada: false,
        japan: false,
        australia: false,
        eu_more: 'CH;NO',
        europe_more: '',
        worldwide_more: '',
      },
      price: { first: '4.90', more: '1.50' },
      cash_surcharge: '2.00',
      currency: 'EUR',
    });
    const list = await call('admin/shipping_group/', { token: seller.token });
    expect((list.body.shipping_group as { id: number }[]).map((g) => g.id)).to.deep.equal([created.id]);
  });

  it("when another seller's or an absent shipping group is read, then 404 alike", async () => {
    const seller = await newSeller();
    const other = await newSeller();
    const group = await createShippingGroup(other.id, { name: 'Theirs' });
    const foreign = await call(`admin/shipping_group/${group.id}/`, { token: seller.token });
    const absent = await call('admin/shipping_group/2000000000/', { token: seller.token });
    const malformed = await call('admin/shipping_group/abc/', { token: seller.token });
    for (const res of [foreign, absent, malformed]) {
      expect(res.status).to.equal(404);
      expect(res.body.error![0]!.error).to.equal('not_found');
    }
  });

  it('when support creates a portal account with kontor as default, then admin/portal_account/default/ answers it', async () => {
    const seller = await newSeller();
    const res = await kontor('portal-account', 'create', '--login', seller.login, '--name', 'auction shop', '--platform', 'auction_a', '--default');
    expect(res.code, res.err).to.equal(0);
    const created = JSON.parse(res.out) as { id: number };
    const def = await call('admin/portal_account/default/', { token: seller.token });
    expect(def.body.portal_account).to.deep.equal({ id: created.id, is_default: true, name: 'auction shop' });
    const all = await call('admin/portal_account/', { token: seller.token });
    expect((all.body.portal_account as unknown[]).length).to.equal(2);
    const bad = await kontor('portal-account', 'create', '--login', seller.login, '--name', 'x', '--platform', 'moon');
    expect(bad.code).to.equal(1);
  });

  it('when persons and shipping groups are read without admin_r, then 403', async () => {
    const seller = await newSeller();
    const token = await tokenFor(seller.login, seller.password, 'stock_r');
    expect((await call('admin/person/', { token })).status).to.equal(403);
    expect((await call('admin/shipping_group/', { token })).status).to.equal(403);
  });

  it('when admin/user/ is read without email_r, account_address_r and bank_r, then those fields are left out with a warning each', async () => {
    const seller = await newSeller();
    const token = await tokenFor(seller.login, seller.password, 'admin_r');
    const res = await call('admin/user/', { token });
    expect(res.status).to.equal(200);
    expect(res.body.ack).to.equal('warning');
    const user = res.body.user as Record<string, unknown>;
    expect(user).to.not.have.any.keys('email', 'address', 'is_banking_active');
    expect(res.body.warning!.map((w) => w.field).sort()).to.deep.equal(['user.address', 'user.email', 'user.is_banking_active']);

    const full = await call('admin/user/', { token: await tokenFor(seller.login, seller.password, 'admin_r email_r account_address_r bank_r') });
    expect(full.body.ack).to.equal('success');
    expect(full.body.user).to.include.keys('email', 'address', 'is_banking_active');
  });

  it('when support connects a payment provider with kontor, then admin/user/ answers is_banking_active true for that seller only; without a connection it is false', async () => {
    const seller = await newSeller();
    const other = await newSeller();
    const banking = async (s: { token: string }) => {
      const res = await call('admin/user/', { token: s.token });
      expect(res.status, res.text).to.equal(200);
      return (res.body.user as { is_banking_active: boolean }).is_banking_active;
    };
    expect(await banking(seller)).to.equal(false);
    const connected = await kontorWithInput(
      'pp-secret\n',
      ...['payment-provider', 'connect', '--login', seller.login, '--name', 'PayPal', '--client-id', 'app-admin', '--client-secret-stdin'],
    );
    expect(connected.code, connected.err).to.equal(0);
    expect([await banking(seller), await banking(other)]).to.deep.equal([true, false]);
    // The connection gone (its row deleted), banking is no longer active.
    await db()('payment_provider_account').where({ account_id: seller.id }).delete();
    expect(await banking(seller)).to.equal(false);
  });

  it('when a person is created with an empty name, then it is refused naming the field', async () => {
    const seller = await newSeller();
    let error: unknown;
    try {
      await createPerson(seller.id, '  ');
    } catch (e) {
      error = e;
    }
    expect((error as { field?: string }).field).to.equal('name');
  });
});
