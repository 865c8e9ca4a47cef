/**
 * Every field of Stock_type's groups is answered, as a client reading document 2 (001_*.txt,
 * "Stock item" and "Portal field groups") expects it: the table below is written from the document's
 * own lists (W-only fields left out), so a field the answer leaves out fails here by its name.
 * An item written with one field of each group and of each object inside it is read back through
 * GET stock/{id}/ and GET stock/, in JSON and XML, and posted back unchanged in both.
 */
import { expect } from 'chai';
import { XMLParser } from 'fast-xml-parser';
import { call, newSeller, Seller } from '../support/api';
import { asXmlRequest, createItem, readItem } from './helpers';
import { documentTwo, ours } from './stock-groups';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
/** XML has no list of one: a single entry reads as the entry. */
const entries = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined || v === null || v === '' ? [] : [v]);

/**
 * The fields of path missing from value: "a.b" needs an object a holding key b (null or an empty
 * element counts as answered), "a[].b" each entry of list a; an object on the way that is not one
 * (left out, or null because the item has none) is reported, so the written item must reach every field.
 */
function missing(value: unknown, path: string, at = ''): string[] {
  const [head, ...rest] = path.split('.');
  const list = head!.endsWith('[]');
  const key = list ? head!.slice(0, -2) : head!;
  if (!isObject(value) || !(key in value)) return [`${at}${key}`];
  if (rest.length === 0) return [];
  const below = value[key];
  const inner = rest.join('.');
  if (list) {
    const items = entries(below);
    return items.length ? items.flatMap((entry, i) => missing(entry, inner, `${at}${key}[${i}].`)) : [`${at}${key}[] (no entry)`];
  }
  return missing(below, inner, `${at}${key}.`);
}

/** Every field of every group missing from an item (JSON, or XML parsed). */
function missingFields(item: Json): string[] {
  return documentTwo.flatMap(([group, , fields]) => [...fields, ...(ours[group] ?? [])].flatMap((field) => missing(item, `${group}.${field}`)));
}

/** The answered leaf paths of a group beyond document 2 and ours (list indexes written as []). */
function beyond(item: Json): string[] {
  const known = new Set(documentTwo.flatMap(([group, , fields]) => [...fields, ...(ours[group] ?? [])].map((f) => `${group}.${f}`)));
  const prefixes = new Set([...known].flatMap((f) => f.split('.').map((_, i, parts) => parts.slice(0, i + 1).join('.'))));
  const out: string[] = [];
  const walk = (value: unknown, path: string): void => {
    if (known.has(path)) return;
    if (Array.isArray(value)) return value.forEach((entry) => walk(entry, `${path}[]`));
    if (!prefixes.has(path)) return void out.push(path);
    if (isObject(value)) for (const [key, child] of Object.entries(value)) walk(child, `${path}.${key}`);
  };
  for (const [group] of documentTwo) {
    const key = group.replace('[]', '');
    if (key in item) walk(item[key], key);
  }
  return out;
}

/** One field of each group and of each object inside it, none of them W only. */
function sparseItem(): Json {
  const listerObjects = {
    payment: { advice: 'pay soon' },
    refund: { advice: 'returns welcome' },
    location: { city: 'Berlin' },
    freetext: [{ id: '1' }],
    post: { is_active: false },
    best_offer: { is_active: false },
    catalog: { type_id: 0 },
    condition: { id: '1000' },
    seller_profile: { payment: [{ id: 1 }], refund: [{ id: 2 }], shipping: [{ id: 3 }] },
  };
  // event without max_quantity: its null ("no cap", a value of its own) goes back as <max_quantity/>.
  const cia = {
    ...Object.fromEntries(['auction_a', 'market_d', 'webshop', 'market_c', 'auction_b', 'market_f', 'shop_g', 'market_e'].map((p) => [p, { max_quantity: 4 }])),
    event: { is_active: true },
  };
  return {
    name: 'One field each',
    picture: { small: 'https://img.example/s.jpg' },
    location: { area: 'A' },
    supplier: { sku: 'S-1' },
    shipping: { infos: 'in a box' },
    content: { type: 'st' },
    cross_selling: { is_active: true, description_id: { national: 1 } },
    freetext: [{ id: '2' }],
    cia,
    market_e: { comment: 'e', currency_prices: [{ currency_id: 'CZK', price: '2.00' }] },
    market_d: { sku: 'AMZ-ONE', currency_prices: [{ currency_id: 'USD', price: '2.00' }] },
    shop_h: { ean: '4006381333931' },
    market_f: { quantity: 1 },
    market_i: { name: 'I' },
    webshop: [{ shop_id: 'main', price: [{ id: 0 }], sold: { is_active: true }, special: { quantity: 1, date: { from: '2026-12-01' } } }],
    shop_g: { tax_class: 'standard', class: { id: 'k1' }, category: [{ id: 'c1' }] },
    auction_a: [
      {
        lister_id: 0,
        name: 'A',
        ...listerObjects,
        additional: { is_bold: true },
        shipping: { national: [{ id: 1 }], international: [{ id: 2 }], discount_profile_id: { national: 1 } },
        picture: { type_id: 3, gallery: { url_id: 1 } },
      },
    ],
    auction_b: [
      {
        lister_id: 0,
        name: 'B',
        ...listerObjects,
        additional: { is_no_ads: true },
        shipping: { national: [{ id: 1 }], international: [{ id: 2 }] },
        picture: { quantity: 1 },
        shop: { is_active: true },
      },
    ],
    market_c: [
      {
        lister_id: 0,
        name: 'C',
        payment: { advice: 'p' },
        refund: { advice: 'r' },
        location: { city: 'Wien' },
        freetext: [{ id: 3 }],
        picture: { type_id: 3 },
      },
    ],
    shop: [{ lister_id: 0 }],
    customs: [{ client_id: 'customs-1' }],
  };
}

const xmlParser = new XMLParser({ parseTagValue: false });

describe("Stock_type's groups are answered whole (document 2's fields of each type)", () => {
  let seller: Seller;
  let id: number;
  before(async () => {
    seller = await newSeller();
    const category = await call('stock/category/', { token: seller.token, body: { category: { platform: 'shop_g', id: 'c1', name: 'Cups' } } });
    expect(category.status, category.text).to.equal(201);
    id = await createItem(seller, sparseItem());
  });

  it('when each group holds one field, then GET stock/{id}/ and GET stock/ answer every field of its type, null where there is none, and nothing beyond it', async () => {
    const item = await readItem(seller, id);
    expect(missingFields(item)).to.deep.equal([]);
    expect(beyond(item)).to.deep.equal([]);
    expect(item.location).to.deep.equal({ area: 'A', field: null, is_fullfilment: null });
    expect((item.auction_a as Json[])[0]!.best_offer).to.deep.equal({ is_active: false, auto_accept_price: null, min_price: null });
    expect((item.cia as Json).market_d).to.deep.equal({ is_active: null, max_quantity: 4, portal_account_id: null });
    const search = await call(`stock/?filter[0][id]=${id}`, { token: seller.token });
    expect(search.status, search.text).to.equal(200);
    expect((search.body.stock as Json[])[0]).to.deep.equal(item);
  });

  it('when the item is read as XML, then every field of every group is an element, an empty one where there is no value, in GET stock/{id}/ and GET stock/', async () => {
    for (const path of [`stock/${id}/`, `stock/?filter[0][id]=${id}`]) {
      const xml = await call(path, { token: seller.token, headers: { Accept: 'application/xml' } });
      expect(xml.status, xml.text).to.equal(200);
      const item = (xmlParser.parse(xml.text) as { response: { stock: Json } }).response.stock;
      expect(missingFields(item), path).to.deep.equal([]);
      expect(xml.text).to.contain('<location><area>A</area><field/><is_fullfilment/></location>');
    }
  });

  it('when the whole answer is posted back in JSON and in XML, then the item reads back the same (the nulls are not sent)', async () => {
    const item = await readItem(seller, id);
    const json = await call(`stock/${id}/`, { token: seller.token, body: { stock: item } });
    expect(json.status, json.text).to.equal(200);
    expect(await readItem(seller, id)).to.deep.equal(item);
    const xml = await call(`stock/${id}/`, { token: seller.token, headers: { Accept: 'application/xml' } });
    const posted = await call(`stock/${id}/`, { token: seller.token, headers: { 'Content-Type': 'application/xml' }, body: asXmlRequest(xml.text) });
    expect(posted.status, posted.text).to.equal(200);
    expect(await readItem(seller, id)).to.deep.equal(item);
  });

  it("when null is sent for a group's field that has a value, then the item keeps it; cia max_quantity's null still lifts the cap (null is its value)", async () => {
    const own = await createItem(seller, {
      name: 'Kept',
      location: { area: 'B' },
      market_e: { comment: 'keep' },
      cia: { market_e: { is_active: true, max_quantity: 3 } },
    });
    const res = await call(`stock/${own}/`, {
      token: seller.token,
      body: { stock: { location: { area: null }, market_e: { comment: null }, cia: { market_e: { is_active: null, max_quantity: null } } } },
    });
    expect(res.status, res.text).to.equal(200);
    const item = await readItem(seller, own);
    expect(item.location).to.deep.equal({ area: 'B', field: null, is_fullfilment: null });
    expect((item.market_e as Json).comment).to.equal('keep');
    expect((item.cia as Json).market_e).to.deep.equal({ is_active: true, max_quantity: null });
  });

  it('when an item does not use a group, then the group is left out, as before', async () => {
    const bare = await readItem(seller, await createItem(seller, { name: 'Bare' }));
    for (const [group] of documentTwo) expect(bare, group).not.to.have.property(group.replace('[]', ''));
  });
});
