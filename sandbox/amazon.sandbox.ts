/**
 * The sandbox's market_d: the subset of Amazon's Selling Partner API that the market_d adapter
 * calls, with the same paths, payloads and error bodies ({errors: [{code, message, details}]}):
 * Login with Amazon's token endpoint, Listings Items 2021-08-01 (get, put, patch, delete), Feeds
 * 2021-06-30 (documents, JSON_LISTINGS_FEED feeds processed asynchronously IN_QUEUE ->
 * IN_PROGRESS -> DONE, processing reports with per-message issues), the Orders API v2026-01-01
 * (searchOrders, getOrder) and Orders v0 (the deprecated getOrders, getOrder, getOrderItems;
 * confirmShipment): amazon-orders.sandbox.ts. The access tokens it issues name the portal account
 * (refresh token `Atzr|sandbox-<portal account>`), so every call is recorded and applied for
 * that account in the shared state (offers, quantities, acks, requests, faults, delays).
 */
import crypto from 'node:crypto';
import express, { NextFunction, Request, Response } from 'express';
import { mountItemCancellation } from './amazon-cancel.sandbox';
import {
  AmazonListingStore,
  applyWhenProcessed,
  availabilityIn,
  forgetListing,
  listedMarketplaces,
  listIn,
  listingItem,
  mountListingIssues,
  placedByPut,
  recordSubmission,
  takeLookupFault,
  takePatchFault,
  StoredAvailability,
  unlistIn,
} from './amazon-listings.sandbox';
import { AmazonOperation, amazonContractGate, amazonOperationOf, amazonOperations, feedSchemaIssues, processingReportProblems } from './amazon-contract';
import { violationsOf } from './contract/contract-gate';
import { AmazonConsentStore, authorizationCodeGrant, consentPage, sellers } from './amazon-consent.sandbox';
import { AmazonOrderStore, FulfillmentStatus, NewAmazonOrder, orders2026, ordersV0, placeOrder, SandboxOrder, SandboxPackage } from './amazon-orders.sandbox';
import { emitQuantity, Fault, key, SandboxOffer, SandboxState, SellRequest } from './sandbox.app';

const portal = 'market_d';

interface SandboxFeed {
  account: string;
  feedId: string;
  feedType: string;
  marketplaceIds: string[];
  inputFeedDocumentId: string;
  createdTime: string;
  processingStatus: 'IN_QUEUE' | 'IN_PROGRESS' | 'DONE' | 'CANCELLED' | 'FATAL';
  processingStartTime?: string;
  processingEndTime?: string;
  resultFeedDocumentId?: string;
}

/** What the sandbox's Amazon holds; cleared with the sandbox. */
export class AmazonState implements AmazonOrderStore, AmazonConsentStore, AmazonListingStore {
  codes: AmazonConsentStore['codes'] = new Map();
  marketplaces = new Map<string, string[]>();
  tokens = new Map<string, string>();
  revoked = new Set<string>();
  /**
   * Portal accounts whose access a test took (POST /_sandbox/amazon/access): Login with Amazon
   * still answers their refresh token, every SP-API call answers 403 Unauthorized (an application
   * without the role an operation needs, or a seller's authorisation that does not cover it).
   */
  denied = new Set<string>();
  /** Feed documents and processing reports; contentType: what createFeedDocument named (the upload must send it). */
  documents = new Map<string, { account: string; content: string | null; contentType?: string }>();
  feeds = new Map<string, SandboxFeed>();
  orders = new Map<string, SandboxOrder>();
  pendingMs = 0;
  today: string | null = null;
  deprecatedCalls: AmazonOrderStore['deprecatedCalls'] = [];
  /**
   * Usage plans: null plays each operation's plan as its contract states it; a number lifts every
   * Orders operation's plan to that rate, its burst the rate rounded up (the bench, a seller with a
   * higher plan).
   */
  ordersRateLimit: number | null = null;
  /** The same for every other operation (Listings Items, Feeds, Sellers). */
  rateLimit: number | null = null;
  /** Token buckets per (portal account, operation). */
  buckets = new Map<string, { tokens: number; at: number }>();
  /** Answers 429 QuotaExceeded of the usage plans per operationId: GET /_sandbox/amazon/throttled. */
  throttled = new Map<string, number>();
  /** Calls per SP-API operation (operationId), answered or throttled: GET /_sandbox/amazon/calls. */
  operationCalls = new Map<string, number>();
  /** Scripted feed endings: the next `remaining` feeds (of the account, when given) end so. */
  feedOutcomes: { account?: string; status: 'FATAL' | 'CANCELLED'; remaining: number }[] = [];
  /**
   * Scripted partial processing: the next `remaining` feeds (of the account, when given) end DONE
   * with their last `unprocessed` messages neither applied nor named by an issue, the report's
   * summary counting them out of messagesProcessed and messagesAccepted (ours: the processing
   * report schema counts processed and accepted messages apart from those sent, and says only that
   * an accepted message's "associated updates are being applied").
   */
  partialFeeds: { account?: string; unprocessed: number; remaining: number }[] = [];
  /** How long a feed takes from createFeed to DONE, in ms. */
  feedMs = 300;
  /** Orders and order items per page. */
  pageSize = 100;
  /** The order of searchOrders' results (amazon-orders.sandbox.ts): oldest created first unless a test asks for lastUpdatedTime. */
  searchOrdersBy: AmazonOrderStore['searchOrdersBy'] = 'createdTime';
  /** How long Amazon processes an accepted listing submission, in ms (amazon-listings.sandbox.ts). */
  listingMs = 300;
  /** A put's data applied when it is processed, after what came meanwhile (config late_listings; amazon-listings.sandbox.ts applyWhenProcessed). */
  lateListings = false;
  listingRecords: AmazonListingStore['listingRecords'] = new Map();
  listingIssues: AmazonListingStore['listingIssues'] = new Map();
  listingMarketplaces: AmazonListingStore['listingMarketplaces'] = new Map();
  lookupFaults: AmazonListingStore['lookupFaults'] = new Map();
  patchFaults: AmazonListingStore['patchFaults'] = new Map();
  private counter = 0;

  next(): number {
    this.counter += 1;
    return this.counter;
  }

  clear(): void {
    this.tokens.clear();
    this.revoked.clear();
    this.denied.clear();
    this.documents.clear();
    this.feeds.clear();
    this.orders.clear();
    this.pendingMs = 0;
    this.today = null;
    this.deprecatedCalls = [];
    this.ordersRateLimit = null;
    this.rateLimit = null;
    this.buckets.clear();
    this.throttled.clear();
    this.codes.clear();
    this.marketplaces.clear();
    this.operationCalls.clear();
    this.feedOutcomes = [];
    this.partialFeeds = [];
    this.feedMs = 300;
    this.pageSize = 100;
    this.searchOrdersBy = 'createdTime';
    this.listingMs = 300;
    this.lateListings = false;
    this.listingRecords.clear();
    this.listingIssues.clear();
    this.listingMarketplaces.clear();
    this.lookupFaults.clear();
    this.patchFaults.clear();
  }
}

const amazonStates = new WeakMap<SandboxState, AmazonState>();

/** The sandbox Amazon of a sandbox (tests read its feeds and orders). */
export function amazonOf(state: SandboxState): AmazonState {
  let amazon = amazonStates.get(state);
  if (!amazon) {
    amazon = new AmazonState();
    amazonStates.set(state, amazon);
    state.events.on('reset', () => amazon!.clear());
  }
  return amazon;
}

const errorBody = (code: string, message: string, details = '') => ({ errors: [{ code, message, details }] });
const codeOf = (status: number) =>
  status === 429 ? 'QuotaExceeded' : status >= 500 ? 'InternalFailure' : status === 404 ? 'NotFound' : status === 403 ? 'Unauthorized' : 'InvalidInput';
const now = () => new Date().toISOString();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const accountOf = (res: Response) => String(res.locals.account);

/** The portal account a refresh token names: `Atzr|sandbox-<account>`, else the token itself. */
function accountOfRefreshToken(token: string): string {
  return /^Atzr\|sandbox-(.+)$/.exec(token)?.[1] ?? token;
}

/** The first pending fault of the market_d portal account; counted down. */
const takeFault = (state: SandboxState, account: string, reference?: string): Fault | undefined => state.takeFault(portal, account, reference);

/** Login with Amazon: refresh_token grant, form or JSON; a revoked refresh token is invalid_grant. */
function lwa(state: SandboxState, amazon: AmazonState) {
  return (req: Request, res: Response) => {
    const body = (req.body ?? {}) as Record<string, string | undefined>;
    const account = accountOfRefreshToken(body.refresh_token ?? '');
    const answer = (status: number, payload: unknown) => {
      state.requests.push({
        at: now(),
        portal,
        portalAccount: account,
        method: 'POST',
        path: '/auth/o2/token',
        idempotencyKey: null,
        body: { grant_type: body.grant_type, client_id: body.client_id },
        status,
        replayed: false,
        bearer: false,
      });
      res.status(status).json(payload);
    };
    if (body.grant_type === 'authorization_code') {
      const granted = authorizationCodeGrant(amazon, body);
      state.requests.push({
        at: now(),
        portal,
        portalAccount: granted.account,
        method: 'POST',
        path: '/auth/o2/token',
        idempotencyKey: null,
        body: { grant_type: body.grant_type, client_id: body.client_id },
        status: granted.status,
        replayed: false,
        bearer: false,
      });
      res.status(granted.status).json(granted.payload);
      return;
    }
    if (body.grant_type !== 'refresh_token' || !body.refresh_token || !body.client_id || !body.client_secret) {
      answer(400, { error: 'invalid_request', error_description: 'grant_type, refresh_token, client_id and client_secret are required' });
      return;
    }
    if (amazon.revoked.has(body.refresh_token) || amazon.revoked.has(`account:${account}`)) {
      answer(400, { error: 'invalid_grant', error_description: 'The request has an invalid grant parameter : refresh_token' });
      return;
    }
    const token = `Atza|sandbox-${account}-${crypto.randomBytes(12).toString('hex')}`;
    amazon.tokens.set(token, account);
    answer(200, { access_token: token, refresh_token: body.refresh_token, token_type: 'bearer', expires_in: 3600 });
  };
}

/**
 * Before an SP-API route: the operation's usage plan rate in x-amzn-RateLimit-Limit on every
 * answer; the access token names the portal account (403 Unauthorized when it is unknown or
 * revoked, or the account's access was taken: AmazonState.denied); a body not in JSON (415);
 * the usage plan's token bucket (429 QuotaExceeded when empty); the delay; a pending fault
 * (SP-API's error body; 429 with its Retry-After); every call recorded with its answer.
 */
function gate(state: SandboxState, amazon: AmazonState) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const account = amazon.tokens.get(req.get('x-amz-access-token') ?? '');
    res.locals.account = account ?? 'unknown';
    res.set('x-amzn-RequestId', crypto.randomUUID());
    const path = req.originalUrl.split('?')[0]!;
    const operation = amazonOperationOf(req.method, path);
    const plan = operation ? planOf(amazon, operation) : undefined;
    if (plan) res.set('x-amzn-RateLimit-Limit', String(plan.rate));
    res.once('finish', () => {
      state.requests.push({
        at: now(),
        portal,
        portalAccount: account ?? 'unknown',
        method: req.method,
        path,
        idempotencyKey: null,
        body: req.body,
        status: res.statusCode,
        replayed: false,
        bearer: account !== undefined,
        query: { ...req.query },
      });
      if (state.requests.length > state.maxRequests) state.requests.splice(0, state.requests.length - state.maxRequests);
    });
    state.inFlight += 1;
    res.once('close', () => {
      state.inFlight -= 1;
    });
    if (!account) {
      res
        .status(403)
        .json(errorBody('Unauthorized', 'Access to requested resource is denied.', 'The access token you provided is revoked, malformed or invalid.'));
      return;
    }
    if (amazon.denied.has(account)) {
      res
        .status(403)
        .json(
          errorBody('Unauthorized', 'Access to requested resource is denied.', 'The selling partner has not authorised the application for this operation.'),
        );
      return;
    }
    // A body in another format than JSON: 415, "The request payload is in an unsupported format",
    // where the operation lists it (every Listings Items, Feeds and Orders v2026-01-01 one; Orders
    // v0 lists none, its confirmShipment is held to its contract's 400). Checked after the token,
    // before the usage plan (ours: the order is not documented).
    if (Number(req.get('content-length') ?? 0) > 0 && !req.is('application/json') && !path.startsWith('/orders/v0/')) {
      res
        .status(415)
        .json(errorBody('InvalidInput', 'The request payload is in an unsupported format.', `Content-Type ${req.get('content-type') ?? '(none)'}`));
      return;
    }
    if (operation && plan && !tokenTaken(amazon, account, operation, plan)) {
      res
        .status(429)
        .json(
          errorBody(
            'QuotaExceeded',
            'You exceeded your quota for the requested resource.',
            `${operation.operationId}: ${plan.rate} requests per second, burst ${plan.burst}`,
          ),
        );
      return;
    }
    const delay = state.delays.get(portal) ?? state.delays.get('*') ?? 0;
    if (delay > 0) await sleep(delay);
    const fault = takeFault(state, account);
    if (fault) {
      res.locals.scripted = true;
      if (fault.retryAfter !== undefined) res.set('Retry-After', fault.retryAfter);
      res.status(fault.status).json(errorBody(codeOf(fault.status), fault.message));
      return;
    }
    next();
  };
}

function offerOf(state: SandboxState, account: string, sku: string) {
  return state.offers.get(key(portal, account, sku));
}

/** The DEFAULT (merchant) quantity of a fulfillment_availability value, if it names one. */
function merchantQuantity(value: unknown): number | undefined {
  if (!Array.isArray(value)) return undefined;
  const entry = (value as Record<string, unknown>[]).find((v) => v.fulfillment_channel_code === 'DEFAULT');
  return typeof entry?.quantity === 'number' && Number.isInteger(entry.quantity) && entry.quantity >= 0 ? entry.quantity : undefined;
}

/**
 * The SKU's attributes after a submission: the sandbox keeps one offer per SKU for all
 * marketplaces, so a value naming a marketplace replaces only that marketplace's values of the
 * attribute (a put in FR leaves DE's price as it was, as Amazon's listing per marketplace does);
 * a value naming none replaces the attribute. fulfillment_availability names none as sent, and is
 * stored per marketplace of the submission (fulfillmentByMarketplace).
 */
function mergeByMarketplace(existing: Record<string, unknown>, incoming: Record<string, unknown>): Record<string, unknown> {
  const merged = { ...existing };
  for (const [name, values] of Object.entries(incoming)) {
    const named = new Set(
      Array.isArray(values) ? (values as { marketplace_id?: unknown }[]).flatMap((v) => (v?.marketplace_id === undefined ? [] : [v.marketplace_id])) : [],
    );
    const before = merged[name];
    merged[name] =
      named.size > 0 && Array.isArray(before)
        ? [
            ...(before as { marketplace_id?: unknown }[]).filter((v) => v?.marketplace_id === undefined || !named.has(v.marketplace_id)),
            ...(values as unknown[]),
          ]
        : values;
  }
  return merged;
}

/**
 * A submission's attributes with its fulfillment_availability stored under each marketplace it
 * names (a put: its one; a patch or feed: each of its marketplaceIds). The attribute names no
 * marketplace (listingsItems_2021-08-01.json: a put and a delete take one marketplace a call, so
 * each marketplace holds its own), and Amazon's offer may be FBA in DE and the seller's in FR:
 * kept as one value for all, a patch naming FR made DE the seller's too, and a read could never
 * answer such a listing. Replaced per marketplace by mergeByMarketplace; answered without the
 * marketplace by getListingsItem (amazon-listings.sandbox.ts availability).
 */
function fulfillmentByMarketplace(attributes: Record<string, unknown>, marketplaceIds: string[]): Record<string, unknown> {
  const value = attributes.fulfillment_availability;
  if (!Array.isArray(value)) return attributes;
  return {
    ...attributes,
    fulfillment_availability: marketplaceIds.flatMap((marketplace_id) => (value as Record<string, unknown>[]).map((entry) => ({ ...entry, marketplace_id }))),
  };
}

function setOffer(state: SandboxState, account: string, sku: string, attributes: Record<string, unknown>, quantity: number, via: 'listing' | 'quantity'): void {
  const existing = offerOf(state, account, sku);
  state.offers.set(key(portal, account, sku), {
    portal,
    portalAccount: account,
    sku,
    itemId: sku,
    quantity,
    active: true,
    listing: mergeByMarketplace(existing?.listing ?? {}, attributes),
    updatedAt: now(),
  });
  emitQuantity(state, portal, account, sku, quantity, via);
}

/**
 * A listing the seller made in Seller Central, not through Kontor (for tests whose seller's SKUs
 * are at Amazon before CIA pushes them): an offer on a known product (ASIN), new, priced in each
 * marketplace (EUR unless named), quantity 0, processed, in these marketplaces, fulfilled through
 * `channel` in each (one marketplace's converted since by POST /_sandbox/amazon/listings/:sku/fulfillment).
 */
export function sellerCentralListing(state: SandboxState, account: string, sku: string, marketplaceIds: string[], currency = 'EUR', channel = 'DEFAULT'): void {
  const each = (value: Record<string, unknown>) => marketplaceIds.map((marketplace_id) => ({ ...value, marketplace_id }));
  const attributes = {
    merchant_suggested_asin: each({ value: 'B000SANDBOX' }),
    condition_type: each({ value: 'new_new' }),
    purchasable_offer: each({ currency, our_price: [{ schedule: [{ value_with_tax: 9.9 }] }] }),
    // channel: the seller's own (DEFAULT), or Amazon's (AMAZON_EU ...: an FBA offer, whose quantity Amazon counts).
    fulfillment_availability: [channel === 'DEFAULT' ? { fulfillment_channel_code: 'DEFAULT', quantity: 0 } : { fulfillment_channel_code: channel }],
  };
  setOffer(state, account, sku, fulfillmentByMarketplace(attributes, marketplaceIds), 0, 'listing');
  for (const m of marketplaceIds) listIn(amazonOf(state), account, sku, m);
}

const submission = (sku: string, issues: Record<string, unknown>[] = []) => ({
  sku,
  status: issues.some((i) => i.severity === 'ERROR') ? 'INVALID' : 'ACCEPTED',
  submissionId: crypto.randomUUID().replace(/-/g, ''),
  issues,
});

/** A data refusal of the item (a fault with reference = its SKU) as a Listings Items issue. */
function itemIssues(state: SandboxState, account: string, sku: string): Record<string, unknown>[] {
  const fault = takeFault(state, account, sku);
  return fault ? [{ code: String(fault.status), message: fault.message, severity: 'ERROR', categories: ['INVALID_ATTRIBUTE'] }] : [];
}

/**
 * An attribute value naming a marketplace the request does not (marketplace_id: "The Amazon
 * marketplace identifier" of the value) as an issue: Amazon's answer to it is not documented, an
 * INVALID submission naming the attribute is ours (the value would land in no marketplace asked,
 * or, a comma-joined list, in none at all).
 */
function marketplaceIssues(attributes: Record<string, unknown>, marketplaceIds: string[]): Record<string, unknown>[] {
  return Object.entries(attributes).flatMap(([name, values]) =>
    (Array.isArray(values) ? (values as { marketplace_id?: unknown }[]) : [])
      .filter((v) => v?.marketplace_id !== undefined && !marketplaceIds.includes(String(v.marketplace_id)))
      .map((v) => ({
        code: '4000002',
        severity: 'ERROR',
        message: `The value of '${name}' names marketplace_id ${String(v.marketplace_id)}, which is not a marketplace of the request (${marketplaceIds.join(',')}).`,
        categories: ['INVALID_ATTRIBUTE'],
        attributeNames: [name],
      })),
  );
}

/**
 * The currency each marketplace sells in. The Listings Items contract's examples price the US
 * marketplace (ATVPDKIKX0DER) in USD and the Canadian (A2EUQ1WTGCTBG2) in CAD (list_price and
 * offers' currencyCode); the rest is each Amazon site's own currency (ours, kept apart from
 * Kontor's table so that a wrong entry there is caught here). A marketplace not here is not checked.
 */
const marketplaceCurrencies: Record<string, string> = {
  ATVPDKIKX0DER: 'USD',
  A2EUQ1WTGCTBG2: 'CAD',
  A1AM78C64UM0Y8: 'MXN',
  A1PA6795UKMFR9: 'EUR',
  A13V1IB3VIYZZH: 'EUR',
  APJ6JRA9NG5V4: 'EUR',
  A1RKKUPIHCS9HS: 'EUR',
  A1805IZSGTT6HS: 'EUR',
  AMEN7PMS3EDWL: 'EUR',
  A1F83G8C2ARO7P: 'GBP',
  A1C3SOZRARQ6R3: 'PLN',
  A2NODRKZP88ZB9: 'SEK',
  A1VC38T7YXB528: 'JPY',
};

/**
 * An offer (purchasable_offer) priced in another currency than its marketplace's as an issue:
 * Amazon's answer is not documented, an INVALID submission naming the attribute and both
 * currencies is ours (19.90 EUR sent to Amazon.co.uk as GBP would be sold as 19.90 pounds).
 */
function currencyIssues(attributes: Record<string, unknown>, marketplaceIds: string[]): Record<string, unknown>[] {
  const offers = Array.isArray(attributes.purchasable_offer)
    ? (attributes.purchasable_offer as { currency?: unknown; marketplace_id?: unknown; our_price?: { schedule?: { value_with_tax?: unknown }[] }[] }[])
    : [];
  const issue = (message: string) => ({ code: '4000003', severity: 'ERROR', message, categories: ['INVALID_PRICE'], attributeNames: ['purchasable_offer'] });
  return offers.flatMap((o) => {
    const marketplaceId = String(o?.marketplace_id ?? marketplaceIds[0]);
    const currency = marketplaceCurrencies[marketplaceId];
    if (currency !== undefined && o?.currency !== currency)
      return [issue(`The value of 'purchasable_offer' is in ${String(o?.currency)}; marketplace ${marketplaceId} sells in ${currency}.`)];
    // A price finer than its currency's smallest unit (ISO 4217 minor unit, Money.currencyCode's
    // standard: the yen has none) is no amount a buyer can pay; Amazon's answer is not documented,
    // an INVALID submission naming it is ours.
    const places = zeroDecimalCurrencies.includes(String(o?.currency)) ? 0 : 2;
    const finer = (o?.our_price ?? []).flatMap((p) => p?.schedule ?? []).find((s) => (/\.(\d+)$/.exec(String(s?.value_with_tax))?.[1]?.length ?? 0) > places);
    return finer
      ? [
          issue(
            `The value of 'purchasable_offer' (${String(finer.value_with_tax)} ${String(o?.currency)}) has more decimals than ${String(o?.currency)} has (${places}).`,
          ),
        ]
      : [];
  });
}

/** Currencies whose smallest unit is the unit itself (ISO 4217 minor unit 0) among the marketplaces'. */
const zeroDecimalCurrencies = ['JPY'];

function listings(state: SandboxState, amazon: AmazonState): express.Router {
  const router = express.Router();
  // The contract gate holds the count (put and delete: "maxItems": 1); each is one marketplace id.
  const marketplaces = (req: Request, res: Response): string[] | undefined => {
    const ids = typeof req.query.marketplaceIds === 'string' ? req.query.marketplaceIds.split(',') : [];
    if (ids.length > 0 && ids.every((m) => /^[A-Z0-9]+$/.test(m))) return ids;
    res.status(400).json(errorBody('InvalidInput', 'Missing or invalid marketplaceIds.', 'marketplaceIds'));
    return undefined;
  };
  router.put('/:sellerId/:sku', (req, res) => {
    const marketplaceIds = marketplaces(req, res);
    if (!marketplaceIds) return;
    const body = (req.body ?? {}) as { productType?: unknown; attributes?: Record<string, unknown> };
    if (typeof body.productType !== 'string' || !body.attributes || typeof body.attributes !== 'object') {
      res.status(400).json(errorBody('InvalidInput', 'productType and attributes are required.'));
      return;
    }
    const sku = String(req.params.sku);
    const issues = [
      ...marketplaceIssues(body.attributes, marketplaceIds),
      ...currencyIssues(body.attributes, marketplaceIds),
      ...itemIssues(state, accountOf(res), sku),
    ];
    if (issues.length === 0) {
      const account = accountOf(res);
      const attributes = fulfillmentByMarketplace(body.attributes, marketplaceIds);
      recordSubmission(amazon, account, sku, body.productType);
      listIn(amazon, account, sku, marketplaceIds[0]!);
      applyWhenProcessed(amazon, account, sku, () =>
        setOffer(state, account, sku, attributes, merchantQuantity(attributes.fulfillment_availability) ?? 0, 'listing'),
      );
    }
    res.json(submission(sku, issues));
  });
  router.patch('/:sellerId/:sku', (req, res) => {
    const marketplaceIds = marketplaces(req, res);
    if (!marketplaceIds) return;
    const body = (req.body ?? {}) as { productType?: unknown; patches?: { op?: string; path?: string; value?: unknown }[] };
    const sku = String(req.params.sku);
    const offer = offerOf(state, accountOf(res), sku);
    if (typeof body.productType !== 'string' || !Array.isArray(body.patches) || body.patches.length === 0) {
      res.status(400).json(errorBody('InvalidInput', 'productType and patches are required.'));
      return;
    }
    const scripted = takePatchFault(amazon, accountOf(res), sku);
    if (scripted) {
      res.status(scripted.status).json(errorBody(codeOf(scripted.status), scripted.message));
      return;
    }
    const attributes = Object.fromEntries(body.patches.map((p) => [String(p.path ?? '').replace(/^\/attributes\//, ''), p.value]));
    // A patch of fulfillment_availability alone is a quantity update (CIA), not a revision; like a
    // feed's PATCH message, it finds the seller's SKU whether or not Kontor listed it.
    const quantityOnly = Object.keys(attributes).every((a) => a === 'fulfillment_availability');
    const quantity = merchantQuantity(attributes.fulfillment_availability) ?? offer?.quantity;
    // Any other patch of a SKU the seller has no offer of is INVALID, nothing applied:
    // patchListingsItem lists no 404 (200, 400, 403, 413, 415, 429, 500, 503), and its 200 is the
    // answer to read ("Refer to the response to determine if the submission was accepted"; INVALID:
    // "not valid and was not accepted for processing"). The issue's code and words are ours.
    const unknown =
      quantity === undefined || (!offer && !quantityOnly)
        ? [
            {
              code: '4000010',
              severity: 'ERROR',
              message: `The SKU ${sku} has no listing to patch in ${marketplaceIds.join(',')}; submit the whole listing (putListingsItem) first.`,
              categories: ['MISSING_ATTRIBUTE'],
            },
          ]
        : [];
    const issues = [
      ...unknown,
      ...marketplaceIssues(attributes, marketplaceIds),
      ...currencyIssues(attributes, marketplaceIds),
      ...(unknown.length > 0 ? [] : itemIssues(state, accountOf(res), sku)),
    ];
    if (issues.length === 0)
      setOffer(state, accountOf(res), sku, fulfillmentByMarketplace(attributes, marketplaceIds), quantity!, quantityOnly ? 'quantity' : 'listing');
    // A SKU a put placed in some marketplaces lands in each the patch names too, with what the
    // patch carries only (no price there: amazon-listings.sandbox.ts missingOfferData).
    if (issues.length === 0 && placedByPut(amazon, accountOf(res), sku)) for (const m of marketplaceIds) listIn(amazon, accountOf(res), sku, m);
    // A revision is processed as a listing is; a quantity alone changes no listing data.
    if (issues.length === 0 && !quantityOnly) recordSubmission(amazon, accountOf(res), sku, body.productType);
    res.json(submission(sku, issues));
  });
  // getListingsItem: the data sets includedData names (default summaries) of the listing as Amazon
  // processed it (amazon-listings.sandbox.ts); 404 for an unknown SKU and one not processed yet.
  router.get('/:sellerId/:sku', (req, res) => {
    const marketplaceIds = marketplaces(req, res);
    if (!marketplaceIds) return;
    const sku = String(req.params.sku);
    const scripted = takeLookupFault(amazon, accountOf(res), sku);
    if (scripted) {
      res.status(scripted.status).json(errorBody(codeOf(scripted.status), scripted.message));
      return;
    }
    const offer = offerOf(state, accountOf(res), sku);
    const included = typeof req.query.includedData === 'string' ? req.query.includedData.split(',') : ['summaries'];
    const item = offer?.active ? listingItem(amazon, accountOf(res), offer, marketplaceIds, included) : undefined;
    if (!item) {
      res.status(404).json(errorBody('NotFound', `SKU ${sku} not found.`));
      return;
    }
    res.json(item);
  });
  router.delete('/:sellerId/:sku', (req, res) => {
    const marketplaceIds = marketplaces(req, res);
    if (!marketplaceIds) return;
    const sku = String(req.params.sku);
    const offer = offerOf(state, accountOf(res), sku);
    // The offer ends when its listing is in no marketplace left (the quantity is one for all here).
    if (offer && unlistIn(amazon, accountOf(res), sku, marketplaceIds[0]!)) {
      offer.active = false;
      offer.updatedAt = now();
      forgetListing(amazon, accountOf(res), sku);
      emitQuantity(state, portal, accountOf(res), sku, 0, 'end');
    }
    res.json(submission(sku));
  });
  return router;
}

/**
 * One JSON_LISTINGS_FEED message applied, or its issues. The feed is applied in each marketplace
 * its createFeed names (CreateFeedSpecification.marketplaceIds: "marketplaces that you want the
 * feed to be applied to"): a SKU a put placed lands in each of them, as by a patch naming them
 * (no price where no put named it: amazon-listings.sandbox.ts missingOfferData).
 */
function applyMessage(state: SandboxState, amazon: AmazonState, feed: SandboxFeed, message: Record<string, unknown>): Record<string, unknown>[] {
  const account = feed.account;
  const messageId = message.messageId;
  const sku = typeof message.sku === 'string' ? message.sku : '';
  const issue = (code: string, text: string) => [{ messageId, sku, code, severity: 'ERROR', message: text }];
  if (!Number.isInteger(messageId) || !sku) return issue('4000001', 'messageId and sku are required.');
  const fault = takeFault(state, account, sku);
  if (fault) return issue(String(fault.status), fault.message);
  if (message.operationType !== 'PATCH' || typeof message.productType !== 'string' || !Array.isArray(message.patches))
    return issue('4000001', 'The sandbox plays PATCH messages with a productType and patches.');
  const patch = (message.patches as { op?: string; path?: string; value?: unknown }[]).find((p) => p.path === '/attributes/fulfillment_availability');
  const quantity = merchantQuantity(patch?.value);
  if (!patch || (patch.op !== 'replace' && patch.op !== 'merge') || quantity === undefined)
    return issue('99022', "The attribute 'fulfillment_availability' needs a DEFAULT entry with a whole quantity of 0 or more.");
  setOffer(state, account, sku, fulfillmentByMarketplace({ fulfillment_availability: patch.value }, feed.marketplaceIds), quantity, 'quantity');
  if (placedByPut(amazon, account, sku)) for (const m of feed.marketplaceIds) listIn(amazon, account, sku, m);
  return [];
}

/** Processes a feed: its document's messages applied (or the scripted FATAL/CANCELLED), its processing report stored. */
function processFeed(state: SandboxState, amazon: AmazonState, feed: SandboxFeed): void {
  const scripted = amazon.feedOutcomes.find((o) => o.remaining > 0 && (o.account === undefined || o.account === feed.account));
  const reportId = `${amazon.next()}${Date.now()}`;
  let issues: Record<string, unknown>[];
  let processed: Record<string, unknown>[] = [];
  let sellerId = '';
  if (scripted) {
    scripted.remaining -= 1;
    amazon.feedOutcomes = amazon.feedOutcomes.filter((o) => o.remaining > 0);
    issues = [{ code: 'FATAL', severity: 'ERROR', message: `The sandbox ended the feed ${scripted.status}.` }];
  } else {
    try {
      const doc = JSON.parse(amazon.documents.get(feed.inputFeedDocumentId)?.content ?? '') as {
        header?: { sellerId?: string; version?: string };
        messages?: unknown;
      };
      sellerId = String(doc.header?.sellerId ?? '');
      if (doc.header?.version !== '2.0' || !Array.isArray(doc.messages)) throw new Error('header.version 2.0 and messages are required');
      const messages = doc.messages as Record<string, unknown>[];
      const partial = amazon.partialFeeds.find((o) => o.remaining > 0 && (o.account === undefined || o.account === feed.account));
      if (partial) {
        partial.remaining -= 1;
        amazon.partialFeeds = amazon.partialFeeds.filter((o) => o.remaining > 0);
      }
      processed = messages.slice(0, Math.max(0, messages.length - (partial?.unprocessed ?? 0)));
      // The document is held to listings-feed-schema-v2.json: a problem of the document itself
      // refuses the feed, one of a message refuses that message (the others are applied).
      const schema = feedSchemaIssues(doc);
      if (schema.some((i) => i.messageId === undefined)) issues = schema;
      else {
        const invalid = new Set(schema.map((i) => i.messageId));
        issues = [...schema, ...processed.filter((m) => !invalid.has(m.messageId as number)).flatMap((m) => applyMessage(state, amazon, feed, m))];
      }
      state.quantityRequests += 1;
    } catch (err) {
      issues = [{ code: '4000000', severity: 'ERROR', message: `The feed document is not a valid JSON listings feed: ${(err as Error).message}` }];
    }
  }
  const invalid = new Set(issues.filter((i) => i.messageId !== undefined && i.severity === 'ERROR').map((i) => i.messageId)).size;
  const report = {
    header: { sellerId, version: '2.0', feedId: feed.feedId },
    issues,
    summary: {
      errors: issues.filter((i) => i.severity === 'ERROR').length,
      warnings: issues.filter((i) => i.severity === 'WARNING').length,
      messagesProcessed: processed.length,
      messagesAccepted: processed.length - invalid,
      messagesInvalid: invalid,
    },
  };
  const problems = processingReportProblems(report);
  if (problems.length > 0)
    violationsOf(state).add({
      at: new Date().toISOString(),
      vendor: 'amazon',
      contract: 'listings-feed-processing-report-schema-v2.json',
      operationId: null,
      method: 'GET',
      path: `/feeds/2021-06-30/documents/${reportId}`,
      problems,
      status: 200,
      kind: 'response',
    });
  amazon.documents.set(reportId, { account: feed.account, content: JSON.stringify(report) });
  feed.processingStatus = scripted ? scripted.status : 'DONE';
  feed.processingEndTime = now();
  feed.resultFeedDocumentId = reportId;
}

function feeds(state: SandboxState, amazon: AmazonState): express.Router {
  const router = express.Router();
  const base = (req: Request) => `${req.protocol}://${req.get('host')}`;
  router.post('/documents', (req, res) => {
    const contentType = (req.body as { contentType?: unknown } | undefined)?.contentType;
    if (typeof contentType !== 'string' || !contentType) {
      res.status(400).json(errorBody('InvalidInput', 'contentType is required.'));
      return;
    }
    const id = `amzn1.tortuga.4.eu.${crypto.randomUUID()}`;
    amazon.documents.set(id, { account: accountOf(res), content: null, contentType });
    res.status(201).json({ feedDocumentId: id, url: `${base(req)}/_sandbox/amazon/documents/${encodeURIComponent(id)}` });
  });
  router.get('/documents/:id', (req, res) => {
    const id = String(req.params.id);
    const doc = amazon.documents.get(id);
    if (!doc || doc.account !== accountOf(res)) {
      res.status(404).json(errorBody('NotFound', `Feed document ${id} not found.`));
      return;
    }
    res.json({ feedDocumentId: id, url: `${base(req)}/_sandbox/amazon/documents/${encodeURIComponent(id)}` });
  });
  router.post('/feeds', (req, res) => {
    const body = (req.body ?? {}) as { feedType?: unknown; marketplaceIds?: unknown; inputFeedDocumentId?: unknown };
    const doc = amazon.documents.get(String(body.inputFeedDocumentId ?? ''));
    if (body.feedType !== 'JSON_LISTINGS_FEED' || !Array.isArray(body.marketplaceIds) || body.marketplaceIds.length === 0) {
      res.status(400).json(errorBody('InvalidInput', 'feedType JSON_LISTINGS_FEED and marketplaceIds are required.'));
      return;
    }
    if (!doc || doc.account !== accountOf(res) || doc.content === null) {
      res.status(400).json(errorBody('InvalidInput', 'inputFeedDocumentId names no uploaded feed document.'));
      return;
    }
    // CreateFeedSpecification.marketplaceIds: "A list of identifiers for marketplaces", one id per
    // element (Amazon's ids are upper-case letters and digits; ours: the contract gives no pattern).
    const notAnId = (body.marketplaceIds as unknown[]).find((m) => typeof m !== 'string' || !/^[A-Z0-9]+$/.test(m));
    if (notAnId !== undefined) {
      res.status(400).json(errorBody('InvalidInput', `Invalid marketplaceId: ${String(notAnId)}.`, 'marketplaceIds'));
      return;
    }
    const feed: SandboxFeed = {
      account: accountOf(res),
      feedId: String(50000000000 + amazon.next()),
      feedType: 'JSON_LISTINGS_FEED',
      marketplaceIds: body.marketplaceIds as string[],
      inputFeedDocumentId: String(body.inputFeedDocumentId),
      createdTime: now(),
      processingStatus: 'IN_QUEUE',
    };
    amazon.feeds.set(feed.feedId, feed);
    setTimeout(() => {
      feed.processingStatus = 'IN_PROGRESS';
      feed.processingStartTime = now();
    }, amazon.feedMs / 3).unref();
    setTimeout(() => {
      if (amazon.feeds.get(feed.feedId) === feed) processFeed(state, amazon, feed);
    }, amazon.feedMs).unref();
    res.status(202).json({ feedId: feed.feedId });
  });
  router.get('/feeds/:feedId', (req, res) => {
    const feed = amazon.feeds.get(String(req.params.feedId));
    if (!feed || feed.account !== accountOf(res)) {
      res.status(404).json(errorBody('NotFound', `Feed ${req.params.feedId} not found.`));
      return;
    }
    // Feed (feeds_2021-06-30.json) has no inputFeedDocumentId: the sandbox keeps it to process the feed.
    const { account: _account, inputFeedDocumentId: _input, ...answer } = feed;
    res.json(answer);
  });
  return router;
}

/** A sale at market_d: an order of the SKU (the offer's quantity goes down), Pending for the store's pendingMs, for searchOrders to find. */
function sell(state: SandboxState, amazon: AmazonState, body: SellRequest): { order_id: string } {
  const account = String(body.portal_account);
  const offer = offerOf(state, account, body.sku);
  const unit = Number(
    body.price ??
      (offer?.listing as { purchasable_offer?: { our_price?: { schedule?: { value_with_tax?: number }[] }[] }[] } | undefined)?.purchasable_offer?.[0]
        ?.our_price?.[0]?.schedule?.[0]?.value_with_tax ??
      10,
  );
  if (offer) offer.quantity = Math.max(0, offer.quantity - body.quantity);
  const order = placeOrder(amazon, {
    portal_account: account,
    lines: [{ sku: body.sku, quantity: body.quantity, price: unit.toFixed(2), title: String(offer?.listing.item_name ?? body.sku) }],
    buyer: body.buyer,
  });
  return { order_id: order.orderId };
}

/** The usage plan the sandbox plays for an operation: its contract's, or the one a control lifted it to. */
function planOf(amazon: AmazonState, op: AmazonOperation): { rate: number; burst: number } {
  const lifted = op.template.startsWith('/orders/') ? amazon.ordersRateLimit : amazon.rateLimit;
  return lifted === null ? { rate: op.rate, burst: op.burst } : { rate: lifted, burst: Math.max(1, Math.ceil(lifted)) };
}

/**
 * SP-API's usage plans ("Usage Plans and Rate Limits"): a token bucket per selling partner and
 * application (here the portal account the access token names) and operation, refilled at the
 * plan's rate up to its burst; a request takes a token, or none is there and it is throttled.
 */
function tokenTaken(amazon: AmazonState, account: string, op: AmazonOperation, plan: { rate: number; burst: number }): boolean {
  const key = `${account}|${op.method} ${op.template}`;
  const now = Date.now();
  const bucket = amazon.buckets.get(key) ?? { tokens: plan.burst, at: now };
  bucket.tokens = Math.min(plan.burst, bucket.tokens + ((now - bucket.at) * plan.rate) / 1000);
  bucket.at = now;
  amazon.buckets.set(key, bucket);
  amazon.operationCalls.set(op.operationId, (amazon.operationCalls.get(op.operationId) ?? 0) + 1);
  if (bucket.tokens < 1) {
    amazon.throttled.set(op.operationId, (amazon.throttled.get(op.operationId) ?? 0) + 1);
    return false;
  }
  bucket.tokens -= 1;
  return true;
}

/** The controls of the sandbox's Amazon. */
function controls(app: express.Express, amazon: AmazonState): void {
  app.post('/_sandbox/amazon/config', (req, res) => {
    const body = (req.body ?? {}) as {
      feed_ms?: number;
      rate_limit?: number | null;
      page_size?: number;
      search_orders_by?: string;
      pending_ms?: number;
      today?: string | null;
      orders_rate_limit?: number | null;
      listing_ms?: number;
      late_listings?: boolean;
    };
    if (body.feed_ms !== undefined) amazon.feedMs = Math.max(0, Number(body.feed_ms));
    if (body.listing_ms !== undefined) amazon.listingMs = Math.max(0, Number(body.listing_ms));
    if (body.late_listings !== undefined) amazon.lateListings = body.late_listings === true;
    if (body.pending_ms !== undefined) amazon.pendingMs = Math.max(0, Number(body.pending_ms));
    if (body.today !== undefined) amazon.today = body.today;
    if (body.orders_rate_limit !== undefined) amazon.ordersRateLimit = body.orders_rate_limit === null ? null : Math.max(0.001, Number(body.orders_rate_limit));
    if (body.rate_limit !== undefined) amazon.rateLimit = body.rate_limit === null ? null : Math.max(0.001, Number(body.rate_limit));
    if (body.page_size !== undefined) amazon.pageSize = Math.max(1, Number(body.page_size));
    if (body.search_orders_by !== undefined) amazon.searchOrdersBy = body.search_orders_by === 'lastUpdatedTime' ? 'lastUpdatedTime' : 'createdTime';
    res.json({
      feed_ms: amazon.feedMs,
      rate_limit: amazon.rateLimit,
      page_size: amazon.pageSize,
      search_orders_by: amazon.searchOrdersBy,
      pending_ms: amazon.pendingMs,
      today: amazon.today,
      orders_rate_limit: amazon.ordersRateLimit,
      listing_ms: amazon.listingMs,
      late_listings: amazon.lateListings,
    });
  });
  app.post('/_sandbox/amazon/revoke', (req, res) => {
    const body = (req.body ?? {}) as { refresh_token?: string; portal_account?: string | number };
    if (body.refresh_token) amazon.revoked.add(body.refresh_token);
    if (body.portal_account !== undefined) amazon.revoked.add(`account:${String(body.portal_account)}`);
    const account = body.portal_account !== undefined ? String(body.portal_account) : accountOfRefreshToken(body.refresh_token ?? '');
    for (const [token, owner] of amazon.tokens) if (owner === account) amazon.tokens.delete(token);
    res.json({ revoked: true });
  });
  // The account's access taken (denied true) or given back: every SP-API call of its tokens answers 403 meanwhile.
  app.post('/_sandbox/amazon/access', (req, res) => {
    const body = (req.body ?? {}) as { portal_account?: string | number; denied?: unknown };
    if (body.portal_account === undefined || typeof body.denied !== 'boolean') {
      res.status(400).json({ message: 'portal_account and denied (true or false) are required' });
      return;
    }
    if (body.denied) amazon.denied.add(String(body.portal_account));
    else amazon.denied.delete(String(body.portal_account));
    res.json({ portal_account: String(body.portal_account), denied: body.denied });
  });
  app.post('/_sandbox/amazon/feed_outcome', (req, res) => {
    const body = (req.body ?? {}) as { portal_account?: string | number; status?: string; count?: number; unprocessed?: number };
    if (body.status === 'DONE' && Number.isInteger(body.unprocessed) && body.unprocessed! > 0) {
      amazon.partialFeeds.push({
        account: body.portal_account === undefined ? undefined : String(body.portal_account),
        unprocessed: body.unprocessed!,
        remaining: Math.max(1, Number(body.count ?? 1)),
      });
      res.status(201).json({ partial_feeds: amazon.partialFeeds.length });
      return;
    }
    if (body.status !== 'FATAL' && body.status !== 'CANCELLED') {
      res.status(400).json({ message: 'status must be FATAL or CANCELLED, or DONE with unprocessed (a whole number above 0)' });
      return;
    }
    amazon.feedOutcomes.push({
      account: body.portal_account === undefined ? undefined : String(body.portal_account),
      status: body.status,
      remaining: Math.max(1, Number(body.count ?? 1)),
    });
    res.status(201).json({ feed_outcomes: amazon.feedOutcomes.length });
  });
  app.post('/_sandbox/amazon/orders', (req, res) => {
    const body = (req.body ?? {}) as NewAmazonOrder;
    const amount = (v: unknown) => v === undefined || (typeof v === 'string' && /^\d+(\.\d{1,2})?$/.test(v));
    if (
      body.portal_account === undefined ||
      !Array.isArray(body.lines) ||
      body.lines.length === 0 ||
      body.lines.some(
        (l) =>
          !l.sku ||
          !(l.quantity >= 1) ||
          ![l.tax, l.gift_wrap, l.gift_wrap_discount, l.gift_wrap_tax, l.cod_fee, l.other, l.shipping_tax, l.item_amount].every(amount) ||
          (l.item_amount !== undefined && l.price !== undefined),
      ) ||
      !amount(body.delivery_tip) ||
      ![undefined, 'PENDING', 'FINALIZED'].includes(body.delivery_tip_status) ||
      ![undefined, true, false].includes(body.pending_tip_outside_total) ||
      ![undefined, 'AMAZON', 'SELLER'].includes(body.tax_collected_by) ||
      !(body.payment_method === undefined || (typeof body.payment_method === 'string' && body.payment_method !== ''))
    ) {
      res.status(400).json({
        message:
          'portal_account and lines [{sku, quantity >= 1, price or item_amount, promotion_discount, shipping, shipping_discount, tax, ioss, gift_wrap, gift_wrap_discount, gift_wrap_tax, cod_fee, other, shipping_tax}] are required; tax, item_amount, the gift wrap, cod_fee, other, shipping_tax and delivery_tip are amounts, delivery_tip_status PENDING or FINALIZED, tax_collected_by AMAZON or SELLER, payment_method a name',
      });
      return;
    }
    const order = placeOrder(amazon, body);
    res.status(201).json({ order_id: order.orderId, order_item_ids: order.lines.map((l) => l.orderItemId), status: order.status });
  });
  app.get('/_sandbox/amazon/calls', (_req, res) => {
    res.json(Object.fromEntries(amazon.operationCalls));
  });
  app.get('/_sandbox/amazon/throttled', (_req, res) => {
    res.json(Object.fromEntries(amazon.throttled));
  });
  app.get('/_sandbox/amazon/deprecated', (_req, res) => {
    res.json(amazon.deprecatedCalls);
  });
  // An order's state and the packages confirmed for it (confirmShipment), without a token.
  app.get('/_sandbox/amazon/orders/:id', (req, res) => {
    const found = amazon.orders.get(String(req.params.id));
    if (!found) {
      res.status(404).json({ message: `no order ${String(req.params.id)}` });
      return;
    }
    res.json({ order_id: found.orderId, status: found.status, fulfilled_by: found.fulfilledBy, packages: found.packages });
  });
  app.post('/_sandbox/amazon/orders/:id/status', (req, res) => {
    const found = amazon.orders.get(String(req.params.id));
    const status = (req.body as { status?: string } | undefined)?.status as FulfillmentStatus | undefined;
    const known: FulfillmentStatus[] = ['PENDING_AVAILABILITY', 'PENDING', 'UNSHIPPED', 'PARTIALLY_SHIPPED', 'SHIPPED', 'CANCELLED', 'UNFULFILLABLE'];
    if (!found || !status || !known.includes(status)) {
      res.status(400).json({ message: `a known order and a status of ${known.join(', ')}` });
      return;
    }
    found.status = status;
    found.pendingUntil = undefined;
    found.lastUpdatedTime = now();
    res.json({ order_id: found.orderId, status });
  });
  // A delivery tip charged after checkout: its status moves (PENDING -> FINALIZED).
  app.post('/_sandbox/amazon/orders/:id/delivery_tip', (req, res) => {
    const found = amazon.orders.get(String(req.params.id));
    const status = (req.body as { status?: string } | undefined)?.status;
    if (!found?.deliveryTip || (status !== 'PENDING' && status !== 'FINALIZED')) {
      res.status(400).json({ message: 'a known order with a delivery tip and a status of PENDING or FINALIZED' });
      return;
    }
    found.deliveryTip.status = status;
    found.lastUpdatedTime = now();
    res.json({ order_id: found.orderId, delivery_tip: found.deliveryTip });
  });
  // The carrier's news of the packages confirmed (PackageStatus.status): all the order's packages, or the one named.
  app.post('/_sandbox/amazon/orders/:id/package_status', (req, res) => {
    const found = amazon.orders.get(String(req.params.id));
    const body = (req.body ?? {}) as { status?: string; package_reference_id?: string };
    const known: SandboxPackage['status'][] = ['PENDING', 'IN_TRANSIT', 'SHIPPED', 'DELIVERED', 'CANCELLED', 'UNDELIVERABLE'];
    const packages = found?.packages.filter((k) => body.package_reference_id === undefined || k.packageReferenceId === String(body.package_reference_id)) ?? [];
    if (!found || packages.length === 0 || !known.includes(body.status as SandboxPackage['status'])) {
      res.status(400).json({ message: `a known order with a package confirmed (package_reference_id) and a status of ${known.join(', ')}` });
      return;
    }
    for (const k of packages) k.status = body.status as SandboxPackage['status'];
    found.lastUpdatedTime = now();
    res.json({ order_id: found.orderId, packages: found.packages.map((k) => ({ package_reference_id: k.packageReferenceId, status: k.status })) });
  });
  // The feed document's upload URL and the processing report's download URL (presigned: no token).
  app.put('/_sandbox/amazon/documents/:id', express.text({ type: () => true, limit: '50mb' }), (req, res) => {
    const doc = amazon.documents.get(String(req.params.id));
    if (!doc) {
      res.status(404).type('application/xml').send('<Error><Code>NoSuchKey</Code></Error>');
      return;
    }
    // The upload URL is presigned for the content type createFeedDocument named: another one
    // breaks the signature (S3 answers 403 SignatureDoesNotMatch), as Amazon's feeds guide warns.
    const norm = (t: string | undefined) => (t ?? '').toLowerCase().replace(/\s+/g, '');
    if (doc.contentType !== undefined && norm(req.get('content-type')) !== norm(doc.contentType)) {
      res
        .status(403)
        .type('application/xml')
        .send(
          `<Error><Code>SignatureDoesNotMatch</Code><Message>The Content-Type ${req.get('content-type') ?? '(none)'} is not the ${doc.contentType} the URL was signed for.</Message></Error>`,
        );
      return;
    }
    doc.content = typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
    res.status(200).end();
  });
  app.get('/_sandbox/amazon/documents/:id', (req, res) => {
    const doc = amazon.documents.get(String(req.params.id));
    if (!doc || doc.content === null) {
      res.status(404).type('application/xml').send('<Error><Code>NoSuchKey</Code></Error>');
      return;
    }
    res.type('application/json').send(doc.content);
  });
}

/**
 * The seller converting an offer in Seller Central (not through the API): `POST
 * /_sandbox/amazon/listings/:sku/fulfillment {portal_account, channel, marketplace_id?,
 * quantity?}` makes it fulfilled by Amazon (channel AMAZON_EU, AMAZON_NA, AMAZON_JP: FBA, no
 * merchant quantity; `quantity`: what Amazon's warehouse holds, shown in reads) or the seller's
 * own again (DEFAULT, quantity 0), in the marketplace named, else in each the offer is in;
 * `GET /_sandbox/amazon/listings/:sku/fulfillment?portal_account=&marketplace_id=` answers the
 * offer's fulfillment_availability as the sandbox holds it, of the marketplace named, else of all
 * (each entry once), and each marketplace's (`marketplaces`). A quantity patch or feed message of
 * such an offer replaces the attribute in the marketplaces it names (PatchOperation `replace`:
 * "adds or replaces the target property"), so it is the seller's offer (DEFAULT) there afterwards,
 * as Amazon makes it.
 */
function fulfilmentControls(app: express.Express, state: SandboxState): void {
  /** The marketplaces the offer's fulfillment_availability is held in (a value naming none: the listing's). */
  const heldIn = (account: string, offer: SandboxOffer): string[] => {
    const stored = (Array.isArray(offer.listing.fulfillment_availability) ? offer.listing.fulfillment_availability : []) as StoredAvailability[];
    const named = stored.flatMap((e) => (e.marketplace_id === undefined ? [] : [e.marketplace_id]));
    return [...new Set([...named, ...listedMarketplaces(amazonOf(state), account, offer.sku)])];
  };
  app.post('/_sandbox/amazon/listings/:sku/fulfillment', (req, res) => {
    const body = (req.body ?? {}) as { portal_account?: string | number; channel?: unknown; marketplace_id?: unknown; quantity?: unknown };
    const channels = ['DEFAULT', 'AMAZON_EU', 'AMAZON_NA', 'AMAZON_JP'];
    const account = String(body.portal_account);
    const offer = body.portal_account === undefined ? undefined : offerOf(state, account, String(req.params.sku));
    const quantity = body.quantity === undefined ? undefined : Number(body.quantity);
    if (
      !offer?.active ||
      typeof body.channel !== 'string' ||
      !channels.includes(body.channel) ||
      (body.marketplace_id !== undefined && typeof body.marketplace_id !== 'string') ||
      (quantity !== undefined && (!Number.isInteger(quantity) || quantity < 0 || body.channel === 'DEFAULT'))
    ) {
      res.status(400).json({
        message: `portal_account of an offer the sandbox holds of the SKU, and a channel of ${channels.join(', ')}, are required; marketplace_id a marketplace id, quantity (Amazon's channels only) a whole number of 0 or more`,
      });
      return;
    }
    const marketplaceIds = typeof body.marketplace_id === 'string' ? [body.marketplace_id] : heldIn(account, offer);
    const entry =
      body.channel === 'DEFAULT'
        ? { fulfillment_channel_code: 'DEFAULT', quantity: 0 }
        : { fulfillment_channel_code: body.channel, ...(quantity === undefined ? {} : { quantity }) };
    offer.listing = mergeByMarketplace(offer.listing, fulfillmentByMarketplace({ fulfillment_availability: [entry] }, marketplaceIds));
    if (body.channel === 'DEFAULT') offer.quantity = 0;
    offer.updatedAt = now();
    res.json({ sku: offer.sku, marketplace_ids: marketplaceIds, fulfillment_availability: [entry] });
  });
  app.get('/_sandbox/amazon/listings/:sku/fulfillment', (req, res) => {
    const account = String(req.query.portal_account ?? '');
    const offer = offerOf(state, account, String(req.params.sku));
    if (!offer) {
      res.status(404).json({ message: 'no offer of the SKU' });
      return;
    }
    const marketplaceIds = typeof req.query.marketplace_id === 'string' ? [req.query.marketplace_id] : heldIn(account, offer);
    const entries = availabilityIn(offer, marketplaceIds);
    res.json({
      sku: offer.sku,
      fulfillment_availability: entries.length > 0 ? entries.filter((e, i) => entries.findIndex((o) => JSON.stringify(o) === JSON.stringify(e)) === i) : null,
      marketplaces: Object.fromEntries(marketplaceIds.map((m) => [m, availabilityIn(offer, [m])])),
      quantity: offer.quantity,
    });
  });
}

/** Mounts the sandbox's Amazon on the sandbox app and registers its seller. */
export function mountAmazon(app: express.Express, state: SandboxState): void {
  amazonOperations(); // the contracts are read at start: a missing folder stops the sandbox naming it
  const amazon = amazonOf(state);
  app.post('/auth/o2/token', express.urlencoded({ extended: false }), lwa(state, amazon));
  // Every SP-API request is checked against its operation in Amazon's contracts (sandbox/contract).
  const checked = amazonContractGate(app, state);
  app.use('/listings/2021-08-01/items', gate(state, amazon), checked, listings(state, amazon));
  app.use('/feeds/2021-06-30', gate(state, amazon), checked, feeds(state, amazon));
  app.use('/orders/2026-01-01/orders', gate(state, amazon), checked, orders2026(amazon));
  app.use('/orders/v0/orders', gate(state, amazon), checked, ordersV0(amazon));
  // Seller Central's consent page and the Sellers API (no contract file: see amazon-consent.sandbox.ts).
  app.get('/apps/authorize/consent', consentPage(amazon));
  app.use('/sellers/v1', gate(state, amazon), sellers(amazon));
  app.post('/_sandbox/amazon/marketplaces', (req, res) => {
    const body = (req.body ?? {}) as { portal_account?: string | number; marketplace_ids?: string[] };
    if (body.portal_account === undefined || !Array.isArray(body.marketplace_ids)) {
      res.status(400).json({ message: 'portal_account and marketplace_ids are required' });
      return;
    }
    amazon.marketplaces.set(String(body.portal_account), body.marketplace_ids.map(String));
    res.json({ portal_account: String(body.portal_account), marketplace_ids: amazon.marketplaces.get(String(body.portal_account)) });
  });
  controls(app, amazon);
  fulfilmentControls(app, state);
  mountItemCancellation(app, amazon);
  mountListingIssues(app, amazon);
  state.sellers.set(portal, (body) => sell(state, amazon, body));
}
