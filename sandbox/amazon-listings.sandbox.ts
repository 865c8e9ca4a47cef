/**
 * The sandbox's Amazon after a listing submission: putListingsItem and patchListingsItem answer
 * ACCEPTED ("The listings submission was accepted for processing", ListingsItemSubmissionResponse)
 * and Amazon processes the listing afterwards; what it found shows only on the listing item
 * (getListingsItem, listingsItems_2021-08-01.json: Item with summaries[].status BUYABLE /
 * DISCOVERABLE, issues with severity and IssueEnforcements). Where the contract is silent the
 * sandbox chooses (lib/portals/README.md, "The sandbox's Amazon enforces"):
 * - processing takes `listing_ms` (300 ms; POST /_sandbox/amazon/config): until then a SKU never
 *   processed before is a 404 NotFound (Amazon has not made it a listing yet), one processed
 *   before shows its earlier state;
 * - issues a test scripts (POST /_sandbox/amazon/listings/:sku/issue) are found by the processing:
 *   they show once the SKU's latest submission is processed (at once for a SKU already
 *   processed), and stay until cleared (DELETE /_sandbox/amazon/listings/:sku/issues) or reset;
 * - BUYABLE: processed, merchant quantity above 0 (or fulfilled by Amazon), no ERROR issue without
 *   an enforcement (the processing failed: no offer) and no LISTING_SUPPRESSED or
 *   CATALOG_ITEM_REMOVED in force; DISCOVERABLE: no SEARCH_SUPPRESSED or CATALOG_ITEM_REMOVED in
 *   force, and not failed. An enforcement is in force unless EXEMPT, or EXEMPT_UNTIL_EXPIRY_DATE
 *   before its expiryDate (IssueExemption);
 * - getListingsItem answers the data sets includedData names (default summaries): summaries,
 *   issues, attributes, fulfillmentAvailability; offers, procurement, relationships and
 *   productTypes are not played (left out);
 * - each marketplace holds its own fulfillment_availability (a put names one marketplace, a
 *   patch or feed those it names: amazon.sandbox.ts fulfillmentByMarketplace), so an offer may be
 *   fulfilled by Amazon in DE and by the seller in FR; getListingsItem answers the entries of
 *   every marketplace asked, none naming its marketplace (FulfillmentAvailability has none), as
 *   Amazon's Item does (availability);
 * - a listing is in the marketplaces its puts named (one each: "maxItems": 1) until a delete of
 *   each: getListingsItem answers a summary per marketplace asked that holds it (404 when none
 *   does) and the issues of those marketplaces (or naming none). An offer no put made (a quantity
 *   patch or feed of a SKU listed elsewhere) is in every marketplace asked;
 * - an offer lacking what a buyer needs in a marketplace (no product identity, no condition, no
 *   price there: a quantity patch or feed message of a SKU no put made, or a patch naming a
 *   marketplace no put named, which lands the SKU there) shows ERROR issues of categories
 *   MISSING_ATTRIBUTE / MISSING_PRICE naming that marketplace and is neither BUYABLE nor
 *   DISCOVERABLE there (missingOfferData);
 * - a test may script getListingsItem's answer of one SKU (POST
 *   /_sandbox/amazon/listings/:sku/lookup_fault), or patchListingsItem's (POST
 *   /_sandbox/amazon/listings/:sku/patch_fault): an error status the contract lists for the
 *   operation (400, 413, 415, 429, 500, 503; getListingsItem's 404 is the listing's own), with
 *   SP-API's error body, for the next `count` calls of that SKU (ours: the contract gives no case
 *   but its example of a 400, sku "BadSKU" answered BAD_REQUEST "Invalid input"). Not a 403: its
 *   reasons are the caller's access ("Access Denied, Unauthorized, Expired Token, or Invalid
 *   Signature"), none a SKU's, so the sandbox answers it to every call of an account whose access
 *   a test took (POST /_sandbox/amazon/access, amazon.sandbox.ts), never to one SKU's.
 */
import express, { Request, Response } from 'express';
import type { SandboxOffer } from './sandbox.app';

export interface SandboxIssue {
  code: string;
  message: string;
  severity: 'ERROR' | 'WARNING' | 'INFO';
  categories: string[];
  attributeNames?: string[];
  enforcements?: { actions: { action: string }[]; exemption: { status: string; expiryDate?: string } };
  marketplaceIds?: string[];
}

/** One SKU's latest submission: when Amazon has processed it, and what the listing item shows of it. */
export interface SandboxListingRecord {
  productType: string;
  createdDate: string;
  lastUpdatedDate: string;
  /** When the latest submission is processed (ms since the epoch). */
  processedAt: number;
  /** Whether an earlier submission was processed (the SKU is a listing meanwhile). */
  processedBefore: boolean;
}

export interface AmazonListingStore {
  listingMs: number;
  lateListings: boolean;
  listingRecords: Map<string, SandboxListingRecord>;
  listingIssues: Map<string, SandboxIssue[]>;
  /** The marketplaces each SKU's listing is in (its puts' marketplaceIds, less its deletes'). */
  listingMarketplaces: Map<string, Set<string>>;
  /** Scripted answers of getListingsItem per SKU (lookup_fault): the next `remaining` lookups get them. */
  lookupFaults: Map<string, LookupFault>;
  /** Scripted answers of patchListingsItem per SKU (patch_fault): the next `remaining` patches get them. */
  patchFaults: Map<string, LookupFault>;
}

/** A scripted getListingsItem or patchListingsItem answer of one SKU. */
export interface LookupFault {
  status: number;
  message: string;
  remaining: number;
}

/**
 * getListingsItem's and patchListingsItem's error statuses in listingsItems_2021-08-01.json, less
 * getListingsItem's 404 (the listing's own) and the 403 (the account's, not a SKU's), and their
 * default messages.
 */
const skuStatuses: Record<number, string> = {
  400: 'Invalid input',
  413: 'The request size exceeded the maximum accepted size.',
  415: 'The request payload is in an unsupported format.',
  429: 'You exceeded your quota for the requested resource.',
  500: 'An unexpected condition occurred that prevented the server from fulfilling the request.',
  503: 'Temporary overloading or maintenance of the server.',
};

const keyOf = (account: string, sku: string) => `${account}|${sku}`;
const enforcementActions = ['LISTING_SUPPRESSED', 'ATTRIBUTE_SUPPRESSED', 'CATALOG_ITEM_REMOVED', 'SEARCH_SUPPRESSED'];
const exemptions = ['EXEMPT', 'EXEMPT_UNTIL_EXPIRY_DATE', 'NOT_EXEMPT'];
const severities = ['ERROR', 'WARNING', 'INFO'];
const conditions = [
  'new_new',
  'new_open_box',
  'new_oem',
  'refurbished_refurbished',
  'used_like_new',
  'used_very_good',
  'used_good',
  'used_acceptable',
  'collectible_like_new',
  'collectible_very_good',
  'collectible_good',
  'collectible_acceptable',
  'club_club',
];

/** An accepted listing submission (put, or a patch of more than the quantity): Amazon processes it for listingMs. */
export function recordSubmission(store: AmazonListingStore, account: string, sku: string, productType: string): void {
  const key = keyOf(account, sku);
  const before = store.listingRecords.get(key);
  const now = Date.now();
  store.listingRecords.set(key, {
    productType,
    createdDate: before?.createdDate ?? new Date(now).toISOString(),
    lastUpdatedDate: new Date(now).toISOString(),
    processedAt: now + store.listingMs,
    processedBefore: before !== undefined && (before.processedBefore || before.processedAt <= now),
  });
}

/**
 * A put's data (attributes, the quantity its fulfillment_availability carries) applied to the
 * offer: at once, or, with `lateListings` (POST /_sandbox/amazon/config {late_listings: true}),
 * when Amazon has processed the submission (listingMs later), after whatever a quantity patch or
 * feed set meanwhile. listingsItems_2021-08-01.json says only "accepted for processing" of both
 * submissions and names no order between a put and a patch sent after it, so the listing may be
 * applied last and its quantity win over a newer one (the harder reading; off by default, ours).
 * A later put of the SKU (or a reset) before the time supersedes it: it is not applied.
 */
export function applyWhenProcessed(store: AmazonListingStore, account: string, sku: string, apply: () => void): void {
  if (!store.lateListings) {
    apply();
    return;
  }
  const submitted = store.listingRecords.get(keyOf(account, sku));
  setTimeout(() => {
    if (submitted && store.listingRecords.get(keyOf(account, sku)) === submitted) apply();
  }, store.listingMs);
}

/** The scripted answer of this call of the SKU, if one is left (counted down). */
function takeSkuFault(faults: Map<string, LookupFault>, account: string, sku: string): LookupFault | undefined {
  const key = keyOf(account, sku);
  const fault = faults.get(key);
  if (!fault) return undefined;
  fault.remaining -= 1;
  if (fault.remaining <= 0) faults.delete(key);
  return fault;
}

/** The scripted answer of this lookup of the SKU, if one is left (counted down). */
export const takeLookupFault = (store: AmazonListingStore, account: string, sku: string): LookupFault | undefined =>
  takeSkuFault(store.lookupFaults, account, sku);

/** The scripted answer of this patch of the SKU, if one is left (counted down). */
export const takePatchFault = (store: AmazonListingStore, account: string, sku: string): LookupFault | undefined =>
  takeSkuFault(store.patchFaults, account, sku);

/** The SKU's listing is in the marketplace (putListingsItem). */
export function listIn(store: AmazonListingStore, account: string, sku: string, marketplaceId: string): void {
  const key = keyOf(account, sku);
  store.listingMarketplaces.set(key, new Set([...(store.listingMarketplaces.get(key) ?? []), marketplaceId]));
}

/** The marketplaces a put placed the SKU's listing in (less those deleted); none when no put did. */
export function listedMarketplaces(store: AmazonListingStore, account: string, sku: string): string[] {
  return [...(store.listingMarketplaces.get(keyOf(account, sku)) ?? [])];
}

/** Whether a put placed the SKU in some marketplace (a patch then lands it in those it names too). */
export function placedByPut(store: AmazonListingStore, account: string, sku: string): boolean {
  return store.listingMarketplaces.has(keyOf(account, sku));
}

/** The SKU's listing is gone from the marketplace (deleteListingsItem); true when it is in none left. */
export function unlistIn(store: AmazonListingStore, account: string, sku: string, marketplaceId: string): boolean {
  const left = store.listingMarketplaces.get(keyOf(account, sku));
  left?.delete(marketplaceId);
  return !left || left.size === 0;
}

/** The SKU's listing is gone (deleteListingsItem in its last marketplace). */
export function forgetListing(store: AmazonListingStore, account: string, sku: string): void {
  store.listingRecords.delete(keyOf(account, sku));
  store.listingMarketplaces.delete(keyOf(account, sku));
}

const inForce = (i: SandboxIssue, action: string) =>
  (i.enforcements?.actions ?? []).some((a) => a.action === action) &&
  i.enforcements!.exemption.status !== 'EXEMPT' &&
  !(i.enforcements!.exemption.status === 'EXEMPT_UNTIL_EXPIRY_DATE' && Date.parse(i.enforcements!.exemption.expiryDate ?? '') > Date.now());

/** One fulfillment_availability value as the sandbox stores it: the marketplace it was submitted in (marketplaceOf). */
export interface StoredAvailability {
  fulfillment_channel_code?: string;
  quantity?: number;
  marketplace_id?: string;
}

/**
 * The offer's fulfillment_availability values in these marketplaces (a value naming none, in
 * each), stripped of the marketplace the sandbox keeps them under (fulfillmentByMarketplace).
 */
export function availabilityIn(offer: SandboxOffer, marketplaceIds: string[]): Omit<StoredAvailability, 'marketplace_id'>[] {
  const stored = (Array.isArray(offer.listing.fulfillment_availability) ? offer.listing.fulfillment_availability : []) as StoredAvailability[];
  return stored.filter((e) => e.marketplace_id === undefined || marketplaceIds.includes(e.marketplace_id)).map(({ marketplace_id: _m, ...e }) => e);
}

/**
 * The offer's FulfillmentAvailability in these marketplaces, as getListingsItem answers it: each
 * marketplace's entries (Amazon's channels AMAZON_EU ... with the quantity Amazon counts where the
 * sandbox was told one, the seller's DEFAULT with the offer's merchant quantity, which sales
 * lower: the sandbox keeps one for all marketplaces), none naming its marketplace
 * (FulfillmentAvailability has fulfillmentChannelCode and quantity only), the same entry of two
 * marketplaces once. A read of DE and FR of an offer FBA in DE and the seller's in FR answers
 * both codes: the sandbox plays the contract, not what a caller may assume of one answer.
 */
function availability(offer: SandboxOffer, marketplaceIds: string[]): { fulfillmentChannelCode: string; quantity?: number }[] {
  const entries = availabilityIn(offer, marketplaceIds)
    .filter((e) => typeof e.fulfillment_channel_code === 'string')
    .map((e) =>
      e.fulfillment_channel_code === 'DEFAULT'
        ? { fulfillmentChannelCode: 'DEFAULT', quantity: offer.quantity }
        : { fulfillmentChannelCode: e.fulfillment_channel_code!, ...(typeof e.quantity === 'number' ? { quantity: e.quantity } : {}) },
    );
  return entries.filter((e, i) => entries.findIndex((o) => JSON.stringify(o) === JSON.stringify(e)) === i);
}

/**
 * What an offer lacks to be bought, as the ERROR issues Amazon's processing finds: a quantity
 * patch (or feed message) of a SKU no put made lands on a listing with nothing but
 * fulfillment_availability, which Amazon takes (ACCEPTED) but which names no product and has no
 * price. Issue.categories (listingsItems_2021-08-01.json) name these cases, MISSING_PRICE ("the
 * absence of a price attribute") and MISSING_ATTRIBUTE; an ERROR issue keeps the listing from
 * BUYABLE (statusIn). Per marketplace: a value counts where it names that marketplace (or none),
 * so a quantity patch naming a marketplace the listing was not put in (it lands there, patch)
 * leaves a listing there with no price. The codes and wording are ours (the contract documents none).
 */
function missingOfferData(offer: SandboxOffer, marketplaceId: string): SandboxIssue[] {
  // A value of this marketplace, or one naming none (fulfillment_availability names none).
  const has = (name: string) =>
    Array.isArray(offer.listing[name]) &&
    (offer.listing[name] as { marketplace_id?: unknown }[]).some((v) => v?.marketplace_id === undefined || v.marketplace_id === marketplaceId);
  const missing = (code: string, category: string, names: string[], what: string): SandboxIssue[] => [
    {
      code,
      severity: 'ERROR',
      categories: [category],
      attributeNames: names,
      message: `The listing has no ${what} in ${marketplaceId}; it cannot be bought there until it is provided.`,
      marketplaceIds: [marketplaceId],
    },
  ];
  return [
    ...(has('merchant_suggested_asin') || has('externally_assigned_product_identifier')
      ? []
      : missing('90220', 'MISSING_ATTRIBUTE', ['merchant_suggested_asin', 'externally_assigned_product_identifier'], 'product (ASIN or product identifier)')),
    ...(has('condition_type') ? [] : missing('90220', 'MISSING_ATTRIBUTE', ['condition_type'], 'condition')),
    ...(has('purchasable_offer') ? [] : missing('90221', 'MISSING_PRICE', ['purchasable_offer'], 'price')),
  ];
}

/** getListingsItem's Item for an offer of the account, or undefined (404) while Amazon has not made the SKU a listing. */
export function listingItem(
  store: AmazonListingStore,
  account: string,
  offer: SandboxOffer,
  marketplaceIds: string[],
  includedData: string[],
): Record<string, unknown> | undefined {
  const record = store.listingRecords.get(keyOf(account, offer.sku));
  const processed = !record || record.processedAt <= Date.now();
  if (!processed && !record.processedBefore) return undefined;
  const listedIn = store.listingMarketplaces.get(keyOf(account, offer.sku));
  const marketplaces = marketplaceIds.filter((m) => !listedIn || listedIn.has(m));
  if (marketplaces.length === 0) return undefined;
  const issues = [
    ...marketplaces.flatMap((m) => missingOfferData(offer, m)),
    ...(processed ? (store.listingIssues.get(keyOf(account, offer.sku)) ?? []) : []),
  ].filter((i) => !i.marketplaceIds?.length || i.marketplaceIds.some((m) => marketplaces.includes(m)));
  /** Whether the offer has something to sell in one marketplace: Amazon fulfils it there, or the seller with a quantity. */
  const sells = (marketplaceId: string) => availability(offer, [marketplaceId]).some((f) => f.fulfillmentChannelCode !== 'DEFAULT' || (f.quantity ?? 0) > 0);
  /** The statuses in one marketplace, from the issues of that marketplace (or naming none). */
  const statusIn = (marketplaceId: string) => {
    const own = issues.filter((i) => !i.marketplaceIds?.length || i.marketplaceIds.includes(marketplaceId));
    const failed = own.some((i) => i.severity === 'ERROR' && !i.enforcements?.actions.length);
    const buyable = sells(marketplaceId) && !failed && !own.some((i) => inForce(i, 'LISTING_SUPPRESSED') || inForce(i, 'CATALOG_ITEM_REMOVED'));
    const discoverable = !failed && !own.some((i) => inForce(i, 'SEARCH_SUPPRESSED') || inForce(i, 'CATALOG_ITEM_REMOVED'));
    return [...(buyable ? ['BUYABLE'] : []), ...(discoverable ? ['DISCOVERABLE'] : [])];
  };
  const condition = ((offer.listing.condition_type ?? []) as { value?: string }[])[0]?.value;
  const asin = ((offer.listing.merchant_suggested_asin ?? []) as { value?: string }[])[0]?.value;
  const now = new Date().toISOString();
  const item: Record<string, unknown> = { sku: offer.sku };
  if (includedData.includes('summaries'))
    item.summaries = marketplaces.map((marketplaceId) => ({
      marketplaceId,
      ...(asin ? { asin } : {}),
      productType: record?.productType ?? 'PRODUCT',
      ...(condition && conditions.includes(condition) ? { conditionType: condition } : {}),
      status: statusIn(marketplaceId),
      createdDate: record?.createdDate ?? offer.updatedAt ?? now,
      lastUpdatedDate: record?.lastUpdatedDate ?? offer.updatedAt ?? now,
    }));
  if (includedData.includes('issues')) item.issues = issues;
  if (includedData.includes('attributes')) item.attributes = offer.listing;
  if (includedData.includes('fulfillmentAvailability')) item.fulfillmentAvailability = availability(offer, marketplaces);
  return item;
}

/** The body of POST /_sandbox/amazon/listings/:sku/issue as an Issue, or the refusal in words. */
function issueOf(body: Record<string, unknown>): SandboxIssue | string {
  const list = (v: unknown) => (v === undefined ? [] : Array.isArray(v) ? v.map(String) : [String(v)]);
  if (typeof body.code !== 'string' || !body.code || typeof body.message !== 'string' || !body.message) return 'code and message are required';
  const severity = String(body.severity ?? 'ERROR');
  if (!severities.includes(severity)) return `severity must be one of ${severities.join(', ')}`;
  const actions = list(body.enforcement);
  if (actions.some((a) => !enforcementActions.includes(a))) return `enforcement must be of ${enforcementActions.join(', ')}`;
  const exemption = String(body.exemption ?? 'NOT_EXEMPT');
  if (!exemptions.includes(exemption)) return `exemption must be one of ${exemptions.join(', ')}`;
  if (exemption === 'EXEMPT_UNTIL_EXPIRY_DATE' && Number.isNaN(Date.parse(String(body.expiry_date ?? '')))) return 'EXEMPT_UNTIL_EXPIRY_DATE needs expiry_date';
  const attributes = list(body.attribute_names);
  const marketplaces = list(body.marketplace_id);
  return {
    code: body.code,
    message: body.message,
    severity: severity as SandboxIssue['severity'],
    categories: list(body.categories),
    ...(attributes.length ? { attributeNames: attributes } : {}),
    ...(actions.length
      ? {
          enforcements: {
            actions: actions.map((action) => ({ action })),
            exemption: {
              status: exemption,
              ...(exemption === 'EXEMPT_UNTIL_EXPIRY_DATE' ? { expiryDate: new Date(String(body.expiry_date)).toISOString() } : {}),
            },
          },
        }
      : {}),
    ...(marketplaces.length ? { marketplaceIds: marketplaces } : {}),
  };
}

/**
 * The controls: `POST /_sandbox/amazon/listings/:sku/issue {portal_account, code, message,
 * severity?, enforcement?, exemption?, expiry_date?, categories?, attribute_names?,
 * marketplace_id?}` (the SKU's processing finds this issue: ERROR and NOT_EXEMPT by default),
 * `DELETE /_sandbox/amazon/listings/:sku/issues?portal_account=`, `POST
 * /_sandbox/amazon/listings/:sku/lookup_fault {portal_account, status, message?, count?}` (the
 * next `count`, default 1, getListingsItem calls of the SKU answer that status) and `POST
 * /_sandbox/amazon/listings/:sku/patch_fault` (the same for patchListingsItem).
 */
export function mountListingIssues(app: express.Express, store: AmazonListingStore): void {
  app.post('/_sandbox/amazon/listings/:sku/issue', (req: Request, res: Response) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (body.portal_account === undefined) {
      res.status(400).json({ message: 'portal_account is required' });
      return;
    }
    const issue = issueOf(body);
    if (typeof issue === 'string') {
      res.status(400).json({ message: issue });
      return;
    }
    const key = keyOf(String(body.portal_account), String(req.params.sku));
    store.listingIssues.set(key, [...(store.listingIssues.get(key) ?? []), issue]);
    res.status(201).json({ sku: String(req.params.sku), issues: store.listingIssues.get(key) });
  });
  const scriptFault = (faults: Map<string, LookupFault>) => (req: Request, res: Response) => {
    const body = (req.body ?? {}) as { portal_account?: unknown; status?: unknown; message?: unknown; count?: unknown };
    const status = Number(body.status);
    const count = body.count === undefined ? 1 : Number(body.count);
    if (body.portal_account === undefined || skuStatuses[status] === undefined || !Number.isInteger(count) || count < 1) {
      res.status(400).json({
        message: `portal_account and a status of ${Object.keys(skuStatuses).join(', ')} are required (a 403 is the account's: POST /_sandbox/amazon/access); count a whole number above 0`,
      });
      return;
    }
    const fault = { status, message: typeof body.message === 'string' && body.message ? body.message : skuStatuses[status]!, remaining: count };
    faults.set(keyOf(String(body.portal_account), String(req.params.sku)), fault);
    res.status(201).json({ sku: String(req.params.sku), status, message: fault.message, count });
  };
  app.post('/_sandbox/amazon/listings/:sku/lookup_fault', scriptFault(store.lookupFaults));
  app.post('/_sandbox/amazon/listings/:sku/patch_fault', scriptFault(store.patchFaults));
  app.delete('/_sandbox/amazon/listings/:sku/issues', (req: Request, res: Response) => {
    store.listingIssues.delete(keyOf(String(req.query.portal_account ?? ''), String(req.params.sku)));
    res.json({ sku: String(req.params.sku), issues: [] });
  });
}
