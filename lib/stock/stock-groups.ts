/**
 * The fields of Stock_type's groups as document 2 lists them (001_*.txt, "Stock item" and "Portal
 * field groups"), for answering a group whole: a client or channel writes only some fields, and a
 * field missing from GET stock/ read as one the type does not have (`location: {area}`).
 * A small table per type, compiled once: GET stock/ answers up to 1,000 items a page, so the
 * answer is built by walking these tables, never by reading the Joi types per request.
 */
import { adapterFor, ciaPortals } from '../portals';
import { isObject, Json } from './stock-merge';

/** A field: a value or a list of values by name; [name, fields] an object of that type; [name, [fields]] a list of them. */
type Field = string | readonly [string, Fields] | readonly [string, readonly [Fields]];
type Fields = readonly Field[];

/** A type's fields compiled: the sub-type of an object or of a list's entries. */
interface Compiled {
  key: string;
  sub?: Compiled[];
  list: boolean;
}

const compile = (fields: Fields): Compiled[] =>
  fields.map((field) => {
    if (typeof field === 'string') return { key: field, list: false };
    const [key, type] = field;
    return type.length === 1 && Array.isArray(type[0])
      ? { key, sub: compile(type[0] as Fields), list: true }
      : { key, sub: compile(type as Fields), list: false };
  });

const location: Fields = ['city', 'zip', 'country_id'];
const freetext: Fields = ['id', 'value'];
const shippingTable: Fields = ['id', 'type_id', 'first', 'more', 'ships_to_id'];
const sellerProfile: Fields = ['id', 'portal_account_id'];

/** Stock_auction_a_type. */
const auctionA: Fields = [
  'lister_id',
  'modified_time',
  'duration',
  'type_id',
  'name',
  'subtitle',
  'quantity',
  'start_price',
  'price',
  'min_price',
  'rrp',
  'vat',
  'description',
  ['payment', ['id', 'email_payment_provider', 'advice']],
  ['refund', ['policy_id', 'advice']],
  ['additional', ['is_private', 'is_bold', 'is_highlighted', 'is_border']],
  [
    'shipping',
    [
      'ships_to_id',
      ['national', [shippingTable]],
      ['international', [shippingTable]],
      'preparation_time',
      'is_express',
      ['discount_profile_id', ['national', 'international']],
      'is_national_active',
      'is_international_active',
      'is_promotional_discount',
    ],
  ],
  ['location', location],
  ['freetext', [freetext]],
  'start',
  'counter_id',
  ['picture', ['type_id', 'url', 'is_in_description', ['gallery', ['url', 'url_id', 'type_id']], 'layout_id', 'variation_name']],
  'template_id',
  'category_1_id',
  'category_2_id',
  'shop_category_1_id',
  'shop_category_2_id',
  'is_max_quantity_available',
  'is_stock_price',
  ['post', ['is_active', 'quantity', 'quantity_per_post']],
  'characteristics',
  ['best_offer', ['is_active', 'auto_accept_price', 'min_price']],
  'site_id',
  ['catalog', ['value', 'type_id']],
  'gallery_duration',
  'sku',
  'is_mobile',
  ['condition', ['id', 'description']],
  'compatibilities',
  [
    'seller_profile',
    [
      ['payment', [sellerProfile]],
      ['refund', [sellerProfile]],
      ['shipping', [sellerProfile]],
    ],
  ],
  'auction_a_plus',
];

/** Stock_auction_b_type: auction_a's structure with document 2's exceptions in place, and its further fields. */
const auctionBOwn: Record<string, Field> = {
  additional: ['additional', ['is_private', 'is_bold', 'is_highlighted', 'is_top_start_pic', 'is_no_ads']],
  shipping: ['shipping', ['ships_to_id', ['national', [shippingTable]], ['international', [shippingTable]], 'discount', 'from', 'to']],
  picture: ['picture', ['type_id', 'url', 'is_in_description', 'quantity']],
};
const auctionB: Fields = [
  ...auctionA.map((field) => auctionBOwn[typeof field === 'string' ? field : field[0]] ?? field),
  'shop_category_3_id',
  'is_auto_renew',
  'condition_id',
  ['shop', ['short_description', 'sold_out', 'homepage_id', 'is_auction_subtitle', 'is_active', 'is_auction']],
  'fsk',
  'usk',
  'mpn',
  'manufacturer',
  'is_no_id',
];

/** Stock_market_c_type. */
const marketC: Fields = [
  'lister_id',
  'modified_time',
  'name',
  'quantity',
  'price',
  'vat',
  'description',
  ['payment', ['advice']],
  ['refund', ['policy_id', 'advice']],
  ['location', location],
  ['freetext', [freetext]],
  ['picture', ['type_id', 'url']],
  'template_id',
  'category_1_id',
  'category_2_id',
  'category_3_id',
  'sku',
  'short_description',
  'cross_selling',
  'discount_id',
  'variation_id',
  'is_line_feed',
  'is_basic_price',
  'is_active',
  'is_delete',
  'rrp',
  'shipping_surcharge',
  'is_shipping_surcharge_once',
];

/** Stock_cia_portal_type per portal: portal_account_id[] only where the portal names accounts (market_d), target[] only for event. */
const ciaPortal: Fields = ['is_active', 'max_quantity'];
const cia: Fields = [
  ...ciaPortals.map((portal): Field => [portal, adapterFor(portal).cia?.namedAccounts ? [...ciaPortal, 'portal_account_id'] : ciaPortal]),
  ['event', [...ciaPortal, 'portal_account_id', 'target']],
];

/**
 * The groups of Stock_type, by field name. Not here: variation and set (built from the item's
 * links, their fields named "only on a main item" / "when type main"), app (Stock_app_type: not
 * shown) and shop (Stock_shop_type: lister_id is the only field shown, always answered).
 */
const groupFields: Record<string, Field> = {
  // Stock_type's own groups; picture.delete_id and is_upload_to_drive are W only, never answered.
  picture: ['picture', ['small', 'large', 'id']],
  location: ['location', ['area', 'field', 'is_fullfilment']],
  supplier: ['supplier', ['id', 'sku', 'price']],
  shipping: ['shipping', ['group_id', 'infos']],
  content: ['content', ['quantity', 'type', 'basic_price_type']],
  cross_selling: ['cross_selling', ['is_active', 'is_quantity_split', 'id', 'folder', ['description_id', ['national', 'international']]]],
  freetext: ['freetext', [freetext]],
  cia: ['cia', cia],
  market_e: [
    'market_e',
    [
      'quantity',
      'comment',
      'price',
      'location',
      'price_min',
      'delivery_time',
      'ean',
      'category_id',
      'description_id',
      'picture',
      'characteristics',
      'name',
      'shipping_group_id',
      // Ours (stock.type.ts): the price per currency for Kaufland storefronts of another currency than EUR.
      ['currency_prices', [['currency_id', 'price', 'price_min']]],
    ],
  ],
  market_d: [
    'market_d',
    [
      'is_active',
      'sku',
      'market',
      'delivery_time',
      'id_type',
      'prime_template',
      'availibility_date',
      'category_id',
      'quantity',
      'price',
      'id',
      'comment',
      'is_fba',
      // Ours (stock.type.ts): the price per currency for Amazon marketplaces of another currency.
      ['currency_prices', [['currency_id', 'price']]],
    ],
  ],
  shop_h: ['shop_h', ['is_active', 'ean', 'price', 'quantity', 'delivery_time', 'tax']],
  market_f: ['market_f', ['is_active', 'ean', 'price', 'quantity', 'description_id']],
  market_i: [
    'market_i',
    [
      'name',
      'price',
      'description_id',
      'manufacturer',
      'tax_id',
      'ean',
      'mpn',
      'reduced_price',
      'quantity',
      'delivery_time',
      'category_id',
      'picture',
      'characteristics',
    ],
  ],
  webshop: [
    'webshop',
    [
      [
        'shop_id',
        'is_lead',
        'name',
        'sku',
        'ean',
        'mpn',
        'category',
        'description_id',
        'template_id',
        'picture',
        ['price', [['id', 'net']]],
        'is_stock_price',
        'is_deposit_net',
        'tax_class_id',
        'weight',
        'delivery_time',
        ['sold', ['delivery_time', 'is_delivery_time', 'is_active']],
        'restock_date',
        'condition_id',
        'is_adult',
        'availability_date',
        'sortorder',
        'characteristics',
        'is_digital',
        'is_massarticle',
        ['special', ['is_active', 'price', ['date', ['from', 'to']], 'quantity']],
        'is_active',
        'modified_time',
      ],
    ],
  ],
  shop_g: [
    'shop_g',
    [
      'append_path',
      ['class', ['id', 'portal_account_id']],
      'tax_class',
      'is_new',
      'is_daily_price',
      'newness_date',
      'price_quantity',
      'min_order_quantity',
      'order_quantity_interval',
      'quantity',
      'quantity_alert',
      'delivery_time',
      'is_available',
      'availability_date',
      'expiry_date',
      'is_download_product',
      'is_default',
      'price',
      'rrp',
      'deposit_price',
      'eco_participation_price',
      'eco_participation_category_id',
      'ean',
      'description_id',
      ['category', [['id', 'portal_account_id']]],
      'picture',
      'currency_id',
      'characteristics',
    ],
  ],
  auction_a: ['auction_a', [auctionA]],
  auction_b: ['auction_b', [auctionB]],
  market_c: ['market_c', [marketC]],
  customs: ['customs', [['client_id', 'description', 'hs_code', 'origin_country_iso2']]],
};

const compiled = new Map(compile(Object.values(groupFields)).map((c) => [c.key, c]));

/**
 * An object with every field of its type: what it holds as it holds it, null for a field it has
 * not (an object or list of its type too) or holds as '' (cleared: as Stock_type's own texts
 * read, so an XML read, whose empty elements clear texts, posts back as it was), the fields it
 * holds beyond the type after them.
 */
function whole(fields: Compiled[], stored: Json): Json {
  const out: Json = {};
  for (const field of fields) {
    const value = stored[field.key];
    out[field.key] = value === undefined || value === null || value === '' ? null : filled(field, value);
  }
  for (const key of Object.keys(stored)) if (!(key in out)) out[key] = stored[key];
  return out;
}

/** A value of a field answered: an object of a type, or each entry of a list of one, whole. */
function filled(field: Compiled, value: unknown): unknown {
  const sub = field.sub;
  if (!sub) return value;
  if (field.list) return Array.isArray(value) ? value.map((entry: unknown) => (isObject(entry) ? whole(sub, entry) : entry)) : value;
  return isObject(value) ? whole(sub, value) : value;
}

/**
 * A group of an item as answered: whole (above) when the item has it; as it is when document 2
 * gives it no fields here (app, shop) or it is absent (an absent group is left out, README).
 */
export function wholeGroup(group: string, stored: unknown): unknown {
  const type = compiled.get(group);
  return type && stored !== undefined && stored !== null ? filled(type, stored) : stored;
}
