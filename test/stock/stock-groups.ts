/**
 * Stock_type's groups with their fields as document 2 (001_*.txt, "Stock item" and "Portal field
 * groups") lists them, written from the document and not from the code, and a group as GET stock/
 * answers it (answered): every field of its type, null where the item has no value.
 */
/** Stock_auction_a_type's fields, as document 2 lists them ("x.y" a field of an object, "x[].y" of a list's entries). */
const auctionA = [
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
  'payment.id',
  'payment.email_payment_provider',
  'payment.advice',
  'refund.policy_id',
  'refund.advice',
  'additional.is_private',
  'additional.is_bold',
  'additional.is_highlighted',
  'additional.is_border',
  'shipping.ships_to_id',
  ...['national', 'international'].flatMap((table) => ['id', 'type_id', 'first', 'more', 'ships_to_id'].map((f) => `shipping.${table}[].${f}`)),
  'shipping.preparation_time',
  'shipping.is_express',
  'shipping.discount_profile_id.national',
  'shipping.discount_profile_id.international',
  'shipping.is_national_active',
  'shipping.is_international_active',
  'shipping.is_promotional_discount',
  'location.city',
  'location.zip',
  'location.country_id',
  'freetext[].id',
  'freetext[].value',
  'start',
  'counter_id',
  'picture.type_id',
  'picture.url',
  'picture.is_in_description',
  'picture.gallery.url',
  'picture.gallery.url_id',
  'picture.gallery.type_id',
  'picture.layout_id',
  'picture.variation_name',
  'template_id',
  'category_1_id',
  'category_2_id',
  'shop_category_1_id',
  'shop_category_2_id',
  'is_max_quantity_available',
  'is_stock_price',
  'post.is_active',
  'post.quantity',
  'post.quantity_per_post',
  'characteristics',
  'best_offer.is_active',
  'best_offer.auto_accept_price',
  'best_offer.min_price',
  'site_id',
  'catalog.value',
  'catalog.type_id',
  'gallery_duration',
  'sku',
  'is_mobile',
  'condition.id',
  'condition.description',
  'compatibilities',
  ...['payment', 'refund', 'shipping'].flatMap((profile) => [`seller_profile.${profile}[].id`, `seller_profile.${profile}[].portal_account_id`]),
  'auction_a_plus',
];

/** Stock_auction_b_type: "same structure as auction_a except" additional, shipping and picture, and its further fields. */
const auctionB = [
  ...auctionA.filter((f) => !/^(additional|shipping|picture)\./.test(f)),
  ...['is_private', 'is_bold', 'is_highlighted', 'is_top_start_pic', 'is_no_ads'].map((f) => `additional.${f}`),
  'shipping.ships_to_id',
  ...['national', 'international'].flatMap((table) => ['id', 'type_id', 'first', 'more', 'ships_to_id'].map((f) => `shipping.${table}[].${f}`)),
  'shipping.discount',
  'shipping.from',
  'shipping.to',
  ...['type_id', 'url', 'is_in_description', 'quantity'].map((f) => `picture.${f}`),
  'shop_category_3_id',
  'is_auto_renew',
  'condition_id',
  ...['short_description', 'sold_out', 'homepage_id', 'is_auction_subtitle', 'is_active', 'is_auction'].map((f) => `shop.${f}`),
  'fsk',
  'usk',
  'mpn',
  'manufacturer',
  'is_no_id',
];

const ciaPortal = ['is_active', 'max_quantity'];

/** Each group of Stock_type with its type's fields (document 2); a [] group is a list, each entry checked. */
export const documentTwo: [group: string, type: string, fields: string[]][] = [
  ['picture', 'Stock_type picture.*', ['small', 'large', 'id']],
  ['location', 'Stock_type location.*', ['area', 'field', 'is_fullfilment']],
  ['supplier', 'Stock_type supplier.*', ['id', 'sku', 'price']],
  ['shipping', 'Stock_type shipping.*', ['group_id', 'infos']],
  ['content', 'Stock_type content.*', ['quantity', 'type', 'basic_price_type']],
  [
    'cross_selling',
    'Stock_type cross_selling.*',
    ['is_active', 'is_quantity_split', 'id', 'folder', 'description_id.national', 'description_id.international'],
  ],
  ['freetext[]', 'Stock_freetext_type', ['id', 'value']],
  [
    'cia',
    'Stock_cia_portal_type per portal',
    [
      ...['auction_a', 'webshop', 'market_c', 'auction_b', 'market_f', 'shop_g', 'market_e'].flatMap((p) => ciaPortal.map((f) => `${p}.${f}`)),
      ...[...ciaPortal, 'portal_account_id'].map((f) => `market_d.${f}`),
      ...[...ciaPortal, 'portal_account_id', 'target'].map((f) => `event.${f}`),
    ],
  ],
  [
    'market_e',
    'Stock_market_e_type',
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
    ],
  ],
  [
    'market_d',
    'Stock_market_d_type',
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
    ],
  ],
  ['shop_h', 'Stock_shop_h_type', ['is_active', 'ean', 'price', 'quantity', 'delivery_time', 'tax']],
  ['market_f', 'Stock_market_f_type', ['is_active', 'ean', 'price', 'quantity', 'description_id']],
  [
    'market_i',
    'Stock_market_i_type',
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
  [
    'webshop[]',
    'Stock_webshop_type',
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
      'price[].id',
      'price[].net',
      'is_stock_price',
      'is_deposit_net',
      'tax_class_id',
      'weight',
      'delivery_time',
      'sold.delivery_time',
      'sold.is_delivery_time',
      'sold.is_active',
      'restock_date',
      'condition_id',
      'is_adult',
      'availability_date',
      'sortorder',
      'characteristics',
      'is_digital',
      'is_massarticle',
      'special.is_active',
      'special.price',
      'special.date.from',
      'special.date.to',
      'special.quantity',
      'is_active',
      'modified_time',
    ],
  ],
  [
    'shop_g',
    'Stock_shop_g_type',
    [
      'append_path',
      'class.id',
      'class.portal_account_id',
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
      'category[].id',
      'category[].portal_account_id',
      'picture',
      'currency_id',
      'characteristics',
    ],
  ],
  ['auction_a[]', 'Stock_auction_a_type', auctionA],
  ['auction_b[]', 'Stock_auction_b_type', auctionB],
  [
    'market_c[]',
    'Stock_market_c_type',
    [
      'lister_id',
      'modified_time',
      'name',
      'quantity',
      'price',
      'vat',
      'description',
      'payment.advice',
      'refund.policy_id',
      'refund.advice',
      'location.city',
      'location.zip',
      'location.country_id',
      'freetext[].id',
      'freetext[].value',
      'picture.type_id',
      'picture.url',
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
    ],
  ],
  // Stock_shop_type: "lister_id is the only field shown in the material".
  ['shop[]', 'Stock_shop_type', ['lister_id']],
  ['customs[]', 'Stock_type customs', ['client_id', 'description', 'hs_code', 'origin_country_iso2']],
];

/** Fields we answer beyond document 2 (stock.type.ts, README): market_d's and market_e's prices per currency. */
export const ours: Record<string, string[]> = {
  market_d: ['currency_prices[].currency_id', 'currency_prices[].price'],
  market_e: ['currency_prices[].currency_id', 'currency_prices[].price', 'currency_prices[].price_min'],
};

type Json = Record<string, unknown>;
/** A type's fields as a tree: null for a value or list of values, a tree for an object or a list's entries. */
interface Node {
  list: boolean;
  fields: Map<string, Node | null>;
}

function tree(fields: string[], list: boolean): Node {
  const node: Node = { list, fields: new Map() };
  const below = new Map<string, { list: boolean; rest: string[] }>();
  for (const field of fields) {
    const [head, ...rest] = field.split('.');
    const isList = head!.endsWith('[]');
    const key = isList ? head!.slice(0, -2) : head!;
    if (rest.length === 0) node.fields.set(key, null);
    else {
      const entry = below.get(key) ?? { list: isList, rest: [] };
      entry.rest.push(rest.join('.'));
      below.set(key, entry);
      node.fields.set(key, null);
    }
  }
  for (const [key, { list: isList, rest }] of below) node.fields.set(key, tree(rest, isList));
  return node;
}

const groups = new Map(documentTwo.map(([group, , fields]) => [group.replace('[]', ''), tree([...fields, ...(ours[group] ?? [])], group.endsWith('[]'))]));

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function fill(node: Node, value: unknown): unknown {
  const one = (entry: unknown): unknown => {
    if (!isObject(entry)) return entry;
    const out: Json = {};
    for (const [key, sub] of node.fields) {
      const held = entry[key];
      out[key] = held === undefined || held === null || held === '' ? null : sub ? fill(sub, held) : held;
    }
    for (const key of Object.keys(entry)) if (!(key in out)) out[key] = entry[key];
    return out;
  };
  return node.list && Array.isArray(value) ? value.map(one) : one(value);
}

/**
 * A group (or an object inside one: 'auction_a.refund') as GET stock/ answers it, given what it
 * holds: every field of its type in document 2, null where none is held (a list group: each entry).
 */
export function answered<T>(path: string, given: T): T {
  const [group, ...inside] = path.split('.');
  let node = groups.get(group!)!;
  for (const key of inside) node = node.fields.get(key)!;
  return fill(node, given) as T;
}

/** The fields given of a group's object as answered (an object among them whole), to compare with deep.include. */
export function answeredFields(path: string, given: Json): Json {
  const whole = answered(path, given);
  return Object.fromEntries(Object.keys(given).map((key) => [key, whole[key]]));
}

/** A webshop or lister entry as answered, without the modified_time its write stamps (compare with withoutModifiedTime's). */
export function answeredUndated(path: string, given: Json): Json {
  const whole = answered(path, given);
  delete whole.modified_time;
  return whole;
}
