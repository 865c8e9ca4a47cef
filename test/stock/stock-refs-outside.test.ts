/**
 * Stock_type's references and signs as a tester holding document 2 tries them: a value document 2
 * forbids (a price below zero) or calls a foreign key that names nothing of the seller's is a 400
 * naming the field, and the item is unchanged afterwards; a valid value still passes.
 */
import { expect } from 'chai';
import { call, errorFields, newSeller, Seller } from '../support/api';
import { isIso639Code } from '../../lib/stock/stock-description';
import { createItem, readItem, refusedOnCreate } from './helpers';
import { answered, answeredFields } from './stock-groups';

const xmlBody = { 'Content-Type': 'application/xml' };

describe('stock item references and signs tried from outside (document 2)', () => {
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });

  describe('prices below zero (a stock item is not sold below zero)', () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['price', { price: '-0.01' }, 'stock.price'],
      ['rrp', { rrp: -1 }, 'stock.rrp'],
      ['supplier.price', { supplier: { price: '-4,10' } }, 'stock.supplier.price'],
      ['auction_a start_price', { auction_a: [{ start_price: '-1' }] }, 'stock.auction_a[0].start_price'],
      ['auction_a price', { auction_a: [{ price: -12.9 }] }, 'stock.auction_a[0].price'],
      ['auction_a min_price', { auction_a: [{ min_price: '-5' }] }, 'stock.auction_a[0].min_price'],
      [
        'auction_a best_offer.auto_accept_price',
        { auction_a: [{ best_offer: { auto_accept_price: '-1' } }] },
        'stock.auction_a[0].best_offer.auto_accept_price',
      ],
      ['auction_a shipping cost', { auction_a: [{ shipping: { national: [{ id: 1, first: '-4.90' }] } }] }, 'stock.auction_a[0].shipping.national[0].first'],
      ['auction_b start_price', { auction_b: [{ start_price: '-1' }] }, 'stock.auction_b[0].start_price'],
      ['market_c price', { market_c: [{ price: '-1' }] }, 'stock.market_c[0].price'],
      ['market_c shipping_surcharge', { market_c: [{ shipping_surcharge: '-1' }] }, 'stock.market_c[0].shipping_surcharge'],
      ['shop_g price', { shop_g: { price: '-12.90' } }, 'stock.shop_g.price'],
      ['shop_g deposit_price', { shop_g: { deposit_price: '-0.25' } }, 'stock.shop_g.deposit_price'],
      ['webshop net price', { webshop: [{ shop_id: 'main', price: [{ id: 0, net: '-10.8403' }] }] }, 'stock.webshop[0].price[0].net'],
      ['webshop special price', { webshop: [{ shop_id: 'main', special: { price: ['-1'] } }] }, 'stock.webshop[0].special.price[0]'],
      ['market_d price', { market_d: { price: '-13.50' } }, 'stock.market_d.price'],
      ['market_e price', { market_e: { price: '-1' } }, 'stock.market_e.price'],
      ['market_f price', { market_f: { price: '-1' } }, 'stock.market_f.price'],
      ['market_i reduced_price', { market_i: { reduced_price: '-1' } }, 'stock.market_i.reduced_price'],
      ['shop_h price', { shop_h: { price: '-1' } }, 'stock.shop_h.price'],
    ];
    for (const [label, stock, field] of cases) {
      it(`when ${label} is below zero, then 400 names ${field} and nothing is stored`, async () => {
        await refusedOnCreate(seller, 'NEG-PRICE', stock, field);
      });
    }

    it('when an update sends a price below zero, in JSON or XML, then 400 names the field and the item keeps its prices', async () => {
      const id = await createItem(seller, { name: 'Cup', price: '12.90', shop_g: { price: '11.00' } });
      const json = await call(`stock/${id}/`, { token: seller.token, body: { stock: { price: '-12.90' } } });
      expect(json.status, json.text).to.equal(400);
      expect(errorFields(json)).to.deep.equal(['stock.price']);
      const xml = await call(`stock/${id}/`, {
        token: seller.token,
        headers: xmlBody,
        body: '<request><stock><shop_g><price>-1.00</price></shop_g></stock></request>',
      });
      expect(xml.status, xml.text).to.equal(400);
      expect(errorFields(xml)).to.deep.equal(['stock.shop_g.price']);
      const item = await readItem(seller, id);
      expect(item.price).to.equal('12.90');
      expect((item.shop_g as { price: string }).price).to.equal('11.00');
    });

    it('when prices are zero or above, then they are stored and read back', async () => {
      const id = await createItem(seller, {
        name: 'Free sample',
        price: '0',
        rrp: '0.00',
        supplier: { price: '4,10' },
        auction_a: [{ start_price: '0', price: '1.00' }],
        shop_g: { price: 0 },
        webshop: [{ shop_id: 'main', price: [{ id: 0, net: '0.0001' }] }],
      });
      const item = (await readItem(seller, id)) as unknown as Record<string, unknown> & {
        auction_a: { start_price: string; price: string }[];
        shop_g: { price: string };
        webshop: { price: { net: string }[] }[];
      };
      expect(item).to.include({ price: '0.00', rrp: '0.00' });
      expect(item.supplier).to.deep.equal(answered('supplier', { price: '4.10' }));
      expect(item.auction_a[0]).to.include({ start_price: '0.00', price: '1.00' });
      expect(item.shop_g.price).to.equal('0.00');
      expect(item.webshop[0]!.price).to.deep.equal([{ id: 0, net: '0.0001' }]);
    });
  });

  describe('quantities are whole numbers in digits', () => {
    it('when a quantity is written in exponent form, in JSON or XML, then 400 names the field and the item keeps its quantities', async () => {
      await refusedOnCreate(seller, 'QTY-EXP', { quantity: '1e2' }, 'stock.quantity');
      const id = await createItem(seller, { name: 'Cup', quantity: 5, shop_g: { quantity: 2 } });
      for (const [stock, field] of [
        [{ quantity: '1e2' }, 'stock.quantity'],
        [{ quantity_reserved: '1E1' }, 'stock.quantity_reserved'],
        [{ auction_a: [{ quantity: '2e0' }] }, 'stock.auction_a[0].quantity'],
      ] as const) {
        const res = await call(`stock/${id}/`, { token: seller.token, body: { stock } });
        expect(res.status, res.text).to.equal(400);
        expect(errorFields(res)).to.deep.equal([field]);
      }
      const xml = await call(`stock/${id}/`, {
        token: seller.token,
        headers: xmlBody,
        body: '<request><stock><shop_g><quantity>1e2</quantity></shop_g></stock></request>',
      });
      expect(xml.status, xml.text).to.equal(400);
      expect(errorFields(xml)).to.deep.equal(['stock.shop_g.quantity']);
      const item = await readItem(seller, id);
      expect(item).to.include({ quantity: 5, quantity_available: 5 });
      expect((item.shop_g as { quantity: number }).quantity).to.equal(2);
      expect(item.auction_a).to.equal(undefined);
    });

    it('when a quantity is digits as text, in JSON or XML, then it is taken', async () => {
      const id = await createItem(seller, { name: 'Cup', quantity: '7' });
      const xml = await call(`stock/${id}/`, { token: seller.token, headers: xmlBody, body: '<request><stock><quantity>100</quantity></stock></request>' });
      expect(xml.status, xml.text).to.equal(200);
      expect(await readItem(seller, id)).to.include({ quantity: 100 });
    });
  });

  describe('description language_iso2 (ISO 639-1)', () => {
    it('when a code ISO 639-1 does not assign is sent, then 400 names description.language_iso2 and the descriptions are unchanged', async () => {
      const id = await createItem(seller, { name: 'Cup' });
      const created = await call(`stock/${id}/description/`, { token: seller.token, body: { description: { name: 'main', language_iso2: 'de' } } });
      expect(created.status, created.text).to.equal(201);
      const before = (await call(`stock/${id}/description/`, { token: seller.token })).body.description;
      // xx and qq are assigned to nothing; iw, in, ji and mo were withdrawn (he, id, yi, ro); jw was never assigned.
      for (const code of ['xx', 'qq', 'iw', 'in', 'ji', 'mo', 'jw', 'sh']) {
        const create = await call(`stock/${id}/description/`, { token: seller.token, body: { description: { name: 'other', language_iso2: code } } });
        expect(create.status, `${code}: ${create.text}`).to.equal(400);
        expect(errorFields(create), code).to.deep.equal(['description.language_iso2']);
        const update = await call(`stock/${id}/description/${created.body.description_id}/`, {
          token: seller.token,
          body: { description: { language_iso2: code } },
        });
        expect(update.status, `${code}: ${update.text}`).to.equal(400);
        expect(errorFields(update), code).to.deep.equal(['description.language_iso2']);
      }
      expect((await call(`stock/${id}/description/`, { token: seller.token })).body.description).to.deep.equal(before);
    });

    it("when Node's ICU is asked, then it names the 184 ISO 639-1 codes (183 and the deprecated bh) and none of the withdrawn", () => {
      const letters = 'abcdefghijklmnopqrstuvwxyz';
      const codes = [...letters].flatMap((a) => [...letters].map((b) => a + b)).filter(isIso639Code);
      expect(codes).to.have.length(184);
      expect(codes).to.include.members(['aa', 'de', 'en', 'nb', 'no', 'tl', 'bh', 'zu']);
      for (const withdrawn of ['in', 'iw', 'ji', 'jw', 'mo', 'sh']) expect(codes).to.not.include(withdrawn);
    });

    it('when an assigned code is sent in either case, then it is stored in lowercase', async () => {
      const id = await createItem(seller, { name: 'Cup' });
      for (const [code, stored] of [
        ['DE', 'de'],
        ['tl', 'tl'],
        ['Nb', 'nb'],
        ['', ''],
      ] as const) {
        const created = await call(`stock/${id}/description/`, { token: seller.token, body: { description: { name: code, language_iso2: code } } });
        expect(created.status, created.text).to.equal(201);
        const read = await call(`stock/${id}/description/${created.body.description_id}/`, { token: seller.token });
        expect((read.body.description as { language_iso2?: string }).language_iso2).to.equal(stored);
      }
    });
  });

  describe('shop_g category[].id (own categories of stock/category/)', () => {
    const categories = (body: unknown, token = seller.token) => call('stock/category/', { token, body: { category: body } });

    it('when a category id the seller has no shop_g category of is sent, then 400 names shop_g.category[j].id and the item keeps its categories', async () => {
      // One portal per request (document 2, Category_type.platform).
      expect((await categories([{ platform: 'shop_g', id: 'c1', name: 'Cups' }])).status).to.equal(201);
      expect((await categories([{ platform: 'market_i', id: 'm1' }])).status).to.equal(201);
      const other = await newSeller();
      expect((await categories({ platform: 'shop_g', id: 'theirs' }, other.token)).status).to.equal(201);

      // Unknown, of another own platform, of another seller, or of another of the seller's portal accounts than the entry names.
      for (const [category, field] of [
        [[{ id: 'nope' }], 'stock.shop_g.category[0].id'],
        [[{ id: 'c1' }, { id: 'm1' }], 'stock.shop_g.category[1].id'],
        [[{ id: 'theirs' }], 'stock.shop_g.category[0].id'],
      ] as const) {
        await refusedOnCreate(seller, 'SHOP-G-CAT', { shop_g: { category } }, field);
      }
      const id = await createItem(seller, { name: 'Cup', shop_g: { category: [{ id: 'c1' }] } });
      const update = await call(`stock/${id}/`, { token: seller.token, body: { stock: { shop_g: { category: [{ id: 'c1' }, { id: 'c2' }, { id: 'c3' }] } } } });
      expect(update.status, update.text).to.equal(400);
      expect(errorFields(update)).to.deep.equal(['stock.shop_g.category[1].id', 'stock.shop_g.category[2].id']);
      const xml = await call(`stock/${id}/`, {
        token: seller.token,
        headers: xmlBody,
        body: '<request><stock><shop_g><category><id>c1</id></category><category><id>nope</id></category></shop_g></stock></request>',
      });
      expect(xml.status, xml.text).to.equal(400);
      expect(errorFields(xml)).to.deep.equal(['stock.shop_g.category[1].id']);
      expect((await readItem(seller, id)).shop_g).to.deep.include(answeredFields('shop_g', { category: [{ id: 'c1' }] }));

      const list = await call('stock/list/', {
        token: seller.token,
        body: {
          stock: [
            { name: 'Ok', sku: 'CAT-OK', shop_g: { category: [{ id: 'c1' }] } },
            { name: 'Bad', sku: 'CAT-BAD', shop_g: { category: [{ id: 'x' }] } },
          ],
        },
      });
      expect(list.status, list.text).to.equal(207);
      const parts = list.body.response as { code: number; error?: { field?: string }[] }[];
      expect(parts.map((p) => p.code)).to.deep.equal([201, 400]);
      expect(parts[1]!.error!.map((e) => e.field)).to.deep.equal(['stock[1].shop_g.category[0].id']);
      expect((await call('stock/SKU_CAT-BAD/', { token: seller.token })).status).to.equal(404);
    });

    it("when the ids name the seller's shop_g categories (with or without their portal account), then the item is stored with them", async () => {
      expect(
        (
          await categories([
            { platform: 'shop_g', id: '10' },
            { platform: 'shop_g', id: 'c1' },
          ])
        ).status,
      ).to.equal(201);
      const id = await createItem(seller, { name: 'Cup', shop_g: { category: [{ id: 10 }, { id: 'c1', portal_account_id: seller.portalAccountId }] } });
      expect((await readItem(seller, id)).shop_g).to.deep.include(
        answeredFields('shop_g', { category: [{ id: '10' }, { id: 'c1', portal_account_id: seller.portalAccountId }] }),
      );
    });
  });

  describe('cia.event target[] (event handlers of section stock, type cia)', () => {
    /** A handler of the seller through the API (a loopback URL: no notification leaves the machine); its id. */
    async function handler(owner: Seller, section: string, type: string, targetName: string): Promise<number> {
      const res = await call('admin/event/handler/', {
        token: owner.token,
        body: {
          event_handler: {
            type: { id: type },
            section,
            action: { id: 'notification', required: { url: `http://127.0.0.1:9/${targetName}`, format: 'post', target_name: targetName } },
          },
        },
      });
      expect(res.status, res.text).to.equal(201);
      return res.body.event_handler_id as number;
    }
    const event = (target: unknown[]) => ({ cia: { event: { is_active: true, target } } });

    it('when a target names no stock cia handler of the seller, then 400 names cia.event.target[i] and the item keeps its targets', async () => {
      const erp = await handler(seller, 'stock', 'cia', 'erp');
      const orders = await handler(seller, 'order', 'created', 'orders');
      const theirs = await handler(await newSeller(), 'stock', 'cia', 'theirs');
      // Unknown, a handler of order events (never notified of stock), another seller's (by id and by name).
      for (const [target, field] of [
        [['nope'], 'stock.cia.event.target[0]'],
        [['erp', String(orders)], 'stock.cia.event.target[1]'],
        [['orders'], 'stock.cia.event.target[0]'],
        [[String(theirs)], 'stock.cia.event.target[0]'],
        [['theirs'], 'stock.cia.event.target[0]'],
      ] as const) {
        await refusedOnCreate(seller, 'CIA-TARGET', event([...target]), field);
      }
      const id = await createItem(seller, { name: 'Cup', ...event([String(erp)]) });
      const update = await call(`stock/${id}/`, { token: seller.token, body: { stock: event(['erp', 'x', 'y']) } });
      expect(update.status, update.text).to.equal(400);
      expect(errorFields(update)).to.deep.equal(['stock.cia.event.target[1]', 'stock.cia.event.target[2]']);
      const xml = await call(`stock/${id}/`, {
        token: seller.token,
        headers: xmlBody,
        body: '<request><stock><cia><event><target>erp</target><target>nope</target></event></cia></stock></request>',
      });
      expect(xml.status, xml.text).to.equal(400);
      expect(errorFields(xml)).to.deep.equal(['stock.cia.event.target[1]']);
      expect((await readItem(seller, id)).cia).to.deep.equal(answered('cia', { event: { is_active: true, target: [String(erp)] } }));

      const list = await call('stock/list/', {
        token: seller.token,
        body: {
          stock: [
            { name: 'Ok', sku: 'TARGET-OK', ...event(['erp']) },
            { name: 'Bad', sku: 'TARGET-BAD', ...event(['nope']) },
          ],
        },
      });
      expect(list.status, list.text).to.equal(207);
      const parts = list.body.response as { code: number; error?: { field?: string }[] }[];
      expect(parts.map((p) => p.code)).to.deep.equal([201, 400]);
      expect(parts[1]!.error!.map((e) => e.field)).to.deep.equal(['stock[1].cia.event.target[0]']);
      expect((await call('stock/SKU_TARGET-BAD/', { token: seller.token })).status).to.equal(404);
    });

    it("when the targets name the seller's stock cia handlers by id or target_name, or none, then the item is stored with them", async () => {
      const erp = await handler(seller, 'stock', 'cia', 'erp');
      await handler(seller, 'stock', 'cia', 'shop');
      const id = await createItem(seller, { name: 'Cup', ...event([String(erp), 'shop']) });
      expect((await readItem(seller, id)).cia).to.deep.equal(answered('cia', { event: { is_active: true, target: [String(erp), 'shop'] } }));
      const cleared = await call(`stock/${id}/`, { token: seller.token, body: { stock: event([]) } });
      expect(cleared.status, cleared.text).to.equal(200);
      expect((await readItem(seller, id)).cia).to.deep.equal(answered('cia', { event: { is_active: true, target: [] } }));
    });
  });
});
