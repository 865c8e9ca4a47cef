/**
 * The sandbox's eBay (auction_a): the subset of eBay's REST APIs the adapter uses, with eBay's
 * paths, payloads and error bodies ({errors: [{errorId, domain, category, message}]}):
 * the OAuth2 token endpoint (grant refresh_token), Inventory (inventory items, offers, publish,
 * withdraw, bulkUpdatePriceQuantity of at most 25), Fulfillment (getOrders, getOrder, shipping
 * fulfillments) and Feedback (leaveFeedback). It keeps feeding the shared state (offers,
 * quantities, acks, requests) and takes the shared faults and delays of portal "auction_a".
 *
 * Which portal account a call is for: the access tokens it issues name the account bound to
 * the refresh token (POST /_sandbox/ebay/consent {portal_account} hands out client_id,
 * client_secret and refresh_token, as eBay's consent would); a portal account without
 * credentials calls with `Bearer sandbox-account-<portal account id>`. POST /_sandbox/ebay/revoke
 * {refresh_token | portal_account} revokes a consent: its refresh token then gets invalid_grant.
 */
import crypto from 'node:crypto';
import express, { NextFunction, Request, Response } from 'express';
import type { components as Fulfillment } from 'ebay-api/lib/types/restful/specs/sell_fulfillment_v1_oas3';
import type { QuantityEvent, SandboxOffer, SandboxState, SellRequest } from './sandbox.app';

type EbayOrder = Fulfillment['schemas']['Order'];
type Body = Record<string, unknown>;

interface Consent {
  account: string;
  clientId: string;
  clientSecret: string;
  revoked: boolean;
}

interface EbayOfferRecord {
  offerId: string;
  account: string;
  sku: string;
  body: Body;
  status: 'UNPUBLISHED' | 'PUBLISHED';
  listingId?: string;
}

interface Fulfilment {
  fulfillmentId: string;
  lineItems: { lineItemId: string; quantity: number }[];
  shipmentTrackingNumber?: string;
  shippingCarrierCode?: string;
  shippedDate?: string;
}

/** What the sandbox eBay holds, per portal account. */
export class EbayState {
  consents = new Map<string, Consent>();
  tokens = new Map<string, string>();
  inventory = new Map<string, Body>();
  offers = new Map<string, EbayOfferRecord>();
  orders = new Map<string, { account: string; order: EbayOrder; fulfillments: Fulfilment[] }>();
  feedback: { account: string; body: Body; feedbackId: string }[] = [];
  counter = 0;

  reset(): void {
    this.consents.clear();
    this.tokens.clear();
    this.inventory.clear();
    this.offers.clear();
    this.orders.clear();
    this.feedback = [];
  }

  next(): number {
    this.counter += 1;
    return this.counter;
  }
}

const portal = 'auction_a';
const key = (account: string, sku: string) => `${account}|${sku}`;
const error = (errorId: number, message: string, domain = 'API_INVENTORY', category = 'REQUEST') => ({
  errors: [{ errorId, domain, category, message }],
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const money = (cents: number) => (cents / 100).toFixed(2);

function basic(req: Request): { id: string; secret: string } | undefined {
  const match = /^Basic (.+)$/.exec(req.get('Authorization') ?? '');
  if (!match) return undefined;
  const [id = '', ...rest] = Buffer.from(match[1]!, 'base64').toString('utf8').split(':');
  return { id, secret: rest.join(':') };
}

/** The portal account a bearer token names, or undefined (eBay's 401). */
function accountOf(ebay: EbayState, req: Request): string | undefined {
  const token = (req.get('Authorization') ?? '').replace(/^Bearer /, '');
  const own = /^sandbox-account-(\d+)$/.exec(token);
  return own ? own[1] : ebay.tokens.get(token);
}

function emit(state: SandboxState, account: string, sku: string, quantity: number, via: QuantityEvent['via']): void {
  state.ackCount += 1;
  const event: QuantityEvent = { seq: state.ackCount, portal, portalAccount: account, sku, quantity, at: Date.now(), via };
  state.acks.push(event);
  if (state.acks.length > 100000) state.acks.splice(0, state.acks.length - 100000);
  state.events.emit('quantity', event);
}

/** The shared view of a SKU (GET /_sandbox/quantities, /_sandbox/offers). */
function showOffer(state: SandboxState, account: string, sku: string, change: Partial<SandboxOffer>): SandboxOffer {
  const id = `${portal}|${account}|${sku}`;
  const current = state.offers.get(id);
  const offer: SandboxOffer = {
    portal,
    portalAccount: account,
    sku,
    itemId: current?.itemId ?? '',
    quantity: current?.quantity ?? 0,
    active: current?.active ?? false,
    listing: current?.listing ?? {},
    ...change,
    updatedAt: new Date().toISOString(),
  };
  state.offers.set(id, offer);
  return offer;
}

const quantityOf = (item: Body | undefined): number =>
  Number((item?.availability as { shipToLocationAvailability?: { quantity?: unknown } } | undefined)?.shipToLocationAvailability?.quantity ?? 0);

/**
 * Before every eBay API route: the bearer token (401 otherwise), the delay of auction_a, a
 * pending fault of auction_a (eBay's error body, Retry-After when given), and the record of
 * the request in the shared list.
 */
function gate(state: SandboxState) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const account = accountOf(state.ebay, req);
    const record = (status: number) => {
      state.requests.push({
        at: new Date().toISOString(),
        portal,
        portalAccount: account ?? 'unknown',
        method: req.method,
        path: req.originalUrl.split('?')[0]!,
        idempotencyKey: null,
        body: req.method === 'GET' ? req.query : req.body,
        status,
        replayed: false,
        bearer: account !== undefined,
      });
      if (state.requests.length > state.maxRequests) state.requests.splice(0, state.requests.length - state.maxRequests);
    };
    if (!account) {
      record(401);
      res.status(401).json(error(1001, 'Invalid access token', 'OAuth', 'REQUEST'));
      return;
    }
    state.inFlight += 1;
    res.once('close', () => {
      state.inFlight -= 1;
    });
    const delay = state.delays.get(portal) ?? state.delays.get('*') ?? 0;
    if (delay > 0) await sleep(delay);
    const fault = state.takeFault(portal, account);
    if (fault) {
      if (fault.retryAfter !== undefined) res.set('Retry-After', fault.retryAfter);
      record(fault.status);
      const errorId = fault.status === 429 ? 2001 : fault.status >= 500 ? 2003 : 25001;
      res
        .status(fault.status)
        .json(error(errorId, fault.message, fault.status === 429 ? 'ACCESS' : 'API_INVENTORY', fault.status >= 500 ? 'APPLICATION' : 'REQUEST'));
      return;
    }
    res.locals.account = account;
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      record(res.statusCode);
      return json(body);
    };
    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    res.end = ((...args: unknown[]) => {
      if (res.statusCode === 204) record(204);
      return end(...args);
    }) as Response['end'];
    next();
  };
}

function mountToken(app: express.Express, ebay: EbayState): void {
  app.post('/identity/v1/oauth2/token', express.urlencoded({ extended: false }), (req: Request, res: Response) => {
    const client = basic(req);
    const body = req.body as { grant_type?: string; refresh_token?: string };
    const consent = body.refresh_token ? ebay.consents.get(body.refresh_token) : undefined;
    if (!client || (consent && (consent.clientId !== client.id || consent.clientSecret !== client.secret))) {
      res.status(401).json({ error: 'invalid_client', error_description: 'client authentication failed' });
      return;
    }
    if (body.grant_type !== 'refresh_token' || !consent || consent.revoked) {
      res
        .status(400)
        .json({ error: 'invalid_grant', error_description: 'the provided authorization refresh token is invalid or was issued to another client' });
      return;
    }
    const token = `v^1.1#i^1#sandbox#${consent.account}#${crypto.randomBytes(12).toString('hex')}`;
    ebay.tokens.set(token, consent.account);
    res.json({ access_token: token, expires_in: 7200, token_type: 'User Access Token' });
  });
}

function mountControls(app: express.Express, ebay: EbayState): void {
  app.post('/_sandbox/ebay/consent', (req: Request, res: Response) => {
    const account = String((req.body as Body | undefined)?.portal_account ?? '');
    if (!account) {
      res.status(400).json({ message: 'portal_account is required' });
      return;
    }
    const grant = {
      client_id: `Kontor-${account}-SBX`,
      client_secret: `SBX-${crypto.randomBytes(8).toString('hex')}`,
      refresh_token: `v^1.1#r^1#${crypto.randomBytes(16).toString('hex')}`,
    };
    ebay.consents.set(grant.refresh_token, { account, clientId: grant.client_id, clientSecret: grant.client_secret, revoked: false });
    res.status(201).json(grant);
  });
  app.post('/_sandbox/ebay/revoke', (req: Request, res: Response) => {
    const body = (req.body ?? {}) as Body;
    let revoked = 0;
    for (const [refresh, consent] of ebay.consents) {
      if (refresh !== body.refresh_token && consent.account !== String(body.portal_account ?? '')) continue;
      consent.revoked = true;
      revoked += 1;
      for (const [token, account] of ebay.tokens) if (account === consent.account) ebay.tokens.delete(token);
    }
    res.json({ revoked });
  });
}

function mountInventory(router: express.Router, state: SandboxState): void {
  const ebay = state.ebay;
  router.put('/sell/inventory/v1/inventory_item/:sku', (req, res) => {
    const account = res.locals.account as string;
    const sku = String(req.params.sku);
    if (!req.get('Content-Language')) {
      res.status(400).json(error(25709, 'Invalid value for header Content-Language.'));
      return;
    }
    const body = (req.body ?? {}) as Body;
    if (!(body.product as Body | undefined)?.title) {
      res.status(400).json(error(25002, 'A user error has occurred. The title is missing.'));
      return;
    }
    ebay.inventory.set(key(account, sku), body);
    const live = [...ebay.offers.values()].find((o) => o.account === account && o.sku === sku && o.status === 'PUBLISHED');
    if (live)
      showOffer(state, account, sku, {
        quantity: quantityOf(body),
        listing: { ...state.offers.get(`${portal}|${account}|${sku}`)?.listing, inventoryItem: body },
      });
    res.status(204).end();
  });
  router.get('/sell/inventory/v1/offer', (req, res) => {
    const account = res.locals.account as string;
    const sku = String(req.query.sku ?? '');
    const offers = [...ebay.offers.values()].filter(
      (o) => o.account === account && o.sku === sku && (!req.query.marketplace_id || o.body.marketplaceId === req.query.marketplace_id),
    );
    if (!offers.length) {
      res.status(404).json(error(25713, 'This Offer is not available.'));
      return;
    }
    res.json({
      href: req.originalUrl,
      limit: 100,
      size: offers.length,
      total: offers.length,
      offers: offers.map((o) => ({
        ...o.body,
        offerId: o.offerId,
        sku: o.sku,
        status: o.status,
        ...(o.listingId ? { listing: { listingId: o.listingId, listingStatus: 'ACTIVE' } } : {}),
      })),
    });
  });
  router.post('/sell/inventory/v1/offer', (req, res) => {
    const account = res.locals.account as string;
    const body = (req.body ?? {}) as Body;
    const sku = String(body.sku ?? '');
    if (!ebay.inventory.has(key(account, sku))) {
      res.status(400).json(error(25702, `The SKU ${sku} is not available in the system.`));
      return;
    }
    if (!body.marketplaceId || !body.format) {
      res.status(400).json(error(25709, 'Invalid value for marketplaceId or format.'));
      return;
    }
    const offerId = String(5000000000 + ebay.next());
    ebay.offers.set(offerId, { offerId, account, sku, body, status: 'UNPUBLISHED' });
    res.status(201).json({ offerId });
  });
  router.put('/sell/inventory/v1/offer/:offerId', (req, res) => {
    const offer = ebay.offers.get(String(req.params.offerId));
    if (!offer || offer.account !== res.locals.account) {
      res.status(404).json(error(25713, 'This Offer is not available.'));
      return;
    }
    offer.body = { ...(req.body as Body), sku: offer.sku, marketplaceId: offer.body.marketplaceId, format: offer.body.format };
    if (offer.status === 'PUBLISHED')
      showOffer(state, offer.account, offer.sku, { listing: { ...state.offers.get(`${portal}|${offer.account}|${offer.sku}`)?.listing, offer: offer.body } });
    res.status(204).end();
  });
  router.post('/sell/inventory/v1/offer/:offerId/publish', (req, res) => {
    const offer = ebay.offers.get(String(req.params.offerId));
    if (!offer || offer.account !== res.locals.account) {
      res.status(404).json(error(25713, 'This Offer is not available.'));
      return;
    }
    const item = ebay.inventory.get(key(offer.account, offer.sku));
    offer.status = 'PUBLISHED';
    offer.listingId ??= String(110000000000 + ebay.next());
    const quantity = quantityOf(item);
    showOffer(state, offer.account, offer.sku, { itemId: offer.listingId, quantity, active: true, listing: { inventoryItem: item, offer: offer.body } });
    emit(state, offer.account, offer.sku, quantity, 'listing');
    res.json({ listingId: offer.listingId });
  });
  router.post('/sell/inventory/v1/offer/:offerId/withdraw', (req, res) => {
    const offer = ebay.offers.get(String(req.params.offerId));
    if (!offer || offer.account !== res.locals.account || offer.status !== 'PUBLISHED') {
      res.status(404).json(error(25713, 'This Offer is not available.'));
      return;
    }
    offer.status = 'UNPUBLISHED';
    showOffer(state, offer.account, offer.sku, { active: false });
    emit(state, offer.account, offer.sku, 0, 'end');
    res.json({ listingId: offer.listingId });
  });
  router.post('/sell/inventory/v1/bulk_update_price_quantity', (req, res) => {
    const account = res.locals.account as string;
    const requests = (req.body as { requests?: unknown } | undefined)?.requests;
    state.quantityRequests += 1;
    if (!Array.isArray(requests) || requests.length === 0 || requests.length > 25) {
      res.status(400).json(error(25709, 'The requests container must hold 1 to 25 entries.'));
      return;
    }
    const responses = requests.map((r) => priceQuantity(state, account, (r ?? {}) as Body));
    res.status(responses.every((r) => r.statusCode === 200) ? 200 : 207).json({ responses });
  });
}

/**
 * One SKU of bulkUpdatePriceQuantity: its scripted fault (a fault with reference = the SKU), its
 * check, or its quantity applied. The sandbox takes a quantity for a SKU it has no inventory item
 * for (CIA may push before a listing) and keeps it for the listing to come.
 */
function priceQuantity(state: SandboxState, account: string, request: Body) {
  const sku = String(request.sku ?? '');
  const fault = state.takeFault(portal, account, sku);
  if (fault) {
    return { sku, statusCode: fault.status, errors: error(fault.status === 429 ? 2001 : 25001, fault.message).errors };
  }
  const quantity = (request.shipToLocationAvailability as { quantity?: unknown } | undefined)?.quantity;
  if (!sku || typeof quantity !== 'number' || !Number.isInteger(quantity) || quantity < 0) {
    return { sku, statusCode: 400, errors: error(25604, 'Input error. The quantity must be a whole number of 0 or more, for a SKU.').errors };
  }
  const item = state.ebay.inventory.get(key(account, sku)) ?? { availability: {} };
  state.ebay.inventory.set(key(account, sku), { ...item, availability: { shipToLocationAvailability: { quantity } } });
  const offer = [...state.ebay.offers.values()].find((o) => o.account === account && o.sku === sku);
  showOffer(state, account, sku, { quantity, active: offer ? offer.status === 'PUBLISHED' : true });
  emit(state, account, sku, quantity, 'quantity');
  return { sku, statusCode: 200, ...(offer ? { offerId: offer.offerId } : {}) };
}

function mountFulfillment(router: express.Router, state: SandboxState): void {
  const ebay = state.ebay;
  const own = (req: Request, res: Response) => {
    const found = ebay.orders.get(String(req.params.orderId));
    if (found && found.account === res.locals.account) return found;
    res.status(404).json(error(32100, 'Invalid order ID: ' + String(req.params.orderId), 'API_FULFILLMENT'));
    return undefined;
  };
  router.get('/sell/fulfillment/v1/order', (req, res) => {
    const account = res.locals.account as string;
    const filter = /lastmodifieddate:\[([^\].]+(?:\.\d+)?Z?)\.\.\]/.exec(String(req.query.filter ?? ''));
    const since = filter ? Date.parse(filter[1]!) : 0;
    const limit = Math.min(1000, Math.max(1, Number(req.query.limit ?? 50) || 50));
    const offset = Math.max(0, Number(req.query.offset ?? 0) || 0);
    const all = [...ebay.orders.values()]
      .filter((o) => o.account === account && Date.parse(o.order.lastModifiedDate ?? '') >= since)
      .map((o) => o.order)
      .sort((a, b) => Date.parse(a.creationDate ?? '') - Date.parse(b.creationDate ?? ''));
    const page = all.slice(offset, offset + limit);
    const href = (at: number) => `/sell/fulfillment/v1/order?filter=${encodeURIComponent(String(req.query.filter ?? ''))}&limit=${limit}&offset=${at}`;
    res.json({
      href: href(offset),
      total: all.length,
      limit,
      offset,
      orders: page,
      ...(offset + limit < all.length ? { next: href(offset + limit) } : {}),
      ...(offset > 0 ? { prev: href(Math.max(0, offset - limit)) } : {}),
    });
  });
  router.get('/sell/fulfillment/v1/order/:orderId', (req, res) => {
    const found = own(req, res);
    if (found) res.json(found.order);
  });
  router.get('/sell/fulfillment/v1/order/:orderId/shipping_fulfillment', (req, res) => {
    const found = own(req, res);
    if (found) res.json({ fulfillments: found.fulfillments, total: found.fulfillments.length });
  });
  router.post('/sell/fulfillment/v1/order/:orderId/shipping_fulfillment', (req, res) => {
    const found = own(req, res);
    if (!found) return;
    const body = (req.body ?? {}) as {
      lineItems?: { lineItemId?: string; quantity?: number }[];
      shippedDate?: string;
      shippingCarrierCode?: string;
      trackingNumber?: string;
    };
    const lines = found.order.lineItems ?? [];
    if (!Array.isArray(body.lineItems) || body.lineItems.length === 0 || body.lineItems.some((l) => !lines.some((o) => o.lineItemId === l.lineItemId))) {
      res.status(400).json(error(32100, 'Invalid lineItemId in lineItems.', 'API_FULFILLMENT'));
      return;
    }
    if (Boolean(body.trackingNumber) !== Boolean(body.shippingCarrierCode)) {
      res.status(400).json(error(32400, 'trackingNumber and shippingCarrierCode go together.', 'API_FULFILLMENT'));
      return;
    }
    const fulfillmentId = body.trackingNumber ?? `${found.order.orderId}-${found.fulfillments.length + 1}`;
    found.fulfillments.push({
      fulfillmentId,
      lineItems: body.lineItems.map((l) => ({ lineItemId: String(l.lineItemId), quantity: Number(l.quantity ?? 1) })),
      shipmentTrackingNumber: body.trackingNumber,
      shippingCarrierCode: body.shippingCarrierCode,
      shippedDate: body.shippedDate,
    });
    for (const line of lines) if (body.lineItems.some((l) => l.lineItemId === line.lineItemId)) line.lineItemFulfillmentStatus = 'FULFILLED';
    found.order.orderFulfillmentStatus = lines.every((l) => l.lineItemFulfillmentStatus === 'FULFILLED') ? 'FULFILLED' : 'IN_PROGRESS';
    found.order.lastModifiedDate = new Date().toISOString();
    res.set(
      'Location',
      `${req.protocol}://${req.get('host')}/sell/fulfillment/v1/order/${found.order.orderId}/shipping_fulfillment/${encodeURIComponent(fulfillmentId)}`,
    );
    res.status(201).json({});
  });
  router.post('/commerce/feedback/v1/feedback', (req, res) => {
    const account = res.locals.account as string;
    const body = (req.body ?? {}) as Body;
    const order = [...ebay.orders.values()].find((o) => o.account === account && (o.order.lineItems ?? []).some((l) => l.lineItemId === body.orderLineItemId));
    if (!order) {
      res.status(400).json(error(225006, 'The order line item was not found.', 'API_FEEDBACK'));
      return;
    }
    if (body.commentType !== 'POSITIVE') {
      res.status(400).json(error(225010, 'Sellers can only leave positive feedback.', 'API_FEEDBACK'));
      return;
    }
    if (ebay.feedback.some((f) => f.account === account && f.body.orderLineItemId === body.orderLineItemId)) {
      res.status(409).json(error(225013, 'Feedback was already left for this line item.', 'API_FEEDBACK'));
      return;
    }
    const feedbackId = String(900000000 + ebay.next());
    ebay.feedback.push({ account, body, feedbackId });
    res.status(201).json({ feedbackId });
  });
}

/** A sale at the sandbox's eBay (POST /_sandbox/sell with portal auction_a): an order getOrders shows. */
export function sellOnEbay(state: SandboxState, sale: SellRequest): { order_id: string } {
  const account = String(sale.portal_account ?? '');
  const sku = String(sale.sku ?? '');
  const quantity = Number(sale.quantity ?? 1);
  if (!account || !sku || !Number.isInteger(quantity) || quantity < 1)
    throw Object.assign(new Error('portal_account, sku and a quantity of 1 or more are required'), { status: 400 });
  const offer = [...state.ebay.offers.values()].find((o) => o.account === account && o.sku === sku);
  const offerPrice = (offer?.body.pricingSummary as { price?: { value?: string } } | undefined)?.price?.value ?? '10.00';
  const currency = (offer?.body.pricingSummary as { price?: { currency?: string } } | undefined)?.price?.currency ?? 'EUR';
  const unit = Math.round(Number(sale.price ?? offerPrice) * 100);
  const n = state.ebay.next();
  const orderId = `26-${String(10000 + (n % 90000)).padStart(5, '0')}-${String(n).padStart(5, '0')}`;
  const now = new Date().toISOString();
  const buyer = sale.buyer ?? {};
  const contact = {
    fullName: buyer.name ?? 'Erika Mustermann',
    email: buyer.email ?? `${buyer.username ?? 'buyer'}@members.ebay.example`,
    primaryPhone: { phoneNumber: buyer.phone ?? '+49 30 1234567' },
    contactAddress: {
      addressLine1: buyer.street ?? 'Heidestr. 17',
      city: buyer.city ?? 'Köln',
      postalCode: buyer.zip ?? '51147',
      countryCode: buyer.country_iso2 ?? 'DE',
    },
  };
  const total = money(unit * quantity);
  const order: EbayOrder = {
    orderId,
    creationDate: now,
    lastModifiedDate: now,
    orderFulfillmentStatus: 'NOT_STARTED',
    orderPaymentStatus: 'PAID',
    sellerId: `seller-${account}`,
    buyer: {
      username: buyer.username ?? 'sandbox_buyer',
      taxAddress: { city: contact.contactAddress.city, postalCode: contact.contactAddress.postalCode, countryCode: contact.contactAddress.countryCode },
      buyerRegistrationAddress: contact,
    },
    pricingSummary: { priceSubtotal: { value: total, currency }, deliveryCost: { value: '0.00', currency }, total: { value: total, currency } },
    cancelStatus: { cancelState: 'NONE_REQUESTED', cancelRequests: [] },
    paymentSummary: {
      payments: [
        {
          paymentMethod: 'EBAY',
          paymentReferenceId: `SBX${crypto.randomBytes(6).toString('hex').toUpperCase()}`,
          paymentDate: now,
          paymentStatus: 'PAID',
          amount: { value: total, currency },
        },
      ],
      totalDueSeller: { value: total, currency },
    },
    fulfillmentStartInstructions: [
      {
        fulfillmentInstructionsType: 'SHIP_TO',
        ebaySupportedFulfillment: false,
        shippingStep: { shipTo: contact, shippingCarrierCode: 'DHL', shippingServiceCode: 'DE_DHLPaket' },
      },
    ],
    lineItems: [
      {
        lineItemId: String(10000000000 + n),
        legacyItemId: offer?.listingId ?? String(110000000000 + n),
        sku,
        title: String(((state.ebay.inventory.get(key(account, sku))?.product as Body | undefined)?.title as string | undefined) ?? sku),
        quantity,
        lineItemCost: { value: total, currency },
        total: { value: total, currency },
        lineItemFulfillmentStatus: 'NOT_STARTED',
        soldFormat: 'FIXED_PRICE',
      },
    ],
  };
  state.ebay.orders.set(orderId, { account, order, fulfillments: [] });
  // eBay takes the sold units off the listing's quantity.
  const item = state.ebay.inventory.get(key(account, sku));
  if (item) {
    const left = Math.max(0, quantityOf(item) - quantity);
    state.ebay.inventory.set(key(account, sku), { ...item, availability: { shipToLocationAvailability: { quantity: left } } });
    if (state.offers.has(`${portal}|${account}|${sku}`)) showOffer(state, account, sku, { quantity: left });
  }
  return { order_id: orderId };
}

/** Mounts the token endpoint, the controls and eBay's API routes behind the gate. */
export function mountEbay(app: express.Express, state: SandboxState): void {
  mountToken(app, state.ebay);
  mountControls(app, state.ebay);
  state.sellers.set('auction_a', (sale) => sellOnEbay(state, sale));
  const router = express.Router();
  mountInventory(router, state);
  mountFulfillment(router, state);
  app.use(['/sell', '/commerce'], gate(state));
  app.use(router);
}
