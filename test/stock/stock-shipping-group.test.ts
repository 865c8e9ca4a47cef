import { expect } from 'chai';
import { createShippingGroup } from '../../lib/admin/shipping-group.service';
import { db } from '../../lib/db/knex';
import { call, newSeller, Seller } from '../support/api';
import { createItem, ownShippingGroups, readItem } from './helpers';
import { answered } from './stock-groups';

interface Part {
  path: string;
  code: number;
  stock_id?: number;
  error?: { error: string; field?: string }[];
}

/** An id no shipping group has (the column is an integer). */
const absent = 2000000000;

describe("stock shipping.group_id[]: foreign keys to the seller's shipping groups", () => {
  let seller: Seller;
  let own: number[];
  let foreign: number;
  beforeEach(async () => {
    seller = await newSeller();
    own = await ownShippingGroups(seller);
    const other = await newSeller();
    foreign = (await createShippingGroup(other.id, { name: 'Theirs' })).id;
  });

  const itemsOf = async () => db()('stock').where('account_id', seller.id).select('id', 'name', 'data');

  it("when POST stock/ names another seller's or a nonexistent group, then 404 names each stock.shipping.group_id[i] and nothing is stored", async () => {
    const res = await call('stock/', { token: seller.token, body: { stock: { name: 'Box', shipping: { group_id: [own[0], foreign, absent] } } } });
    expect(res.status, res.text).to.equal(404);
    expect(res.body.error!.map((e) => [e.error, e.field])).to.deep.equal([
      ['not_found', 'stock.shipping.group_id[1]'],
      ['not_found', 'stock.shipping.group_id[2]'],
    ]);
    expect(await itemsOf()).to.have.length(0);
  });

  it('when POST stock/{id}/ names a foreign or nonexistent group, then 404 names it and the item keeps its groups and fields', async () => {
    const id = await createItem(seller, { name: 'Box', shipping: { group_id: [own[0]] } });
    for (const group of [foreign, absent]) {
      const res = await call(`stock/${id}/`, { token: seller.token, body: { stock: { name: 'Renamed', shipping: { group_id: [group] } } } });
      expect(res.status, res.text).to.equal(404);
      expect(res.body.error![0]).to.include({ error: 'not_found', field: 'stock.shipping.group_id[0]' });
    }
    expect(await readItem(seller, id))
      .to.include({ name: 'Box' })
      .and.to.deep.include({ shipping: answered('shipping', { group_id: [own[0]] }) });
  });

  it("when the seller's own groups are sent (one for all portal accounts, one for its portal account), then they are stored and read back", async () => {
    const forPortal = (await createShippingGroup(seller.id, { name: 'Own portal', portal_account_id: seller.portalAccountId })).id;
    const id = await createItem(seller, { name: 'Box', shipping: { group_id: [own[0], forPortal], infos: 'two boxes' } });
    expect((await readItem(seller, id)).shipping).to.deep.equal(answered('shipping', { group_id: [own[0], forPortal], infos: 'two boxes' }));
    const res = await call(`stock/${id}/`, { token: seller.token, body: { stock: { shipping: { group_id: [own[1]] } } } });
    expect(res.status, res.text).to.equal(200);
    expect((await readItem(seller, id)).shipping).to.deep.equal(answered('shipping', { group_id: [own[1]], infos: 'two boxes' }));
  });

  it('when stock/list/ items name a foreign or nonexistent group, then those items get 404 naming the field and the others go through', async () => {
    const existing = await createItem(seller, { name: 'Kept', shipping: { group_id: [own[0]] } });
    const res = await call('stock/list/', {
      token: seller.token,
      body: {
        stock: [
          { name: 'Own', shipping: { group_id: [own[1]] } },
          { name: 'Foreign', shipping: { group_id: [own[0], foreign] } },
          { id: existing, name: 'Changed', shipping: { group_id: [absent] } },
          { name: 'Plain' },
        ],
      },
    });
    expect(res.status, res.text).to.equal(207);
    const parts = res.body.response as Part[];
    expect(parts.map((p) => [p.path, p.code])).to.deep.equal([
      ['stock[0]', 201],
      ['stock[1]', 404],
      ['stock[2]', 404],
      ['stock[3]', 201],
    ]);
    expect(parts[1]!.error![0]).to.include({ error: 'not_found', field: 'stock[1].shipping.group_id[1]' });
    expect(parts[2]!.error![0]).to.include({ error: 'not_found', field: 'stock[2].shipping.group_id[0]' });
    expect((await readItem(seller, parts[0]!.stock_id!)).shipping).to.deep.equal(answered('shipping', { group_id: [own[1]] }));
    expect(await readItem(seller, existing))
      .to.include({ name: 'Kept' })
      .and.to.deep.include({ shipping: answered('shipping', { group_id: [own[0]] }) });
    expect((await itemsOf()).map((i: { name: string }) => i.name).sort()).to.deep.equal(['Kept', 'Own', 'Plain']);
  });
});
