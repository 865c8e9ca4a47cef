/** Shared steps of the stock tests: create items and read them back through the API. */
import { expect } from 'chai';
import { call, errorFields, Seller } from '../support/api';
import { createShippingGroup } from '../../lib/admin/shipping-group.service';
import { db } from '../../lib/db/knex';

/** POST stock/ and returns the new stock id (fails the test on anything but 201). */
export async function createItem(seller: Seller, stock: Record<string, unknown>): Promise<number> {
  const res = await call('stock/', { token: seller.token, body: { stock } });
  expect(res.status, res.text).to.equal(201);
  return res.body.stock_id as number;
}

export async function readItem(seller: Seller, id: number | string): Promise<Record<string, unknown> & { quantity_available: number; quantity: number }> {
  const res = await call(`stock/${id}/`, { token: seller.token });
  expect(res.status, res.text).to.equal(200);
  return res.body.stock as Record<string, unknown> & { quantity_available: number; quantity: number };
}

/** The UTC days a write of this test may have stamped (a run can cross midnight). */
export function writtenToday(): string[] {
  const now = Date.now();
  return [now - 86_400_000, now].map((t) => new Date(t).toISOString().slice(0, 10));
}

/**
 * A webshop or lister entry with its modified_time (document 2: R, a date) checked to be the day
 * it was written, and the rest of it, to compare whole.
 */
export function withoutModifiedTime(entry: unknown): Record<string, unknown> {
  const { modified_time: modified, ...rest } = entry as Record<string, unknown>;
  expect(writtenToday()).to.include(modified);
  return rest;
}

/** cia.adjust outbox rows of the seller, as stock ids (without the request id every job carries). */
export async function ciaRows(seller: Seller): Promise<{ stockId: number; reason: string }[]> {
  const rows = await db()('outbox').where({ account_id: seller.id, job_name: 'cia.adjust' }).orderBy('id');
  return rows.map((row) => {
    const { request_id: _requestId, ...payload } = row.payload as { stockId: number; reason: string; request_id?: string };
    return payload;
  });
}

export async function historyOf(
  seller: Seller,
  id: number,
): Promise<{ quantity: { old: number; difference: number; new: number }; title: string; order_id: string | null }[]> {
  const res = await call(`stock/${id}/history/`, { token: seller.token });
  expect(res.status, res.text).to.equal(200);
  return res.body.stock_history as { quantity: { old: number; difference: number; new: number }; title: string; order_id: string | null }[];
}

/** Two shipping groups of the seller, made as support makes them (kontor shipping-group create); their ids. */
export async function ownShippingGroups(seller: Seller): Promise<number[]> {
  const groups = [await createShippingGroup(seller.id, { name: 'Parcel' }), await createShippingGroup(seller.id, { name: 'Freight' })];
  return groups.map((g) => g.id);
}

/**
 * A handler of the seller for stock cia events, which cia.event target[] names (lib/stock
 * event-targets.ts): with a target name, a notification to a loopback URL (nothing leaves the
 * machine); without, a task action, named by its id. Answers the handler's id.
 */
export async function stockCiaHandler(seller: Seller, targetName?: string): Promise<number> {
  const action = targetName
    ? { id: 'notification', required: { url: `http://127.0.0.1:9/${targetName}`, format: 'post', target_name: targetName } }
    : { id: 'task', required: { title: 'Stock {stock_id}', text: 'quantity {quantity}', priority: 'normal' } };
  const res = await call('admin/event/handler/', { token: seller.token, body: { event_handler: { type: { id: 'cia' }, section: 'stock', action } } });
  expect(res.status, res.text).to.equal(201);
  return res.body.event_handler_id as number;
}

/**
 * The seller's records fullItem names, made through the API: its shop_g category c1 and the
 * cia.event target 'hook' (foreign keys, lib/stock stock-references.ts); answers the seller's
 * shipping groups (ownShippingGroups).
 */
export async function fullItemReferences(seller: Seller): Promise<number[]> {
  const category = await call('stock/category/', { token: seller.token, body: { category: { platform: 'shop_g', id: 'c1', name: 'Cups' } } });
  expect(category.status, category.text).to.equal(201);
  await stockCiaHandler(seller, 'hook');
  return ownShippingGroups(seller);
}

/** An item with every group of Stock_type filled, as a client would send it; the seller's references made by fullItemReferences. */
export function fullItem(portalAccountId: number, shippingGroupIds: number[]): Record<string, unknown> {
  return {
    name: 'Espresso cup',
    sku: 'CUP-ESP',
    barcode: '4006381333931',
    infos: 'fragile',
    price: '12.90',
    tax: '19.00',
    weight: '150.000',
    size: '8x8x6',
    condition_id: 100,
    manufacturer: 'Porzella',
    mpn: 'PZ-100',
    folder: '/kitchen/cups',
    rrp: '15.00',
    quantity: 20,
    quantity_auction_a: 2,
    quantity_ordered: 5,
    quantity_alert: 4,
    quantity_min: 2,
    quantity_reserved: 3,
    quantity_reserved_2: 1,
    quantity_ordered_date: '2026-11-30',
    picture: { small: 'https://img.example/s.jpg', large: 'https://img.example/l.jpg', id: ['https://img.example/l.jpg', 'https://img.example/2.jpg'] },
    location: { area: 'A', field: '12', is_fullfilment: false },
    supplier: { id: 'SUP-1', sku: 'S-CUP', price: '4.10' },
    shipping: { group_id: shippingGroupIds, infos: 'ships in a box' },
    content: { quantity: 1, type: 'st', basic_price_type: 'kg' },
    variation: { type: 'main', specifics_set: { name_value: [{ name: 'colour', value: ['white', 'black'] }] } },
    cross_selling: { is_active: true, is_quantity_split: false, id: ['7'], folder: ['/kitchen'], description_id: { national: 1, international: 2 } },
    freetext: [{ id: '1', value: 'dishwasher safe' }],
    cia: {
      auction_a: { is_active: true, max_quantity: 5 },
      market_d: { is_active: true, max_quantity: -1, portal_account_id: [portalAccountId] },
      webshop: { is_active: true },
      event: { is_active: true, target: ['hook'] },
    },
    set: { type: ['none'] },
    market_e: { quantity: 3, comment: 'c', price: '13.00', delivery_time: '2-3', ean: '4006381333931', picture: ['https://img.example/e.jpg'], name: 'Cup E' },
    market_d: {
      is_active: true,
      sku: 'AMZ-CUP',
      market: 'Marketplace',
      delivery_time: 2,
      id_type: 'EAN',
      availibility_date: '2026-12-01',
      price: '13.50',
      is_fba: false,
    },
    shop_h: { is_active: true, ean: '4006381333931', price: '12.00', quantity: 5, delivery_time: '1-2', tax: '19' },
    webshop: [
      {
        shop_id: 'main',
        is_lead: true,
        name: 'Cup',
        price: [{ id: 0, net: '10.8403' }],
        picture: ['https://img.example/w.jpg'],
        special: { is_active: false, date: { from: '2026-12-01', to: '2026-12-24' } },
      },
    ],
    market_f: { is_active: true, ean: '4006381333931', price: '12.50', quantity: 10, description_id: 1 },
    market_i: {
      name: 'Cup I',
      price: '12.00',
      tax_id: 1,
      delivery_time: 3,
      picture: ['https://img.example/1.jpg', 'https://img.example/2.jpg', 'https://img.example/3.jpg'],
    },
    shop_g: {
      tax_class: 'standard',
      is_new: true,
      price: '12.90',
      quantity_alert: -1,
      delivery_time: -1,
      category: [{ id: 'c1' }],
      picture: ['https://img.example/g.jpg'],
    },
    auction_a: [
      {
        lister_id: 0,
        duration: '7',
        type_id: '9',
        name: 'Espresso cup white',
        subtitle: 'new',
        quantity: 2,
        price: '12.90',
        vat: '19.00',
        payment: { id: ['paypal', 'autopay', 'ueberweisung'], advice: 'pay within 7 days' },
        refund: { policy_id: 21, advice: 'returns welcome' },
        shipping: { ships_to_id: ['deutschland', 'EU'], national: [{ id: 1, type_id: 'DHL', first: '4.90', more: '1.00' }] },
        location: { city: 'Berlin', zip: '10115', country_id: 77 },
        picture: { type_id: 3, url: ['https://img.example/a.jpg'], gallery: { url_id: 1, type_id: 1 } },
        site_id: 77,
        auction_a_plus: 0,
      },
    ],
    auction_b: [{ lister_id: 0, name: 'Cup B', condition_id: '0', shop: { sold_out: 'display' }, fsk: 0 }],
    market_c: [{ lister_id: 0, name: 'Cup C', price: '12.90', is_active: true }],
    shop: [{ lister_id: 0 }],
    app: [{ client_id: 'app-1', note: 'x' }],
    customs: [{ client_id: 'customs-1', description: 'porcelain cup', hs_code: '691110', origin_country_iso2: 'DE' }],
    class: 'A',
  };
}

/** POST stock/ with one field at fault: 400 naming exactly that field, and no item under the SKU. */
export async function refusedOnCreate(seller: Seller, sku: string, stock: Record<string, unknown>, field: string): Promise<void> {
  const res = await call('stock/', { token: seller.token, body: { stock: { name: 'Refused', sku, ...stock } } });
  expect(res.status, res.text).to.equal(400);
  expect(errorFields(res), res.text).to.deep.equal([field]);
  expect((await call(`stock/SKU_${sku}/`, { token: seller.token })).status).to.equal(404);
}

/** An XML answer posted back as an XML request: the response root renamed, the declaration and ack dropped. */
export function asXmlRequest(answer: string): string {
  return answer
    .replace(/<\?xml[^>]*>/, '')
    .replace('<response>', '<request>')
    .replace('</response>', '</request>')
    .replace('<ack>success</ack>', '');
}
