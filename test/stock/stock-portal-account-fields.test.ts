import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { call, errorFields, newSeller, Seller } from '../support/api';
import { createItem, readItem } from './helpers';

/** Every error field of a 400 answer. */

describe('portal account ids inside a stock body', () => {
  let seller: Seller;
  let other: Seller;
  beforeEach(async () => {
    seller = await newSeller();
    other = await newSeller();
  });

  it("when cia.market_d.portal_account_id names another seller's portal account, then 400 names the field and nothing is stored", async () => {
    const res = await call('stock/', {
      token: seller.token,
      body: {
        stock: {
          name: 'Cup',
          sku: 'FX-1',
          quantity: 3,
          cia: { market_d: { is_active: true, portal_account_id: [seller.portalAccountId, other.portalAccountId] } },
        },
      },
    });
    expect(res.status, res.text).to.equal(400);
    expect(res.body.error![0]).to.include({ error: 'unknown_portal_account', field: 'stock.cia.market_d.portal_account_id[1]' });
    expect((await call('stock/SKU_FX-1/', { token: seller.token })).status).to.equal(404);
    expect(await db()('outbox').where({ account_id: seller.id })).to.have.length(0);
  });

  it("when an update names another seller's portal account, then 400 names the field and the item keeps its cia settings", async () => {
    const id = await createItem(seller, {
      name: 'Cup',
      sku: 'FX-2',
      quantity: 3,
      cia: { market_d: { is_active: true, portal_account_id: [seller.portalAccountId] } },
    });
    const res = await call(`stock/${id}/`, { token: seller.token, body: { stock: { cia: { market_d: { portal_account_id: [other.portalAccountId] } } } } });
    expect(res.status, res.text).to.equal(400);
    expect(errorFields(res)).to.deep.equal(['stock.cia.market_d.portal_account_id[0]']);
    const item = await readItem(seller, id);
    expect((item.cia as { market_d: { portal_account_id: number[] } }).market_d.portal_account_id).to.deep.equal([seller.portalAccountId]);
  });

  it("when shop_g's class and category and an auction_a seller profile name other portal accounts, then 400 names every such field and nothing is stored", async () => {
    const res = await call('stock/', {
      token: seller.token,
      body: {
        stock: {
          name: 'Cup',
          sku: 'FX-3',
          quantity: 1,
          shop_g: {
            class: { id: 'c1', portal_account_id: other.portalAccountId },
            category: [
              { id: 'k1', portal_account_id: seller.portalAccountId },
              { id: 'k2', portal_account_id: 2147483000 },
            ],
          },
          auction_a: [{ seller_profile: { payment: [{ id: 1, portal_account_id: other.portalAccountId }] } }],
        },
      },
    });
    expect(res.status, res.text).to.equal(400);
    expect(errorFields(res)).to.have.members([
      'stock.shop_g.class.portal_account_id',
      'stock.shop_g.category[1].portal_account_id',
      'stock.auction_a[0].seller_profile.payment[0].portal_account_id',
    ]);
    expect((await call('stock/SKU_FX-3/', { token: seller.token })).status).to.equal(404);
  });

  it("when every portal account id named is the seller's own, then the item is stored with them", async () => {
    const id = await createItem(seller, {
      name: 'Cup',
      sku: 'FX-4',
      quantity: 1,
      cia: { market_d: { is_active: true, portal_account_id: [seller.portalAccountId] } },
      shop_g: { class: { id: 'c1', portal_account_id: seller.portalAccountId } },
    });
    const item = await readItem(seller, id);
    expect((item.shop_g as { class: { portal_account_id: number } }).class.portal_account_id).to.equal(seller.portalAccountId);
  });
});
