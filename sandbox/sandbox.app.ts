/**
 * The sandbox portal: one small Express app that plays every portal's API as the adapters in
 * lib/portals call it, records what it receives, and can be told to answer slowly or with
 * 429, 5xx or 4xx. Offers are kept per (portal, portal account, sku) in memory.
 */
import { EventEmitter } from 'node:events';
import express, { NextFunction, Request, Response } from 'express';
import { portalIds } from '../lib/portals/portal.registry';
import { mountAmazon } from './amazon.sandbox';
import { EbayState, mountEbay } from './ebay.sandbox';
import { keepRawBody, mountKaufland } from './kaufland.sandbox';
import { mountShopify } from './shopify.sandbox';
import { mountPayPal, PayPalState } from './paypal.sandbox';

export interface SandboxOffer {
  portal: string;
  portalAccount: string;
  sku: string;
  itemId: string;
  quantity: number;
  active: boolean;
  listing: Record<string, unknown>;
  updatedAt: string;
}

export interface SandboxRequest {
  at: string;
  portal: string;
  portalAccount: string;
  method: string;
  path: string;
  idempotencyKey: string | null;
  body: unknown;
  status: number;
  /** Answered from the idempotency store: the portal did not apply it again. */
  replayed: boolean;
  /** The call carried a bearer token (OAuth2 portals) or a valid SP-API access token (market_d). */
  bearer: boolean;
  /** The query string's parameters (SP-API calls carry marketplaceIds there). */
  query?: Record<string, unknown>;
}

/** POST /_sandbox/sell: an order placed at a channel, for the order fetch to find. */
export interface SellRequest {
  portal: string;
  portal_account: string;
  sku: string;
  quantity: number;
  price?: string;
  buyer?: { username?: string; email?: string; name?: string; street?: string; zip?: string; city?: string; country_iso2?: string; phone?: string };
}

/**
 * A scripted failure: the next `remaining` calls (to the portal, and the portal account, when
 * given) get it; with `reference`, the next `remaining` quantities of that item in bulk
 * quantity calls get it as the item's own answer, and the rest of the call goes through.
 */
export interface Fault {
  portal: string | null;
  portalAccount?: string;
  reference?: string;
  status: number;
  remaining: number;
  retryAfter?: string;
  message: string;
}

/**
 * A quantity a portal took, by a listing, a quantity call or an end; seq numbers them in order
 * (GET /_sandbox/acks?after=<seq>).
 */
export interface QuantityEvent {
  seq: number;
  portal: string;
  portalAccount: string;
  sku: string;
  quantity: number;
  at: number;
  via: 'listing' | 'quantity' | 'end';
}

/** One item's answer in a bulk quantity call. */
interface ItemAnswer {
  reference: string;
  status: number;
  message?: string;
}

/** The sandbox's memory and its controls; `events` emits 'quantity' on every applied quantity. */
export class SandboxState {
  offers = new Map<string, SandboxOffer>();
  requests: SandboxRequest[] = [];
  faults: Fault[] = [];
  delays = new Map<string, number>();
  idempotency = new Map<string, { status: number; body: unknown }>();
  /** Item idempotency keys of bulk quantity calls already applied. */
  itemKeys = new Set<string>();
  /** Bulk quantity calls received. */
  quantityRequests = 0;
  events = new EventEmitter();
  /** Portal calls received and not yet answered. */
  inFlight = 0;
  /** Every quantity a portal took, in order (the last 100000). */
  acks: QuantityEvent[] = [];
  ackCount = 0;
  private counter = 0;
  /** Requests kept for inspection (older ones are dropped). */
  maxRequests = 20000;
  /** The payment provider (PayPal) the sandbox plays. */
  paypal = new PayPalState();
  /** eBay (auction_a): consents, tokens, inventory items, offers, orders. */
  ebay = new EbayState();
  /** The channels that can sell (POST /_sandbox/sell), by portal. */
  sellers = new Map<string, (body: SellRequest) => { order_id: string }>();

  constructor() {
    this.events.setMaxListeners(100);
  }

  reset(): void {
    this.offers.clear();
    this.requests = [];
    this.acks = [];
    this.faults = [];
    this.delays.clear();
    this.idempotency.clear();
    this.itemKeys.clear();
    this.quantityRequests = 0;
    this.paypal.reset();
    this.ebay.reset();
    this.events.emit('reset');
  }

  /**
   * The first pending fault for a call of the portal account (reference: for that item inside a
   * bulk call; none: for the whole call), counted down and dropped when used up.
   */
  takeFault(portal: string, account: string, reference?: string): Fault | undefined {
    const fault = this.faults.find(
      (f) =>
        f.remaining > 0 &&
        (reference === undefined ? f.reference === undefined : f.reference === reference) &&
        (f.portal === null || f.portal === portal) &&
        (f.portalAccount === undefined || f.portalAccount === account),
    );
    if (!fault) return undefined;
    fault.remaining -= 1;
    if (fault.remaining === 0) this.faults = this.faults.filter((f) => f !== fault);
    return fault;
  }

  nextItemId(portal: string): string {
    this.counter += 1;
    return `${portal.toUpperCase()}${100000 + this.counter}`;
  }

  /** Quantities each portal shows now: portal → sku → quantity (0 when ended). */
  quantities(portalAccount?: string): Record<string, Record<string, number>> {
    const out: Record<string, Record<string, number>> = {};
    for (const o of this.offers.values()) {
      if (portalAccount && o.portalAccount !== portalAccount) continue;
      (out[o.portal] ??= {})[o.sku] = o.active ? o.quantity : 0;
    }
    return out;
  }

  /** The acks after a seq (they are kept in seq order: found by bisection, as a poller asks often). */
  acksAfter(seq: number): QuantityEvent[] {
    let low = 0;
    let high = this.acks.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.acks[middle]!.seq <= seq) low = middle + 1;
      else high = middle;
    }
    return this.acks.slice(low);
  }

  /** The quantities a portal applied for a sku through quantity calls, in order (replays left out). */
  quantitiesApplied(portal: string, sku: string): number[] {
    return this.acks.filter((a) => a.via === 'quantity' && a.portal === portal && a.sku === sku).map((a) => a.quantity);
  }
}

export const key = (portal: string, account: string, sku: string) => `${portal}|${account}|${sku}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The sandbox app and its state. */
export function createSandbox(state = new SandboxState()): { app: express.Express; state: SandboxState } {
  const app = express();
  app.disable('x-powered-by');
  // Kaufland signs the raw body: its routes keep it (keepRawBody, only for /v2/).
  app.use(express.json({ limit: '5mb', verify: keepRawBody }));

  // --- controls -------------------------------------------------------------------------
  app.get('/', (_req, res) => {
    res.json(overview(state));
  });
  app.get('/_sandbox', (_req, res) => {
    res.json(overview(state));
  });
  app.get('/_sandbox/quantities', (req, res) => {
    res.json(state.quantities(typeof req.query.portal_account === 'string' ? req.query.portal_account : undefined));
  });
  app.get('/_sandbox/offers', (_req, res) => {
    res.json([...state.offers.values()]);
  });
  app.get('/_sandbox/requests', (req, res) => {
    const portal = typeof req.query.portal === 'string' ? req.query.portal : undefined;
    res.json(state.requests.filter((r) => !portal || r.portal === portal).slice(-1000));
  });
  // Counts per portal and portal account since a time (the list above keeps only its last 1000): a bench's calls per order.
  app.get('/_sandbox/requests/count', (req, res) => {
    const since = typeof req.query.since === 'string' ? req.query.since : '';
    const counts: Record<string, Record<string, number>> = {};
    for (const r of state.requests) {
      if (r.at < since) continue;
      const portal = (counts[r.portal] ??= {});
      portal[r.portalAccount] = (portal[r.portalAccount] ?? 0) + 1;
    }
    res.json(counts);
  });
  app.get('/_sandbox/acks', (req, res) => {
    res.json(state.acksAfter(Number(req.query.after ?? 0) || 0));
  });
  app.post('/_sandbox/faults', (req, res) => {
    const body = req.body as {
      portal?: string;
      portal_account?: string | number;
      reference?: string | number;
      status?: number;
      count?: number;
      retry_after?: number | string;
      message?: string;
    };
    const status = Number(body.status);
    if (!Number.isInteger(status) || status < 400 || status > 599) {
      res.status(400).json({ message: 'status must be 400 to 599' });
      return;
    }
    state.faults.push({
      portal: body.portal ?? null,
      portalAccount: body.portal_account === undefined ? undefined : String(body.portal_account),
      reference: body.reference === undefined ? undefined : String(body.reference),
      status,
      remaining: Math.max(1, Number(body.count ?? 1)),
      retryAfter: body.retry_after === undefined ? undefined : String(body.retry_after),
      message: body.message ?? `sandbox fault ${status}`,
    });
    res.status(201).json({ faults: state.faults.length });
  });
  app.post('/_sandbox/delay', (req, res) => {
    const body = req.body as { portal?: string; ms?: number };
    state.delays.set(body.portal ?? '*', Math.max(0, Number(body.ms ?? 0)));
    res.json({ delay: Object.fromEntries(state.delays) });
  });
  app.post('/_sandbox/reset', (_req, res) => {
    state.reset();
    res.json({ reset: true });
  });
  app.post('/_sandbox/sell', (req, res) => {
    const body = (req.body ?? {}) as SellRequest;
    const seller = state.sellers.get(String(body.portal));
    const quantity = Number(body.quantity ?? 1);
    if (!seller || !body.sku || !Number.isInteger(quantity) || quantity < 1) {
      res.status(400).json({ message: `portal must be one of ${[...state.sellers.keys()].join(', ')}; sku and a quantity of 1 or more are required` });
      return;
    }
    try {
      res.status(201).json(seller({ ...body, portal_account: String(body.portal_account ?? 'default'), quantity }));
    } catch (err) {
      res.status((err as { status?: number }).status ?? 400).json({ message: (err as Error).message });
    }
  });

  // --- the portals ----------------------------------------------------------------------
  const portals = express.Router({ mergeParams: true });
  portals.post('/oauth/token', (_req, res) => {
    res.json({ access_token: `sandbox-${Date.now()}`, token_type: 'Bearer', expires_in: 3600 });
  });
  portals.post('/offers', (req, res) => {
    const { portal, account } = who(req);
    const body = (req.body ?? {}) as Record<string, unknown>;
    // Offers are keyed by the seller's reference (the stock id), as quantity calls address them.
    const sku = String(body.reference ?? '');
    if (!sku) {
      res.status(422).json({ message: 'reference is required' });
      return;
    }
    const existing = state.offers.get(key(portal, account, sku));
    const itemId = existing?.itemId ?? state.nextItemId(portal);
    const quantity = typeof body.quantity === 'number' ? body.quantity : (existing?.quantity ?? 0);
    state.offers.set(key(portal, account, sku), {
      portal,
      portalAccount: account,
      sku,
      itemId,
      quantity,
      active: true,
      listing: body,
      updatedAt: new Date().toISOString(),
    });
    emitQuantity(state, portal, account, sku, quantity, 'listing');
    res.status(201).json({ item_id: itemId });
  });
  // Bulk quantities, as the inventory calls of real marketplaces: one answer per item.
  portals.put('/offers/quantities', (req, res) => {
    const { portal, account } = who(req);
    const items = (req.body as { items?: unknown } | undefined)?.items;
    state.quantityRequests += 1;
    if (!Array.isArray(items) || items.length === 0 || items.length > 1000) {
      res.status(422).json({ message: 'items must be a list of 1 to 1000 quantities' });
      return;
    }
    res.json({ results: items.map((item) => applyQuantity(state, portal, account, (item ?? {}) as Record<string, unknown>)) });
  });
  portals.put('/offers/:id', (req, res) => {
    const { portal, account } = who(req);
    const offer = findOffer(state, portal, account, String(req.params.id));
    if (!offer) {
      res.status(404).json({ message: `no offer ${req.params.id}` });
      return;
    }
    offer.listing = { ...offer.listing, ...(req.body as Record<string, unknown>) };
    offer.updatedAt = new Date().toISOString();
    res.json({ item_id: offer.itemId });
  });
  portals.delete('/offers/:id', (req, res) => {
    const { portal, account } = who(req);
    const offer = findOffer(state, portal, account, String(req.params.id));
    if (offer) {
      offer.active = false;
      offer.updatedAt = new Date().toISOString();
      emitQuantity(state, portal, account, offer.sku, 0, 'end');
    }
    res.json({ ended: true });
  });
  portals.post('/orders/:id/shipment', (_req, res) => {
    res.json({ shipped: true });
  });
  portals.post('/orders/:id/rating', (_req, res) => {
    res.json({ rated: true });
  });

  mountPayPal(app, state, state.paypal);
  mountEbay(app, state);
  mountAmazon(app, state);
  mountKaufland(app, state);
  mountShopify(app, state);
  app.use('/:portal', portalGate(state), portals);
  app.use((_req, res) => {
    res.status(404).json({ message: 'not a sandbox path' });
  });
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    res.status((err as { status?: number }).status === 400 ? 400 : 500).json({ message: 'the sandbox could not read the request' });
  });
  return { app, state };
}

function who(req: Request): { portal: string; account: string } {
  return { portal: String(req.params.portal), account: String(req.get('X-Portal-Account') ?? 'default') };
}

function findOffer(state: SandboxState, portal: string, account: string, id: string): SandboxOffer | undefined {
  return (
    state.offers.get(key(portal, account, id)) ?? [...state.offers.values()].find((o) => o.portal === portal && o.portalAccount === account && o.itemId === id)
  );
}

/**
 * One item of a bulk quantity call: its scripted fault, its check, or its quantity applied (once
 * per item idempotency key: a key seen before is answered 200 and changes nothing).
 */
function applyQuantity(state: SandboxState, portal: string, account: string, item: Record<string, unknown>): ItemAnswer {
  const sku = String(item.reference ?? '');
  if (!sku) return { reference: sku, status: 422, message: 'reference is required' };
  const fault = state.takeFault(portal, account, sku);
  if (fault) return { reference: sku, status: fault.status, message: fault.message };
  const { quantity, active } = item;
  if (typeof quantity !== 'number' || !Number.isInteger(quantity) || quantity < 0)
    return { reference: sku, status: 422, message: 'quantity must be a whole number of 0 or more' };
  const itemKey = typeof item.idempotency_key === 'string' ? `${portal}|${account}|${item.idempotency_key}` : undefined;
  if (itemKey && state.itemKeys.has(itemKey)) return { reference: sku, status: 200 };
  if (itemKey) {
    state.itemKeys.add(itemKey);
    // A retry comes within minutes: the oldest keys can go (a Set iterates in insertion order).
    if (state.itemKeys.size > 200000)
      for (const old of state.itemKeys) {
        state.itemKeys.delete(old);
        if (state.itemKeys.size <= 150000) break;
      }
  }
  const offer = state.offers.get(key(portal, account, sku));
  const isActive = active === undefined ? true : active === true;
  state.offers.set(key(portal, account, sku), {
    portal,
    portalAccount: account,
    sku,
    itemId: offer?.itemId ?? state.nextItemId(portal),
    quantity,
    active: isActive,
    listing: offer?.listing ?? {},
    updatedAt: new Date().toISOString(),
  });
  emitQuantity(state, portal, account, sku, isActive ? quantity : 0, 'quantity');
  return { reference: sku, status: 200 };
}

export function emitQuantity(state: SandboxState, portal: string, account: string, sku: string, quantity: number, via: QuantityEvent['via']): void {
  state.ackCount += 1;
  const event: QuantityEvent = { seq: state.ackCount, portal, portalAccount: account, sku, quantity, at: Date.now(), via };
  state.acks.push(event);
  if (state.acks.length > 100000) state.acks.splice(0, state.acks.length - 100000);
  state.events.emit('quantity', event);
}

function overview(state: SandboxState) {
  return {
    portals: portalIds,
    quantities: state.quantities(),
    requests: state.requests.length,
    quantity_requests: state.quantityRequests,
    faults: state.faults.map((f) => ({ portal: f.portal, status: f.status, remaining: f.remaining })),
    controls: [
      'GET /_sandbox/quantities',
      'GET /_sandbox/acks?after=<seq>',
      'GET /_sandbox/requests?portal=',
      'GET /_sandbox/requests/count?since=<ISO time>',
      'GET /_sandbox/offers',
      'POST /_sandbox/faults {portal,portal_account,reference,status,count,retry_after,message}',
      'POST /_sandbox/delay {portal,ms}',
      'POST /_sandbox/reset',
      'POST /_sandbox/paypal/payments {client_id,amount,currency,status: S|P|D|V,date,payer_name,invoice_id,subject,listed_after_minutes}',
      'POST /_sandbox/paypal/payments/:transaction_id {status}',
      'POST /_sandbox/paypal/apps {client_id,transaction_search,granted_after_seconds}',
      'POST /_sandbox/paypal/limits {client_id,max_result_items}',
      'POST /_sandbox/sell {portal,portal_account,sku,quantity,price,buyer}',
      'POST /_sandbox/ebay/consent {portal_account}',
      'POST /_sandbox/ebay/config {items_made_elsewhere}',
      'POST /_sandbox/ebay/revoke {refresh_token|portal_account}',
      'POST /_sandbox/ebay/orders {portal_account,lines[{sku,quantity,price,discount,collect_and_remit_tax,collect_and_remit_type}],currency,payment_status,payment_method: EBAY|ESCROW,refund,adjustment,buyer}',
      'POST /_sandbox/ebay/legacy_listings {portal_account,sku,quantity,price,format,title,description,pictures,aspects,business_policies,variations[{sku,quantity,price,aspects}]}',
      'GET /_sandbox/ebay/listings?portal_account=',
      'GET /_sandbox/ebay/orders/:order_id/shipping_fulfillment',
      "POST /_sandbox/amazon/config {feed_ms,listing_ms,pending_ms,page_size,rate_limit (the plans but the Orders ones),orders_rate_limit; null: the contracts' plans}",
      'POST /_sandbox/amazon/listings/:sku/issue {portal_account,code,message,severity,enforcement,exemption,...}; DELETE /_sandbox/amazon/listings/:sku/issues?portal_account=',
      'POST /_sandbox/amazon/revoke {refresh_token|portal_account}',
      'POST /_sandbox/shopify/orders, /_sandbox/shopify/orders/:id/cancel {restock,refund,reason}, /_sandbox/shopify/inventory {portal_account,sku,available}, /_sandbox/shopify/tokens, /_sandbox/shopify/config; GET /_sandbox/shopify/orders/:id, /_sandbox/shopify/variants, /_sandbox/shopify/throttled',
      'POST /_sandbox/amazon/feed_outcome {portal_account,status: FATAL|CANCELLED,count}',
      'POST /_sandbox/amazon/orders {portal_account,lines[{sku,quantity,price|item_amount,promotion_discount,shipping,shipping_discount,tax,ioss,gift_wrap,gift_wrap_discount,gift_wrap_tax,cod_fee,other,shipping_tax}],fulfilled_by: AMAZON|MERCHANT,status,pending_ms,marketplace_id,currency,delivery_tip,delivery_tip_status,tax_collected_by: AMAZON|SELLER,buyer}',
      'GET /_sandbox/amazon/orders/:id',
      'POST /_sandbox/kaufland/keys {portal_account,storefront}',
      'POST /_sandbox/kaufland/orders {portal_account,storefront,lines,status,buyer,fulfillment_type}',
      'POST /_sandbox/kaufland/order-units/:id/status {status}',
      'POST /_sandbox/kaufland/config {rate_limit,page_size,timestamp_window_s,units_listed_after_ms}',
      'GET /_sandbox/kaufland/orders/:id',
      'GET /_sandbox/kaufland/units?portal_account=',
      'GET /_sandbox/kaufland/throttled',
      'POST /_sandbox/amazon/orders/:id/status {status}',
    ],
  };
}

/**
 * Before a portal route: unknown portal 404; the configured delay; a pending fault; the
 * idempotency store (a key seen before gets the first answer again and changes nothing);
 * every request recorded with its answer.
 */
function portalGate(state: SandboxState) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const portal = String(req.params.portal);
    if (!(portalIds as readonly string[]).includes(portal)) {
      res.status(404).json({ message: `unknown portal ${portal}` });
      return;
    }
    const record = (status: number, replayed: boolean) => {
      state.requests.push({
        at: new Date().toISOString(),
        portal,
        portalAccount: String(req.get('X-Portal-Account') ?? 'default'),
        method: req.method,
        path: `/${portal}${req.path === '/' ? '' : req.path}`,
        idempotencyKey: req.get('Idempotency-Key') ?? null,
        body: req.body,
        status,
        replayed,
        bearer: /^Bearer sandbox-/.test(req.get('Authorization') ?? ''),
      });
      if (state.requests.length > state.maxRequests) state.requests.splice(0, state.requests.length - state.maxRequests);
    };
    const delay = state.delays.get(portal) ?? state.delays.get('*') ?? 0;
    state.inFlight += 1;
    res.once('close', () => {
      state.inFlight -= 1;
    });
    if (delay > 0) await sleep(delay);
    const account = String(req.get('X-Portal-Account') ?? 'default');
    const fault = req.path.startsWith('/oauth') ? undefined : state.takeFault(portal, account);
    if (fault) {
      if (fault.retryAfter !== undefined) res.set('Retry-After', fault.retryAfter);
      record(fault.status, false);
      res.status(fault.status).json({ message: fault.message });
      return;
    }
    const idem = req.get('Idempotency-Key');
    const idemKey = idem ? `${portal}|${req.method}|${req.path}|${idem}` : undefined;
    const seen = idemKey ? state.idempotency.get(idemKey) : undefined;
    if (seen) {
      record(seen.status, true);
      res.status(seen.status).json(seen.body);
      return;
    }
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      if (idemKey && res.statusCode < 300) state.idempotency.set(idemKey, { status: res.statusCode, body });
      record(res.statusCode, false);
      return json(body);
    };
    next();
  };
}
