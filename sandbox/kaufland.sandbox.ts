/**
 * The sandbox's market_e: Kaufland's Marketplace Seller API v2 under /v2 (as
 * https://sellerapi.kaufland.com/v2), played from its published OpenAPI document
 * (../shared/contracts/kaufland/seller-api-v2.openapi.json, 2.27.0; SOURCES.md there), which is
 * read at start and never copied. Every request is checked, in this order, for the signature
 * headers of Kaufland's reference (Shop-Client-Key, Shop-Timestamp within the window,
 * Shop-Signature = hex HMAC-SHA256 of method, full URI, raw body and timestamp joined by "\n",
 * keyed with the secret key), the seller's rate limit (111 requests a second over all endpoints,
 * 429 beyond), scripted delays and faults, then against its operation in the contract
 * (sandbox/contract: a violation is answered 400 in Kaufland's ErrorResponse and recorded at
 * GET /_sandbox/violations?vendor=kaufland). Units (offers) by the seller's id_offer (a second
 * POST /units of one adds a second unit, as createUnit has it), their amount the quantity
 * shown; orders of order units (one per piece sold) with their states, shipments and
 * cancellations. Requests are logged per portal (market_e) and portal account.
 */
import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import express, { NextFunction, Request, Response } from 'express';
import { contractGate, mountContractControls, violationsOf } from './contract/contract-gate';
import type { ContractProblem } from './contract/openapi-contract';
import { OpenApiContract } from './contract/openapi-contract';
import { emitQuantity, key, SandboxState, SellRequest } from './sandbox.app';

const portal = 'market_e';
export const kauflandContractFolder = 'kaufland';
export const kauflandContractFile = 'seller-api-v2.openapi.json';

let contract: OpenApiContract | undefined;

/**
 * A query parameter an operation does not name is refused (ours: the contract says nothing of
 * others, and its operations each list theirs; `storefront` on GET /orders/{id_order}, which has
 * none, would filter nothing while the client took the answer as the storefront's).
 */
const kauflandContractOptions = { rejectUnknownQuery: true };

/**
 * The Seller API contract, read once per process (a missing folder or file stops the sandbox
 * naming it); `root` reads it from another contracts folder, uncached.
 */
export function kauflandContract(root?: string): OpenApiContract {
  if (root !== undefined) return OpenApiContract.load(kauflandContractFolder, kauflandContractFile, kauflandContractOptions, root);
  contract ??= OpenApiContract.load(kauflandContractFolder, kauflandContractFile, kauflandContractOptions);
  return contract;
}

/** The raw JSON body of a Seller API request, kept by the JSON parser (the signature covers it byte for byte). */
export function keepRawBody(req: IncomingMessage, _res: unknown, buf: Buffer): void {
  if (req.url?.startsWith('/v2/')) (req as IncomingMessage & { rawBody?: string }).rawBody = buf.toString('utf8');
}

/** Kaufland's ErrorResponse. */
const problem = (type: string, message: string, errors: { field: string; message: string }[] = []) => ({ type: `/problems/${type}`, message, errors });

/** A contract violation as Kaufland answers invalid parameters (validation-error); an unknown path not-found. */
export function kauflandContractError(problems: ContractProblem[], context: { status: number }) {
  if (context.status !== 400) return problem('not-found', problems[0]?.message ?? 'Resource not found');
  return problem(
    'validation-error',
    'Request parameters have invalid values',
    problems.map((p) => ({ field: p.name || p.in, message: p.message })),
  );
}

/** The carriers GET /carriers answers and send/shipments take (Kaufland's list is on its order-files page; this is our reading of it). */
export const sandboxCarriers: { name: string; isHauler: boolean }[] = [
  { name: 'DHL', isHauler: false },
  { name: 'DHL Express', isHauler: false },
  { name: 'Deutsche Post', isHauler: false },
  { name: 'DPD', isHauler: false },
  { name: 'GLS', isHauler: false },
  { name: 'Hermes', isHauler: false },
  { name: 'UPS', isHauler: false },
  { name: 'FedEx', isHauler: false },
  { name: 'TNT', isHauler: false },
  { name: 'Other', isHauler: false },
  { name: 'Other Hauler', isHauler: true },
];
const withoutTracking = new Set(['Other', 'Other Hauler']);

type OrderUnitStatus = 'cancelled' | 'need_to_be_sent' | 'open' | 'received' | 'returned' | 'returned_paid' | 'sent' | 'sent_and_autopaid';

export interface KauflandUnit {
  id_unit: number;
  account: string;
  storefront: string;
  id_offer: string;
  ean: string;
  id_product: number;
  amount: number;
  listing_price: number;
  minimum_price: number | null;
  condition: string;
  note: string | null;
  handling_time: number;
  id_shipping_group: number | null;
  id_warehouse: number | null;
  /**
   * UnitStatuses. AVAILABLE and ONHOLD are the seller's to write (WriteableUnitStatuses);
   * INCOMPLETE is Kaufland's verdict (POST /units' own example answers it), set here by a control.
   */
  status: UnitStatus;
  date_inserted_iso: string;
  date_lastchange_iso: string;
  /** When GET /units starts to list it (ms since the epoch): "there may a delay of up to several minutes between adding a new unit and when it will be available through this endpoint". */
  listed_from: number;
  /**
   * FulfillmentType: units made by POST /units are the seller's (UnitRequest has no
   * fulfillment_type); fulfilled_by_kaufland ones, stocked in Kaufland's warehouse, come from
   * Kaufland's fulfilment programme (POST /_sandbox/kaufland/units).
   */
  fulfillment_type: FulfillmentType;
}

type FulfillmentType = 'fulfilled_by_merchant' | 'fulfilled_by_kaufland';
const unitStatuses = ['INCOMPLETE', 'AVAILABLE', 'ONHOLD'] as const;
type UnitStatus = (typeof unitStatuses)[number];

/** POST /_sandbox/kaufland/units: a unit made outside the API (a unit of Kaufland's fulfilment programme), listed at once. */
export interface NewKauflandUnit {
  portal_account: string | number;
  storefront?: string;
  id_offer: string;
  ean?: string;
  amount?: number;
  listing_price?: number;
  /** fulfilled_by_kaufland by default (what this control is for). */
  fulfillment_type?: FulfillmentType;
}

export interface KauflandAddress {
  first_name: string;
  last_name: string;
  company_name: string | null;
  street: string;
  house_number: string;
  postcode: string;
  additional_field: string | null;
  city: string;
  phone: string | null;
  country: string;
}

export interface KauflandOrderUnit {
  id_order_unit: number;
  id_order: string;
  account: string;
  storefront: string;
  /** OrderUnit.id_offer (nullable: a unit made without one, in Kaufland's Seller Portal; a test sets null). */
  id_offer: string | null;
  /** OrderUnit.product's title; null: `product` null (nullable: a product Kaufland took out of its catalogue; a test sets it). */
  title: string | null;
  ean: string;
  price: number;
  shipping_rate: number;
  /** OrderUnit.eco_fee and packaging_fee (integer cents, nullable): fees the buyer pays for the piece beside its price. */
  eco_fee: number | null;
  packaging_fee: number | null;
  status: OrderUnitStatus;
  cancel_reason: string | null;
  ts_created_iso: string;
  ts_updated_iso: string;
  shipments: { carrier_code: string; tracking_number: string }[];
}

export interface KauflandOrder {
  id_order: string;
  account: string;
  storefront: string;
  ts_created_iso: string;
  /** OrderDetails.buyer, billing_address and shipping_address are nullable (a test sets them null). */
  buyer: { id_buyer: number; email: string | null } | null;
  billing_address: KauflandAddress | null;
  shipping_address: KauflandAddress | null;
  units: number[];
  /** Who ships it (FulfillmentType): the seller, or Kaufland from its own warehouse. */
  fulfillment_type: 'fulfilled_by_merchant' | 'fulfilled_by_kaufland';
}

/** POST /_sandbox/kaufland/orders: a checkout at the sandbox's Kaufland. */
export interface NewKauflandOrder {
  portal_account: string | number;
  storefront?: string;
  /** eco_fee, packaging_fee: each piece's (decimal, like price); none by default (null, as the contract allows). */
  lines: { id_offer: string; quantity?: number; price?: string; shipping?: string; eco_fee?: string; packaging_fee?: string }[];
  status?: 'need_to_be_sent' | 'open';
  /** fulfilled_by_merchant by default. */
  fulfillment_type?: 'fulfilled_by_merchant' | 'fulfilled_by_kaufland';
  buyer?: {
    first_name?: string;
    last_name?: string;
    email?: string;
    street?: string;
    house_number?: string;
    postcode?: string;
    city?: string;
    country?: string;
    phone?: string;
  };
}

const defaultUnitsListedAfterMs = 120_000;

/** What the sandbox's Kaufland holds; cleared with the sandbox. */
export class KauflandState {
  /** Issued keys: client key -> portal account and secret key. */
  keys = new Map<string, { account: string; secret: string }>();
  units = new Map<number, KauflandUnit>();
  orderUnits = new Map<number, KauflandOrderUnit>();
  orders = new Map<string, KauflandOrder>();
  /** Arrivals of the last second per account (the rate limit counts arrivals). */
  arrivals = new Map<string, number[]>();
  /** Requests a second per seller (Kaufland's "Rate Limits": 111 over all endpoints). */
  rateLimit = 111;
  /** Most order units or units per page, whatever limit is asked (the contract's maximum is 100). */
  pageSize = 100;
  /** Seconds a Shop-Timestamp may differ from the sandbox's clock (the reference names none: ours). */
  timestampWindowS = 300;
  /**
   * How long a new unit is missing from GET /units (the list and its id_offer and ean filters):
   * the contract's "delay of up to several minutes" (its GET /units description). Ours: 2 minutes,
   * longer than any test; GET /units/{id_unit}, PATCH and the bulk update know it at once (the
   * contract says the delay of the list only).
   */
  unitsListedAfterMs = defaultUnitsListedAfterMs;
  /** 429s answered for the rate limit: GET /_sandbox/kaufland/throttled. */
  throttled = 0;
  /**
   * Order units GET /order-units/{id} cannot show for now (404 "Resource not found", one of its
   * documented answers), while the order (GET /orders/{id}) and the list still name them:
   * POST /_sandbox/kaufland/order-units/:id/unreadable {unreadable}.
   */
  unreadable = new Set<number>();
  /** Shipping groups a seller made beside the two every seller has, per `account|storefront`. */
  shippingGroups = new Map<string, { id: number; name: string }[]>();
  private counter = 0;

  next(): number {
    this.counter += 1;
    return this.counter;
  }

  clear(): void {
    this.keys.clear();
    this.units.clear();
    this.orderUnits.clear();
    this.orders.clear();
    this.arrivals.clear();
    this.rateLimit = 111;
    this.pageSize = 100;
    this.timestampWindowS = 300;
    this.unitsListedAfterMs = defaultUnitsListedAfterMs;
    this.throttled = 0;
    this.unreadable.clear();
    this.shippingGroups.clear();
  }

  /** The account and secret of a client key: issued ones, and a development account's (`sandbox-account-<id>`, `sandbox-secret-<id>`). */
  keyOf(clientKey: string): { account: string; secret: string } | undefined {
    const issued = this.keys.get(clientKey);
    if (issued) return issued;
    const dev = /^sandbox-account-(\d{1,12})$/.exec(clientKey);
    return dev ? { account: dev[1]!, secret: `sandbox-secret-${dev[1]}` } : undefined;
  }

  /** The unit of an id_offer a buyer buys: the first on sale, else the first (a seller who posted one twice has two). */
  unitByOffer(account: string, storefront: string, idOffer: string): KauflandUnit | undefined {
    const units = [...this.units.values()].filter((u) => u.account === account && u.storefront === storefront && u.id_offer === idOffer);
    return units.find((u) => u.status === 'AVAILABLE') ?? units[0];
  }
}

const states = new WeakMap<SandboxState, KauflandState>();

/** The sandbox Kaufland of a sandbox (tests read its units and orders). */
export function kauflandOf(state: SandboxState): KauflandState {
  let kaufland = states.get(state);
  if (!kaufland) {
    const created = new KauflandState();
    states.set(state, created);
    state.events.on('reset', () => created.clear());
    kaufland = created;
  }
  return kaufland;
}

const now = () => new Date().toISOString();

/**
 * A unit as Kaufland holds it once made (by POST /units, or by Kaufland's fulfilment programme):
 * the caller names what differs, the rest is a new unit's (one piece, available, no note); its
 * id_product is the EAN's catalogue product unless given.
 */
function newUnit(
  idUnit: number,
  fields: Pick<KauflandUnit, 'account' | 'storefront' | 'id_offer' | 'ean' | 'listed_from' | 'fulfillment_type'> &
    Partial<Pick<KauflandUnit, 'id_product' | 'amount' | 'listing_price'>>,
): KauflandUnit {
  const { id_product, amount, listing_price, ...given } = fields;
  return {
    id_unit: idUnit,
    ...given,
    id_product: id_product ?? 1000000 + Number(fields.ean.slice(-6)),
    amount: amount ?? 1,
    listing_price: listing_price ?? 1,
    minimum_price: null,
    condition: 'NEW',
    note: null,
    handling_time: 1,
    id_shipping_group: null,
    id_warehouse: null,
    status: 'AVAILABLE',
    date_inserted_iso: now(),
    date_lastchange_iso: now(),
  };
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const accountOf = (res: Response) => String(res.locals.account);
const storefrontOf = (req: Request) => String(req.query.storefront ?? 'de');
const cents = (value: string | undefined, fallback: number) =>
  value !== undefined && /^\d+(\.\d{1,2})?$/.test(value) ? Math.round(Number(value) * 100) : fallback;

/** The storefront's currency: listing_price is "in integral cents of the storefront's currency (CZK for cz, EUR for de, sk, at, fr, it and PLN for pl)". */
const currencyOf = (storefront: string) => (storefront === 'cz' ? 'CZK' : storefront === 'pl' ? 'PLN' : 'EUR');

/**
 * listing_price's maximum in the storefront's cents: "Minimum 1 cent, maximum differs by
 * storefront (25 million CZK, 1 million EUR or 4.5 million PLN)" (UnitRequest, UnitPatchRequest;
 * 25 million CZK is beyond the field's int32, which the contract gate refuses first). The contract
 * names no answer to a price above it: ours, validation-error naming listing_price.
 */
const maxListingCents = (storefront: string) => (storefront === 'cz' ? 2_500_000_000 : storefront === 'pl' ? 450_000_000 : 100_000_000);
const priceAboveMaximum = (storefront: string, body: Record<string, unknown>): string | undefined =>
  typeof body.listing_price === 'number' && body.listing_price > maxListingCents(storefront)
    ? `listing_price ${body.listing_price} is above the maximum of storefront ${storefront}: ${maxListingCents(storefront) / 100} ${currencyOf(storefront)}`
    : undefined;

function unitView(u: KauflandUnit) {
  return {
    status: u.status,
    currency: currencyOf(u.storefront),
    id_unit: u.id_unit,
    note: u.note,
    condition: u.condition,
    listing_price: u.listing_price,
    minimum_price: u.minimum_price ?? u.listing_price,
    price: u.listing_price,
    id_offer: u.id_offer,
    id_product: u.id_product,
    id_shipping_group: u.id_shipping_group,
    id_warehouse: u.id_warehouse,
    amount: u.amount,
    date_inserted_iso: u.date_inserted_iso,
    date_lastchange_iso: u.date_lastchange_iso,
    handling_time: u.handling_time,
    shipping_rate: 0,
    storefront: u.storefront,
    transport_time_min: 1,
    transport_time_max: 3,
    fulfillment_type: u.fulfillment_type,
    vat_indicator: 'standard_rate',
  };
}

function orderUnitView(k: KauflandState, ou: KauflandOrderUnit) {
  const order = k.orders.get(ou.id_order)!;
  return {
    id_order_unit: ou.id_order_unit,
    id_order: ou.id_order,
    ts_created_iso: ou.ts_created_iso,
    is_marketplace_deemed_supplier: false,
    ts_updated_iso: ou.ts_updated_iso,
    status: ou.status,
    price: ou.price,
    id_offer: ou.id_offer,
    revenue_gross: ou.price,
    revenue_net: Math.round(ou.price / 1.19),
    note: null,
    unit_condition: 'new',
    storefront: ou.storefront,
    currency: currencyOf(ou.storefront),
    delivery_time_min: 1,
    delivery_time_max: 3,
    delivery_time_expires_iso: null,
    order_received_timestamp_iso: null,
    shipping_rate: ou.shipping_rate,
    cancel_reason: ou.cancel_reason,
    eco_fee: ou.eco_fee,
    packaging_fee: ou.packaging_fee,
    fulfillment_type: order.fulfillment_type,
    buyer: order.buyer,
    billing_address: order.billing_address,
    shipping_address: order.shipping_address,
    product:
      ou.title === null
        ? null
        : {
            id_product: 1000000 + Number(ou.ean.slice(-6)),
            storefront: ou.storefront,
            title: ou.title,
            eans: [ou.ean],
            id_category: 1,
            main_picture: '',
            manufacturer: '',
            url: '',
            age_rating: 0,
            is_valid: true,
            dangerous_goods_li_shipping: null,
            danger_label_9A: null,
          },
    vat: 19,
  };
}

function orderView(k: KauflandState, o: KauflandOrder) {
  return {
    id_order: o.id_order,
    ts_created_iso: o.ts_created_iso,
    is_marketplace_deemed_supplier: false,
    storefront: o.storefront,
    fulfillment_type: o.fulfillment_type,
    order_units: o.units.map((id) => {
      // OrderDetails.order_units names neither the addresses nor fulfillment_type nor the fees (the contract).
      const {
        buyer: _b,
        billing_address: _ba,
        shipping_address: _sa,
        fulfillment_type: _f,
        eco_fee: _e,
        packaging_fee: _p,
        ...unit
      } = orderUnitView(k, k.orderUnits.get(id)!);
      return { ...unit, tickets: [] };
    }),
    billing_address: o.billing_address,
    shipping_address: o.shipping_address,
    buyer: o.buyer,
  };
}

/** The shared offer view (GET /_sandbox/quantities, offers) of a unit, keyed by its id_offer. */
function showOffer(state: SandboxState, u: KauflandUnit, active: boolean): void {
  // A unit ONHOLD (UnitPatchRequest.status, WriteableUnitStatuses) is kept but not on sale; nor is an INCOMPLETE one.
  active &&= u.status === 'AVAILABLE';
  const existing = state.offers.get(key(portal, u.account, u.id_offer));
  state.offers.set(key(portal, u.account, u.id_offer), {
    portal,
    portalAccount: u.account,
    sku: u.id_offer,
    itemId: String(u.id_unit),
    quantity: u.amount,
    active,
    listing: { ...(existing?.listing ?? {}), ...unitView(u), ean: u.ean },
    updatedAt: now(),
  });
}

/**
 * Before every Seller API route: the request logged (portal market_e, the account its key
 * names); the signature headers; the rate limit (X-RateLimit-Limit and -Remaining on every
 * answer, Retry-After on a 429); the delay; a pending fault. Then the contract, then the route.
 */
function gate(state: SandboxState, k: KauflandState) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const clientKey = req.get('Shop-Client-Key') ?? '';
    const known = k.keyOf(clientKey);
    const account = known?.account ?? 'unknown';
    res.locals.account = account;
    const path = req.originalUrl.split('?')[0]!;
    res.once('finish', () => {
      state.requests.push({
        at: now(),
        portal,
        portalAccount: account,
        method: req.method,
        path,
        idempotencyKey: null,
        body: req.body,
        status: res.statusCode,
        replayed: false,
        bearer: false,
        query: { ...req.query },
      });
      if (state.requests.length > state.maxRequests) state.requests.splice(0, state.requests.length - state.maxRequests);
    });
    state.inFlight += 1;
    res.once('close', () => {
      state.inFlight -= 1;
    });
    const timestamp = req.get('Shop-Timestamp') ?? '';
    const signature = req.get('Shop-Signature') ?? '';
    if (!clientKey || !timestamp || !signature) {
      res.status(401).json(problem('missing-or-invalid-request-header', 'Shop-Client-Key, Shop-Timestamp and Shop-Signature are required'));
      return;
    }
    if (!known) {
      res.status(401).json(problem('invalid-credentials', 'The client key is not valid'));
      return;
    }
    // The reference's required headers name User-Agent ("the name of your partner solution")
    // beside the three Shop-* ones; its answer to one missing is not given: that of a missing
    // Shop-* header (ours).
    if (!req.get('User-Agent')?.trim()) {
      res.status(401).json(problem('missing-or-invalid-request-header', 'User-Agent (the name of your partner solution) is required'));
      return;
    }
    if (!/^\d{1,12}$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > k.timestampWindowS) {
      res.status(401).json(problem('missing-or-invalid-request-header', `Shop-Timestamp must be the current Unix time (within ${k.timestampWindowS} s)`));
      return;
    }
    const uri = `${req.protocol}://${req.get('host')}${req.originalUrl}`;
    const body = (req as Request & { rawBody?: string }).rawBody ?? '';
    const expected = crypto.createHmac('sha256', known.secret).update([req.method, uri, body, timestamp].join('\n')).digest('hex');
    if (signature.length !== expected.length || !crypto.timingSafeEqual(Buffer.from(signature), Buffer.from(expected))) {
      res.status(401).json(problem('corrupted-signature', 'The signature of the request is not valid'));
      return;
    }
    const at = Date.now();
    const recent = (k.arrivals.get(account) ?? []).filter((t) => t > at - 1000);
    res.set('X-RateLimit-Limit', String(k.rateLimit));
    if (recent.length >= k.rateLimit) {
      k.throttled += 1;
      k.arrivals.set(account, recent);
      res.set('X-RateLimit-Remaining', '0');
      res.set('Retry-After', String(Math.max(1, Math.ceil((recent[0]! + 1000 - at) / 1000))));
      res.status(429).json({ type: 'about:blank', message: 'Too Many Requests', errors: [] });
      return;
    }
    recent.push(at);
    k.arrivals.set(account, recent);
    res.set('X-RateLimit-Remaining', String(k.rateLimit - recent.length));
    // A delay of one operation (`market_e POST /v2/units`: an answer that comes too late while the call takes effect), else of every call.
    const delay = state.delays.get(`${portal} ${req.method} ${path}`) ?? state.delays.get(portal) ?? state.delays.get('*') ?? 0;
    if (delay > 0) await sleep(delay);
    const fault = state.takeFault(portal, account);
    if (fault) {
      res.locals.scripted = true;
      if (fault.retryAfter !== undefined) res.set('Retry-After', fault.retryAfter);
      res.status(fault.status).json(problem(fault.status >= 500 ? 'server-error' : 'bad-request', fault.message));
      return;
    }
    next();
  };
}

function notFound(res: Response, what: string): void {
  res.status(404).json(problem('not-found', `${what} was not found`));
}

function ownUnit(k: KauflandState, req: Request, res: Response): KauflandUnit | undefined {
  const unit = k.units.get(Number(req.params.id_unit));
  if (!unit || unit.account !== accountOf(res) || unit.storefront !== storefrontOf(req)) {
    notFound(res, `Unit ${String(req.params.id_unit)}`);
    return undefined;
  }
  return unit;
}

function ownOrderUnit(k: KauflandState, id: unknown, res: Response): KauflandOrderUnit | undefined {
  const ou = k.orderUnits.get(Number(id));
  if (!ou || ou.account !== accountOf(res)) {
    notFound(res, `Order unit ${String(id)}`);
    return undefined;
  }
  return ou;
}

/** The unit fields of a UnitRequest or UnitPatchRequest (the contract has checked their types). */
function applyUnitFields(u: KauflandUnit, body: Record<string, unknown>): void {
  if (typeof body.amount === 'number') u.amount = body.amount;
  if (typeof body.listing_price === 'number') u.listing_price = body.listing_price;
  if (typeof body.minimum_price === 'number') u.minimum_price = body.minimum_price;
  if (typeof body.handling_time === 'number') u.handling_time = body.handling_time;
  if (typeof body.note === 'string') u.note = body.note;
  if (typeof body.id_shipping_group === 'number') u.id_shipping_group = body.id_shipping_group;
  if (typeof body.id_warehouse === 'number') u.id_warehouse = body.id_warehouse;
  if (typeof body.condition === 'string') u.condition = body.condition;
  if (body.status === 'AVAILABLE' || body.status === 'ONHOLD') u.status = body.status;
  u.date_lastchange_iso = now();
}

/**
 * An amount for a unit Kaufland fulfils: its stock is what Kaufland's warehouse holds. The contract
 * names no answer to it (ours: refused as action-not-allowed, never taken, so a client that sends
 * one sees it rather than a quantity Kaufland would not keep).
 */
const kauflandsAmount = (u: KauflandUnit, body: Record<string, unknown>): string | undefined =>
  u.fulfillment_type === 'fulfilled_by_kaufland' && body.amount !== undefined
    ? `Unit ${u.id_unit} is fulfilled by Kaufland: its amount is the stock of Kaufland's warehouse`
    : undefined;

/**
 * A status written to a unit Kaufland holds INCOMPLETE (UnitStatuses, not WriteableUnitStatuses:
 * Kaufland's verdict that the unit lacks something). The contract names no answer to it (ours:
 * refused as action-not-allowed, the less convenient reading; a client that writes AVAILABLE to
 * every unit it lists sees it rather than a status Kaufland would not keep).
 */
const incompleteStatus = (u: KauflandUnit, body: Record<string, unknown>): string | undefined =>
  u.status === 'INCOMPLETE' && body.status !== undefined ? `Unit ${u.id_unit} is INCOMPLETE: its status is Kaufland's until the unit is complete` : undefined;

/** The shipping groups of a seller (GET /shipping-groups): the two every sandbox seller has, then those added (POST /_sandbox/kaufland/shipping-groups). */
const shippingGroups = (k: KauflandState, account: string, storefront: string) =>
  [
    { id: 1, name: 'Standard', is_default: true },
    { id: 2, name: 'Spedition', is_default: false },
    ...(k.shippingGroups.get(`${account}|${storefront}`) ?? []).map((g) => ({ ...g, is_default: false })),
  ].map((g) => ({
    currency: currencyOf(storefront),
    id_shipping_group: g.id,
    storefront,
    name: g.name,
    type: 'PACKAGE',
    is_default: g.is_default,
    regions: [],
  }));

function routes(state: SandboxState, k: KauflandState): express.Router {
  const router = express.Router();
  const page = <T>(req: Request, all: T[]) => {
    const limit = Math.min(Number(req.query.limit ?? 30), k.pageSize);
    const offset = Number(req.query.offset ?? 0);
    return { data: all.slice(offset, offset + limit), pagination: { offset, limit, total: all.length } };
  };

  router.get('/units', (req, res) => {
    // id_offer is "Provided ID of your stock": the contract does not say the filter matches exactly,
    // so it is played as matching every id_offer that contains it (ours: the less convenient reading;
    // KL answers KL-10 too, oldest unit first). fulfillment_type's default is the contract's,
    // [fulfilled_by_merchant]: units Kaufland fulfils are answered only when asked for.
    const idOffer = req.query.id_offer === undefined ? undefined : String(req.query.id_offer);
    const fulfilledBy = req.query.fulfillment_type === undefined ? ['fulfilled_by_merchant'] : [req.query.fulfillment_type].flat().map(String);
    const all = [...k.units.values()].filter(
      (u) =>
        u.listed_from <= Date.now() &&
        u.account === accountOf(res) &&
        u.storefront === storefrontOf(req) &&
        fulfilledBy.includes(u.fulfillment_type) &&
        (idOffer === undefined || u.id_offer.includes(idOffer)) &&
        (req.query.ean === undefined || u.ean === req.query.ean),
    );
    const p = page(req, all);
    res.json({ data: p.data.map(unitView), pagination: p.pagination });
  });
  router.post('/units', (req, res) => {
    const body = req.body as Record<string, unknown>;
    const account = accountOf(res);
    const storefront = storefrontOf(req);
    const ean = typeof body.ean === 'string' ? body.ean : '';
    if (!/^\d{13,14}$/.test(ean) && body.id_product === undefined) {
      res.status(400).json(problem('validation-error', 'Request parameters have invalid values', [{ field: 'ean', message: 'EAN, 13 or 14 digits' }]));
      return;
    }
    const tooDear = priceAboveMaximum(storefront, body);
    if (tooDear) {
      res.status(400).json(problem('validation-error', 'Request parameters have invalid values', [{ field: 'listing_price', message: tooDear }]));
      return;
    }
    const idOffer = String(body.id_offer);
    // A second POST of an id_offer adds a second unit: createUnit is "Add a new unit for an
    // existing product", id_offer the "Seller's unique ID for offer(s)" (the seller keeps it
    // unique), and no refusal of a repeated one is documented. Duplicates are the caller's to avoid.
    const fault = state.takeFault(portal, account, idOffer);
    if (fault) {
      if (fault.retryAfter !== undefined) res.set('Retry-After', fault.retryAfter);
      res
        .status(fault.status)
        .json(problem(fault.status >= 500 ? 'server-error' : 'validation-error', fault.message, [{ field: 'id_offer', message: fault.message }]));
      return;
    }
    const unit = newUnit(500000 + k.next(), {
      account,
      storefront,
      id_offer: idOffer,
      ean,
      id_product: typeof body.id_product === 'number' ? body.id_product : undefined,
      listed_from: Date.now() + k.unitsListedAfterMs,
      fulfillment_type: 'fulfilled_by_merchant',
    });
    applyUnitFields(unit, body);
    k.units.set(unit.id_unit, unit);
    showOffer(state, unit, true);
    emitQuantity(state, portal, account, idOffer, unit.amount, 'listing');
    res.json({ data: unitView(unit) });
  });
  router.get('/units/:id_unit', (req, res) => {
    const unit = ownUnit(k, req, res);
    if (unit) res.json({ data: unitView(unit) });
  });
  router.patch('/units/:id_unit', (req, res) => {
    const unit = ownUnit(k, req, res);
    if (!unit) return;
    const body = req.body as Record<string, unknown>;
    const refused = kauflandsAmount(unit, body);
    if (refused) {
      res.status(400).json(problem('action-not-allowed', refused, [{ field: 'amount', message: refused }]));
      return;
    }
    const incomplete = incompleteStatus(unit, body);
    if (incomplete) {
      res.status(400).json(problem('action-not-allowed', incomplete, [{ field: 'status', message: incomplete }]));
      return;
    }
    const tooDear = priceAboveMaximum(unit.storefront, body);
    if (tooDear) {
      res.status(400).json(problem('validation-error', 'Request parameters have invalid values', [{ field: 'listing_price', message: tooDear }]));
      return;
    }
    applyUnitFields(unit, body);
    showOffer(state, unit, true);
    if (typeof body.amount === 'number') emitQuantity(state, portal, unit.account, unit.id_offer, unit.amount, 'quantity');
    res.json({ data: unitView(unit) });
  });
  router.delete('/units/:id_unit', (req, res) => {
    const unit = ownUnit(k, req, res);
    if (!unit) return;
    k.units.delete(unit.id_unit);
    showOffer(state, unit, false);
    emitQuantity(state, portal, unit.account, unit.id_offer, 0, 'end');
    res.status(204).end();
  });
  // "SHOULD NOT have more than 150 units ... SHOULD NOT contain duplicate units": either fails the whole request.
  router.post('/units/bulk', (req, res) => {
    const items = req.body as { id_unit: number; unit_data: Record<string, unknown> }[];
    if (items.length > 150) {
      res.status(400).json(problem('units/bulk-too-many-units', 'At most 150 units per request'));
      return;
    }
    if (new Set(items.map((i) => i.id_unit)).size !== items.length) {
      res.status(400).json(problem('units/bulk-duplicate-units', 'The request contains duplicate units'));
      return;
    }
    const data = items.map((item) => {
      const unit = k.units.get(item.id_unit);
      if (!unit || unit.account !== accountOf(res) || unit.storefront !== storefrontOf(req))
        return { id_unit: item.id_unit, status_code: 404, message: `Unit ${item.id_unit} was not found`, errors: [] };
      const fault = state.takeFault(portal, unit.account, unit.id_offer);
      if (fault) return { id_unit: item.id_unit, status_code: fault.status, message: fault.message, errors: [{ field: 'amount', message: fault.message }] };
      const refused = kauflandsAmount(unit, item.unit_data);
      if (refused) return { id_unit: item.id_unit, status_code: 400, message: refused, errors: [{ field: 'amount', message: refused }] };
      const incomplete = incompleteStatus(unit, item.unit_data);
      if (incomplete) return { id_unit: item.id_unit, status_code: 400, message: incomplete, errors: [{ field: 'status', message: incomplete }] };
      const tooDear = priceAboveMaximum(unit.storefront, item.unit_data);
      if (tooDear) return { id_unit: item.id_unit, status_code: 400, message: tooDear, errors: [{ field: 'listing_price', message: tooDear }] };
      applyUnitFields(unit, item.unit_data);
      showOffer(state, unit, true);
      if (typeof item.unit_data.amount === 'number') emitQuantity(state, portal, unit.account, unit.id_offer, unit.amount, 'quantity');
      return { id_unit: unit.id_unit, status_code: 200, unit: unitView(unit) };
    });
    res.status(207).json({ data });
  });
  // Paged as the contract has it (limit: default 30, at most 30): a seller's 31st group is on the second page.
  router.get('/shipping-groups', (req, res) => {
    res.json(page(req, shippingGroups(k, accountOf(res), storefrontOf(req))));
  });
  router.get('/carriers', (_req, res) => {
    res.json({ data: { carriers: sandboxCarriers } });
  });
  router.get('/order-units', (req, res) => {
    // "Should be in YYYY-MM-ddTHH:mm:ssZ format" (both filters' descriptions): whole seconds, UTC
    // (Z) or an offset; milliseconds are not that format (our reading: the contract's date-time
    // type alone would take them, its words do not).
    const wrongTime = ['ts_updated_from_iso', 'ts_created_from_iso'].filter(
      (name) => req.query[name] !== undefined && !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(Z|[+-]\d{2}:?\d{2})$/.test(String(req.query[name])),
    );
    if (wrongTime.length > 0) {
      res.status(400).json(
        problem(
          'validation-error',
          'Request parameters have invalid values',
          wrongTime.map((field) => ({ field, message: `${String(req.query[field])} is not in YYYY-MM-ddTHH:mm:ssZ format` })),
        ),
      );
      return;
    }
    const statuses =
      typeof req.query.status === 'string' ? req.query.status.split(',') : Array.isArray(req.query.status) ? req.query.status.map(String) : undefined;
    // The contract's default: "Get only order units which are fulfilled by the given type", [fulfilled_by_merchant].
    const fulfilledBy = req.query.fulfillment_type === undefined ? ['fulfilled_by_merchant'] : [req.query.fulfillment_type].flat().map(String);
    const from = (name: string) => (typeof req.query[name] === 'string' ? Date.parse(req.query[name]) : undefined);
    const updatedFrom = from('ts_updated_from_iso');
    const createdFrom = from('ts_created_from_iso');
    const byUpdated = req.query.sort === 'ts_updated:desc';
    const all = [...k.orderUnits.values()]
      .filter(
        (ou) =>
          ou.account === accountOf(res) &&
          (req.query.storefront === undefined || ou.storefront === req.query.storefront) &&
          (req.query.id_offer === undefined || ou.id_offer === req.query.id_offer) &&
          (!statuses || statuses.includes(ou.status)) &&
          fulfilledBy.includes(k.orders.get(ou.id_order)!.fulfillment_type) &&
          (updatedFrom === undefined || Date.parse(ou.ts_updated_iso) >= updatedFrom) &&
          (createdFrom === undefined || Date.parse(ou.ts_created_iso) >= createdFrom),
      )
      .sort(
        (a, b) =>
          (byUpdated ? b.ts_updated_iso.localeCompare(a.ts_updated_iso) : b.ts_created_iso.localeCompare(a.ts_created_iso)) ||
          b.id_order_unit - a.id_order_unit,
      );
    const p = page(req, all);
    res.json({ data: p.data.map((ou) => orderUnitView(k, ou)), pagination: p.pagination });
  });
  router.get('/order-units/:id_order_unit', (req, res) => {
    if (k.unreadable.has(Number(req.params.id_order_unit))) {
      notFound(res, `Order unit ${String(req.params.id_order_unit)}`);
      return;
    }
    const ou = ownOrderUnit(k, req.params.id_order_unit, res);
    if (ou) res.json({ data: orderUnitView(k, ou) });
  });
  router.get('/orders/:id_order', (req, res) => {
    const order = k.orders.get(String(req.params.id_order));
    if (!order || order.account !== accountOf(res)) {
      notFound(res, `Order ${String(req.params.id_order)}`);
      return;
    }
    res.json({ data: orderView(k, order) });
  });
  const carrierProblem = (code: string, tracking: string): string | undefined => {
    if (!sandboxCarriers.some((c) => c.name === code)) return `carrier_code ${code} is not one of ${sandboxCarriers.map((c) => c.name).join(', ')}`;
    if (!tracking && !withoutTracking.has(code)) return 'a tracking number is required unless the carrier is Other or Other Hauler';
    return undefined;
  };
  router.patch('/order-units/:id_order_unit/send', (req, res) => {
    const ou = ownOrderUnit(k, req.params.id_order_unit, res);
    if (!ou) return;
    const body = req.body as { tracking_numbers: string; carrier_code: string };
    const wrong = carrierProblem(body.carrier_code, body.tracking_numbers.trim());
    if (wrong) {
      res.status(400).json(problem('validation-error', wrong, [{ field: 'carrier_code', message: wrong }]));
      return;
    }
    if (ou.status !== 'need_to_be_sent') {
      res
        .status(400)
        .json(
          problem(
            ou.status === 'open' ? 'order-units/missing-payment' : 'action-not-allowed',
            `Order unit ${ou.id_order_unit} is ${ou.status}, not need_to_be_sent`,
          ),
        );
      return;
    }
    ou.status = 'sent';
    ou.ts_updated_iso = now();
    for (const t of body.tracking_numbers.split(',').map((s) => s.trim())) ou.shipments.push({ carrier_code: body.carrier_code, tracking_number: t });
    res.status(204).end();
  });
  router.post('/shipments', (req, res) => {
    const body = req.body as { id_order_unit: number; shipment_information: { tracking_number: string; carrier_code: string } };
    const ou = ownOrderUnit(k, body.id_order_unit, res);
    if (!ou) return;
    const { tracking_number: tracking, carrier_code: code } = body.shipment_information;
    const wrong = carrierProblem(code, tracking.trim());
    if (wrong) {
      res.status(400).json(problem('validation-error', wrong, [{ field: 'shipment_information.carrier_code', message: wrong }]));
      return;
    }
    if (!['sent', 'sent_and_autopaid', 'received'].includes(ou.status)) {
      res.status(400).json(problem('action-not-allowed', `Order unit ${ou.id_order_unit} is ${ou.status}: a shipment is added to a sent order unit`));
      return;
    }
    if (ou.shipments.some((s) => s.tracking_number === tracking)) {
      res.status(400).json(problem('duplicate-action', `Order unit ${ou.id_order_unit} already has the shipment ${tracking}`));
      return;
    }
    ou.shipments.push({ carrier_code: code, tracking_number: tracking });
    ou.ts_updated_iso = now();
    res.status(204).end();
  });
  router.patch('/order-units/:id_order_unit/cancel', (req, res) => {
    const ou = ownOrderUnit(k, req.params.id_order_unit, res);
    if (!ou) return;
    if (ou.status !== 'open' && ou.status !== 'need_to_be_sent') {
      res.status(400).json(problem('order-units/cancel-not-possible', `Order unit ${ou.id_order_unit} is ${ou.status} and cannot be cancelled`));
      return;
    }
    ou.status = 'cancelled';
    ou.cancel_reason = String((req.body as { reason: string }).reason);
    ou.ts_updated_iso = now();
    res.status(204).end();
  });
  return router;
}

const address = (b: NewKauflandOrder['buyer'] = {}): KauflandAddress => ({
  first_name: b.first_name ?? 'Karla',
  last_name: b.last_name ?? 'Kauf',
  company_name: null,
  street: b.street ?? 'Marktplatz',
  house_number: b.house_number ?? '1',
  postcode: b.postcode ?? '74172',
  additional_field: null,
  city: b.city ?? 'Neckarsulm',
  phone: b.phone ?? null,
  country: b.country ?? 'DE',
});

/** A checkout: one order unit per piece of each line, at the unit's price unless given; the units' amounts go down. */
export function placeKauflandOrder(state: SandboxState, k: KauflandState, input: NewKauflandOrder): { id_order: string; id_order_units: number[] } {
  const account = String(input.portal_account);
  const storefront = input.storefront ?? 'de';
  if (!Array.isArray(input.lines) || input.lines.length === 0) throw Object.assign(new Error('lines are required'), { status: 400 });
  const at = now();
  const idOrder = `M${crypto.randomBytes(4).toString('hex').toUpperCase()}`;
  const order: KauflandOrder = {
    id_order: idOrder,
    account,
    storefront,
    ts_created_iso: at,
    buyer: { id_buyer: 20000000 + k.next(), email: input.buyer?.email ?? `buyer-${k.next()}@kaufland-marktplatz.de` },
    billing_address: address(input.buyer),
    shipping_address: address(input.buyer),
    units: [],
    // Not given: the first line's unit's (an order of a unit Kaufland fulfils is Kaufland's to ship).
    fulfillment_type:
      (input.fulfillment_type ?? k.unitByOffer(account, storefront, String(input.lines[0]!.id_offer))?.fulfillment_type) === 'fulfilled_by_kaufland'
        ? 'fulfilled_by_kaufland'
        : 'fulfilled_by_merchant',
  };
  for (const line of input.lines) {
    const unit = k.unitByOffer(account, storefront, String(line.id_offer));
    const quantity = Number(line.quantity ?? 1);
    if (!unit) throw Object.assign(new Error(`no unit with id_offer ${line.id_offer} in storefront ${storefront}`), { status: 404 });
    // Only a unit on sale is bought (showOffer: ONHOLD and INCOMPLETE are kept off sale).
    if (unit.status !== 'AVAILABLE') throw Object.assign(new Error(`unit ${unit.id_unit} is ${unit.status}, not on sale`), { status: 409 });
    if (!Number.isInteger(quantity) || quantity < 1 || unit.amount < quantity)
      throw Object.assign(new Error(`unit ${unit.id_unit} has ${unit.amount} left, ${quantity} asked`), { status: 409 });
    unit.amount -= quantity;
    unit.date_lastchange_iso = at;
    showOffer(state, unit, true);
    for (let i = 0; i < quantity; i++) {
      const ou: KauflandOrderUnit = {
        id_order_unit: 900000000 + k.next(),
        id_order: idOrder,
        account,
        storefront,
        id_offer: unit.id_offer,
        title: `Product ${unit.ean}`,
        ean: unit.ean,
        price: cents(line.price, unit.listing_price),
        // The shipping rate is charged once per line, on its first order unit.
        shipping_rate: i === 0 ? cents(line.shipping, 0) : 0,
        eco_fee: line.eco_fee === undefined ? null : cents(line.eco_fee, 0),
        packaging_fee: line.packaging_fee === undefined ? null : cents(line.packaging_fee, 0),
        status: input.status ?? 'need_to_be_sent',
        cancel_reason: null,
        ts_created_iso: at,
        ts_updated_iso: at,
        shipments: [],
      };
      k.orderUnits.set(ou.id_order_unit, ou);
      order.units.push(ou.id_order_unit);
    }
  }
  k.orders.set(idOrder, order);
  return { id_order: idOrder, id_order_units: order.units };
}

function controls(app: express.Express, state: SandboxState, k: KauflandState): void {
  app.post('/_sandbox/kaufland/keys', (req, res) => {
    const body = (req.body ?? {}) as { portal_account?: string | number; storefront?: string };
    if (body.portal_account === undefined) {
      res.status(400).json({ message: 'portal_account is required' });
      return;
    }
    const clientKey = crypto.randomBytes(16).toString('hex');
    const secretKey = crypto.randomBytes(32).toString('hex');
    k.keys.set(clientKey, { account: String(body.portal_account), secret: secretKey });
    // The storefront too, so the answer can be piped into kontor portal-account connect --credentials-stdin.
    res.status(201).json({ client_key: clientKey, secret_key: secretKey, storefront: body.storefront ?? 'de' });
  });
  app.post('/_sandbox/kaufland/units', (req, res) => {
    const body = (req.body ?? {}) as Partial<NewKauflandUnit>;
    if (body.portal_account === undefined || !body.id_offer) {
      res.status(400).json({ message: 'portal_account and id_offer are required' });
      return;
    }
    const ean = body.ean ?? '4006381333931';
    const unit = newUnit(500000 + k.next(), {
      account: String(body.portal_account),
      storefront: body.storefront ?? 'de',
      id_offer: String(body.id_offer),
      ean,
      amount: Number(body.amount ?? 1),
      listing_price: Number(body.listing_price ?? 1990),
      listed_from: Date.now(),
      fulfillment_type: body.fulfillment_type === 'fulfilled_by_merchant' ? 'fulfilled_by_merchant' : 'fulfilled_by_kaufland',
    });
    k.units.set(unit.id_unit, unit);
    showOffer(state, unit, true);
    res.status(201).json({ data: unitView(unit) });
  });
  // A unit moved into Kaufland's fulfilment programme (fulfilled_by_kaufland: its stock is Kaufland's
  // warehouse's from then on, and an amount for it is refused) or back: what a seller does in
  // Kaufland's seller portal to a unit Kontor listed, outside the API.
  app.post('/_sandbox/kaufland/units/:id_unit/fulfillment', (req, res) => {
    const unit = k.units.get(Number(req.params.id_unit));
    const type = String((req.body as { fulfillment_type?: string } | undefined)?.fulfillment_type ?? 'fulfilled_by_kaufland');
    if (!unit || (type !== 'fulfilled_by_kaufland' && type !== 'fulfilled_by_merchant')) {
      res.status(400).json({ message: 'a known unit and fulfilled_by_kaufland or fulfilled_by_merchant are required' });
      return;
    }
    unit.fulfillment_type = type;
    unit.date_lastchange_iso = now();
    res.json({ data: unitView(unit) });
  });
  // Kaufland's verdict on a unit (UnitStatuses), as GET /units/{id_unit} then answers it:
  // INCOMPLETE (lacking something Kaufland asks for), or back to AVAILABLE or ONHOLD.
  app.post('/_sandbox/kaufland/units/:id_unit/status', (req, res) => {
    const unit = k.units.get(Number(req.params.id_unit));
    const status = String((req.body as { status?: string } | undefined)?.status ?? '');
    if (!unit || !unitStatuses.includes(status as UnitStatus)) {
      res.status(400).json({ message: `a known unit and one of ${unitStatuses.join(', ')} are required` });
      return;
    }
    unit.status = status as UnitStatus;
    unit.date_lastchange_iso = now();
    showOffer(state, unit, true);
    res.json({ data: unitView(unit) });
  });
  app.post('/_sandbox/kaufland/config', (req, res) => {
    const body = (req.body ?? {}) as {
      rate_limit?: number | null;
      page_size?: number | null;
      timestamp_window_s?: number | null;
      units_listed_after_ms?: number | null;
    };
    if (body.rate_limit !== undefined) k.rateLimit = body.rate_limit === null ? 111 : Math.max(1, Number(body.rate_limit) || 111);
    if (body.page_size !== undefined) k.pageSize = body.page_size === null ? 100 : Math.max(1, Number(body.page_size) || 100);
    if (body.timestamp_window_s !== undefined) k.timestampWindowS = body.timestamp_window_s === null ? 300 : Math.max(0, Number(body.timestamp_window_s) || 0);
    if (body.units_listed_after_ms !== undefined)
      k.unitsListedAfterMs = body.units_listed_after_ms === null ? defaultUnitsListedAfterMs : Math.max(0, Number(body.units_listed_after_ms) || 0);
    res.json({ rate_limit: k.rateLimit, page_size: k.pageSize, timestamp_window_s: k.timestampWindowS, units_listed_after_ms: k.unitsListedAfterMs });
  });
  app.post('/_sandbox/kaufland/orders', (req, res) => {
    try {
      res.status(201).json(placeKauflandOrder(state, k, (req.body ?? {}) as NewKauflandOrder));
    } catch (err) {
      res.status((err as { status?: number }).status ?? 400).json({ message: (err as Error).message });
    }
  });
  app.post('/_sandbox/kaufland/order-units/:id/status', (req, res) => {
    const ou = k.orderUnits.get(Number(req.params.id));
    const status = String((req.body as { status?: string } | undefined)?.status ?? '');
    if (!ou || !['cancelled', 'need_to_be_sent', 'open', 'received', 'returned', 'returned_paid', 'sent', 'sent_and_autopaid'].includes(status)) {
      res.status(400).json({ message: 'a known order unit and one of the OrderUnitStatus values are required' });
      return;
    }
    ou.status = status as OrderUnitStatus;
    if (status === 'cancelled') ou.cancel_reason = 'BuyerCancelled';
    ou.ts_updated_iso = now();
    res.json({ id_order_unit: ou.id_order_unit, status: ou.status });
  });
  app.post('/_sandbox/kaufland/shipping-groups', (req, res) => {
    const body = (req.body ?? {}) as { portal_account?: string | number; storefront?: string; name?: string };
    if (body.portal_account === undefined || !body.name) {
      res.status(400).json({ message: 'portal_account and name are required' });
      return;
    }
    const key = `${String(body.portal_account)}|${body.storefront ?? 'de'}`;
    const group = { id: 100 + k.next(), name: String(body.name) };
    k.shippingGroups.set(key, [...(k.shippingGroups.get(key) ?? []), group]);
    res.status(201).json({ id_shipping_group: group.id, name: group.name });
  });
  app.post('/_sandbox/kaufland/order-units/:id/unreadable', (req, res) => {
    const id = Number(req.params.id);
    if (!k.orderUnits.has(id)) {
      res.status(404).json({ message: 'no such order unit' });
      return;
    }
    if ((req.body as { unreadable?: boolean } | undefined)?.unreadable === false) k.unreadable.delete(id);
    else k.unreadable.add(id);
    res.json({ id_order_unit: id, unreadable: k.unreadable.has(id) });
  });
  app.get('/_sandbox/kaufland/orders/:id', (req, res) => {
    const order = k.orders.get(String(req.params.id));
    if (!order) {
      res.status(404).json({ message: 'no such order' });
      return;
    }
    res.json({ ...orderView(k, order), shipments: order.units.map((id) => ({ id_order_unit: id, shipments: k.orderUnits.get(id)!.shipments })) });
  });
  app.get('/_sandbox/kaufland/units', (req, res) => {
    res.json([...k.units.values()].filter((u) => req.query.portal_account === undefined || u.account === String(req.query.portal_account)));
  });
  app.get('/_sandbox/kaufland/throttled', (_req, res) => {
    res.json({ throttled: k.throttled });
  });
}

/** Mounts Kaufland's Seller API under /v2, its controls, and its seller (POST /_sandbox/sell {portal: market_e, sku: id_offer}). */
export function mountKaufland(app: express.Express, state: SandboxState): void {
  const seller = kauflandContract(); // read at start: a missing folder or file stops the sandbox naming it
  const k = kauflandOf(state);
  mountContractControls(app, state);
  const checked = contractGate({ vendor: 'kaufland', contracts: [seller], log: violationsOf(state), format: kauflandContractError });
  app.use('/v2', gate(state, k), checked, routes(state, k));
  controls(app, state, k);
  state.sellers.set(portal, (body: SellRequest) => {
    const placed = placeKauflandOrder(state, k, {
      portal_account: body.portal_account,
      lines: [{ id_offer: body.sku, quantity: body.quantity, ...(body.price ? { price: body.price } : {}) }],
      buyer: body.buyer
        ? {
            first_name: body.buyer.name?.split(' ')[0],
            last_name: body.buyer.name?.split(' ').slice(1).join(' ') || undefined,
            email: body.buyer.email,
            // Kaufland keeps the house number apart: "Lindenweg 3" is street Lindenweg, house number 3.
            street: body.buyer.street?.replace(/\s+\d+\s*\w?$/, ''),
            house_number: /\s(\d+\s*\w?)$/.exec(body.buyer.street ?? '')?.[1] ?? '',
            postcode: body.buyer.zip,
            city: body.buyer.city,
            country: body.buyer.country_iso2,
            phone: body.buyer.phone,
          }
        : undefined,
    });
    return { order_id: placed.id_order };
  });
}
