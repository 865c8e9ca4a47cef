/**
 * Stock_type's fields against their rows in document 2 (001_*.txt, "Stock item" and "Portal field
 * groups"), tried as a client holding only the two documents: a value of the right type reads back
 * the same (JSON and XML), one past a stated bound is a 400 naming the field with nothing changed.
 */
import { expect } from 'chai';
import { call, errorFields, newSeller, Seller } from '../support/api';
import { asXmlRequest, createItem, readItem, refusedOnCreate, writtenToday } from './helpers';
import { answered, answeredFields } from './stock-groups';

describe('stock item fields tried from outside (document 2)', () => {
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });

  describe('decimal(10,2) and decimal(10,4) fields', () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['rrp', { rrp: '123456789.00' }, 'stock.rrp'],
      ['auction_a price', { auction_a: [{ price: '123456789' }] }, 'stock.auction_a[0].price'],
      ['auction_a start_price', { auction_a: [{ start_price: 100000000 }] }, 'stock.auction_a[0].start_price'],
      [
        'auction_a shipping table first',
        { auction_a: [{ shipping: { national: [{ id: 1, first: '123456789.5' }] } }] },
        'stock.auction_a[0].shipping.national[0].first',
      ],
      ['auction_a best_offer.min_price', { auction_a: [{ best_offer: { min_price: '100000000' } }] }, 'stock.auction_a[0].best_offer.min_price'],
      ['auction_b shipping.discount', { auction_b: [{ shipping: { discount: '100000000' } }] }, 'stock.auction_b[0].shipping.discount'],
      ['market_c shipping_surcharge', { market_c: [{ shipping_surcharge: '100000000,00' }] }, 'stock.market_c[0].shipping_surcharge'],
      ['shop_g min_order_quantity', { shop_g: { min_order_quantity: '100000000' } }, 'stock.shop_g.min_order_quantity'],
      ['shop_g price (rounds up to 9 digits)', { shop_g: { price: '99999999.999' } }, 'stock.shop_g.price'],
      ['webshop price net, decimal(10,4)', { webshop: [{ shop_id: 'main', price: [{ id: 0, net: '1000000' }] }] }, 'stock.webshop[0].price[0].net'],
    ];
    for (const [label, stock, field] of cases) {
      it(`when ${label} has more digits before the point than its decimal allows, then 400 names ${field} and nothing is stored`, async () => {
        await refusedOnCreate(seller, 'DEC-BIG', stock, field);
      });
    }

    it('when every such field holds its largest value, then the item reads back the same values with their places, in JSON and XML', async () => {
      const id = await createItem(seller, {
        name: 'Largest',
        rrp: '99999999.99',
        auction_a: [{ price: 99999999.99, shipping: { national: [{ id: 1, first: '99999999.99', more: '0.5' }] } }],
        shop_g: { min_order_quantity: '99999999.99', price: '1,5' },
        webshop: [{ shop_id: 'main', price: [{ id: 0, net: '999999.9999' }] }],
      });
      type Group = Record<string, unknown>;
      const item = (await readItem(seller, id)) as unknown as { rrp: string; auction_a: Group[]; shop_g: Group; webshop: Group[] };
      expect(item.rrp).to.equal('99999999.99');
      expect(item.auction_a[0]).to.include({ price: '99999999.99' });
      expect(item.auction_a[0]?.shipping).to.deep.equal(answered('auction_a.shipping', { national: [{ id: 1, first: '99999999.99', more: '0.50' }] }));
      expect(item.shop_g).to.include({ min_order_quantity: '99999999.99', price: '1.50' });
      expect(item.webshop[0]?.price).to.deep.equal([{ id: 0, net: '999999.9999' }]);
      const xml = await call(`stock/${id}/`, { token: seller.token, headers: { Accept: 'application/xml' } });
      expect(xml.text).to.contain('<rrp>99999999.99</rrp>').and.contain('<net>999999.9999</net>');
    });

    it('when an update sends rrp past decimal(10,2), then 400 names stock.rrp and the item keeps its rrp', async () => {
      const id = await createItem(seller, { name: 'Keep', rrp: '15.00' });
      const res = await call(`stock/${id}/`, { token: seller.token, body: { stock: { rrp: '123456789' } } });
      expect(res.status, res.text).to.equal(400);
      expect(errorFields(res)).to.deep.equal(['stock.rrp']);
      expect((await readItem(seller, id)).rrp).to.equal('15.00');
    });
  });

  it('when stock/list/ sends an item past decimal(10,2) and a day that does not exist, then that item alone is a 400 naming stock[n].… and the others are stored', async () => {
    const res = await call('stock/list/', {
      token: seller.token,
      body: {
        stock: [
          { name: 'Fine', sku: 'LIST-OK', rrp: '99999999.99' },
          { name: 'Past', sku: 'LIST-BAD', rrp: '100000000', market_d: { availibility_date: '2026-02-30' } },
        ],
      },
    });
    expect(res.status, res.text).to.equal(207);
    const parts = res.body.response as { code: number; error?: { field?: string }[] }[];
    expect(parts.map((p) => p.code)).to.deep.equal([201, 400]);
    expect((parts[1]?.error ?? []).map((e) => e.field)).to.have.members(['stock[1].rrp', 'stock[1].market_d.availibility_date']);
    expect((await call('stock/SKU_LIST-OK/', { token: seller.token })).status).to.equal(200);
    expect((await call('stock/SKU_LIST-BAD/', { token: seller.token })).status).to.equal(404);
  });

  describe('market_d.currency_prices[] (ours: a price per currency for Amazon marketplaces of another currency)', () => {
    it('when prices per currency are sent, then they read back with the codes upper case and the prices as decimals', async () => {
      const id = await createItem(seller, {
        name: 'Teapot',
        market_d: {
          price: '19.90',
          currency_prices: [
            { currency_id: 'gbp', price: 17.5 },
            { currency_id: 'PLN', price: '89,00' },
          ],
        },
      });
      expect((await readItem(seller, id)).market_d).to.deep.equal(
        answered('market_d', {
          price: '19.90',
          currency_prices: [
            { currency_id: 'GBP', price: '17.50' },
            { currency_id: 'PLN', price: '89.00' },
          ],
        }),
      );
    });

    for (const [label, prices, field, error] of [
      ['a code no currency has (XYZ)', [{ currency_id: 'XYZ', price: '1.00' }], 'stock.market_d.currency_prices[0].currency_id', 'unknown_currency'],
      [
        'the same currency twice',
        [
          { currency_id: 'GBP', price: '1.00' },
          { currency_id: 'gbp', price: '2.00' },
        ],
        'stock.market_d.currency_prices[1]',
        undefined,
      ],
      ['a price below zero', [{ currency_id: 'GBP', price: '-1.00' }], 'stock.market_d.currency_prices[0].price', undefined],
      ['no price', [{ currency_id: 'GBP' }], 'stock.market_d.currency_prices[0].price', undefined],
    ] as [string, unknown[], string, string | undefined][]) {
      it(`when ${label} is sent, then 400 names ${field} and nothing is stored`, async () => {
        const res = await call('stock/', { token: seller.token, body: { stock: { name: 'P', sku: 'MKTD-CUR', market_d: { currency_prices: prices } } } });
        expect(res.status, res.text).to.equal(400);
        expect(errorFields(res), res.text).to.deep.equal([field]);
        if (error) expect(res.body.error![0]).to.include({ error });
        expect((await call('stock/SKU_MKTD-CUR/', { token: seller.token })).status).to.equal(404);
      });
    }
  });

  describe('customs origin_country_iso2 (GET system/country/)', () => {
    it('when a code the reference lacks is sent, then 400 unknown_country names the field on create, update and stock/list/, and nothing changes', async () => {
      const customs = (origin: string) => ({ customs: [{ client_id: 'customs-1', hs_code: '691110', origin_country_iso2: origin }] });
      await refusedOnCreate(seller, 'CUSTOMS-UK', customs('UK'), 'stock.customs[0].origin_country_iso2');
      const id = await createItem(seller, { name: 'Cup', sku: 'CUSTOMS-DE', ...customs('de') });
      expect((await readItem(seller, id)).customs).to.deep.equal(
        answered('customs', [{ client_id: 'customs-1', hs_code: '691110', origin_country_iso2: 'DE' }]),
      );
      const update = await call(`stock/${id}/`, { token: seller.token, body: { stock: customs('EL') } });
      expect(update.status, update.text).to.equal(400);
      expect(update.body.error![0]).to.include({ error: 'unknown_country', field: 'stock.customs[0].origin_country_iso2' });
      expect((await readItem(seller, id)).customs).to.deep.equal(
        answered('customs', [{ client_id: 'customs-1', hs_code: '691110', origin_country_iso2: 'DE' }]),
      );
      const list = await call('stock/list/', {
        token: seller.token,
        body: {
          stock: [
            { name: 'Ok', sku: 'CUSTOMS-GB', ...customs('GB') },
            { name: 'Bad', sku: 'CUSTOMS-XX', ...customs('XX') },
            { id: String(id), ...customs('XX') },
          ],
        },
      });
      expect(list.status, list.text).to.equal(207);
      const parts = list.body.response as { code: number; error?: { error: string; field?: string }[] }[];
      expect(parts.map((p) => p.code)).to.deep.equal([201, 400, 400]);
      expect(parts[1]!.error![0]).to.include({ error: 'unknown_country', field: 'stock[1].customs[0].origin_country_iso2' });
      expect(parts[2]!.error![0]).to.include({ error: 'unknown_country', field: 'stock[2].customs[0].origin_country_iso2' });
      expect((await call('stock/SKU_CUSTOMS-XX/', { token: seller.token })).status).to.equal(404);
      expect((await readItem(seller, id)).customs).to.deep.equal(
        answered('customs', [{ client_id: 'customs-1', hs_code: '691110', origin_country_iso2: 'DE' }]),
      );
    });
  });

  describe('date fields', () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['market_d.availibility_date 2026-02-30', { market_d: { availibility_date: '2026-02-30' } }, 'stock.market_d.availibility_date'],
      ['quantity_ordered_date 2026-02-29 (2026 is no leap year)', { quantity_ordered_date: '2026-02-29' }, 'stock.quantity_ordered_date'],
      ['webshop special.date.to 2026-04-31', { webshop: [{ shop_id: 'main', special: { date: { to: '2026-04-31' } } }] }, 'stock.webshop[0].special.date.to'],
      ['shop_g newness_date 2026-06-31', { shop_g: { newness_date: '2026-06-31' } }, 'stock.shop_g.newness_date'],
    ];
    for (const [label, stock, field] of cases) {
      it(`when ${label}, a day that does not exist, is sent, then 400 names ${field} and nothing is stored`, async () => {
        await refusedOnCreate(seller, 'DATE-NONE', stock, field);
      });
    }

    it('when a webshop special ends before it starts, then 400 names special.date.to and nothing changes, on create, update and stock/list/; one day or one end alone is taken', async () => {
      const inverted = { webshop: [{ shop_id: 'main', special: { is_active: true, price: ['9.90'], date: { from: '2026-12-24', to: '2026-12-01' } } }] };
      await refusedOnCreate(seller, 'SPECIAL-BACK', inverted, 'stock.webshop[0].special.date.to');

      const special = { is_active: true, price: ['9.9000'], date: { from: '2026-12-24', to: '2026-12-24' } };
      const id = await createItem(seller, { name: 'Special', webshop: [{ shop_id: 'main', special }] });
      const update = await call(`stock/${id}/`, { token: seller.token, body: { stock: inverted } });
      expect(update.status, update.text).to.equal(400);
      expect(errorFields(update)).to.deep.equal(['stock.webshop[0].special.date.to']);
      const kept = (await readItem(seller, id)) as unknown as { webshop: { special: unknown }[] };
      expect(kept.webshop[0]!.special).to.deep.equal(answered('webshop.special', special));

      const list = await call('stock/list/', {
        token: seller.token,
        body: {
          stock: [
            { name: 'Open end', webshop: [{ shop_id: 'main', special: { date: { from: '2026-12-01' } } }] },
            { name: 'Back', ...inverted },
          ],
        },
      });
      expect(list.status, list.text).to.equal(207);
      const parts = list.body.response as { code: number; error?: { field?: string }[] }[];
      expect(parts.map((p) => p.code)).to.deep.equal([201, 400]);
      expect((parts[1]!.error ?? []).map((e) => e.field)).to.deep.equal(['stock[1].webshop[0].special.date.to']);
    });

    it('when dates that exist are sent, then they read back as the same YYYY-MM-DD', async () => {
      const id = await createItem(seller, { name: 'Dates', quantity_ordered_date: '2028-02-29', market_d: { availibility_date: '2026-12-31' } });
      const item = (await readItem(seller, id)) as Record<string, unknown>;
      expect(item.quantity_ordered_date).to.equal('2028-02-29');
      expect(item.market_d).to.deep.equal(answered('market_d', { availibility_date: '2026-12-31' }));
    });
  });

  describe('freetext ids (Stock_freetext_type.id, 1 to 5; listers: blocks 1 to 3)', () => {
    it('when the ids are sent as JSON numbers, then they are taken and read back as strings', async () => {
      const id = await createItem(seller, {
        name: 'Freetext',
        freetext: [
          { id: 1, value: 'one' },
          { id: 5, value: 'five' },
        ],
        auction_a: [{ freetext: [{ id: 3, value: 'three' }] }],
      });
      const item = (await readItem(seller, id)) as unknown as { freetext: unknown; auction_a: { freetext: unknown }[] };
      expect(item.freetext).to.deep.equal(
        answered('freetext', [
          { id: '1', value: 'one' },
          { id: '5', value: 'five' },
        ]),
      );
      expect(item.auction_a[0]?.freetext).to.deep.equal(answered('auction_a.freetext', [{ id: '3', value: 'three' }]));
    });

    for (const [label, stock, field] of [
      ['stock freetext id 6', { freetext: [{ id: 6, value: 'x' }] }, 'stock.freetext[0].id'],
      ['stock freetext id "0"', { freetext: [{ id: '0', value: 'x' }] }, 'stock.freetext[0].id'],
      ['auction_a freetext id 4', { auction_a: [{ freetext: [{ id: 4, value: 'x' }] }] }, 'stock.auction_a[0].freetext[0].id'],
    ] as [string, Record<string, unknown>, string][]) {
      it(`when ${label} is sent, then 400 names ${field}, says which ids are valid, and nothing is stored`, async () => {
        const res = await call('stock/', { token: seller.token, body: { stock: { name: 'F', sku: 'FT-BAD', ...stock } } });
        expect(res.status, res.text).to.equal(400);
        expect(errorFields(res)).to.deep.equal([field]);
        const [error] = (res.body.error ?? []) as { error: string; description?: string }[];
        expect(error?.error).to.equal('invalid_field');
        expect(error?.description).to.match(/must be one of 1, 2, 3/);
        expect((await call('stock/SKU_FT-BAD/', { token: seller.token })).status).to.equal(404);
      });
    }
  });

  describe('auction_b: "same structure as auction_a except" the listed differences', () => {
    it("when auction_b carries auction_a's fields document 2 does not name as different, then they are taken and read back", async () => {
      const lister = {
        counter_id: 2,
        post: { is_active: true, quantity: 3, quantity_per_post: 1 },
        characteristics: { data: [[{ type: 'Farbe', value: 'rot' }]] },
        best_offer: { is_active: true, min_price: '10.00' },
        catalog: { value: '4006381333931', type_id: 1 },
        seller_profile: { payment: [{ id: 11 }] },
        payment: { id: ['paypal', 'rechnung'], email_payment_provider: 'pay@example.com' },
        is_mobile: true,
      };
      const id = await createItem(seller, { name: 'Hood', auction_b: [lister] });
      const [read] = (await readItem(seller, id)).auction_b as Record<string, unknown>[];
      expect(read).to.deep.include(answeredFields('auction_b', { ...lister, best_offer: { is_active: true, min_price: '10.00' } }));
    });

    for (const [label, group, field] of [
      ['additional.is_border (not in auction_b)', { additional: { is_border: true } }, 'stock.auction_b[0].additional.is_border'],
      [
        'picture.gallery (auction_b pictures: type_id, url, is_in_description, quantity)',
        { picture: { gallery: { url_id: 1 } } },
        'stock.auction_b[0].picture.gallery',
      ],
      ["payment.id 'kreditkarte' (not an auction_b value)", { payment: { id: ['kreditkarte'] } }, 'stock.auction_b[0].payment.id[0]'],
      ['description of 65001 characters', { description: 'x'.repeat(65001) }, 'stock.auction_b[0].description'],
    ] as [string, Record<string, unknown>, string][]) {
      it(`when auction_b has ${label}, then 400 names ${field} and nothing is stored`, async () => {
        await refusedOnCreate(seller, 'HOOD-BAD', { auction_b: [group] }, field);
      });
    }
  });

  describe('string(n) counts characters', () => {
    // U+1F600 is one character and two UTF-16 code units: string(80) holds 80 of them.
    const emoji = (n: number) => '\u{1F600}'.repeat(n);

    it('when auction_a name (string(80)) holds 80 characters outside the BMP, then it is stored and reads back the same', async () => {
      const id = await createItem(seller, { name: 'Emoji', auction_a: [{ name: emoji(80) }] });
      const item = (await readItem(seller, id)) as unknown as { auction_a: { name: string }[] };
      expect(item.auction_a[0]!.name).to.equal(emoji(80));
    });

    it('when auction_a name holds 81 such characters, then 400 names stock.auction_a[0].name and nothing is stored', async () => {
      await refusedOnCreate(seller, 'EMOJI-81', { auction_a: [{ name: emoji(81) }] }, 'stock.auction_a[0].name');
    });

    it('when a description name (string(255)) holds 255 such characters, then it is stored', async () => {
      const id = await createItem(seller, { name: 'Described' });
      const res = await call(`stock/${id}/description/`, { token: seller.token, body: { description: { name: emoji(255), long: 'text' } } });
      expect(res.status, res.text).to.equal(201);
      const read = await call(`stock/${id}/description/${String(res.body.description_id)}/`, { token: seller.token });
      expect((read.body.description as { name: string }).name).to.equal(emoji(255));
    });
  });

  describe('market_d.quantity (document 2: string)', () => {
    it('when it is sent as a JSON number, then it reads back as the same digits in a string', async () => {
      const id = await createItem(seller, { name: 'Market D', market_d: { quantity: 5 } });
      expect((await readItem(seller, id)).market_d).to.deep.equal(answered('market_d', { quantity: '5' }));
      const text = await createItem(seller, { name: 'Market D text', market_d: { quantity: '7' } });
      expect((await readItem(seller, text)).market_d).to.deep.equal(answered('market_d', { quantity: '7' }));
    });
  });

  describe('shop_g defaults (quantity_alert and delivery_time: default -1 = empty)', () => {
    it('when shop_g is written without them, then both read back -1, in JSON and XML; written values read back as written', async () => {
      const id = await createItem(seller, { name: 'Shop G', shop_g: { quantity: 4 } });
      const item = (await readItem(seller, id)) as Record<string, unknown>;
      expect(item.shop_g).to.deep.equal(answered('shop_g', { quantity: 4, quantity_alert: -1, delivery_time: -1 }));
      const xml = await call(`stock/${id}/`, { token: seller.token, headers: { Accept: 'application/xml' } });
      expect(xml.text).to.contain('<quantity_alert>-1</quantity_alert>').and.contain('<delivery_time>-1</delivery_time>');
      const other = await createItem(seller, { name: 'Shop G 2', shop_g: { quantity_alert: 3, delivery_time: 2 } });
      expect((await readItem(seller, other)).shop_g).to.deep.equal(answered('shop_g', { quantity_alert: 3, delivery_time: 2 }));
      const bare = await createItem(seller, { name: 'No shop_g' });
      expect(await readItem(seller, bare)).not.to.have.property('shop_g');
    });
  });

  describe("Stock_type's scalar fields are always answered", () => {
    const scalars = [
      'sku',
      'barcode',
      'infos',
      'price',
      'tax',
      'weight',
      'size',
      'condition_id',
      'manufacturer',
      'mpn',
      'rrp',
      'quantity_ordered',
      'quantity_alert',
      'quantity_min',
      'quantity_ordered_date',
      'class',
    ];

    it('when an item has only a name, then JSON and XML answer every scalar field of document 2, null (an empty element) for those without value, and the read posts back unchanged in JSON and XML', async () => {
      const id = await createItem(seller, { name: 'Bare' });
      const item = await readItem(seller, id);
      for (const key of scalars) expect(item, key).to.have.property(key, null);
      const search = await call(`stock/?filter[0][id]=${id}`, { token: seller.token });
      expect((search.body.stock as Record<string, unknown>[])[0]).to.deep.equal(item);
      const xml = await call(`stock/${id}/`, { token: seller.token, headers: { Accept: 'application/xml' } });
      for (const key of scalars) expect(xml.text, key).to.contain(`<${key}/>`);

      const json = await call(`stock/${id}/`, { token: seller.token, body: { stock: item } });
      expect(json.status, json.text).to.equal(200);
      expect(await readItem(seller, id)).to.deep.equal(item);
      const body = asXmlRequest(xml.text);
      const posted = await call(`stock/${id}/`, { token: seller.token, headers: { 'Content-Type': 'application/xml' }, body });
      expect(posted.status, posted.text).to.equal(200);
      expect(await readItem(seller, id)).to.deep.equal(item);
    });

    it('when null is sent for a field that has a value, then it is not sent (the item keeps it), as an order takes null; a wrong type is still a 400 naming it', async () => {
      const id = await createItem(seller, { name: 'Kept', sku: 'KEPT-1', price: '9.99', quantity_alert: 3, quantity_ordered_date: '2026-03-01' });
      const res = await call(`stock/${id}/`, {
        token: seller.token,
        body: { stock: { sku: null, price: null, quantity_alert: null, quantity_ordered_date: null } },
      });
      expect(res.status, res.text).to.equal(200);
      expect(await readItem(seller, id)).to.include({ sku: 'KEPT-1', price: '9.99', quantity_alert: 3, quantity_ordered_date: '2026-03-01' });
      const wrong = await call(`stock/${id}/`, { token: seller.token, body: { stock: { price: 'cheap', quantity_alert: 'some' } } });
      expect(wrong.status, wrong.text).to.equal(400);
      expect(errorFields(wrong)).to.have.members(['stock.price', 'stock.quantity_alert']);
    });
  });

  describe('groups sent empty', () => {
    it('when a group is sent as null (JSON) or as an empty element (XML, as libraries write an empty object), then it is not sent: the item keeps it, as an order keeps a null address', async () => {
      const id = await createItem(seller, { name: 'Grouped', location: { area: 'A1' }, supplier: { id: 'S-9' } });
      const json = await call(`stock/${id}/`, {
        token: seller.token,
        body: { stock: { location: null, supplier: null, variation: null, set: null, cia: null } },
      });
      expect(json.status, json.text).to.equal(200);
      const xml = await call(`stock/${id}/`, {
        token: seller.token,
        headers: { 'Content-Type': 'application/xml' },
        body: '<?xml version="1.0" encoding="UTF-8"?><request><stock><location/><supplier></supplier><name>Grouped too</name></stock></request>',
      });
      expect(xml.status, xml.text).to.equal(200);
      const item = (await readItem(seller, id)) as unknown as { name: string; location: { area: string }; supplier: { id: string } };
      expect([item.name, item.location.area, item.supplier.id]).to.deep.equal(['Grouped too', 'A1', 'S-9']);
      const created = await call('stock/', { token: seller.token, body: { stock: { name: 'New', location: null, picture: null } } });
      expect(created.status, created.text).to.equal(201);
    });
  });

  describe('access', () => {
    it('when R-only fields are sent, then each is a read_only_field warning naming it and the item keeps its own values', async () => {
      const res = await call('stock/', {
        token: seller.token,
        body: {
          stock: {
            name: 'R only',
            quantity: 2,
            id: '9999',
            quantity_available: 50,
            set: { main: [{ id: '1', quantity: 1 }] },
            variation: { parent: 1 },
            webshop: [{ shop_id: 'main', modified_time: '2026-01-01' }],
            market_c: [{ modified_time: '2026-01-01' }],
          },
        },
      });
      expect(res.status, res.text).to.equal(201);
      expect((res.body.warning ?? []).map((w) => [w.warning, w.field])).to.have.deep.members([
        ['read_only_field', 'stock.id'],
        ['read_only_field', 'stock.quantity_available'],
        ['read_only_field', 'stock.set.main'],
        ['read_only_field', 'stock.variation.parent'],
        ['read_only_field', 'stock.webshop[0].modified_time'],
        ['read_only_field', 'stock.market_c[0].modified_time'],
      ]);
      const item = (await readItem(seller, res.body.stock_id as number)) as unknown as Record<string, unknown> & { webshop: object[] };
      expect(item.id).to.equal(String(res.body.stock_id));
      expect(item.quantity_available).to.equal(2);
      expect(item.set).to.deep.equal({ type: ['none'] });
      expect(item.variation).to.deep.equal({ type: 'none' });
      // The item's own modified_time: the day it was written, not the client's.
      expect(writtenToday()).to.include((item.webshop[0] as { modified_time?: string }).modified_time);
    });

    it('when W-only picture fields are sent, then they are never returned, in JSON or XML', async () => {
      const id = await createItem(seller, {
        name: 'W only',
        picture: { id: ['https://img.example/a.jpg'], delete_id: ['https://img.example/b.jpg'], is_upload_to_drive: true },
      });
      expect((await readItem(seller, id)).picture).to.deep.equal(answered('picture', { id: ['https://img.example/a.jpg'] }));
      const xml = await call(`stock/${id}/`, { token: seller.token, headers: { Accept: 'application/xml' } });
      expect(xml.text).not.to.contain('delete_id').and.not.to.contain('is_upload_to_drive');
    });
  });
});
