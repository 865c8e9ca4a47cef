/**
 * Document 1, Authentication 5, for the fields that name a portal account inside a body or a
 * query: a client bound to portal account 1 may name portal account 1 only. Naming another of the
 * seller's portal accounts is a 403 portal_account_not_granted naming the field, and nothing is
 * written; a client granted all portal accounts (and the seller's own token) names any of them.
 * Records that belong to one portal account (own categories, shop parameters) are read, changed
 * and deleted by a bound client on its portal account only (lib/access grantReaches).
 */
import { expect } from 'chai';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { createShippingGroup } from '../../lib/admin/shipping-group.service';
import { db } from '../../lib/db';
import { call, newSeller, query, Seller } from '../support/api';
import { clientToken } from '../support/bound-client';
import { stockCiaHandler } from '../stock/helpers';

type Failure = { error: string; field?: string }[];
const errors = (res: { body: Record<string, unknown> }) => res.body.error as Failure;

describe('portal account ids in bodies and queries under a portal-account grant', () => {
  let seller: Seller;
  let account2: number;
  let bound1: string;
  let unbound: string;
  let stockId: string;

  before(async () => {
    seller = await newSeller();
    account2 = (await createPortalAccount(seller.id, { name: 'Shop 2', platform: 'shop_g' })).id;
    bound1 = await clientToken(seller, 'fields-one', seller.portalAccountId, 'stock_r stock_w');
    unbound = await clientToken(seller, 'fields-all', 'all', 'stock_r stock_w');
    const item = await call('stock/', { token: seller.token, body: { stock: { name: 'Lamp', quantity: 3 } } });
    expect(item.status, item.text).to.equal(201);
    stockId = String(item.body.stock_id);
    // cia.event target[] names a stock cia handler of the seller (lib/stock event-targets.ts).
    await stockCiaHandler(seller, 'erp');
  });

  const itemCount = async () => Number(((await db()('stock').where({ account_id: seller.id }).count('* as n')) as { n: string }[])[0]!.n);
  const readItem = async () => (await call(`stock/${stockId}/`, { token: seller.token })).body;

  /** Each stock field that names a portal account, as a stock body naming `id`, with the field the refusal names. */
  const stockFields = (id: number) => [
    { field: 'cia.market_d.portal_account_id[0]', stock: { cia: { market_d: { is_active: true, portal_account_id: [id] } } } },
    { field: 'cia.event.portal_account_id[0]', stock: { cia: { event: { is_active: true, portal_account_id: [id], target: ['erp'] } } } },
    { field: 'shop_g.class.portal_account_id', stock: { shop_g: { class: { id: 'C1', portal_account_id: id } } } },
    { field: 'shop_g.category[0].portal_account_id', stock: { shop_g: { category: [{ id: '7', portal_account_id: id }] } } },
    {
      field: 'auction_a[0].seller_profile.payment[0].portal_account_id',
      stock: { auction_a: [{ seller_profile: { payment: [{ id: 5, portal_account_id: id }] } }] },
    },
  ];

  it('when a client bound to portal account 1 creates a stock item naming portal account 2 in any such field, then 403 names the field and no item is made', async () => {
    const before = await itemCount();
    for (const { field, stock } of stockFields(account2)) {
      const res = await call('stock/', { token: bound1, body: { stock: { name: 'Hijack', ...stock } } });
      expect(res.status, `${field}: ${res.text}`).to.equal(403);
      expect(errors(res)[0]).to.include({ error: 'portal_account_not_granted', field: `stock.${field}` });
    }
    expect(await itemCount()).to.equal(before);
  });

  it('when it updates a stock item naming portal account 2, then 403 names the field and the item is unchanged', async () => {
    const before = await readItem();
    for (const { field, stock } of stockFields(account2)) {
      const res = await call(`stock/${stockId}/`, { token: bound1, body: { stock } });
      expect(res.status, `${field}: ${res.text}`).to.equal(403);
      expect(errors(res)[0]).to.include({ error: 'portal_account_not_granted', field: `stock.${field}` });
    }
    expect(await readItem()).to.deep.equal(before);
  });

  it('when it names its own portal account, or a client granted all names portal account 2, then the write is taken', async () => {
    // shop_g.category[].id names an own shop_g category of the portal account the entry names
    // (deleted at the end: the own-categories case below reads the seller's shop_g categories).
    for (const portalAccountId of [seller.portalAccountId, account2]) {
      const category = await call('stock/category/', {
        token: seller.token,
        body: { category: { platform: 'shop_g', id: '7', portal_account_id: portalAccountId } },
      });
      expect(category.status, category.text).to.equal(201);
    }
    for (const [token, id] of [
      [bound1, seller.portalAccountId],
      [unbound, account2],
      [seller.token, account2],
    ] as const) {
      for (const { field, stock } of stockFields(id)) {
        const res = await call(`stock/${stockId}/`, { token, body: { stock } });
        expect(res.status, `${field}: ${res.text}`).to.equal(200);
      }
    }
    const cia = (await readItem()).stock as { cia: { event: { portal_account_id: number[] } } };
    expect(cia.cia.event.portal_account_id).to.deep.equal([account2]);
    const deleted = await call(`stock/category/?${query({ filter: { platform: 'shop_g', id: '7' } })}`, { token: seller.token, method: 'DELETE' });
    expect(deleted.status, deleted.text).to.equal(200);
  });

  it("when stock/list/ items name portal account 2 (bound) or another seller's portal account (anyone), then those items fail alone, 403 and 400, and are not written", async () => {
    const other = await newSeller();
    const before = await itemCount();
    const named = (id: number, name: string) => ({ name, cia: { event: { is_active: true, portal_account_id: [id], target: ['erp'] } } });
    const bound = await call('stock/list/', { token: bound1, body: { stock: [named(account2, 'Hijack'), named(seller.portalAccountId, 'Own')] } });
    expect(bound.status, bound.text).to.equal(207);
    const parts = bound.body.response as { path: string; code: number; error?: Failure }[];
    expect(parts.map((p) => p.code)).to.deep.equal([403, 201]);
    expect(parts[0]!.error![0]).to.include({ error: 'portal_account_not_granted', field: 'stock[0].cia.event.portal_account_id[0]' });
    const foreign = await call('stock/list/', { token: seller.token, body: { stock: [named(other.portalAccountId, 'Foreign')] } });
    const part = (foreign.body.response as { code: number; error?: Failure }[])[0]!;
    expect(part.code, foreign.text).to.equal(400);
    expect(part.error![0]).to.include({ error: 'unknown_portal_account', field: 'stock[0].cia.event.portal_account_id[0]' });
    expect(await itemCount()).to.equal(before + 1);
  });

  const categories = async (token: string) =>
    (await call(`stock/category/?${query({ filter: { platform: 'shop_g' } })}`, { token })).body.category as { id: string; portal_account_id: number }[];

  it('when a bound client writes, reads or deletes own categories, then only those of its portal account; naming portal account 2 is 403 and writes nothing', async () => {
    const made = await call('stock/category/', {
      token: seller.token,
      body: {
        category: [
          { platform: 'shop_g', id: 'c2', name: 'Two', portal_account_id: account2 },
          { platform: 'shop_g', id: 'c1', name: 'One' },
        ],
      },
    });
    expect(made.status, made.text).to.equal(201);
    const naming = await call('stock/category/', {
      token: bound1,
      body: { category: { platform: 'shop_g', id: 'c2', name: 'Renamed', portal_account_id: account2 } },
    });
    expect(naming.status, naming.text).to.equal(403);
    expect(errors(naming)[0]).to.include({ error: 'portal_account_not_granted', field: 'category[0].portal_account_id' });
    expect((await categories(bound1)).map((c) => c.id)).to.deep.equal(['c1']);
    const gone = await call(`stock/category/?${query({ filter: { platform: 'shop_g', portal_account_id: account2 } })}`, { token: bound1, method: 'DELETE' });
    expect(gone.status, gone.text).to.equal(200);
    const all = await categories(unbound);
    expect(all.map((c) => [c.id, c.portal_account_id])).to.have.deep.members([
      ['c1', seller.portalAccountId],
      ['c2', account2],
    ]);
    expect((all.find((c) => c.id === 'c2') as { name?: string }).name).to.equal('Two');
  });

  it("when a bound client names portal account 2 in a shop parameter, or updates portal account 2's by id, then 403 or 404 and it is unchanged; it reads its own only", async () => {
    const theirs = await call('stock/shop_parameter/', {
      token: seller.token,
      body: { shop_parameter: { type: 'tax_class', name: 'Reduced', portal_account_id: account2 } },
    });
    const own = await call('stock/shop_parameter/', { token: seller.token, body: { shop_parameter: { type: 'tax_class', name: 'Standard' } } });
    expect([theirs.status, own.status]).to.deep.equal([201, 201]);
    const naming = await call('stock/shop_parameter/', {
      token: bound1,
      body: { shop_parameter: { type: 'tax_class', name: 'X', portal_account_id: account2 } },
    });
    expect(naming.status, naming.text).to.equal(403);
    expect(errors(naming)[0]).to.include({ error: 'portal_account_not_granted', field: 'shop_parameter.portal_account_id' });
    const moved = await call('stock/shop_parameter/', {
      token: bound1,
      body: { shop_parameter: { type: 'tax_class', id: theirs.body.shop_parameter_id, name: 'Mine now' } },
    });
    expect(moved.status, moved.text).to.equal(404);
    const list = async (token: string) =>
      (await call(`stock/shop_parameter/?${query({ filter: { type: 'tax_class' } })}`, { token })).body.shop_parameter as {
        id: number;
        name: string;
        portal_account_id: number;
      }[];
    expect((await list(bound1)).map((p) => p.name)).to.deep.equal(['Standard']);
    expect((await list(unbound)).map((p) => [p.name, p.portal_account_id])).to.have.deep.members([
      ['Reduced', account2],
      ['Standard', seller.portalAccountId],
    ]);
  });

  /**
   * What a bound client is told of an id that is not its portal account, the id itself blanked:
   * the seller's other portal account, another seller's, and one nobody has must read alike.
   */
  const answerOf = (res: { status: number; body: Record<string, unknown> }, id: number) => ({
    status: res.status,
    error: errors(res).map((e) => ({ ...e, description: (e as { description?: string }).description?.split(String(id)).join('<id>') })),
  });

  it("when a bound client names the seller's portal account 2, another seller's or an unused id, as the request's portal_account_id or in a body field, then the answer is the same for each (it cannot tell which ids exist) and nothing is written", async () => {
    const other = await newSeller();
    const unused = 2147483000;
    const before = await itemCount();
    const answers = async (send: (id: number) => Promise<{ status: number; body: Record<string, unknown> }>) => {
      const out = [];
      for (const id of [account2, other.portalAccountId, unused]) out.push(answerOf(await send(id), id));
      return out;
    };
    // The request's own portal_account_id: before, "is not covered by the authorization" for the seller's, "is not a portal account of this account" for the rest.
    const asRequest = await answers((id) => call(`stock/?${query({ portal_account_id: id })}`, { token: bound1 }));
    expect(asRequest[0]).to.deep.include({ status: 400 });
    expect(asRequest[0]!.error[0]).to.include({ error: 'unknown_portal_account', field: 'portal_account_id' });
    expect(asRequest[1], 'another seller’s').to.deep.equal(asRequest[0]);
    expect(asRequest[2], 'an unused id').to.deep.equal(asRequest[0]);
    // A body field: before, 403 portal_account_not_granted for the seller's, 400 unknown_portal_account for the rest.
    const inBody = await answers((id) =>
      call('stock/', { token: bound1, body: { stock: { name: 'Probe', cia: { market_d: { is_active: true, portal_account_id: [id] } } } } }),
    );
    expect(inBody[0]).to.deep.include({ status: 403 });
    expect(inBody[0]!.error[0]).to.include({ error: 'portal_account_not_granted', field: 'stock.cia.market_d.portal_account_id[0]' });
    expect(inBody[1], 'another seller’s').to.deep.equal(inBody[0]);
    expect(inBody[2], 'an unused id').to.deep.equal(inBody[0]);
    expect(await itemCount()).to.equal(before);
    // The seller's own token is still told an id is none of its portal accounts.
    const own = await call('stock/', {
      token: seller.token,
      body: { stock: { name: 'Probe', cia: { market_d: { is_active: true, portal_account_id: [unused] } } } },
    });
    expect([own.status, errors(own)[0]!.error]).to.deep.equal([400, 'unknown_portal_account']);
  });

  it("when a bound client reads shipping groups, then it sees its portal account's and those of all accounts; portal account 2's answers 404 as an absent one", async () => {
    const adminBound = await clientToken(seller, 'fields-admin-one', seller.portalAccountId, 'admin_r');
    const adminAll = await clientToken(seller, 'fields-admin-all', 'all', 'admin_r');
    const mine = await createShippingGroup(seller.id, { name: 'Parcel one', portal_account_id: seller.portalAccountId });
    const everyone = await createShippingGroup(seller.id, { name: 'Letter', portal_account_id: 0 });
    const theirs = await createShippingGroup(seller.id, { name: 'Freight two', portal_account_id: account2 });
    const names = async (token: string) => {
      const res = await call('admin/shipping_group/', { token });
      expect(res.status, res.text).to.equal(200);
      return (res.body.shipping_group as { name: string }[]).map((g) => g.name);
    };
    // Before, the bound client read Freight two too: another channel's group, its prices and destinations.
    expect(await names(adminBound)).to.deep.equal(['Parcel one', 'Letter']);
    expect(await names(adminAll)).to.deep.equal(['Parcel one', 'Letter', 'Freight two']);
    const one = async (token: string, id: number) => call(`admin/shipping_group/${id}/`, { token });
    const [own, all, other, absent] = [
      await one(adminBound, mine.id),
      await one(adminBound, everyone.id),
      await one(adminBound, theirs.id),
      await one(adminBound, 2147483000),
    ];
    expect([own.status, all.status]).to.deep.equal([200, 200]);
    expect(answerOf(other, theirs.id), 'portal account 2’s group reads as an absent one').to.deep.equal(answerOf(absent, 2147483000));
    expect(other.status).to.equal(404);
    expect((await one(adminAll, theirs.id)).status).to.equal(200);
  });
});
