/**
 * Keys of stock records tried from outside, as a client holding only documents 1 and 2 writes
 * them: a shop parameter's portal account (Shop_parameter_type: portal_account_id PK), an own
 * category's platform ("one portal per request"), and the keyed lists of Stock_type
 * (Stock_freetext_type.id PK, the shipping table's id PK, customs and app[] keyed by client_id,
 * shipping group ids).
 */
import { expect } from 'chai';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { call, errorFields, newSeller, query, Seller } from '../support/api';
import { createItem, ownShippingGroups, readItem, refusedOnCreate } from './helpers';
import { answered } from './stock-groups';

describe('stock keys tried from outside (document 2)', () => {
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });

  describe('shop parameters', () => {
    const taxClasses = async () => {
      const res = await call(`stock/shop_parameter/?${query({ filter: { type: 'tax_class' } })}`, { token: seller.token });
      expect(res.status, res.text).to.equal(200);
      return res.body.shop_parameter as { id: number; portal_account_id: number; name: string; additional: string }[];
    };

    it('when a parameter of the second shop is renamed without portal_account_id, then it stays with that shop under its new name', async () => {
      const shop2 = (await createPortalAccount(seller.id, { name: 'Shop 2', platform: 'shop_g' })).id;
      const made = await call('stock/shop_parameter/', {
        token: seller.token,
        body: { shop_parameter: { type: 'tax_class', name: 'Reduced', additional: '7', portal_account_id: shop2 } },
      });
      expect(made.status, made.text).to.equal(201);
      const id = made.body.shop_parameter_id as number;

      const renamed = await call('stock/shop_parameter/', { token: seller.token, body: { shop_parameter: { type: 'tax_class', id, name: 'Reduced 7%' } } });
      expect(renamed.status, renamed.text).to.equal(200);
      expect(renamed.body).to.deep.equal({ ack: 'success', shop_parameter_id: id });
      expect(await taxClasses()).to.deep.equal([{ type: 'tax_class', id, portal_account_id: shop2, name: 'Reduced 7%', additional: '7' }]);

      // An update that sends nothing but its key changes nothing, and an unknown id is still a 404.
      const same = await call('stock/shop_parameter/', { token: seller.token, body: { shop_parameter: { type: 'tax_class', id } } });
      expect(same.status, same.text).to.equal(200);
      const unknown = await call('stock/shop_parameter/', { token: seller.token, body: { shop_parameter: { type: 'tax_class', id: id + 1000 } } });
      expect(unknown.status, unknown.text).to.equal(404);
      expect(errorFields(unknown)).to.deep.equal(['shop_parameter.id']);

      // Naming the portal account moves it, as before.
      const moved = await call('stock/shop_parameter/', {
        token: seller.token,
        body: { shop_parameter: { type: 'tax_class', id, portal_account_id: seller.portalAccountId } },
      });
      expect(moved.status, moved.text).to.equal(200);
      expect(await taxClasses()).to.deep.equal([{ type: 'tax_class', id, portal_account_id: seller.portalAccountId, name: 'Reduced 7%', additional: '7' }]);
    });
  });

  describe('own categories', () => {
    it('when one POST stock/category/ carries categories of two portals, then 400 names the first of the other portal and neither is stored', async () => {
      const res = await call('stock/category/', {
        token: seller.token,
        body: {
          category: [
            { platform: 'shop_g', id: 'c1', name: 'Cups' },
            { platform: 'shop_g', id: 'c2', name: 'Mugs' },
            { platform: 'market_i', id: 'c3', name: 'Plates' },
          ],
        },
      });
      expect(res.status, res.text).to.equal(400);
      expect(res.body.ack).to.equal('error');
      expect(errorFields(res)).to.deep.equal(['category[2].platform']);
      for (const platform of ['shop_g', 'market_i']) {
        const found = await call(`stock/category/?${query({ filter: { platform } })}`, { token: seller.token });
        expect(found.body.category, platform).to.deep.equal([]);
      }

      const one = await call('stock/category/', {
        token: seller.token,
        body: {
          category: [
            { platform: 'market_i', id: 'c3', name: 'Plates' },
            { platform: 'market_i', id: 'c4', name: 'Bowls' },
          ],
        },
      });
      expect(one.status, one.text).to.equal(201);
    });
  });

  describe('keyed lists of Stock_type', () => {
    const cases: [string, Record<string, unknown>, string][] = [
      [
        'freetext names id 1 twice (as a number and as text)',
        {
          freetext: [
            { id: 1, value: 'a' },
            { id: '1', value: 'b' },
          ],
        },
        'stock.freetext[1]',
      ],
      [
        'a lister freetext names block 2 twice',
        {
          auction_a: [
            {
              freetext: [
                { id: '2', value: 'a' },
                { id: '3', value: 'c' },
                { id: 2, value: 'b' },
              ],
            },
          ],
        },
        'stock.auction_a[0].freetext[2]',
      ],
      [
        'a shipping table names id 1 twice',
        {
          auction_a: [
            {
              shipping: {
                national: [
                  { id: 1, first: '4.90' },
                  { id: 1, first: '5.90' },
                ],
              },
            },
          ],
        },
        'stock.auction_a[0].shipping.national[1]',
      ],
      [
        'customs names one client_id twice',
        {
          customs: [
            { client_id: 'c', hs_code: '691110' },
            { client_id: 'c', hs_code: '691200' },
          ],
        },
        'stock.customs[1]',
      ],
      [
        'app[] names one client_id twice',
        {
          app: [
            { client_id: 'a', note: 'x' },
            { client_id: 'a', note: 'y' },
          ],
        },
        'stock.app[1]',
      ],
    ];
    for (const [label, stock, field] of cases) {
      it(`when ${label}, then 400 names ${field} and nothing is stored`, async () => {
        await refusedOnCreate(seller, 'KEY-DUP', stock, field);
      });
    }

    it('when shipping.group_id names one group twice, then 400 names stock.shipping.group_id[1] and the item keeps its groups', async () => {
      const [g1, g2] = await ownShippingGroups(seller);
      await refusedOnCreate(seller, 'GROUP-DUP', { shipping: { group_id: [g1, g1] } }, 'stock.shipping.group_id[1]');
      const id = await createItem(seller, { name: 'Groups', shipping: { group_id: [g1, g2] } });
      const res = await call(`stock/${id}/`, { token: seller.token, body: { stock: { shipping: { group_id: [g2, g2] } } } });
      expect(res.status, res.text).to.equal(400);
      expect(errorFields(res)).to.deep.equal(['stock.shipping.group_id[1]']);
      expect((await readItem(seller, id)).shipping).to.deep.equal(answered('shipping', { group_id: [g1, g2] }));
    });

    it('when an update repeats a freetext id, then 400 and the item keeps its freetext; distinct ids are stored as sent', async () => {
      const id = await createItem(seller, { name: 'Texts', freetext: [{ id: '1', value: 'dishwasher safe' }] });
      const res = await call(`stock/${id}/`, {
        token: seller.token,
        body: {
          stock: {
            freetext: [
              { id: 1, value: 'a' },
              { id: 1, value: 'b' },
            ],
          },
        },
      });
      expect(res.status, res.text).to.equal(400);
      expect(res.body.ack).to.equal('error');
      expect(errorFields(res)).to.deep.equal(['stock.freetext[1]']);
      expect((await readItem(seller, id)).freetext).to.deep.equal(answered('freetext', [{ id: '1', value: 'dishwasher safe' }]));

      const ok = await call(`stock/${id}/`, {
        token: seller.token,
        body: {
          stock: {
            freetext: [
              { id: 1, value: 'a' },
              { id: 2, value: 'b' },
            ],
          },
        },
      });
      expect(ok.status, ok.text).to.equal(200);
      expect((await readItem(seller, id)).freetext).to.deep.equal(
        answered('freetext', [
          { id: '1', value: 'a' },
          { id: '2', value: 'b' },
        ]),
      );
    });

    it('when stock/list/ carries an item repeating a customs client_id, then that item alone is a 400 naming it and the others are stored', async () => {
      const res = await call('stock/list/', {
        token: seller.token,
        body: {
          stock: [
            { name: 'Fine', sku: 'KEY-OK', customs: [{ client_id: 'c', hs_code: '1' }] },
            {
              name: 'Twice',
              sku: 'KEY-BAD',
              customs: [
                { client_id: 'c', hs_code: '1' },
                { client_id: 'c', hs_code: '2' },
              ],
            },
          ],
        },
      });
      expect(res.status, res.text).to.equal(207);
      const parts = res.body.response as { path: string; code: number; error?: { field?: string }[] }[];
      expect(parts.map((p) => [p.path, p.code])).to.deep.equal([
        ['stock[0]', 201],
        ['stock[1]', 400],
      ]);
      expect((parts[1]?.error ?? []).map((e) => e.field)).to.deep.equal(['stock[1].customs[1]']);
      expect((await call('stock/SKU_KEY-OK/', { token: seller.token })).status).to.equal(200);
      expect((await call('stock/SKU_KEY-BAD/', { token: seller.token })).status).to.equal(404);
    });
  });
});
