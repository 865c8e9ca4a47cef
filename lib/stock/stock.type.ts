/**
 * Stock_type of document 2 with its nested and portal types, as Joi schemas: lengths, enums and
 * access (readOnly: accepted with a warning and ignored; writeOnly: accepted, never returned).
 */
import {
  Joi,
  absentWhenNull,
  bool,
  builtOnFirstUse,
  calendarDate,
  decimal,
  integer,
  list,
  nullIsAbsent,
  ownPortalAccountId,
  readOnly,
  text,
  writeOnly,
} from '../http';
import { adapterFor, ciaPortals, ListerGroup } from '../portals';

/**
 * An object of a group of Stock_type (picture, location, the portal groups and what they hold):
 * null on each field is "not sent", as GET stock/ answers a field the item has no value for
 * (stock-groups.ts), so a read item posts back unchanged (README).
 */
const group = (keys: Joi.PartialSchemaMap) => nullIsAbsent(Joi.object(keys));

/**
 * A calendar date YYYY-MM-DD whose day exists; empty clears it. Date.parse took 2026-02-30 (as
 * 2 March) and the item kept and answered a date that is none.
 */
export const dateText = () => calendarDate();

/** A stock reference inside a body (set.sub[].id, variation.sub[].id): an id or prefixed identifier. */
export const stockRefField = () => Joi.alternatives(integer().min(1), Joi.string().trim().min(1).max(255));

const pictures = (max: number) => list(text(2000)).max(max);
/**
 * Quantities are bounded so that quantity minus the three subtracted quantities always fits a
 * database integer (no input can make the database refuse a write).
 */
const quantityInt = () => integer().min(-500000000).max(500000000);
const count = () => integer().min(0).max(500000000);

/**
 * A decimal(10,<scale>) field of document 2 (rrp, the listers' and shop_g's prices, shipping
 * costs; webshop's net price is decimal(10,4)): at most 10 - scale digits before the point, after
 * rounding to the scale, so 123456789.00 is refused naming the field instead of stored.
 */
const decimalOf10 = (scale = 2) => {
  const limit = 10 ** (10 - scale);
  return decimal(scale, 10 - scale).custom((v: string, helpers) =>
    Math.abs(Number(v)) >= limit ? helpers.error('number.max', { limit: (limit - 10 ** -scale).toFixed(scale) }) : v,
  );
};
/**
 * A price or cost of the item at a channel: below zero is a 400 naming the field. A stock item is
 * not sold below zero (a seller who gives something away sells it at 0.00), and a negative price
 * pushed to a portal is either refused there, long after the request answered 200, or offers the
 * item with money paid to the buyer. (Order lines may be negative: lib/order's Order_line_type.)
 */
const notBelowZero = <T extends Joi.Schema>(schema: T): T =>
  schema.custom((v: string, helpers) => (Number(v) < 0 ? helpers.message({ custom: '{{#label}} must not be below zero' }) : v)) as T;
/** A price of document 2's decimal(?,2) or plain decimal fields (scale 4: webshop's special prices). */
const money = (scale = 2) => notBelowZero(decimal(scale));
/** A price of document 2's decimal(10,<scale>) fields. */
const moneyOf10 = (scale = 2) => notBelowZero(decimalOf10(scale));
/** The item's own price, stored as numeric(14,2): at most 12 digits before the decimal point, not below zero. */
const price = () =>
  notBelowZero(decimal().custom((v: string, helpers) => (Math.abs(Number(v)) >= 1e12 ? helpers.error('number.max', { limit: '999999999999.99' }) : v)));
/** Stock_characteristics_type: stored and returned as a whole. */
const characteristics = () => Joi.object({ data: Joi.array().items(Joi.alternatives(Joi.array(), Joi.object().unknown(true))) });

/** Name_value_type (document 2 does not show it): one name with its values. */
export const nameValueType = builtOnFirstUse(() => Joi.object({ name: text(255).required(), value: list(text(255)).required() }));

/**
 * One cia.event target: a handler's target_name, or its id. Document 2 types target[] as a string
 * FK, but the id it names is the integer POST admin/event/handler/ answers (event_handler_id) and
 * GET admin/event/handler/ shows; a client passing it as it got it met "must be a string". A
 * positive integer is taken and kept as its text, as GET stock/ answers target[] (decision: any
 * other number or type stays a 400). Whether it names a handler of the seller is checked on write
 * (lib/event stock-event-targets.ts).
 */
const eventTarget = () =>
  Joi.alternatives(
    text(255),
    Joi.number()
      .integer()
      .min(1)
      .max(2147483647)
      .custom((v: number) => String(v)),
  );
const ciaPortal = () => group({ is_active: bool(), max_quantity: integer().min(-1).allow(null) });
/** The cia group: one Stock_cia_portal_type per portal that takes part in CIA (its adapter says so), and event. */
const ciaType = () =>
  group({
    ...Object.fromEntries(
      ciaPortals.map((portal) => [
        portal,
        adapterFor(portal).cia?.namedAccounts ? nullIsAbsent(ciaPortal().keys({ portal_account_id: list(ownPortalAccountId()) })) : ciaPortal(),
      ]),
    ),
    event: nullIsAbsent(ciaPortal().keys({ portal_account_id: list(ownPortalAccountId()), target: list(eventTarget()) })),
  });

/**
 * A group's prices per currency (ours: document 2 gives market_d and market_e one price and no
 * currency), keyed by currency_id, with the group's own fields beside the price.
 */
const currencyPrices = (more: Record<string, Joi.Schema> = {}) =>
  keyedBy(
    'currency_id',
    list(
      group({
        currency_id: Joi.string()
          .trim()
          .uppercase()
          .pattern(/^[A-Z]{3}$/, 'ISO 4217 code')
          .required(),
        price: money().required(),
        ...more,
      }),
    ),
  );

const marketE = () =>
  group({
    quantity: quantityInt(),
    comment: text(),
    price: money(),
    location: text(255),
    price_min: text(32),
    delivery_time: Joi.string()
      .trim()
      .pattern(/^([a-i]|\d{1,3}-\d{1,3})$/, 'a to i or X-Y')
      .allow(''),
    ean: Joi.string()
      .trim()
      .pattern(/^(\d{8,14}|isbn:[\dXx-]{10,17})$/, 'EAN or isbn:<ISBN>')
      .allow(''),
    category_id: text(255),
    description_id: integer(),
    picture: pictures(12),
    characteristics: characteristics(),
    name: text(255),
    shipping_group_id: text(255),
    // Ours (document 2 gives market_e one price and no currency; market_e.price is taken as EUR):
    // the price, and the Smart Pricing minimum, in a currency, for the Kaufland storefronts that
    // sell in it (cz CZK, pl PLN; lib/portals README, market_e "Prices per currency").
    currency_prices: currencyPrices({ price_min: money() }),
  });

const marketD = () =>
  group({
    is_active: bool(),
    sku: text(255),
    market: text(64),
    delivery_time: integer().min(0),
    id_type: Joi.string().valid('ASIN', 'ISBN', 'UPC', 'EAN', ''),
    prime_template: text(255),
    availibility_date: dateText(),
    category_id: text(255),
    // Document 2 types market_d.quantity as a string: a JSON number is taken and kept as its text,
    // so the item answers the type the document gives (5 read back as 5 was a number).
    quantity: Joi.alternatives(integer(), text(16)).custom((v: unknown) => String(v)),
    price: money(),
    // Ours (document 2 gives market_d one price and no currency): the price in a currency, for the
    // Amazon marketplaces that sell in another currency than market_d.price (lib/portals README, market_d).
    currency_prices: currencyPrices(),
    id: text(64),
    comment: text(),
    is_fba: bool(),
  });

const shopH = () => group({ is_active: bool(), ean: text(32), price: money(), quantity: quantityInt(), delivery_time: text(64), tax: text(16) });

const marketF = () => group({ is_active: bool(), ean: text(32), price: money(), quantity: integer().min(1).max(9999), description_id: integer() });

const marketI = () =>
  group({
    name: text(255),
    price: money(),
    description_id: integer(),
    manufacturer: text(255),
    tax_id: integer().valid(1, 2, 3, 4, 10, 11, 12),
    ean: text(32),
    mpn: text(255),
    reduced_price: money(),
    quantity: quantityInt(),
    delivery_time: integer().valid(0, 3, 5, 7, 10, 15, 20, 30, 40, 50, 60),
    category_id: text(255),
    picture: list(text(2000)).length(3),
    characteristics: characteristics(),
  });

/**
 * webshop special.date (document 2: special.date.from, special.date.to, dates of the action): a
 * period whose end is before its start is a 400 naming special.date.to. It was stored, so the
 * seller's special price ran on no day at all, with nothing said. Either alone, or '' (none), is
 * taken; the same day is a one-day action. Checked within what one request sends.
 */
const specialPeriod = () =>
  group({
    from: dateText(),
    to: dateText().custom((to: string, helpers) => {
      const from = (helpers.state.ancestors[0] as { from?: unknown }).from;
      const start = typeof from === 'string' ? from.trim() : '';
      return to !== '' && start !== '' && to < start
        ? helpers.message({ custom: '{{#label}} {{#to}} is before special.date.from {{#from}}: the action would run on no day' }, { to, from: start })
        : to;
    }),
  });

const webshop = () =>
  group({
    shop_id: text(64).invalid('').required(),
    is_lead: bool(),
    name: text(255),
    sku: text(255),
    ean: text(32),
    mpn: text(255),
    category: list(text(255)),
    description_id: list(integer()),
    template_id: integer(),
    picture: pictures(12),
    price: list(group({ id: integer().valid(0, 1, 2, 3).required(), net: moneyOf10(4) })).max(4),
    is_stock_price: bool(),
    is_deposit_net: bool(),
    tax_class_id: text(64),
    weight: decimal(),
    delivery_time: integer().min(0),
    sold: group({ delivery_time: integer().min(0), is_delivery_time: bool(), is_active: bool() }),
    restock_date: dateText(),
    condition_id: integer(),
    is_adult: integer().valid(0, 1, 2),
    availability_date: dateText(),
    sortorder: integer(),
    characteristics: characteristics(),
    is_digital: bool(),
    is_massarticle: bool(),
    special: group({ is_active: bool(), price: list(money(4)), date: specialPeriod(), quantity: integer().min(0) }),
    is_active: bool(),
    modified_time: readOnly(Joi.string()),
  });

const shopG = () =>
  group({
    append_path: text(255),
    class: group({ id: text(64), portal_account_id: ownPortalAccountId() }),
    tax_class: text(64),
    is_new: bool(),
    is_daily_price: bool(),
    newness_date: dateText(),
    price_quantity: integer().min(1),
    min_order_quantity: decimalOf10(),
    order_quantity_interval: decimalOf10(),
    quantity: quantityInt(),
    quantity_alert: integer().min(-1),
    delivery_time: integer().min(-1),
    is_available: bool(),
    availability_date: dateText(),
    expiry_date: dateText(),
    is_download_product: bool(),
    is_default: bool(),
    price: moneyOf10(),
    rrp: moneyOf10(),
    deposit_price: moneyOf10(),
    eco_participation_price: moneyOf10(),
    eco_participation_category_id: integer().min(0).max(99),
    ean: text(32),
    description_id: list(integer()),
    // id names an own shop_g category (checked by stock-category.ts checkShopGCategories); taken as
    // text or a number, as stock/category/ takes a category's id.
    category: list(
      group({
        id: Joi.alternatives(Joi.string().trim().min(1).max(255), integer().min(0))
          .custom((v: unknown) => String(v))
          .required(),
        portal_account_id: ownPortalAccountId(),
      }),
    ),
    picture: pictures(12),
    currency_id: integer(),
    characteristics: characteristics(),
  });

/** lister_id: the lister number, NO_<number>, or 0 to create a new lister. */
export const listerIdField = () =>
  Joi.alternatives(
    integer().min(0),
    Joi.string()
      .trim()
      .pattern(/^(NO_)?\d{1,12}$/i, 'a lister number, NO_<n> or 0'),
  );

/**
 * A freetext id (Stock_freetext_type.id, a string) from 1 to max, sent as text or as a number and
 * answered as text. valid() on the alternatives saw the number before it became text, so
 * `{"id": 2}` was refused with "must be one of [1, 2, 3, 4, 5]".
 */
const freetextId = (max: number) => {
  const ids = Array.from({ length: max }, (_, i) => i + 1);
  const oneOf = { 'any.only': `{{#label}} must be one of ${ids.join(', ')}` };
  return Joi.alternatives(
    Joi.number()
      .valid(...ids)
      .messages(oneOf),
    Joi.string()
      .trim()
      .valid(...ids.map(String))
      .messages(oneOf),
  )
    .custom((v: unknown) => String(v))
    .messages({ 'alternatives.types': oneOf['any.only'], 'alternatives.match': oneOf['any.only'] });
};

/**
 * A list whose entries document 2 keys by a field (Stock_freetext_type.id and the shipping table's
 * id are PKs; customs and app[] are "keyed by client_id"): the same key twice is a 400 naming the
 * later entry. Both were stored, and which text, cost or customs data a portal got was the
 * client's guess (a read showed two freetext 1, a write of one of them could not say which).
 */
const keyedBy = (key: string, schema: Joi.ArraySchema) =>
  schema.unique(key).messages({ 'array.unique': `{{#label}} repeats the ${key} of an entry before it (each ${key} once)` });

const refundPolicy = () => integer().valid(0, 11, 12, 13, 14, 15, 21, 22, 23, 24, 25);
const shippingTable = () =>
  keyedBy(
    'id',
    list(
      group({
        id: integer().valid(1, 2, 3).required(),
        type_id: text(64),
        first: moneyOf10(),
        more: moneyOf10(),
        ships_to_id: list(text(64)),
      }),
    ).max(3),
  );
const freetextBlocks = () =>
  keyedBy(
    'id',
    list(
      group({
        id: freetextId(3).required(),
        value: text(),
      }),
    ).max(3),
  );
const location = () => group({ city: text(255), zip: text(32), country_id: integer().min(0) });
const vat = () => decimal().custom((v: string, helpers) => (Number(v) < 0 || Number(v) >= 100 ? helpers.error('any.invalid') : v));
const sellerProfile = () => list(group({ id: integer().required(), portal_account_id: ownPortalAccountId().allow(null) }));

const auctionAPayments = ['nachnahme', 'ueberweisung', 'ueberweisungPlus', 'kreditkarte', 'barzahlung', 'treuhand', 'beschreibung', 'paypal', 'autopay'];
const auctionAShipsTo = [
  'nichtLiefern',
  'weltweit',
  'portal',
  'deutschland',
  'oesterreich',
  'schweiz',
  'europa',
  'usa',
  'amerika',
  'asien',
  'japan',
  'australien',
  'kanada',
  'EU',
];

const listerCommon = () => ({
  lister_id: listerIdField(),
  modified_time: readOnly(Joi.string()),
  name: text(80),
  quantity: quantityInt(),
  price: moneyOf10(),
  rrp: moneyOf10(),
  vat: vat(),
  refund: group({ policy_id: refundPolicy(), advice: text() }),
  location: location(),
  freetext: freetextBlocks(),
  template_id: integer(),
  category_1_id: text(64),
  category_2_id: text(64),
  sku: text(255),
});

const auctionA = () =>
  group({
    ...listerCommon(),
    duration: Joi.string().valid('1', '3', '5', '7', '10', '30', 'GTC'),
    type_id: Joi.string().valid('1', '9', '7', '22'),
    subtitle: text(80),
    start_price: moneyOf10(),
    min_price: moneyOf10(),
    description: text(500000),
    payment: group({
      id: list(Joi.string().valid(...auctionAPayments))
        .custom((ids: string[], helpers) => (ids.includes('autopay') && !ids.includes('paypal') ? helpers.error('any.invalid') : ids))
        .messages({ 'any.invalid': '{{#label}} autopay is only valid together with paypal' }),
      email_payment_provider: text(255),
      advice: text(255),
    }),
    additional: group({ is_private: bool(), is_bold: bool(), is_highlighted: bool(), is_border: bool() }),
    shipping: group({
      ships_to_id: list(Joi.string().valid(...auctionAShipsTo)),
      national: shippingTable(),
      international: shippingTable(),
      preparation_time: integer().min(0),
      is_express: bool(),
      discount_profile_id: group({ national: integer(), international: integer() }),
      is_national_active: bool(),
      is_international_active: bool(),
      is_promotional_discount: bool(),
    }),
    start: text(64),
    counter_id: integer(),
    picture: group({
      type_id: integer().valid(0, 1, 2, 3),
      url: pictures(12),
      is_in_description: bool(),
      gallery: group({ url: text(2000), url_id: integer().min(1).max(12), type_id: integer().valid(0, 1, 2, 3) }),
      layout_id: integer().valid(0, 2, 3, 4, 6),
      variation_name: text(255),
    }),
    shop_category_1_id: text(64),
    shop_category_2_id: text(64),
    is_max_quantity_available: bool(),
    is_stock_price: bool(),
    post: group({ is_active: bool(), quantity: integer().min(0), quantity_per_post: integer().min(0) }),
    characteristics: characteristics(),
    best_offer: group({ is_active: bool(), auto_accept_price: moneyOf10(), min_price: moneyOf10() }),
    site_id: integer(),
    catalog: group({ value: text(255), type_id: integer().valid(0, 1, 2, 3, 4, 5) }),
    gallery_duration: Joi.alternatives(integer().min(0).max(50), Joi.string().valid('Lifetime')).custom((v: unknown) => String(v)),
    is_mobile: bool(),
    condition: group({ id: text(64), description: text() }),
    compatibilities: characteristics(),
    seller_profile: group({ payment: sellerProfile(), refund: sellerProfile(), shipping: sellerProfile() }),
    auction_a_plus: integer().valid(-1, 0, 1),
  });

const auctionBPayments = [
  'nachnahme',
  'ueberweisung',
  'barzahlung',
  'rechnung',
  'moneybookers',
  'treuhand',
  'sofortueberweisung',
  'paypal',
  'billsafe',
  'beschreibung',
];

/**
 * Stock_auction_b_type is "same structure as auction_a except" what document 2 lists (type_id,
 * description length, payment.id values, additional, shipping, picture, and the further fields);
 * so auction_a's other fields (counter_id, post, characteristics, best_offer, catalog,
 * seller_profile ...) are auction_b fields too: they were refused as not allowed.
 */
const auctionB = () =>
  nullIsAbsent(
    auctionA().keys({
      duration: Joi.string().valid('1', '3', '5', '7', '10', '30', 'GTC'),
      type_id: text(2),
      subtitle: text(80),
      start_price: moneyOf10(),
      min_price: moneyOf10(),
      rrp: integer().min(0),
      description: text(65000),
      payment: group({ id: list(Joi.string().valid(...auctionBPayments)), email_payment_provider: text(255), advice: text(255) }),
      additional: group({ is_private: bool(), is_bold: bool(), is_highlighted: bool(), is_top_start_pic: bool(), is_no_ads: bool() }),
      shipping: group({
        ships_to_id: list(text(64)),
        national: shippingTable(),
        international: shippingTable(),
        discount: moneyOf10(),
        from: integer().min(0),
        to: integer().min(0),
      }),
      start: text(64),
      picture: group({ type_id: integer().valid(0, 1, 2, 3), url: pictures(12), is_in_description: bool(), quantity: integer().min(0).max(12) }),
      shop_category_1_id: text(64),
      shop_category_2_id: text(64),
      shop_category_3_id: text(64),
      is_auto_renew: bool(),
      condition_id: Joi.string().valid('0', '1', '2', '3', '4', '5', '6', '7'),
      shop: group({
        short_description: text(),
        sold_out: Joi.string().valid('hide', 'display', 'endless'),
        homepage_id: integer().valid(0, 1, 2),
        is_auction_subtitle: bool(),
        is_active: bool(),
        is_auction: bool(),
      }),
      fsk: integer().valid(0, 6, 12, 16, 18),
      usk: integer().valid(0, 6, 12, 16, 18),
      mpn: text(255),
      manufacturer: text(255),
      is_no_id: bool(),
    }),
  );

const marketC = () =>
  group({
    ...listerCommon(),
    description: text(65000),
    payment: group({ advice: text(255) }),
    picture: group({ type_id: integer().valid(0, 1, 2, 3), url: pictures(12) }),
    category_3_id: text(64),
    short_description: text(),
    cross_selling: text(),
    discount_id: text(),
    variation_id: text(),
    is_line_feed: bool(),
    is_basic_price: bool(),
    is_active: bool(),
    is_delete: bool(),
    shipping_surcharge: moneyOf10(),
    is_shipping_surcharge_once: bool(),
  });

/** Stock_shop_type: document 2 shows only lister_id; the fields shared by all listers are accepted too. */
const shop = () =>
  group({
    lister_id: listerIdField(),
    name: text(80),
    payment: group({ advice: text(255) }),
    refund: group({ policy_id: refundPolicy(), advice: text() }),
    location: location(),
    freetext: freetextBlocks(),
    picture: group({ type_id: integer().valid(0, 1, 2, 3), url: pictures(12) }),
  });

const units = ['lt', 'ml', 'hl', 'm', 'm2', 'mm3', 'kg', 'g', 'ztr'];

/**
 * Stock_type. Every field takes null as "not sent", as Order_type's do: an item posts back as it
 * was answered, and a client that writes an empty group as null (JSON) or an empty element (XML,
 * as XML libraries write an empty object) sends nothing for it rather than meeting a 400.
 */
export const stockType = builtOnFirstUse(() =>
  nullIsAbsent(
    Joi.object({
      id: readOnly(Joi.alternatives(Joi.string(), integer())),
      name: text(255),
      sku: absentWhenNull(text(255)),
      barcode: absentWhenNull(text(64)),
      infos: absentWhenNull(text()),
      price: absentWhenNull(price()),
      tax: absentWhenNull(decimal().custom((v: string, helpers) => (Number(v) < 0 || Number(v) >= 100 ? helpers.error('any.invalid') : v))),
      weight: absentWhenNull(decimal(3)),
      size: absentWhenNull(
        Joi.string()
          .trim()
          .pattern(/^\d+([.,]\d+)?x\d+([.,]\d+)?x\d+([.,]\d+)?$/, 'LxWxH in cm')
          .allow(''),
      ),
      condition_id: absentWhenNull(count()),
      manufacturer: absentWhenNull(text(255)),
      mpn: absentWhenNull(text(255)),
      folder: text(255),
      rrp: absentWhenNull(moneyOf10()),
      quantity: quantityInt(),
      quantity_auction_a: count(),
      quantity_ordered: absentWhenNull(count()),
      quantity_alert: absentWhenNull(quantityInt()),
      quantity_min: absentWhenNull(quantityInt()),
      quantity_reserved: count(),
      quantity_reserved_2: count(),
      quantity_ordered_date: absentWhenNull(dateText()),
      quantity_available: readOnly(integer()),
      picture: group({
        small: text(2000),
        large: text(2000),
        // Document 1, Limits: up to 12 picture URLs per stock record (as every portal group's list).
        id: pictures(12),
        delete_id: writeOnly(list(text(2000))),
        is_upload_to_drive: writeOnly(bool()),
      }),
      location: group({ area: text(255), field: text(255), is_fullfilment: bool() }),
      supplier: group({ id: text(255), sku: text(255), price: money() }),
      // The same group twice names one group (document 2: up to 3 shipping group ids).
      shipping: group({
        group_id: list(integer().min(1)).max(3).unique().messages({ 'array.unique': '{{#label}} names a shipping group already listed (each group once)' }),
        infos: text(),
      }),
      content: group({
        quantity: integer().min(0),
        type: Joi.string().valid(...units, 'st', 'kt', 'pal', ''),
        basic_price_type: Joi.string().valid(...units, ''),
      }),
      variation: Joi.object({
        type: Joi.string().valid('main', 'sub', 'none'),
        sub: list(
          Joi.object({
            id: stockRefField(),
            create_quantity: writeOnly(count()),
            specifics: writeOnly(Joi.object({ name_value: list(nameValueType()).min(1) })),
          }),
        ),
        specifics_set: Joi.object({ name_value: list(nameValueType()) }),
        specifics: readOnly(Joi.object({ name_value: list(nameValueType()) })),
        parent: readOnly(integer()),
      }),
      cross_selling: group({
        is_active: bool(),
        is_quantity_split: bool(),
        id: list(text(255)),
        folder: list(text(255)),
        description_id: group({ national: integer(), international: integer() }),
      }),
      freetext: keyedBy(
        'id',
        list(
          group({
            id: freetextId(5).required(),
            value: text(),
          }),
        ).max(5),
      ),
      cia: ciaType(),
      set: Joi.object({
        type: list(Joi.string().lowercase().valid('main', 'sub', 'none')),
        sub: list(Joi.object({ id: stockRefField().required(), quantity: integer().min(1).max(100000).required() })),
        main: readOnly(list(Joi.object({ id: Joi.string(), quantity: integer() }))),
      }),
      market_e: marketE(),
      market_d: marketD(),
      shop_h: shopH(),
      webshop: list(webshop()),
      market_f: marketF(),
      market_i: marketI(),
      shop_g: shopG(),
      auction_a: list(auctionA()),
      auction_b: list(auctionB()),
      market_c: list(marketC()),
      shop: list(shop()),
      app: keyedBy('client_id', list(group({ client_id: text(255).required() }).unknown(true))),
      customs: keyedBy(
        'client_id',
        list(
          group({
            client_id: text(255).required(),
            description: text(),
            hs_code: text(16),
            origin_country_iso2: Joi.string().length(2).uppercase().allow(''),
          }),
        ),
      ),
      class: absentWhenNull(text(255)),
    }),
  ),
);

/** An item inside POST stock/list/: id is how a client says "update this one", so it is not read only there. */
export const stockListItemType = builtOnFirstUse(() => stockType().keys({ id: stockRefField() }));

/** The input of a create or update, after validation. */
export type StockInput = Record<string, unknown> & {
  id?: string | number;
  name?: string;
  sku?: string;
  barcode?: string;
  mpn?: string;
  manufacturer?: string;
  folder?: string;
  price?: string;
  condition_id?: number;
  quantity?: number;
  quantity_auction_a?: number;
  quantity_reserved?: number;
  quantity_reserved_2?: number;
  picture?: { small?: string; large?: string; id?: string[]; delete_id?: string[]; is_upload_to_drive?: boolean };
  variation?: {
    type?: 'main' | 'sub' | 'none';
    sub?: { id?: string | number; create_quantity?: number; specifics?: { name_value: NameValue[] } }[];
    specifics_set?: { name_value?: NameValue[] };
  };
  set?: { type?: ('main' | 'sub' | 'none')[]; sub?: { id: string | number; quantity: number }[] };
  market_d?: Record<string, unknown> & { sku?: string };
} & Partial<Record<ListerGroup, (Record<string, unknown> & { lister_id?: string | number; name?: string })[]>> & {
    webshop?: (Record<string, unknown> & { shop_id: string })[];
  };

export interface NameValue {
  name: string;
  value: string[];
}
