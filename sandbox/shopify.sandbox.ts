/**
 * The sandbox's webshop: a Shopify store's Admin GraphQL API, version 2025-01, at
 * POST /admin/api/2025-01/graphql.json (as https://<shop>.myshopify.com), and the later versions
 * Kontor may speak at theirs (2026-01 to 2026-10: no schema file of them, played as this one amended
 * by the changelog's inventory set changes, shopify-versions.sandbox.ts). The schema is built at
 * start from Shopify's own introspection result (../shared/contracts/shopify/admin_schema_2025-01.json,
 * SOURCES.md there; read, never copied). Every request is checked in this order: the
 * X-Shopify-Access-Token header (401 as Shopify answers it), the query parsed and validated
 * against the schema and its variables coerced to their declared types (a violation is answered
 * 200 with Shopify's errors array and recorded at GET /_sandbox/violations?vendor=shopify), then
 * the cost-based rate limit: a leaky bucket per store (2000 points, 100 restored a second, the
 * figures of Shopify's rate-limits page for the larger plans), `extensions.cost.throttleStatus` on
 * every answer and THROTTLED when the query's requested cost exceeds what is available; the
 * difference to the actual cost (what the answer holds) is refunded, as Shopify does. A root field
 * the token's access scopes do not grant answers ACCESS_DENIED (shopify-scopes.sandbox.ts; an
 * install's token holds the scopes its link asked, a development token Kontor's). The operations the
 * adapter uses are resolved through graphql's execute over plain objects: variants by SKU,
 * productCreate, productUpdate, productVariantsBulkUpdate, inventorySetQuantities at the store's
 * location, orders paged by updated_at, an order's fulfillment orders (several, at locations, held
 * or scheduled: shopify-fulfillment.sandbox.ts), fulfillmentOrderOpen and fulfillmentCreate with
 * tracking. Requests are logged per portal (webshop) and account.
 */
import crypto from 'node:crypto';
import type express from 'express';
import type { Request, Response } from 'express';
import {
  buildClientSchema,
  DocumentNode,
  execute,
  FieldNode,
  getOperationAST,
  GraphQLError,
  GraphQLSchema,
  IntrospectionQuery,
  Kind,
  OperationDefinitionNode,
  parse,
  SelectionSetNode,
  validate,
} from 'graphql';
import { getVariableValues } from 'graphql/execution/values';
import { ShopifyApiVersion, shopifyApiVersions, shopifyScopes } from '../config/channel-apps';
import { versionIntrospection, versionProblem } from './shopify-versions.sandbox';
import { mountContractControls, violationsOf } from './contract/contract-gate';
import { readContract } from './contract/contract-files';
import { emitQuantity, SandboxState, SellRequest } from './sandbox.app';
import {
  FulfillmentOrderPlan,
  statusOf,
  fulfillmentOrderNode,
  fulfillmentOrdersOf,
  fulfil,
  fulfillmentOrderGranted,
  FulfillmentRequest,
  moveFulfillmentOrder,
  openScheduled,
  planProblem,
  releaseHolds,
  SandboxFulfillmentOrder,
  unitsByLocation,
} from './shopify-fulfillment.sandbox';
import { removeUnits, unfulfilledOf } from './shopify-edit.sandbox';
import { withScopes } from './shopify-scopes.sandbox';
import { companyRecognised } from './shopify-tracking.sandbox';
import { refundNodes, refundUnits, refundUnitsProblem, RestockType, SandboxRefund } from './shopify-refund.sandbox';
import { appOfToken, createSubscription, mountShopifyApp, notifyTopic, shopDomainOf, shopifyAppOf, subscriptionNode } from './shopify-webhooks.sandbox';

const portal = 'webshop';
/**
 * The reasons an inventory change may give (shopify.dev, "Manage inventory quantities and
 * states"; InventorySetQuantitiesInput.reason: "must be one of the possible reasons").
 */
const inventoryReasons = new Set([
  'correction',
  'cycle_count_available',
  'damaged',
  'movement_created',
  'movement_updated',
  'movement_received',
  'movement_canceled',
  'other',
  'promotion',
  'quality_control',
  'received',
  'reservation_created',
  'reservation_deleted',
  'reservation_updated',
  'restock',
  'safety_stock',
  'shrinkage',
]);

/** The version of the one schema file there is (SOURCES.md); the later versions are played from it (shopify-versions.sandbox.ts). */
export const shopifyApiVersion = '2025-01';
export const shopifyContractFolder = 'shopify';
export const shopifyContractFile = `admin_schema_${shopifyApiVersion}.json`;

let schema: GraphQLSchema | undefined;
const laterSchemas = new Map<ShopifyApiVersion, GraphQLSchema>();

/** The Admin API schema, built once per process from the introspection file (a missing folder or file stops the sandbox naming it). */
export function shopifySchema(root?: string): GraphQLSchema {
  if (root !== undefined) return buildClientSchema((readContract(shopifyContractFolder, shopifyContractFile, root) as { data: IntrospectionQuery }).data);
  schema ??= buildClientSchema((readContract(shopifyContractFolder, shopifyContractFile) as { data: IntrospectionQuery }).data);
  return schema;
}

/**
 * The schema the sandbox plays a version with: 2025-01 from its file; a later one (no file) as the
 * 2025-01 file amended by the changelog's changes to the inventory set (versionIntrospection), built on first use.
 */
export function shopifySchemaOf(version: ShopifyApiVersion): GraphQLSchema {
  if (version === shopifyApiVersion) return shopifySchema();
  let later = laterSchemas.get(version);
  if (!later) {
    const base = (readContract(shopifyContractFolder, shopifyContractFile) as { data: IntrospectionQuery }).data;
    later = buildClientSchema(versionIntrospection(base, version));
    laterSchemas.set(version, later);
  }
  return later;
}

/** A development account's access token: the sandbox knows it by the portal account id (never valid at Shopify). */
export const sandboxShopifyToken = (portalAccountId: number | string) => `shpat_sandbox_${portalAccountId}`;

interface ShopifyVariant {
  id: string;
  productId: string;
  sku: string;
  barcode: string | null;
  price: string;
  compareAtPrice: string | null;
  weight: { value: number; unit: string } | null;
  inventoryItemId: string;
  /**
   * The merchant's settings in Shopify's admin (POST /_sandbox/shopify/variant): InventoryItem.tracked
   * ("Whether inventory levels are tracked for the item") and ProductVariant.inventoryPolicy
   * (CONTINUE: "Customers can buy this product variant after it's out of stock"). Shopify's
   * defaults for a new variant: tracked, DENY.
   */
  tracked: boolean;
  inventoryPolicy: 'DENY' | 'CONTINUE';
}

interface ShopifyProduct {
  id: string;
  account: string;
  title: string;
  status: string;
  variants: string[];
}

/** A collection of a store: custom (products added by hand or API) or smart (ruleSet: its rules choose the products). */
export interface ShopifyCollection {
  id: string;
  account: string;
  title: string;
  handle: string;
  products: string[];
  ruleSet: { appliedDisjunctively: boolean; rules: { column: string; relation: string; condition: string }[] } | null;
}

interface ShopifyLine {
  id: string;
  sku: string;
  name: string;
  quantity: number;
  price: string;
  /** The discounts allocated to the line (a discount code's share of it, or the line's own): its total, the sum of `allocations`. */
  discount: string;
  /** LineItem.discountAllocations: each discount application's amount on the line (all its units), by the application's index. */
  allocations: { amount: string; application: number }[];
  /** LineItem.taxable, "Whether the variant is taxable". */
  taxable: boolean;
  fulfilled: number;
  /** Units an order edit took out (POST /_sandbox/shopify/orders/:id/edit): counted in quantity, not in currentQuantity nor refundableQuantity. */
  removed: number;
  /** Units a refund named (its refund line items): counted in quantity, not in currentQuantity nor refundableQuantity. */
  refundedUnits: number;
  /** Of those, the units that had been fulfilled (returned, or refunded without a restock after fulfilment): not taken from the units to fulfil. */
  refundedFulfilled: number;
  /** LineItem.taxLines: "The taxes charged for the line item, including taxes charged for refunded and removed quantities". */
  taxLines: SandboxTaxLine[];
  /** LineItem.duties: "The duties associated with the line item" (an import's duty the buyer pays at checkout), its amount; "0.00": none. */
  duty: string;
  /** Of it, what refunds gave back (Refund.duties, RefundDuty.amountSet): out of currentTotalDutiesSet ("after returns"). */
  dutyRefunded: string;
  /** Duty.taxLines, "A list of taxes charged on the duty": its amount ("0.00": none), on top of the duty in a store whose prices exclude tax. */
  dutyTax: string;
  /**
   * A tip the buyer gave at checkout (POST /_sandbox/shopify/orders `tip`): a LineItem as the
   * schema describes it, "not something that can be fulfilled, like a tip" (nonFulfillableQuantity
   * its units, requiresShipping false, in Order.nonFulfillableLineItems), with no variant and so no
   * SKU (its `sku` here is ''; the node answers null), untaxed, in no fulfillment order; its amount
   * is in the order's total and payment and in Order.totalTipReceivedSet.
   */
  tip?: boolean;
  /**
   * A custom item (an order edit's orderEditAddCustomItem, a draft order's custom line) or a line
   * whose variant was deleted since: LineItem.variant is null, and so is its `sku` ("The variant
   * SKU number", nullable). A test sets it on a placed order's line.
   */
  custom?: boolean;
}

/**
 * A TaxLine as the store keeps it: `rate` "as a decimal" (0.0625 for 6.25 %), `amount` its
 * priceSet ("The amount of tax ... after discounts and before returns") in the order's currency.
 */
export interface SandboxTaxLine {
  title: string;
  rate: number;
  amount: string;
}

interface ShopifyAddress {
  name: string;
  firstName: string;
  lastName: string;
  address1: string;
  address2: string | null;
  zip: string;
  city: string;
  province: string | null;
  countryCodeV2: string;
  company: string | null;
  phone: string | null;
}

/** A fulfilment's tracking as the sandbox keeps it (ShopifyOrder.fulfillments). */
export interface SandboxTracking {
  number: string | null;
  company: string | null;
  numbers?: string[];
  /** The tracking URLs, matched to the numbers by position (FulfillmentTrackingInput.urls, or url with number); none: no URL given. */
  urls?: string[];
  /**
   * With a company: whether it is a name of Shopify's list, exactly as written (shopify-tracking.sandbox.ts),
   * for which Shopify builds the numbers' tracking URLs; any other text is kept as given, recognised by none.
   */
  companyRecognised?: boolean;
}

/** FulfillmentTrackingInput as fulfillmentCreate and fulfillmentTrackingInfoUpdate take it. */
interface TrackingInput {
  number?: string | null;
  numbers?: string[] | null;
  url?: string | null;
  urls?: string[] | null;
  company?: string | null;
}

/** An RFC 3986 URI with a scheme and a host, as FulfillmentTrackingInput's url and urls ask ("It includes a scheme (`https`) and a host"). */
const trackingUrl = (u: string) => {
  try {
    return Boolean(new URL(u).host);
  } catch {
    return false;
  }
};

/**
 * FulfillmentTrackingInput's notes, played as refusals (userErrors; the schema's "should"/"should
 * not", which the sandbox holds a client to): `number` and `numbers` not both, `url` and `urls`
 * not both, `url` with a `number`, `urls` with `numbers` (and no more of them, as they are
 * matched by position), every URL with a scheme and a host.
 */
function trackingProblem(input: TrackingInput | undefined): { field: string[]; message: string } | undefined {
  if (!input) return undefined;
  const field = (f: string) => ['trackingInfoInput', f];
  if (input.number && input.numbers?.length) return { field: field('numbers'), message: 'Provide number or numbers, not both.' };
  if (input.url && input.urls?.length) return { field: field('urls'), message: 'Provide url or urls, not both.' };
  if (input.url && !input.number) return { field: field('url'), message: 'A url needs the number it tracks.' };
  if (input.urls?.length && !input.numbers?.length) return { field: field('urls'), message: 'urls need the numbers they track.' };
  if ((input.urls?.length ?? 0) > (input.numbers?.length ?? 0)) return { field: field('urls'), message: 'There are more urls than numbers.' };
  const bad = [input.url, ...(input.urls ?? [])].find((u) => typeof u === 'string' && !trackingUrl(u));
  return bad === undefined ? undefined : { field: field(input.url ? 'url' : 'urls'), message: `${bad} is not a valid URL.` };
}

/**
 * The tracking of an input: `numbers` when given, else `number` ("one or many"), the company
 * applied to all of them, the URLs (`urls`, else `url`) matched to the numbers by position. The
 * whole tracking is what the input says: an update keeps nothing of the fulfilment's earlier
 * tracking (numbers, URLs and company) that it does not send again.
 */
function trackingOf(input: TrackingInput | undefined): SandboxTracking {
  const numbers = input?.numbers?.length ? input.numbers : input?.number ? [input.number] : [];
  const urls = input?.urls?.length ? input.urls : input?.url ? [input.url] : [];
  return {
    number: numbers[0] ?? null,
    company: input?.company ?? null,
    ...(numbers.length > 1 ? { numbers } : {}),
    ...(urls.length ? { urls: urls.slice(0, numbers.length) } : {}),
    ...(input?.company ? { companyRecognised: companyRecognised(shopifySchema(), input.company) } : {}),
  };
}

/** Fulfillment.trackingInfo: one entry per tracking number, each with the fulfilment's company and its URL (null when none was given); none without a number. */
const trackingInfoOf = (t: SandboxTracking) =>
  (t.numbers ?? (t.number ? [t.number] : [])).map((number, i) => ({ number, company: t.company, url: t.urls?.[i] ?? null }));

export interface ShopifyOrder {
  id: string;
  account: string;
  name: string;
  createdAt: string;
  updatedAt: string;
  cancelledAt: string | null;
  email: string | null;
  currencyCode: string;
  /** The buyer's currency when not the shop's (Order.presentmentCurrencyCode) and the shop's amount of one unit of it: the order's amounts are the buyer's (money). */
  presentment?: { currencyCode: string; rate: number };
  /** Order.test: a test checkout ("made using the Shopify Bogus Gateway or a payment provider with test mode enabled"). */
  test: boolean;
  /**
   * Shopify's OrderDisplayFinancialStatus of the order: PARTIALLY_REFUNDED and REFUNDED once refunds
   * were made; AUTHORIZED a payment authorized and not captured, EXPIRED or VOIDED such an
   * authorization lapsed or cancelled (a test sets them): nothing received (netPaymentSet 0).
   */
  financial: 'PAID' | 'PENDING' | 'PARTIALLY_REFUNDED' | 'REFUNDED' | 'AUTHORIZED' | 'EXPIRED' | 'VOIDED';
  /** What the store refunded to the buyer (refunds, a cancellation's refund): totalRefundedSet. */
  refunded: string;
  /** How orderCancel (or the store's admin, POST /_sandbox/shopify/orders/:id/cancel) cancelled it. */
  cancellation?: { reason: string; refund: boolean; restock: boolean; notifyCustomer: boolean; staffNote: string | null };
  lines: ShopifyLine[];
  shippingPrice: string;
  /** A shipping discount (free shipping: the whole price). */
  shippingDiscount: string;
  /** ShippingLine.taxLines. */
  shippingTaxLines: SandboxTaxLine[];
  /** ShippingLine.title ("Standard" by default); a titled line stands also at 0.00 (a local pickup, a free delivery). */
  shippingTitle?: string;
  /** What refunds gave back of the shipping (RefundShippingLine.subtotalAmountSet, as the price: gross when taxesIncluded) and of its tax (taxAmountSet), in mills. */
  shippingRefunded: { subtotal: number; tax: number };
  /**
   * Order.taxesIncluded, "Whether taxes are included in the subtotal price of the order": true, the
   * lines' and shipping's prices hold their tax (a German store); false, they are net and the tax
   * comes on top (a US store, most Canadian ones).
   */
  taxesIncluded: boolean;
  /** Order.shippingAddress (nullable): null when there is nothing to ship to (digital goods, a local pickup). */
  address: ShopifyAddress | null;
  /** Order.billingAddress (nullable): absent, the shipping address (a checkout copies it); null, none given. */
  billingAddress?: ShopifyAddress | null;
  /**
   * Its fulfilments. tracking: the first number (null: none) and the company; `numbers` all of
   * them, kept only when there are several (FulfillmentTrackingInput.numbers, or numbers added by
   * fulfillmentTrackingInfoUpdate), `urls` their tracking URLs by position when any were given.
   */
  fulfillments: { id: string; tracking: SandboxTracking; lines: { id: string; quantity: number }[]; locationId?: string }[];
  /** Its refunds (Order.refunds), oldest first, with their refund line items (shopify-refund.sandbox.ts). */
  refunds: SandboxRefund[];
  /** Its fulfillment orders (sandbox/shopify-fulfillment.sandbox.ts): one OPEN at the store's location unless placed with a plan. */
  fulfillmentOrders: SandboxFulfillmentOrder[];
  /** Order.discountApplications on line items, by index: a line's own discount (EXPLICIT) and a discount code spread over the lines (ACROSS). */
  discountApplications: SandboxDiscountApplication[];
  /**
   * Order.dutiesIncluded, "Whether duties are included in the subtotal price of the order": false
   * (by default), the lines' duties come on top of their prices, in the order's total and payment.
   */
  dutiesIncluded: boolean;
  /** Order.additionalFees, "A list of additional fees applied to the order" (such as a US state's retail delivery fee): each on top of the lines and shipping. */
  additionalFees: { id: string; name: string; amount: string; tax: string }[];
}

/** A discount application of the order: a code's, with its value (an amount off). */
export interface SandboxDiscountApplication {
  index: number;
  code: string;
  amount: string;
  targetSelection: 'ALL' | 'EXPLICIT';
}

/** What the sandbox's Shopify stores hold, per account (the portal account id the token names); cleared with the sandbox. */
export class ShopifyState {
  products = new Map<string, ShopifyProduct>();
  variants = new Map<string, ShopifyVariant>();
  /** Available quantity per inventory item at the store's location (Location/1). */
  available = new Map<string, number>();
  /** A store's own locations (POST /_sandbox/shopify/locations), by account; absent: Location/1 alone, active, fulfilling online orders. */
  locations = new Map<string, SandboxLocation[]>();
  /** Available quantity at the store's other locations, by `<inventory item id> <location id>` (Location/1's is `available`). */
  levels = new Map<string, number>();
  orders = new Map<string, ShopifyOrder>();
  collections = new Map<string, ShopifyCollection>();
  /** Fulfillment order id -> its order's id. */
  fulfillmentOrderOwners = new Map<string, string>();
  /** Issued access tokens (POST /_sandbox/shopify/tokens): token -> account, as a custom app's install gives one. */
  tokens = new Map<string, string>();
  /**
   * The access scopes each issued token was granted (an install's as asked, a token control's as
   * given). A token absent here (a development account's `shpat_sandbox_<id>`, a control's without
   * scopes) holds the scopes Kontor's consent link asks (config/channel-apps.ts shopifyScopes).
   */
  tokenScopes = new Map<string, string[]>();
  /** The leaky bucket per account. */
  buckets = new Map<string, { available: number; at: number }>();
  maximumAvailable = 2000;
  restoreRate = 100;
  /** The most one query may cost, whatever the bucket holds (Shopify's rate-limits page: 1000 points). */
  singleQueryMax = 1000;
  /** THROTTLED answers given: GET /_sandbox/shopify/throttled. */
  throttled = 0;
  /**
   * How a throttled call is answered (POST /_sandbox/shopify/config {throttled_answer}): `code`,
   * `errors: [{message: "Throttled", extensions: {code: "THROTTLED", documentation}}]`, or `message`,
   * the form the contract's SOURCES.md gives ("A throttled call returns `errors: [{message:
   * "Throttled"}]`"), without the code; either with `extensions.cost`.
   */
  throttledAnswer: 'code' | 'message' = 'code';
  private counter = 0;

  next(): number {
    this.counter += 1;
    return this.counter;
  }

  clear(): void {
    this.products.clear();
    this.variants.clear();
    this.available.clear();
    this.locations.clear();
    this.levels.clear();
    this.orders.clear();
    this.collections.clear();
    this.fulfillmentOrderOwners.clear();
    this.tokens.clear();
    this.tokenScopes.clear();
    this.buckets.clear();
    this.maximumAvailable = 2000;
    this.restoreRate = 100;
    this.throttled = 0;
    this.throttledAnswer = 'code';
  }

  /** The bucket of an account now (restored since its last use, never above the maximum). */
  bucket(account: string): { available: number; at: number } {
    const at = Date.now();
    const b = this.buckets.get(account) ?? { available: this.maximumAvailable, at };
    b.available = Math.min(this.maximumAvailable, b.available + ((at - b.at) / 1000) * this.restoreRate);
    b.at = at;
    this.buckets.set(account, b);
    return b;
  }

  /** A new collection of the store (its handle from the title, as Shopify makes one). */
  addCollection(account: string, title: string, products: string[] = [], ruleSet: ShopifyCollection['ruleSet'] = null): ShopifyCollection {
    const c: ShopifyCollection = {
      id: gid('Collection', this.next()),
      account,
      title,
      handle: title
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-|-$/g, ''),
      products: [...new Set(products)],
      ruleSet,
    };
    this.collections.set(c.id, c);
    return c;
  }

  /** A fulfillment order of the account's store, with its order. */
  fulfillmentOrder(account: string, id: string): { o: ShopifyOrder; fo: SandboxFulfillmentOrder } | undefined {
    const o = this.orders.get(this.fulfillmentOrderOwners.get(id) ?? '');
    const fo = o?.fulfillmentOrders.find((f) => f.id === id);
    return o && fo && o.account === account ? { o, fo } : undefined;
  }

  /** The store's locations, Location/1 first (the one a store has until the merchant adds more). */
  locationsOf(account: string): SandboxLocation[] {
    return (
      this.locations.get(account) ?? [
        { id: sandboxLocationId, name: 'Warehouse', isActive: true, fulfillsOnlineOrders: true, isFulfillmentService: false, fulfillmentService: null },
      ]
    );
  }

  /** The item's `available` at one of the store's locations. */
  availableAt(inventoryItemId: string, locationId: string): number {
    return (locationId === sandboxLocationId ? this.available.get(inventoryItemId) : this.levels.get(`${inventoryItemId} ${locationId}`)) ?? 0;
  }

  setAvailableAt(inventoryItemId: string, locationId: string, quantity: number): void {
    if (locationId === sandboxLocationId) this.available.set(inventoryItemId, quantity);
    else this.levels.set(`${inventoryItemId} ${locationId}`, quantity);
  }

  /** Units of the variant of `sku` on or off `available` at a location (a sale: negative, never below 0; a restock: positive). */
  moveAvailable(account: string, sku: string, locationId: string, units: number): void {
    const v = this.variantBySku(account, sku);
    if (v) this.setAvailableAt(v.inventoryItemId, locationId, Math.max(0, this.availableAt(v.inventoryItemId, locationId) + units));
  }

  /**
   * The location Shopify's order routing assigns an online order to (the sandbox's reading of its
   * default rules, "ranked locations" with the merchant's priority): of the store's active locations
   * that fulfil online orders, in the store's order (the sandbox's priority), the first that holds
   * every unit of the order's variants, else the first such location; Location/1 when it has none.
   * A pickup counter (fulfillsOnlineOrders false) or a deactivated location is never assigned, so
   * the sale comes off the stock of the location that ships it.
   */
  routedLocation(account: string, units: { sku: string; quantity: number }[]): string {
    const online = this.locationsOf(account).filter((l) => l.isActive && l.fulfillsOnlineOrders);
    const holds = (l: SandboxLocation) =>
      units.every((u) => {
        const v = this.variantBySku(account, u.sku);
        return !v || this.availableAt(v.inventoryItemId, l.id) >= u.quantity;
      });
    return (online.find(holds) ?? online[0])?.id ?? sandboxLocationId;
  }

  variantBySku(account: string, sku: string): ShopifyVariant | undefined {
    return [...this.variants.values()].find((v) => v.sku === sku && this.products.get(v.productId)?.account === account);
  }
}

const states = new WeakMap<SandboxState, ShopifyState>();

export function shopifyOf(state: SandboxState): ShopifyState {
  let s = states.get(state);
  if (!s) {
    const created = new ShopifyState();
    states.set(state, created);
    state.events.on('reset', () => created.clear());
    s = created;
  }
  return s;
}

/**
 * The store's first location. A store has it alone unless a test gives it more
 * (POST /_sandbox/shopify/locations); an order placed takes its units off `available` at each
 * fulfillment order's assigned location (`routedLocation` unless the order's plan names one), and
 * a cancellation, refund or edit that restocks puts them back there (shopify-fulfillment.sandbox.ts
 * unitsByLocation).
 */
export const sandboxLocationId = 'gid://shopify/Location/1';
/** Location: the fields the adapter reads (isActive, fulfillsOnlineOrders: "Whether this location can fulfill online orders."; isFulfillmentService: "Whether this location is a fulfillment service."). */
export interface SandboxLocation {
  id: string;
  name: string;
  isActive: boolean;
  fulfillsOnlineOrders: boolean;
  isFulfillmentService: boolean;
  /** Location.fulfillmentService (null: the merchant's own): the app's name and whether it "tracks product inventory and provides updates to Shopify". */
  fulfillmentService: { id: string; handle: string; serviceName: string; inventoryManagement: boolean } | null;
  /** A legacy location of a fulfillment service app: QueryRoot.locations lists it only with includeLegacy ("Whether to include the legacy locations of fulfillment services"). */
  legacy?: boolean;
}
const gid = (type: string, n: number) => `gid://shopify/${type}/${n}`;
/** Access scopes as Shopify writes them in a grant: comma-separated handles. */
const scopeList = (scope: string) =>
  scope
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
/**
 * A MoneyBag of an order's amount. The sandbox's amounts are what the buyer is charged: in the
 * shop's currency, or in the buyer's (`presentment`, Shopify Markets: "The payment CurrencyCode of
 * the customer for the order"), when shopMoney is that amount converted at the order's rate,
 * rounded half up to the cent (the sandbox's conversion: each amount on its own, as the schema names
 * no rule, so shop amounts need not add up).
 */
const money = (amount: string, o: string | Pick<ShopifyOrder, 'currencyCode' | 'presentment'> = 'EUR') => {
  if (typeof o === 'string') return { shopMoney: { amount, currencyCode: o }, presentmentMoney: { amount, currencyCode: o } };
  if (!o.presentment) return { shopMoney: { amount, currencyCode: o.currencyCode }, presentmentMoney: { amount, currencyCode: o.currencyCode } };
  const shop = millsText(Math.sign(toMills(amount)) * toUnit(Math.abs(toMills(amount)) * o.presentment.rate, unitOf(o.currencyCode)));
  return { shopMoney: { amount: shop, currencyCode: o.currencyCode }, presentmentMoney: { amount, currencyCode: o.presentment.currencyCode } };
};
const connection = <T>(items: T[], first: number, after: string | null | undefined) => {
  const start = after && /^\d+$/.test(after) ? Number(after) : 0;
  const nodes = items.slice(start, start + first);
  const end = start + nodes.length;
  return {
    nodes,
    edges: nodes.map((node, i) => ({ node, cursor: String(start + i + 1) })),
    pageInfo: {
      hasNextPage: end < items.length,
      hasPreviousPage: start > 0,
      endCursor: nodes.length ? String(end) : null,
      startCursor: nodes.length ? String(start + 1) : null,
    },
  };
};

/**
 * The query's requested cost as Shopify's rate-limits page describes it: an object field 1, a
 * connection its `first` (or `last`) times the cost of what it selects (a list truncated by
 * `first` too), scalars 0, a mutation 10.
 */
export function requestedCost(op: OperationDefinitionNode, variables: Record<string, unknown>): number {
  const argValue = (node: FieldNode, name: string): number | undefined => {
    const a = node.arguments?.find((x) => x.name.value === name);
    if (a?.value.kind === Kind.INT) return Number(a.value.value);
    if (a?.value.kind === Kind.VARIABLE) return Number(variables[a.value.name.value]) || undefined;
    return undefined;
  };
  // A connection costs 2 plus `first` times what each of its nodes (or edges) selects; its pageInfo once.
  const walk = (set: SelectionSetNode | undefined, size?: number): number => {
    if (!set) return 0;
    let total = 0;
    for (const sel of set.selections) {
      if (sel.kind === Kind.INLINE_FRAGMENT) total += walk(sel.selectionSet, size);
      if (sel.kind !== Kind.FIELD || !sel.selectionSet) continue;
      const name = sel.name.value;
      if (size !== undefined && (name === 'nodes' || name === 'edges')) total += size * Math.max(1, walk(sel.selectionSet));
      else if (name === 'node') total += walk(sel.selectionSet);
      else {
        const first = argValue(sel, 'first') ?? argValue(sel, 'last');
        // A list truncated by `first` (Order.refunds: no nodes or edges) counts as a connection of
        // that size: first times what each element selects (our reading; the page names connections only).
        const list = !sel.selectionSet.selections.some((x) => x.kind === Kind.FIELD && (x.name.value === 'nodes' || x.name.value === 'edges'));
        if (first === undefined) total += 1 + walk(sel.selectionSet);
        else total += list ? 2 + first * Math.max(1, walk(sel.selectionSet)) : 2 + walk(sel.selectionSet, first);
      }
    }
    return total;
  };
  return op.operation === 'mutation' ? 10 + walk(op.selectionSet) - op.selectionSet.selections.length : Math.max(1, walk(op.selectionSet));
}

/**
 * The actual cost of a query from what it answered (Shopify charges the requested cost up front and
 * refunds the difference): a connection 2 plus what each node it returned selects, its pageInfo
 * once, an object field 1; a mutation its requested cost.
 */
export function actualCost(op: OperationDefinitionNode, data: unknown, requested: number): number {
  if (op.operation === 'mutation') return requested;
  const walk = (set: SelectionSetNode | undefined, value: unknown, connection = false): number => {
    if (!set || value === null || value === undefined) return 0;
    if (Array.isArray(value)) return value.reduce((sum: number, v) => sum + walk(set, v, connection), 0);
    const obj = value as Record<string, unknown>;
    let total = 0;
    for (const sel of set.selections) {
      if (sel.kind === Kind.INLINE_FRAGMENT) total += walk(sel.selectionSet, value, connection);
      if (sel.kind !== Kind.FIELD || !sel.selectionSet) continue;
      const child = obj[sel.alias?.value ?? sel.name.value];
      const name = sel.name.value;
      if (connection && (name === 'nodes' || name === 'edges'))
        total += Array.isArray(child) ? child.reduce((sum: number, v) => sum + Math.max(1, walk(sel.selectionSet, v)), 0) : 0;
      else if (name === 'node') total += walk(sel.selectionSet, child);
      else if (sel.arguments?.some((a) => a.name.value === 'first' || a.name.value === 'last')) total += 2 + walk(sel.selectionSet, child, true);
      else total += child === null || child === undefined ? 0 : 1 + walk(sel.selectionSet, child);
    }
    return total;
  };
  return Math.min(requested, Math.max(1, walk(op.selectionSet, data)));
}

/** LineItem.nonFulfillableQuantity, "units that can't be fulfilled ... if items have been refunded, or the item is not something that can be fulfilled, like a tip": a tip's every unit, else the units refunded before fulfilment or removed. */
const nonFulfillableOf = (l: ShopifyLine) => (l.tip ? l.quantity : l.removed + l.refundedUnits - l.refundedFulfilled);

function lineNode(o: ShopifyOrder, l: ShopifyLine) {
  return {
    id: l.id,
    sku: l.tip || l.custom ? null : l.sku,
    name: l.name,
    title: l.name,
    // The schema's three counts: quantity "including refunded and removed units", currentQuantity
    // "excluding refunded and removed units", refundableQuantity "excluding refunded units".
    quantity: l.quantity,
    currentQuantity: l.quantity - l.removed - l.refundedUnits,
    refundableQuantity: l.quantity - l.refundedUnits,
    // originalUnitPriceSet "doesn't include discounts"; discountedUnitPriceAfterAllDiscountsSet
    // does (the allocated discount over the quantity, to the cent: "approximate"); the sandbox's
    // discounts are code (order-level) ones, which discountedUnitPriceSet leaves out.
    originalUnitPriceSet: money(l.price, o),
    discountedUnitPriceSet: money(l.price, o),
    discountedUnitPriceAfterAllDiscountsSet: money(millsText(toMills(l.price) - toUnit(toMills(l.discount) / l.quantity, orderUnit(o))), o),
    // "the total price of the line item when the order was created ... doesn't include discounts".
    originalTotalSet: money(millsText(toMills(l.price) * l.quantity), o),
    totalDiscountSet: money('0.00', o),
    // The exact amounts off the line, "including discounts allocated to refunded and removed quantities".
    discountAllocations: l.allocations.map((a) => ({
      allocatedAmountSet: money(a.amount, o),
      allocatedAmount: { amount: a.amount, currencyCode: o.presentment?.currencyCode ?? o.currencyCode },
      discountApplication: discountApplicationNode(
        o,
        o.discountApplications.find((d) => d.index === a.application)!,
      ),
    })),
    taxable: l.taxable,
    // "Whether physical shipping is required for the variant": a tip has none to ship.
    requiresShipping: !l.tip,
    nonFulfillableQuantity: nonFulfillableOf(l),
    taxLines: l.taxLines.map((t) => taxLineNode(o, t)),
    duties:
      toMills(l.duty) > 0
        ? [
            {
              id: l.id.replace('/LineItem/', '/Duty/'),
              price: money(l.duty, o),
              taxLines: toMills(l.dutyTax) > 0 ? [taxLineNode(o, { title: 'Duty tax', rate: toMills(l.dutyTax) / toMills(l.duty), amount: l.dutyTax })] : [],
              countryCodeOfOrigin: null,
              harmonizedSystemCode: null,
            },
          ]
        : [],
  };
}

/** A discount code's application as the schema's DiscountCodeApplication (an amount off, spread across its lines). */
const discountApplicationNode = (o: ShopifyOrder, d: SandboxDiscountApplication) => ({
  __typename: 'DiscountCodeApplication',
  index: d.index,
  code: d.code,
  allocationMethod: 'ACROSS',
  targetSelection: d.targetSelection,
  targetType: 'LINE_ITEM',
  value: { __typename: 'MoneyV2', amount: d.amount, currencyCode: o.presentment?.currencyCode ?? o.currencyCode },
});

/** A TaxLine as the schema's object: ratePercentage "as a percentage", price the shop-currency amount (deprecated beside priceSet). */
const taxLineNode = (o: ShopifyOrder, t: SandboxTaxLine) => ({
  title: t.title,
  rate: t.rate,
  ratePercentage: Math.round(t.rate * 1e6) / 1e4,
  price: t.amount,
  priceSet: money(t.amount, o),
  source: 'Shopify',
  channelLiable: null,
});

/** Every tax of the order in mills: its lines' and its shipping's. */
const taxMills = (o: ShopifyOrder) => [...o.lines.flatMap((l) => l.taxLines), ...o.shippingTaxLines].reduce((sum, t) => sum + toMills(t.amount), 0);

/**
 * Order.taxLines: "all tax lines applied to line items on the order, before returns. Tax line
 * prices represent the total price for all tax lines with the same `rate` and `title`."
 */
function orderTaxLines(o: ShopifyOrder): SandboxTaxLine[] {
  const byKey = new Map<string, SandboxTaxLine>();
  for (const t of o.lines.flatMap((l) => l.taxLines)) {
    const k = `${t.title}|${t.rate}`;
    const sum = byKey.get(k);
    byKey.set(k, sum ? { ...sum, amount: millsText(toMills(sum.amount) + toMills(t.amount)) } : { ...t });
  }
  return [...byKey.values()];
}

/**
 * The sandbox's amounts in thousandths of the currency's unit (mills), so that a currency of three
 * decimals (KWD, BHD, OMR, JOD, TND: the fils) is exact; any other's cent is 10 mills, and an
 * amount is written with two places unless its third is not 0 ("4.995" KWD, "4.99" EUR).
 */
const toMills = (amount: string) => Math.round(Number(amount) * 1000);
const millsText = (m: number) => {
  const text = (m / 1000).toFixed(3);
  return text.endsWith('0') ? text.slice(0, -1) : text;
};
/** ISO 4217's currencies of three decimals. */
const threeDecimals = new Set(['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND']);
/** The smallest amount of a currency in mills: what a share, a conversion or a tax is rounded to. */
const unitOf = (currencyCode: string) => (threeDecimals.has(currencyCode) ? 1 : 10);
/** The unit of the order's amounts: the buyer's currency's (presentment), else the shop's. */
const orderUnit = (o: Pick<ShopifyOrder, 'currencyCode' | 'presentment'>) => unitOf(o.presentment?.currencyCode ?? o.currencyCode);
/** Mills rounded half up to a unit (10: the cent). */
const toUnit = (m: number, unit: number) => Math.round(m / unit) * unit;

/** The lines' duties in mills (LineItem.duties). */
const dutyMills = (o: ShopifyOrder) => o.lines.reduce((sum, l) => sum + toMills(l.duty), 0);
/** The lines' duties less those refunds gave back, in mills (currentTotalDutiesSet: "after returns"). */
const currentDutyMills = (o: ShopifyOrder) => o.lines.reduce((sum, l) => sum + toMills(l.duty) - toMills(l.dutyRefunded), 0);
/** The order's additional fees in mills (Order.additionalFees). */
const feeMills = (o: ShopifyOrder) => o.additionalFees.reduce((sum, f) => sum + toMills(f.amount), 0);
/**
 * The taxes charged on the duties and fees (Duty.taxLines, AdditionalFee.taxLines) in mills: on top
 * of them in a store whose prices exclude tax (the sandbox's reading, as a line's and the
 * shipping's tax; a tax-included store's amounts hold theirs). A refund of a duty does not give its
 * tax back here (the test names the refund's amount).
 */
const onTopTaxMills = (o: ShopifyOrder) =>
  o.taxesIncluded
    ? 0
    : o.lines.reduce((sum, l) => sum + (o.dutiesIncluded ? 0 : toMills(l.dutyTax)), 0) + o.additionalFees.reduce((sum, f) => sum + toMills(f.tax), 0);

/**
 * What the buyer pays: the lines less their discounts, plus shipping less its discount, plus the
 * taxes when the prices exclude them, plus the duties when the prices exclude them
 * (dutiesIncluded false) and the additional fees.
 */
function orderTotal(o: ShopifyOrder): string {
  const lines = o.lines.reduce((sum, l) => sum + toMills(l.price) * l.quantity - toMills(l.discount), 0);
  const duties = o.dutiesIncluded ? 0 : dutyMills(o);
  return millsText(
    lines + toMills(o.shippingPrice) - toMills(o.shippingDiscount) + (o.taxesIncluded ? 0 : taxMills(o)) + duties + feeMills(o) + onTopTaxMills(o),
  );
}

/** The shipping after discounts, in mills. */
const shippingMillsOf = (o: ShopifyOrder) => toMills(o.shippingPrice) - toMills(o.shippingDiscount);
/** "The current shipping price after applying refunds and discounts" (Order.currentShippingPriceSet, ShippingLine.currentDiscountedPriceSet). */
const currentShippingOf = (o: ShopifyOrder) => millsText(shippingMillsOf(o) - o.shippingRefunded.subtotal);

/** Order.shippingLine, "A summary of all shipping costs on the order" (null: none). */
const shippingLineOf = (o: ShopifyOrder) =>
  toMills(o.shippingPrice) > 0 || o.shippingTitle !== undefined
    ? {
        id: o.id.replace('/Order/', '/ShippingLine/'),
        title: o.shippingTitle ?? 'Standard',
        custom: false,
        isRemoved: false,
        originalPriceSet: money(o.shippingPrice, o),
        discountedPriceSet: money(millsText(shippingMillsOf(o)), o),
        currentDiscountedPriceSet: money(currentShippingOf(o), o),
        taxLines: o.shippingTaxLines.map((t) => taxLineNode(o, t)),
      }
    : null;

/** `seen`: the fulfillment orders the caller's scopes show (fulfillmentOrderGranted); all by default (a control's view). */
/** A fulfilment's Location (its id, name and fulfillmentService, as FulfillmentOrder.assignedLocation.location shows them); null: none kept. */
function fulfillmentLocationOf(s: ShopifyState, o: ShopifyOrder, f: ShopifyOrder['fulfillments'][number]) {
  if (!f.locationId) return null;
  const l = s.locationsOf(o.account).find((x) => x.id === f.locationId);
  return { id: f.locationId, name: l?.name ?? 'Warehouse', fulfillmentService: l?.fulfillmentService ?? null };
}

/**
 * Order.displayFulfillmentStatus of an order not fulfilled whole (the sandbox's reading of
 * OrderDisplayFulfillmentStatus, whose values the schema lists without saying when each shows):
 * PARTIALLY_FULFILLED once a fulfilment was made; else, where every fulfillment order holding units
 * is ON_HOLD ("Displayed as **On hold**") or SCHEDULED, that; REQUEST_DECLINED where a fulfilment
 * service rejected the request for one of them; else UNFULFILLED.
 */
function displayFulfillmentStatus(o: ShopifyOrder, remaining: ShopifyLine[]): string {
  if (remaining.length === 0) return 'FULFILLED';
  if (o.fulfillments.length) return 'PARTIALLY_FULFILLED';
  const holding = o.fulfillmentOrders.filter((fo) => !fo.closedByMove && fo.lines.some((l) => l.quantity > l.fulfilled));
  if (holding.some((fo) => fo.requestStatus === 'REJECTED')) return 'REQUEST_DECLINED';
  for (const status of ['ON_HOLD', 'SCHEDULED'] as const) if (holding.length > 0 && holding.every((fo) => fo.status === status)) return status;
  return 'UNFULFILLED';
}

export function orderNode(s: ShopifyState, o: ShopifyOrder, seen: (fo: SandboxFulfillmentOrder) => boolean = () => true) {
  // Received: a captured payment, refunded since or not (an authorization is not received).
  const paid = o.financial === 'PAID' || o.financial === 'PARTIALLY_REFUNDED' || o.financial === 'REFUNDED';
  const total = orderTotal(o);
  const received = paid ? total : '0.00';
  // A tip is never fulfilled: an order whose goods are all fulfilled shows FULFILLED.
  const remaining = o.lines.filter((l) => !l.tip && unfulfilledOf(l) > 0);
  return {
    id: o.id,
    name: o.name,
    createdAt: o.createdAt,
    updatedAt: o.updatedAt,
    cancelledAt: o.cancelledAt,
    email: o.email,
    phone: o.address?.phone ?? null,
    currencyCode: o.currencyCode,
    presentmentCurrencyCode: o.presentment?.currencyCode ?? o.currencyCode,
    test: o.test,
    taxesIncluded: o.taxesIncluded,
    // No returns of tax are modelled: before and after returns are the same.
    totalTaxSet: money(millsText(taxMills(o)), o),
    currentTotalTaxSet: money(millsText(taxMills(o)), o),
    taxLines: orderTaxLines(o).map((t) => taxLineNode(o, t)),
    displayFinancialStatus: o.financial,
    displayFulfillmentStatus: displayFulfillmentStatus(o, remaining),
    // totalReceivedSet is "before returns" (the schema's words): a refund leaves it as it was;
    // netPaymentSet is "the total amount received minus the total amount refunded".
    totalReceivedSet: money(received, o),
    totalRefundedSet: money(o.refunded, o),
    netPaymentSet: money(millsText(toMills(received) - toMills(o.refunded)), o),
    totalPriceSet: money(total, o),
    // "The sum of all tip amounts for the order": its tip lines, in the total and the payment above.
    totalTipReceivedSet: money(millsText(o.lines.filter((l) => l.tip).reduce((sum, l) => sum + toMills(l.price) * l.quantity, 0)), o),
    // "before discounts and returns"; the shipping line's discountedPriceSet is after discounts.
    totalShippingPriceSet: money(o.shippingPrice, o),
    currentShippingPriceSet: money(currentShippingOf(o), o),
    totalRefundedShippingSet: money(millsText(o.shippingRefunded.subtotal + o.shippingRefunded.tax), o),
    totalDiscountsSet: money(millsText(o.lines.reduce((sum, l) => sum + toMills(l.discount), 0) + toMills(o.shippingDiscount)), o),
    // Duties and additional fees: "Returns `null` if duties aren't applicable" (no fees). A
    // refund gives duties back (a refund's `duty`): the current total is after it; no refunds
    // of additional fees are modelled.
    dutiesIncluded: o.dutiesIncluded,
    originalTotalDutiesSet: dutyMills(o) > 0 ? money(millsText(dutyMills(o)), o) : null,
    currentTotalDutiesSet: dutyMills(o) > 0 ? money(millsText(currentDutyMills(o)), o) : null,
    additionalFees: o.additionalFees.map((f) => ({
      id: f.id,
      name: f.name,
      price: money(f.amount, o),
      taxLines: toMills(f.tax) > 0 ? [taxLineNode(o, { title: `${f.name} tax`, rate: toMills(f.tax) / toMills(f.amount), amount: f.tax })] : [],
    })),
    originalTotalAdditionalFeesSet: feeMills(o) > 0 ? money(millsText(feeMills(o)), o) : null,
    currentTotalAdditionalFeesSet: feeMills(o) > 0 ? money(millsText(feeMills(o)), o) : null,
    shippingLine: shippingLineOf(o),
    shippingAddress: o.address,
    billingAddress: o.billingAddress === undefined ? o.address : o.billingAddress,
    lineItems: ({ first, after }: { first?: number; after?: string }) =>
      connection(
        o.lines.map((l) => lineNode(o, l)),
        first ?? 50,
        after,
      ),
    // "A list of line items that can't be fulfilled. For example, tips and fully refunded line items".
    nonFulfillableLineItems: ({ first, after }: { first?: number; after?: string }) =>
      connection(
        o.lines.filter((l) => nonFulfillableOf(l) >= l.quantity).map((l) => lineNode(o, l)),
        first ?? 50,
        after,
      ),
    // displayable: "If true, fulfillment orders that are normally hidden from the merchant will be
    // excluded. For example, fulfillment orders that were closed after being combined or moved are hidden."
    fulfillmentOrders: ({ first, after, displayable }: { first?: number; after?: string; displayable?: boolean }) =>
      connection(
        o.fulfillmentOrders.filter((fo) => seen(fo) && !(displayable && fo.closedByMove)).map((fo) => fulfillmentOrderNodeOf(o, fo)),
        first ?? 50,
        after,
      ),
    // location: "The location that the fulfillment was processed at" (the fulfillment orders' assigned one).
    fulfillments: () =>
      o.fulfillments.map((f) => ({ id: f.id, status: 'SUCCESS', trackingInfo: () => trackingInfoOf(f.tracking), location: fulfillmentLocationOf(s, o, f) })),
    refunds: ({ first }: { first?: number }) => refundsOf(o, first),
    discountApplications: ({ first, after }: { first?: number; after?: string }) =>
      connection(
        o.discountApplications.map((d) => discountApplicationNode(o, d)),
        first ?? 50,
        after,
      ),
  };
}

/** Order.refunds of the order (its first `first`), as the schema's objects. */
const refundsOf = (o: ShopifyOrder, first: number | undefined) =>
  refundNodes(o.refunds, first, {
    lineItemNode: (lineId) =>
      lineNode(
        o,
        o.lines.find((l) => l.id === lineId)!,
      ),
    locationNode: (id) => ({ id, name: 'Warehouse', isActive: true, fulfillsOnlineOrders: true, isFulfillmentService: false, fulfillmentService: null }),
    shippingLineNode: () => shippingLineOf(o),
    connection,
    money: (amount) => money(amount, o),
  });

/** A fulfillment order of the order as the schema's node, its lines' lineItem the order's LineItem. */
const fulfillmentOrderNodeOf = (o: ShopifyOrder, fo: SandboxFulfillmentOrder) =>
  fulfillmentOrderNode(
    fo,
    (lineId) =>
      lineNode(
        o,
        o.lines.find((l) => l.id === lineId)!,
      ),
    connection,
  );

/** Shopify's search syntax, the part the adapter uses: `sku:"X" OR sku:"Y"` (variants), `updated_at:>='ISO'` and `id:N OR id:M` (orders). */
const skusOf = (q: string | undefined): string[] | undefined => {
  const found = [...(q ?? '').matchAll(/sku:(?:"((?:[^"\\]|\\.)*)"|([^\s"]+))/g)].map((m) => (m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2]!));
  return found.length ? found : undefined;
};
const updatedSince = (q: string | undefined) => /updated_at:>=?'?"?([^'"\s]+)/.exec(q ?? '')?.[1];
/** `id:123 OR id:456` (orders): Shopify's id filter, by the number of the global id; undefined when the query names none. */
const orderIdsOf = (q: string | undefined): Set<string> | undefined => {
  const found = [...(q ?? '').matchAll(/(?:^|[\s(])id:(\d+)/g)].map((m) => `gid://shopify/Order/${m[1]}`);
  return found.length ? new Set(found) : undefined;
};

/** `title:"A" OR title:'B'` (collections): the titles named, compared as Shopify's search does, ignoring case; undefined when none is named. */
const titlesOf = (q: string | undefined): string[] | undefined => {
  const found = [...(q ?? '').matchAll(/title:(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([^\s"']+))/g)].map((m) =>
    (m[1] ?? m[2] ?? m[3]!).replace(/\\(.)/g, '$1').toLowerCase(),
  );
  return found.length ? found : undefined;
};

type UserError = { field: string[] | null; message: string; code?: string };

/** The numeric ids an inventoryItems search names (`id:12 OR id:13`); undefined: no id filter. */
const inventoryItemIdsOf = (q: string | undefined): Set<string> | undefined => {
  const found = [...(q ?? '').matchAll(/\bid:(\d+)/g)].map((m) => m[1]!);
  return found.length ? new Set(found) : undefined;
};

/** The root value: the fields the adapter uses, resolved over the account's data (graphql's default resolver calls them with the arguments). */
function rootOf(state: SandboxState, s: ShopifyState, account: string, apiKey: string, scopes: readonly string[]) {
  const app = shopifyAppOf(state);
  // Fulfillment orders the token's scopes do not grant are not there for it (fulfillmentOrderGranted).
  const seen = (fo: SandboxFulfillmentOrder) => fulfillmentOrderGranted(scopes, fo, 'read');
  /**
   * Order: "Only the last 60 days' worth of orders from a store are accessible from the `Order`
   * object by default ... add the `read_all_orders` scope" (admin_schema_2025-01.json). The sandbox
   * counts the days from the order's creation; QueryRoot.order and orders leave an older one out.
   */
  const orderSeen = (o: ShopifyOrder) =>
    o.account === account && (scopes.includes('read_all_orders') || Date.now() - Date.parse(o.createdAt) <= 60 * 24 * 3600 * 1000);
  const fulfillmentOrderSeen = (id: string) => {
    const hit = s.fulfillmentOrder(account, id);
    return hit && seen(hit.fo) ? hit : undefined;
  };
  const variantNode = (v: ShopifyVariant) => ({
    id: v.id,
    sku: v.sku,
    barcode: v.barcode,
    price: v.price,
    compareAtPrice: v.compareAtPrice,
    product: () => productNode(s.products.get(v.productId)!),
    inventoryItem: inventoryItemNode(v),
    inventoryPolicy: v.inventoryPolicy,
    inventoryQuantity: s.available.get(v.inventoryItemId) ?? 0,
  });
  // InventoryItem, and its variant (InventoryItem.variant: "The variant that owns this inventory item").
  const inventoryItemNode = (v: ShopifyVariant): Record<string, unknown> => ({
    id: v.inventoryItemId,
    sku: v.sku,
    tracked: v.tracked,
    measurement: { weight: v.weight },
    variant: () => variantNode(v),
  });
  const collectionNode = (c: ShopifyCollection) => ({
    id: c.id,
    title: c.title,
    handle: c.handle,
    ruleSet: c.ruleSet,
    // Collection.hasProduct: "Whether the collection includes the specified product" (the sandbox's smart collections hold the products added to them: none).
    hasProduct: ({ id }: { id: string }) => c.products.includes(id),
    products: ({ first, after }: { first?: number; after?: string }) =>
      connection(
        c.products.map((id) => productNode(s.products.get(id)!)),
        first ?? 50,
        after,
      ),
  });
  const productNode = (p: ShopifyProduct): Record<string, unknown> => ({
    id: p.id,
    title: p.title,
    status: p.status,
    collections: ({ first, after }: { first?: number; after?: string }) =>
      connection([...s.collections.values()].filter((c) => c.account === account && c.products.includes(p.id)).map(collectionNode), first ?? 50, after),
    variants: ({ first, after }: { first?: number; after?: string }) =>
      connection(
        p.variants.map((id) => variantNode(s.variants.get(id)!)),
        first ?? 50,
        after,
      ),
  });
  const ownProduct = (id: string) => {
    const p = s.products.get(id);
    return p && p.account === account ? p : undefined;
  };
  const touched = (sku: string, inventoryItemId: string) => emitQuantity(state, portal, account, sku, s.available.get(inventoryItemId) ?? 0, 'quantity');
  return {
    shop: { name: `Sandbox store ${account}`, currencyCode: 'EUR', myshopifyDomain: shopDomainOf(account) },
    // "The access scopes granted to the application by a merchant during installation".
    currentAppInstallation: {
      id: `gid://shopify/AppInstallation/${account}`,
      accessScopes: scopes.map((handle) => ({ handle, description: handle })),
    },
    webhookSubscriptions: ({ first, after, topics }: { first?: number; after?: string; topics?: string[] }) =>
      connection(
        [...app.subscriptions.values()].filter((w) => w.account === account && (!topics || topics.includes(w.topic))).map(subscriptionNode),
        first ?? 50,
        after,
      ),
    webhookSubscriptionCreate: ({
      topic,
      webhookSubscription,
    }: {
      topic: string;
      webhookSubscription: { callbackUrl?: string | null; format?: string | null };
    }) => {
      const made = createSubscription(app, account, apiKey, topic, webhookSubscription);
      return { webhookSubscription: made.webhookSubscription ? subscriptionNode(made.webhookSubscription) : null, userErrors: made.userErrors };
    },
    // QueryRoot.locations: "a list of active inventory locations" (includeInactive: "Whether to
    // include the locations that are deactivated", false by default), sorted by NAME unless sortKey says ID.
    // includeLegacy: "Whether to include the legacy locations of fulfillment services" (false by default).
    locations: (args: { first?: number; after?: string; sortKey?: string; includeInactive?: boolean; includeLegacy?: boolean }) => {
      const { first, after, sortKey, includeInactive, includeLegacy } = args;
      const all = s.locationsOf(account).filter((l) => (includeInactive || l.isActive) && (includeLegacy || !l.legacy));
      const numeric = (l: SandboxLocation) => Number(l.id.split('/').pop());
      all.sort((a, b) => (sortKey === 'ID' ? numeric(a) - numeric(b) : a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      return connection(all, first ?? 50, after);
    },
    // Inventory items by id (`id:N OR id:M`, the search syntax of QueryRoot.inventoryItems), each
    // with its level at one of the store's locations: `available` only is kept (what Kontor sets).
    inventoryItems: ({ first, after, query }: { first?: number; after?: string; query?: string }) => {
      const ids = inventoryItemIdsOf(query);
      const all = [...s.variants.values()].filter(
        (v) => s.products.get(v.productId)?.account === account && (ids === undefined || ids.has(v.inventoryItemId.split('/').pop()!)),
      );
      return connection(
        all.map((v) => ({
          ...inventoryItemNode(v),
          inventoryLevel: ({ locationId }: { locationId: string }) =>
            !s.locationsOf(account).some((l) => l.id === locationId)
              ? null
              : {
                  id: `gid://shopify/InventoryLevel/${v.inventoryItemId.split('/').pop()}?inventory_item_id=${v.inventoryItemId.split('/').pop()}`,
                  quantities: ({ names }: { names: string[] }) =>
                    names
                      .filter((n) => n === 'available')
                      .map((name) => ({ id: `${v.inventoryItemId}/${name}`, name, quantity: s.availableAt(v.inventoryItemId, locationId) })),
                },
        })),
        first ?? 50,
        after,
      );
    },
    productVariants: ({ first, after, query }: { first?: number; after?: string; query?: string }) => {
      const skus = skusOf(query);
      const all = [...s.variants.values()].filter((v) => s.products.get(v.productId)?.account === account && (skus === undefined || skus.includes(v.sku)));
      return connection(all.map(variantNode), first ?? 50, after);
    },
    refund: ({ id }: { id: string }) => {
      const o = [...s.orders.values()].find((x) => x.account === account && x.refunds.some((r) => r.id === id));
      return o ? refundsOf(o, undefined).find((r) => r.id === id)! : null;
    },
    product: ({ id }: { id: string }) => {
      const p = ownProduct(id);
      return p ? productNode(p) : null;
    },
    collections: ({ first, after, query }: { first?: number; after?: string; query?: string }) => {
      const titles = titlesOf(query);
      const all = [...s.collections.values()].filter((c) => c.account === account && (!titles || titles.includes(c.title.toLowerCase())));
      return connection(all.map(collectionNode), first ?? 50, after);
    },
    // A custom collection (no ruleSet: the adapter makes no smart ones), with the products named.
    collectionCreate: ({ input }: { input: { title?: string | null; products?: string[] | null; ruleSet?: unknown } }) => {
      if (!input.title?.trim()) return { collection: null, userErrors: [{ field: ['input', 'title'], message: "Title can't be blank" }] };
      const unknown = (input.products ?? []).findIndex((id) => !ownProduct(id));
      if (unknown >= 0) return { collection: null, userErrors: [{ field: ['input', 'products', String(unknown)], message: 'Product does not exist' }] };
      const c = s.addCollection(account, input.title.trim(), input.products ?? []);
      return { collection: collectionNode(c), userErrors: [] };
    },
    // A product already in the collection is refused and none is added: the schema's productIds
    // argument says "If any of the products is already present in the input collection, then an
    // error is raised and no products are added" (a user error here, its words ours); smart collections refuse.
    collectionAddProducts: ({ id, productIds }: { id: string; productIds: string[] }) => {
      const c = s.collections.get(id);
      if (!c || c.account !== account) return { collection: null, userErrors: [{ field: ['id'], message: 'Collection does not exist' }] };
      if (c.ruleSet) return { collection: null, userErrors: [{ field: ['id'], message: "Can't manually add products to a smart collection" }] };
      const unknown = productIds.findIndex((pid) => !ownProduct(pid));
      if (unknown >= 0) return { collection: null, userErrors: [{ field: ['productIds', String(unknown)], message: 'Product does not exist' }] };
      const present = productIds.findIndex((pid) => c.products.includes(pid));
      if (present >= 0)
        return { collection: null, userErrors: [{ field: ['productIds', String(present)], message: 'Product is already present in the collection' }] };
      for (const pid of productIds) if (!c.products.includes(pid)) c.products.push(pid);
      return { collection: collectionNode(c), userErrors: [] };
    },
    productCreate: ({ product }: { product: { title?: string; status?: string } }) => {
      if (!product.title) return { product: null, userErrors: [{ field: ['title'], message: "Title can't be blank" }] };
      const n = s.next();
      const p: ShopifyProduct = { id: gid('Product', n), account, title: product.title, status: product.status ?? 'ACTIVE', variants: [] };
      const v: ShopifyVariant = {
        id: gid('ProductVariant', n),
        productId: p.id,
        sku: '',
        barcode: null,
        price: '0.00',
        compareAtPrice: null,
        weight: null,
        inventoryItemId: gid('InventoryItem', n),
        tracked: true,
        inventoryPolicy: 'DENY',
      };
      p.variants.push(v.id);
      s.products.set(p.id, p);
      s.variants.set(v.id, v);
      return { product: productNode(p), userErrors: [] };
    },
    productUpdate: ({ product }: { product: { id?: string; title?: string; status?: string } }) => {
      const p = product.id ? ownProduct(product.id) : undefined;
      if (!p) return { product: null, userErrors: [{ field: ['id'], message: 'Product does not exist' }] };
      if (product.title !== undefined) p.title = product.title;
      if (product.status !== undefined) p.status = product.status;
      return { product: productNode(p), userErrors: [] };
    },
    productVariantsBulkUpdate: ({
      productId,
      variants,
    }: {
      productId: string;
      variants: {
        id?: string;
        barcode?: string | null;
        price?: string;
        compareAtPrice?: string | null;
        inventoryItem?: { sku?: string; tracked?: boolean; measurement?: { weight?: { value: number; unit: string } } };
        inventoryPolicy?: 'DENY' | 'CONTINUE';
      }[];
    }) => {
      const p = ownProduct(productId);
      if (!p) return { product: null, productVariants: null, userErrors: [{ field: ['productId'], message: 'Product does not exist' }] };
      const errors: UserError[] = [];
      const updated: ShopifyVariant[] = [];
      variants.forEach((input, i) => {
        const v = input.id ? s.variants.get(input.id) : undefined;
        if (!v || v.productId !== p.id) return errors.push({ field: ['variants', String(i), 'id'], message: 'Product variant does not exist' });
        const sku = input.inventoryItem?.sku;
        if (sku !== undefined && sku !== v.sku && s.variantBySku(account, sku))
          return errors.push({ field: ['variants', String(i), 'inventoryItem', 'sku'], message: `SKU ${sku} is already in use` });
        if (input.price !== undefined && !/^\d+(\.\d{1,2})?$/.test(String(input.price)))
          return errors.push({ field: ['variants', String(i), 'price'], message: 'Price is invalid' });
        if (sku !== undefined) v.sku = sku;
        if (input.barcode !== undefined) v.barcode = input.barcode;
        if (input.price !== undefined) v.price = String(input.price);
        if (input.compareAtPrice !== undefined) v.compareAtPrice = input.compareAtPrice === null ? null : String(input.compareAtPrice);
        if (input.inventoryItem?.measurement?.weight) v.weight = input.inventoryItem.measurement.weight;
        if (typeof input.inventoryItem?.tracked === 'boolean') v.tracked = input.inventoryItem.tracked;
        if (input.inventoryPolicy) v.inventoryPolicy = input.inventoryPolicy;
        updated.push(v);
      });
      return errors.length
        ? { product: productNode(p), productVariants: null, userErrors: errors }
        : { product: productNode(p), productVariants: updated.map(variantNode), userErrors: [] };
    },
    inventorySetQuantities: ({
      input,
    }: {
      input: {
        name: string;
        reason: string;
        ignoreCompareQuantity?: boolean;
        quantities: { inventoryItemId: string; locationId: string; quantity: number; compareQuantity?: number; changeFromQuantity?: number | null }[];
      };
    }) => {
      const errors: UserError[] = [];
      if (input.name !== 'available' && input.name !== 'on_hand')
        errors.push({ field: ['input', 'name'], message: 'The quantity name must be available or on_hand', code: 'INVALID_NAME' });
      // "The value must be one of the possible reasons" (InventorySetQuantitiesInput.reason; the
      // list is shopify.dev's inventory quantities states page, not the schema: found through the docs search).
      if (!inventoryReasons.has(input.reason))
        errors.push({
          field: ['input', 'reason'],
          message: `The reason ${input.reason} is not one of Shopify's inventory adjustment reasons`,
          code: 'INVALID_REASON',
        });
      const seen = new Set<string>();
      input.quantities.forEach((q, i) => {
        if (q.quantity < 0)
          errors.push({ field: ['input', 'quantities', String(i), 'quantity'], message: 'The quantity can’t be negative.', code: 'INVALID_QUANTITY_NEGATIVE' });
        // InventorySetQuantitiesUserErrorCode INVALID_QUANTITY_TOO_HIGH: "The total quantity can't be
        // higher than 1,000,000,000." (the store keeps no other quantity states here: available is the total)
        if (q.quantity > 1000000000)
          errors.push({
            field: ['input', 'quantities', String(i), 'quantity'],
            message: 'The total quantity can’t be higher than 1,000,000,000.',
            code: 'INVALID_QUANTITY_TOO_HIGH',
          });
        const pair = `${q.inventoryItemId} ${q.locationId}`;
        if (seen.has(pair))
          errors.push({
            field: ['input', 'quantities', String(i)],
            message: 'The combination of inventoryItemId and locationId must be unique.',
            code: 'NO_DUPLICATE_INVENTORY_ITEM_ID_GROUP_ID_PAIR',
          });
        seen.add(pair);
      });
      input.quantities.forEach((q, i) => {
        const v = [...s.variants.values()].find((x) => x.inventoryItemId === q.inventoryItemId && s.products.get(x.productId)?.account === account);
        if (!v)
          errors.push({
            field: ['input', 'quantities', String(i), 'inventoryItemId'],
            message: 'The specified inventory item could not be found.',
            code: 'INVALID_INVENTORY_ITEM',
          });
        // A deactivated location holds no inventory to set (the schema's Location.isActive); the sandbox answers it as unknown.
        if (!s.locationsOf(account).some((l) => l.id === q.locationId && l.isActive))
          errors.push({
            field: ['input', 'quantities', String(i), 'locationId'],
            message: 'The specified location could not be found.',
            code: 'INVALID_LOCATION',
          });
        // From 2026-01 changeFromQuantity (only its versions' schema has it): "passing any value,
        // including null" overrides compareQuantity and ignoreCompareQuantity; null skips the check;
        // a value not held is CHANGE_FROM_QUANTITY_STALE (shopify-versions.sandbox.ts).
        if (q.changeFromQuantity !== undefined) {
          if (q.changeFromQuantity !== null && v && q.changeFromQuantity !== s.availableAt(q.inventoryItemId, q.locationId))
            errors.push({
              field: ['input', 'quantities', String(i), 'changeFromQuantity'],
              message: 'The changeFromQuantity value does not match persisted value.',
              code: 'CHANGE_FROM_QUANTITY_STALE',
            });
        } else if (!input.ignoreCompareQuantity && q.compareQuantity === undefined)
          errors.push({
            field: ['input', 'quantities', String(i), 'compareQuantity'],
            message: 'The compareQuantity argument must be given to each quantity or ignored using ignoreCompareQuantity.',
            code: 'COMPARE_QUANTITY_REQUIRED',
          });
        // InventoryQuantityInput.compareQuantity: "The current quantity to be compared against the
        // persisted quantity"; COMPARE_QUANTITY_STALE: "does not match persisted value". The call
        // is then refused whole, as for every userError here (nothing applied).
        else if (!input.ignoreCompareQuantity && v && q.compareQuantity !== s.availableAt(q.inventoryItemId, q.locationId))
          errors.push({
            field: ['input', 'quantities', String(i), 'compareQuantity'],
            message: 'The compareQuantity value does not match persisted value.',
            code: 'COMPARE_QUANTITY_STALE',
          });
      });
      if (errors.length) return { inventoryAdjustmentGroup: null, userErrors: errors };
      // InventoryAdjustmentGroup.changes: "The set of inventory quantity changes that occurred in the
      // inventory event", one per item whose quantity moved (the sandbox keeps `available` alone). An
      // untracked item or a CONTINUE variant takes the quantity all the same: the schema names no
      // error for either, its effect is on what the store sells (ProductVariant.inventoryPolicy).
      const changes: { name: string; delta: number; quantityAfterChange: number; v: ShopifyVariant; locationId: string }[] = [];
      for (const q of input.quantities) {
        const before = s.availableAt(q.inventoryItemId, q.locationId);
        s.setAvailableAt(q.inventoryItemId, q.locationId, q.quantity);
        const v = [...s.variants.values()].find((x) => x.inventoryItemId === q.inventoryItemId)!;
        if (q.quantity !== before) changes.push({ name: input.name, delta: q.quantity - before, quantityAfterChange: q.quantity, v, locationId: q.locationId });
        touched(v.sku, q.inventoryItemId);
      }
      return {
        inventoryAdjustmentGroup: {
          id: gid('InventoryAdjustmentGroup', s.next()),
          reason: input.reason,
          createdAt: new Date().toISOString(),
          changes: ({ inventoryItemIds, quantityNames }: { inventoryItemIds?: string[] | null; quantityNames?: string[] | null }) =>
            changes
              .filter((c) => (!inventoryItemIds || inventoryItemIds.includes(c.v.inventoryItemId)) && (!quantityNames || quantityNames.includes(c.name)))
              .map((c) => ({
                name: c.name,
                delta: c.delta,
                quantityAfterChange: c.quantityAfterChange,
                item: inventoryItemNode(c.v),
                location: { id: c.locationId },
              })),
        },
        userErrors: [],
      };
    },
    orders: ({ first, after, query, sortKey, reverse }: { first?: number; after?: string; query?: string; sortKey?: string; reverse?: boolean }) => {
      const since = updatedSince(query);
      const ids = orderIdsOf(query);
      const all = [...s.orders.values()].filter((o) => orderSeen(o) && (!since || o.updatedAt >= new Date(since).toISOString()) && (!ids || ids.has(o.id)));
      const key = sortKey === 'UPDATED_AT' ? 'updatedAt' : 'createdAt';
      all.sort((a, b) => (a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : a.id < b.id ? -1 : 1));
      if (reverse) all.reverse();
      return connection(
        all.map((o) => orderNode(s, o, seen)),
        first ?? 50,
        after,
      );
    },
    // A fulfilment of the store's by id ("Returns a Fulfillment resource by ID") with its line items.
    fulfillment: ({ id }: { id: string }) => {
      const o = [...s.orders.values()].find((x) => x.account === account && x.fulfillments.some((f) => f.id === id));
      const f = o?.fulfillments.find((x) => x.id === id);
      if (!o || !f) return null;
      return {
        id: f.id,
        status: 'SUCCESS',
        location: fulfillmentLocationOf(s, o, f),
        fulfillmentLineItems: ({ first, after }: { first?: number; after?: string }) =>
          connection(
            f.lines.map((l, i) => ({
              id: `${f.id.replace('Fulfillment', 'FulfillmentLineItem')}${i}`,
              quantity: l.quantity,
              lineItem: lineNode(
                o,
                o.lines.find((x) => x.id === l.id)!,
              ),
            })),
            first ?? 50,
            after,
          ),
      };
    },
    order: ({ id }: { id: string }) => {
      const o = s.orders.get(id);
      return o && orderSeen(o) ? orderNode(s, o, seen) : null;
    },
    fulfillmentOrder: ({ id }: { id: string }) => {
      const hit = fulfillmentOrderSeen(id);
      return hit ? fulfillmentOrderNodeOf(hit.o, hit.fo) : null;
    },
    // "The paginated list of all fulfillment orders", "filtered according to the fulfillment order
    // access scopes granted to the app"; includeClosed false (its default) leaves out CLOSED ones. The
    // search terms the sandbox reads: updated_at:>='ISO' (others are not filtered on).
    fulfillmentOrders: ({
      first,
      after,
      query,
      includeClosed,
      sortKey,
      reverse,
    }: {
      first?: number;
      after?: string;
      query?: string;
      includeClosed?: boolean;
      sortKey?: string;
      reverse?: boolean;
    }) => {
      const since = updatedSince(query);
      const all = [...s.orders.values()]
        .filter((o) => o.account === account)
        .flatMap((o) => o.fulfillmentOrders.map((fo) => ({ o, fo })))
        .filter(({ fo }) => seen(fo) && (includeClosed || statusOf(fo) !== 'CLOSED') && (!since || fo.updatedAt >= new Date(since).toISOString()));
      const key = (x: { fo: SandboxFulfillmentOrder }) => (sortKey === 'UPDATED_AT' ? x.fo.updatedAt : x.fo.id.padStart(40, '0'));
      all.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
      if (reverse) all.reverse();
      return connection(
        all.map(({ o, fo }) => fulfillmentOrderNodeOf(o, fo)),
        first ?? 50,
        after,
      );
    },
    fulfillmentOrderOpen: ({ id }: { id: string }) => {
      const hit = fulfillmentOrderSeen(id);
      const errors = openScheduled(hit?.fo);
      return { fulfillmentOrder: hit && !errors.length ? fulfillmentOrderNodeOf(hit.o, hit.fo) : null, userErrors: errors };
    },
    orderCancel: (args: { orderId: string; refund: boolean; restock: boolean; reason: string; notifyCustomer?: boolean | null; staffNote?: string | null }) => {
      const o = s.orders.get(args.orderId);
      const errors =
        o && o.account === account ? cancelShopifyOrder(state, s, o, args) : [{ field: ['orderId'], message: 'Order does not exist.', code: 'NOT_FOUND' }];
      return {
        job: errors.length ? null : { id: gid('Job', s.next()), done: true },
        orderCancelUserErrors: errors,
        userErrors: errors.map(({ field, message }) => ({ field, message })),
      };
    },
    fulfillmentCreate: ({ fulfillment }: { fulfillment: FulfillmentRequest & { trackingInfo?: TrackingInput } }) => {
      const wrong = trackingProblem(fulfillment.trackingInfo);
      if (wrong) return { fulfillment: null, userErrors: [{ ...wrong, field: ['fulfillment', 'trackingInfo', wrong.field[1]!] }] };
      const done = fulfil(fulfillmentOrderSeen, fulfillment, (fo) => fulfillmentOrderGranted(scopes, fo, 'write'));
      if ('errors' in done) return { fulfillment: null, userErrors: done.errors };
      const f = {
        id: gid('Fulfillment', s.next()),
        tracking: trackingOf(fulfillment.trackingInfo),
        lines: done.lines,
        locationId: fulfillmentOrderSeen(fulfillment.lineItemsByFulfillmentOrder[0]!.fulfillmentOrderId)!.fo.locationId,
      };
      const o = s.orders.get(done.o.id)!;
      o.fulfillments.push(f);
      o.updatedAt = new Date().toISOString();
      notifyOrder(state, o, 'ORDERS_UPDATED');
      return { fulfillment: { id: f.id, status: 'SUCCESS', trackingInfo: () => trackingInfoOf(f.tracking) }, userErrors: [] };
    },
    // "Updates tracking information for a fulfillment": the input replaces the fulfilment's tracking
    // (numbers, URLs and company: FulfillmentTrackingInput holds "all possible fields for tracking
    // information"), so a URL the update does not send again is gone.
    fulfillmentTrackingInfoUpdate: ({
      fulfillmentId,
      trackingInfoInput,
    }: {
      fulfillmentId: string;
      trackingInfoInput: TrackingInput;
      notifyCustomer?: boolean | null;
    }) => {
      const o = [...s.orders.values()].find((x) => x.account === account && x.fulfillments.some((f) => f.id === fulfillmentId));
      const f = o?.fulfillments.find((x) => x.id === fulfillmentId);
      if (!o || !f) return { fulfillment: null, userErrors: [{ field: ['fulfillmentId'], message: 'Fulfillment does not exist.' }] };
      // "Requires write_assigned_fulfillment_orders access scope, write_merchant_managed_fulfillment_orders
      // access scope or write_third_party_fulfillment_orders access scope" (shopify.dev's page of the
      // mutation; the schema file names no scope): the one of the fulfilment's location's kind, as
      // fulfillmentCreate (fulfillmentOrderGranted). Kontor's token (write_merchant_managed only) may
      // not change a fulfilment app's parcel; found by a reviewer of ea9c996. Wording ours.
      if (!fulfillmentOrderGranted(scopes, { location: fulfillmentLocationOf(s, o, f) ?? undefined }, 'write'))
        return {
          fulfillment: null,
          userErrors: [{ field: ['fulfillmentId'], message: 'The app has no access to a fulfillment made at a fulfillment service location.' }],
        };
      const wrong = trackingProblem(trackingInfoInput);
      if (wrong) return { fulfillment: null, userErrors: [wrong] };
      f.tracking = trackingOf(trackingInfoInput);
      o.updatedAt = new Date().toISOString();
      notifyOrder(state, o, 'ORDERS_UPDATED');
      return { fulfillment: { id: f.id, status: 'SUCCESS', trackingInfo: () => trackingInfoOf(f.tracking) }, userErrors: [] };
    },
  };
}

/** Shopify's answer to a document the schema refuses: 200 with an errors array (graphql's messages and locations). */
const errorsBody = (errors: readonly GraphQLError[]) => ({
  errors: errors.map((e) => ({ message: e.message, locations: e.locations, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })),
});

/** POST /_sandbox/shopify/orders: a checkout at the sandbox's store. */
export interface NewShopifyOrder {
  portal_account: string | number;
  /**
   * discount: an amount off the line itself (its total, not per unit); tax_lines: its taxes
   * (newTaxLines); taxable: LineItem.taxable (by default whether it has tax lines).
   */
  lines: {
    sku: string;
    quantity?: number;
    price?: string;
    name?: string;
    discount?: string;
    tax_lines?: NewTaxLine[];
    taxable?: boolean;
    duty?: string;
    duty_tax?: string;
  }[];
  /** Order.dutiesIncluded (false by default: a line's `duty` comes on top of its price). */
  duties_included?: boolean;
  /** Order.additionalFees: each an amount on top of the order (a US state's retail delivery fee). */
  additional_fees?: { name: string; amount: string; tax?: string }[];
  /** A discount code of an amount off the order, spread over its lines by their amounts (allocateAcross). */
  discount_code?: { code: string; amount: string };
  paid?: boolean;
  /** The shop's currency (EUR by default). */
  currency?: string;
  /**
   * The buyer pays in another currency than the shop's (Shopify Markets): every amount of the order
   * (prices, shipping, discounts, duties, tip) is in `currency`, the buyer's; `rate` the shop
   * currency's amount of one unit of it ("0.93"): Order.presentmentCurrencyCode, and each MoneyBag's
   * shopMoney the amount converted.
   */
  presentment?: { currency: string; rate: string };
  /** Order.taxesIncluded (true by default, a German store's prices); false: net prices, the tax on top. */
  taxes_included?: boolean;
  /** The shipping line's taxes. */
  shipping_tax_lines?: NewTaxLine[];
  /**
   * A test checkout (Order.test). The store takes its units off `available` as for any order: the
   * schema does not say it does not, and a test order is cancelled with a restock like any other
   * (the sandbox's reading).
   */
  test?: boolean;
  shipping?: string;
  shipping_discount?: string;
  /** ShippingLine.title: the delivery the buyer chose ("Abholung im Laden"); given, the order has a shipping line even at 0.00. */
  shipping_title?: string;
  buyer?: { name?: string; email?: string; street?: string; zip?: string; city?: string; country_iso2?: string; phone?: string };
  /** How the store splits the order (sandbox/shopify-fulfillment.sandbox.ts); by default one OPEN fulfillment order at its location. */
  fulfillment_orders?: FulfillmentOrderPlan[];
  /** A tip the buyer gave at checkout ("5.00", above 0): one more LineItem "Tip" after `lines`, no SKU, not shipped, untaxed (ShopifyLine.tip). */
  tip?: string;
}

/** A tax of a line or the shipping: its title and rate "as a decimal"; `amount` when not the store's own reckoning (newTaxLines). */
export interface NewTaxLine {
  title: string;
  rate: number;
  amount?: string;
}

/**
 * The tax lines of an amount (mills after discounts) as the store reckons them, each to the unit:
 * net prices, the rate of the amount; prices that include tax, the part of the amount the rate
 * names (amount x rate / (1 + every rate)): 39.80 at 19 % included holds 6.35.
 */
function newTaxLines(given: NewTaxLine[] | undefined, base: number, included: boolean, unit: number): SandboxTaxLine[] {
  const taxes = given ?? [];
  const combined = taxes.reduce((sum, t) => sum + Number(t.rate), 0);
  return taxes.map((t) => ({
    title: String(t.title),
    rate: Number(t.rate),
    amount: t.amount ?? millsText(toUnit(included ? (base * Number(t.rate)) / (1 + combined) : base * Number(t.rate), unit)),
  }));
}

/**
 * A discount code's amount spread across lines (allocationMethod ACROSS): each line's share of
 * it by its amount, in units (mills; 10, a cent) rounded down, the units left one each to the first lines (the
 * sandbox's rounding; the schema names no rule, only that allocations are "the actual final
 * amount discounted on a line"). Shares add up to the amount.
 */
export function allocateAcross(amount: number, bases: number[], unit: number): number[] {
  const whole = bases.reduce((sum, b) => sum + b, 0);
  if (whole <= 0) return bases.map((_b, i) => (i === 0 ? amount : 0));
  const shares = bases.map((b) => Math.floor((amount * b) / whole / unit) * unit);
  let left = amount - shares.reduce((sum, c) => sum + c, 0);
  for (let i = 0; left > 0; i = (i + 1) % shares.length, left -= unit) shares[i]! += unit;
  return shares;
}

export function placeShopifyOrder(state: SandboxState, s: ShopifyState, body: NewShopifyOrder): ShopifyOrder {
  const account = String(body.portal_account);
  const n = s.next();
  const at = new Date().toISOString();
  const name = body.buyer?.name ?? 'Erika Musterfrau';
  const o: ShopifyOrder = {
    id: gid('Order', n),
    account,
    name: `#${1000 + n}`,
    createdAt: at,
    updatedAt: at,
    cancelledAt: null,
    email: body.buyer?.email ?? 'buyer@example.com',
    currencyCode: body.currency ?? 'EUR',
    ...(body.presentment ? { presentment: { currencyCode: body.presentment.currency, rate: Number(body.presentment.rate) } } : {}),
    test: body.test === true,
    financial: body.paid === false ? 'PENDING' : 'PAID',
    refunded: '0.00',
    shippingRefunded: { subtotal: 0, tax: 0 },
    shippingPrice: body.shipping ?? '4.90',
    shippingDiscount: body.shipping_discount ?? '0.00',
    ...(typeof body.shipping_title === 'string' ? { shippingTitle: body.shipping_title } : {}),
    shippingTaxLines: newTaxLines(
      body.shipping_tax_lines,
      toMills(body.shipping ?? '4.90') - toMills(body.shipping_discount ?? '0.00'),
      body.taxes_included !== false,
      unitOf(body.presentment?.currency ?? body.currency ?? 'EUR'),
    ),
    taxesIncluded: body.taxes_included !== false,
    address: {
      name,
      firstName: name.split(' ')[0] ?? name,
      lastName: name.split(' ').slice(1).join(' '),
      address1: body.buyer?.street ?? 'Lindenweg 3',
      address2: null,
      zip: body.buyer?.zip ?? '10115',
      city: body.buyer?.city ?? 'Berlin',
      province: null,
      countryCodeV2: body.buyer?.country_iso2 ?? 'DE',
      company: null,
      phone: body.buyer?.phone ?? null,
    },
    lines: body.lines.map((l, i) => {
      const v = s.variantBySku(account, l.sku);
      const quantity = l.quantity ?? 1;
      const price = l.price ?? v?.price ?? '10.00';
      const own = toMills(l.discount ?? '0.00');
      return {
        id: gid('LineItem', n * 100 + i),
        sku: l.sku,
        name: l.name ?? (v ? s.products.get(v.productId)!.title : l.sku),
        quantity,
        price,
        discount: millsText(own),
        allocations: own > 0 ? [{ amount: millsText(own), application: 0 }] : [],
        taxable: l.taxable ?? (l.tax_lines ?? []).length > 0,
        fulfilled: 0,
        removed: 0,
        refundedUnits: 0,
        refundedFulfilled: 0,
        taxLines: [],
        duty: l.duty ?? '0.00',
        dutyRefunded: '0.00',
        dutyTax: l.duty_tax ?? '0.00',
      };
    }),
    fulfillments: [],
    refunds: [],
    fulfillmentOrders: [],
    discountApplications: [],
    dutiesIncluded: body.duties_included === true,
    additionalFees: (body.additional_fees ?? []).map((f, i) => ({
      id: gid('AdditionalFee', n * 100 + i),
      name: String(f.name),
      amount: String(f.amount),
      tax: f.tax ?? '0.00',
    })),
  };
  if (body.tip !== undefined)
    o.lines.push({
      id: gid('LineItem', n * 100 + o.lines.length),
      sku: '',
      name: 'Tip',
      quantity: 1,
      price: body.tip,
      discount: '0.00',
      allocations: [],
      taxable: false,
      fulfilled: 0,
      removed: 0,
      refundedUnits: 0,
      refundedFulfilled: 0,
      taxLines: [],
      duty: '0.00',
      dutyRefunded: '0.00',
      dutyTax: '0.00',
      tip: true,
    });
  // Index 0: the lines' own discounts (one application chosen per line); 1: the code spread across all lines.
  if (o.lines.some((l) => l.allocations.length > 0))
    o.discountApplications.push({
      index: 0,
      code: 'SANDBOX-LINE',
      amount: millsText(o.lines.reduce((sum, l) => sum + toMills(l.discount), 0)),
      targetSelection: 'EXPLICIT',
    });
  if (body.discount_code && toMills(body.discount_code.amount) > 0) {
    const code = toMills(body.discount_code.amount);
    const shares = allocateAcross(
      code,
      o.lines.map((l) => (l.tip ? 0 : toMills(l.price) * l.quantity - toMills(l.discount))),
      orderUnit(o),
    );
    o.discountApplications.push({ index: 1, code: body.discount_code.code, amount: millsText(code), targetSelection: 'ALL' });
    o.lines.forEach((l, i) => {
      if (shares[i]! <= 0) return;
      l.allocations.push({ amount: millsText(shares[i]!), application: 1 });
      l.discount = millsText(toMills(l.discount) + shares[i]!);
    });
  }
  // Taxes after every discount ("after discounts and before returns").
  o.lines.forEach((l, i) => {
    if (l.tip) return;
    l.taxLines = newTaxLines(body.lines[i]!.tax_lines, toMills(l.price) * l.quantity - toMills(l.discount), o.taxesIncluded, orderUnit(o));
  });
  // A tip is in no fulfillment order (nothing to fulfil): its units are left to none.
  const goods = o.lines.filter((l) => !l.tip);
  o.fulfillmentOrders = fulfillmentOrdersOf(
    { ...o, lines: o.lines.map((l) => (l.tip ? { ...l, quantity: 0 } : l)) },
    n,
    () => s.next(),
    body.fulfillment_orders,
    s.routedLocation(account, goods),
  );
  for (const fo of o.fulfillmentOrders) {
    s.fulfillmentOrderOwners.set(fo.id, o.id);
    // Where the store routed it: a fulfilment app's warehouse shows its service (assignedLocation.location.fulfillmentService).
    fo.location = s.locationsOf(account).find((l) => l.id === fo.locationId);
  }
  s.orders.set(o.id, o);
  notifyOrder(state, o, 'ORDERS_CREATE');
  // Each unit off `available` where its fulfillment order is assigned: the location that ships it.
  for (const l of goods) for (const at of unitsByLocation(o, l.id, false)) s.moveAvailable(account, l.sku, at.locationId, -at.quantity);
  return o;
}

/** An order as the REST resource Shopify's order webhooks carry (the fields a receiver reads). */
export function restOrder(o: ShopifyOrder) {
  const number = Number(o.id.split('/').pop());
  const total = orderTotal(o);
  return {
    id: number,
    admin_graphql_api_id: o.id,
    name: o.name,
    email: o.email,
    created_at: o.createdAt,
    updated_at: o.updatedAt,
    cancelled_at: o.cancelledAt,
    currency: o.currencyCode,
    test: o.test,
    taxes_included: o.taxesIncluded,
    total_tax: millsText(taxMills(o)),
    financial_status: o.financial.toLowerCase(),
    fulfillment_status: o.lines.every((l) => l.tip || unfulfilledOf(l) <= 0) ? 'fulfilled' : o.fulfillments.length ? 'partial' : null,
    total_price: total,
    line_items: o.lines.map((l) => ({ id: Number(l.id.split('/').pop()), sku: l.tip ? null : l.sku, name: l.name, quantity: l.quantity, price: l.price })),
  };
}

/**
 * Cancels an order as Shopify's orderCancel does once its job ran (the sandbox runs it at once:
 * the job is answered done): refused when the order is cancelled already or has fulfilled lines
 * (our reading of the reference's conditions; the wording is ours). Refund: a paid order becomes
 * REFUNDED. Restock: each line's unfulfilled quantity back to its variant's available quantity.
 */
export function cancelShopifyOrder(
  state: SandboxState,
  s: ShopifyState,
  o: ShopifyOrder,
  how: { reason: string; refund: boolean; restock: boolean; notifyCustomer?: boolean | null; staffNote?: string | null },
): { field: string[]; message: string; code: string }[] {
  if (o.cancelledAt) return [{ field: ['orderId'], message: 'Order has already been cancelled.', code: 'INVALID' }];
  if (o.lines.some((l) => l.fulfilled > 0)) return [{ field: ['orderId'], message: 'Cannot cancel an order with fulfilled line items.', code: 'INVALID' }];
  const now = new Date().toISOString();
  o.cancelledAt = now;
  o.updatedAt = now;
  if (how.refund && o.financial !== 'PENDING') {
    o.financial = 'REFUNDED';
    o.refunded = orderTotal(o);
  }
  if (how.restock) for (const l of o.lines) for (const at of unitsByLocation(o, l.id, true)) s.moveAvailable(o.account, l.sku, at.locationId, at.quantity);
  o.cancellation = {
    reason: how.reason,
    refund: how.refund,
    restock: how.restock,
    notifyCustomer: how.notifyCustomer ?? false,
    staffNote: how.staffNote ?? null,
  };
  notifyOrder(state, o, 'ORDERS_CANCELLED');
  return [];
}

/**
 * A refund made in the store's admin (a return, a goodwill refund, an item the merchant cannot
 * send): totalRefundedSet grows, netPaymentSet ("received minus refunded") shrinks,
 * totalReceivedSet ("before returns") stays; the order shows PARTIALLY_REFUNDED, or REFUNDED once
 * nothing is left, and is updated (ORDERS_UPDATED). It is recorded as a Refund of the order, with
 * a refund line item when units are named (restockType NO_RESTOCK unless given; CANCEL and RETURN
 * put the units back to the variant: shopify-refund.sandbox.ts). `shipping`: that much of the
 * shipping's price given back (refundCreate's `shipping.amount`; a RefundShippingLine), with its
 * share of the shipping's tax in a net-price store (rounded to the currency's unit; the sandbox's
 * reading); the refund's amount is then that and its tax unless given. Refused (the message is
 * ours) for an order not paid, a shipping refund beyond the shipping left, or an amount that is
 * not positive or more than is left to refund.
 */
export function refundShopifyOrder(
  state: SandboxState,
  s: ShopifyState,
  o: ShopifyOrder,
  amount?: string,
  units?: { line: string; quantity: number; restockType?: string; duty?: string },
  shipping?: string,
): string | undefined {
  if (o.financial === 'PENDING') return 'The order has no payment to refund.';
  const shippingLeft = toMills(currentShippingOf(o));
  const shippingBack = shipping === undefined ? 0 : toMills(shipping);
  if (shipping !== undefined && !(shippingBack > 0 && shippingBack <= shippingLeft))
    return `Shipping refund must be between 0.01 and ${millsText(shippingLeft)}.`;
  const shippingTax = o.taxesIncluded
    ? 0
    : toUnit((o.shippingTaxLines.reduce((sum, x) => sum + toMills(x.amount), 0) * shippingBack) / Math.max(1, shippingMillsOf(o)), orderUnit(o));
  const left = toMills(orderTotal(o)) - toMills(o.refunded);
  const refund = amount === undefined ? (shipping !== undefined && !units ? shippingBack + shippingTax : left) : toMills(amount);
  if (!Number.isInteger(refund) || refund <= 0 || refund > left) return `Refund amount must be between 0.01 and ${millsText(left)}.`;
  const line = units ? o.lines.find((l) => l.id === units.line) : undefined;
  const restockType = units?.restockType ?? 'NO_RESTOCK';
  const problem = units ? refundUnitsProblem(line, units.line, units.quantity, restockType) : undefined;
  if (problem) return problem;
  // The line's duty given back with it (refundCreate's refundDuties), within what is left of it and of the refund.
  const duty = units?.duty === undefined ? 0 : toMills(units.duty);
  if (line && duty > 0 && (duty > toMills(line.duty) - toMills(line.dutyRefunded) || duty > refund))
    return `The duty refunded must be at most ${millsText(Math.min(refund, toMills(line.duty) - toMills(line.dutyRefunded)))}.`;
  if (line && duty > 0) line.dutyRefunded = millsText(toMills(line.dutyRefunded) + duty);
  // Restocked at the location that was to ship or shipped the line (its first fulfillment order's).
  const restockAt = line ? (unitsByLocation(o, line.id, false)[0]?.locationId ?? sandboxLocationId) : sandboxLocationId;
  const lines =
    line && units ? [refundUnits(o, line, units.quantity, restockType as RestockType, { id: gid('RefundLineItem', s.next()), locationId: restockAt })] : [];
  if (line && lines[0]?.restocked) s.moveAvailable(o.account, line.sku, restockAt, units!.quantity);
  const shippingLines = shippingBack > 0 ? [{ id: gid('RefundShippingLine', s.next()), subtotal: millsText(shippingBack), tax: millsText(shippingTax) }] : [];
  o.shippingRefunded = { subtotal: o.shippingRefunded.subtotal + shippingBack, tax: o.shippingRefunded.tax + shippingTax };
  o.refunds.push({ id: gid('Refund', s.next()), createdAt: new Date().toISOString(), amount: millsText(refund), lines, shipping: shippingLines });
  o.refunded = millsText(toMills(o.refunded) + refund);
  o.financial = refund === left ? 'REFUNDED' : 'PARTIALLY_REFUNDED';
  o.updatedAt = new Date().toISOString();
  notifyOrder(state, o, 'ORDERS_UPDATED');
  return undefined;
}

/**
 * An order edit committed in the store that takes units out of a line (shopify-edit.sandbox.ts):
 * with restock the units are available again; the order is updated (updatedAt, ORDERS_UPDATED:
 * Shopify's orders/updated webhook fires for edits) and its money left to a refund.
 */
export function editShopifyOrder(state: SandboxState, s: ShopifyState, o: ShopifyOrder, lineId: string, remove: number, restock: boolean): string | undefined {
  const refused = removeUnits(o, lineId, remove);
  if (refused) return refused;
  const line = o.lines.find((l) => l.id === lineId)!;
  if (restock) s.moveAvailable(o.account, line.sku, unitsByLocation(o, lineId, false)[0]?.locationId ?? sandboxLocationId, remove);
  o.updatedAt = new Date().toISOString();
  notifyOrder(state, o, 'ORDERS_UPDATED');
  return undefined;
}

/**
 * The store's subscriptions of the topic get the order (ORDERS_CREATE, ORDERS_UPDATED,
 * ORDERS_CANCELLED); an update or cancellation also fires ORDERS_UPDATED's subscribers once.
 */
export function notifyOrder(state: SandboxState, o: ShopifyOrder, topic: 'ORDERS_CREATE' | 'ORDERS_UPDATED' | 'ORDERS_CANCELLED'): void {
  const app = shopifyAppOf(state);
  notifyTopic(app, o.account, topic, restOrder(o));
  if (topic === 'ORDERS_CANCELLED') notifyTopic(app, o.account, 'ORDERS_UPDATED', restOrder(o));
}

/** The Admin API of one version (its path's): its schema (shopifySchemaOf) and, from 2026-04, what it refuses at runtime (versionProblem). */
function handler(state: SandboxState, s: ShopifyState, version: ShopifyApiVersion) {
  const log = violationsOf(state);
  const record = (req: Request, problems: string[]) =>
    log.add({
      at: new Date().toISOString(),
      vendor: 'shopify',
      contract: `Shopify Admin GraphQL API ${version}`,
      operationId: null,
      method: req.method,
      path: req.path,
      problems: problems.map((message) => ({ in: 'body', name: 'query', message })),
      status: 200,
    });
  return async (req: Request, res: Response): Promise<void> => {
    const token = req.get('X-Shopify-Access-Token') ?? '';
    const account = s.tokens.get(token) ?? /^shpat_sandbox_(\d{1,12})$/.exec(token)?.[1];
    res.once('finish', () => {
      state.requests.push({
        at: new Date().toISOString(),
        portal,
        portalAccount: account ?? 'unknown',
        method: req.method,
        path: req.path,
        idempotencyKey: null,
        body: req.body,
        status: res.statusCode,
        replayed: false,
        bearer: false,
        query: {},
      });
      if (state.requests.length > state.maxRequests) state.requests.splice(0, state.requests.length - state.maxRequests);
    });
    if (!account) {
      res.status(401).json({ errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' });
      return;
    }
    const body = (req.body ?? {}) as { query?: unknown; variables?: unknown; operationName?: unknown };
    if (typeof body.query !== 'string' || body.query.trim() === '') {
      record(req, ['the body has no query string']);
      res.status(400).json({ errors: { query: 'Required parameter missing or invalid' } });
      return;
    }
    const schemaNow = shopifySchemaOf(version);
    let doc: DocumentNode;
    try {
      doc = parse(body.query);
    } catch (err) {
      const e = err as GraphQLError;
      record(req, [e.message]);
      res.json({ errors: [{ message: e.message, locations: e.locations }] });
      return;
    }
    const invalid = validate(schemaNow, doc);
    if (invalid.length) {
      record(
        req,
        invalid.map((e) => e.message),
      );
      res.json(errorsBody(invalid));
      return;
    }
    const operationName = typeof body.operationName === 'string' ? body.operationName : undefined;
    const op = getOperationAST(doc, operationName);
    if (!op) {
      record(req, ['no single operation to run (name it with operationName)']);
      res.json({ errors: [{ message: 'An operation name is required' }] });
      return;
    }
    const variables = body.variables && typeof body.variables === 'object' ? (body.variables as Record<string, unknown>) : {};
    const coerced = getVariableValues(schemaNow, op.variableDefinitions ?? [], variables, { maxErrors: 20 });
    if (coerced.errors) {
      record(
        req,
        coerced.errors.map((e) => e.message),
      );
      res.json({ errors: coerced.errors.map((e) => ({ message: e.message, locations: e.locations, extensions: { code: 'INVALID_VARIABLE' } })) });
      return;
    }
    const refused = versionProblem(version, schemaNow, op, coerced.coerced);
    if (refused) {
      record(req, [refused]);
      res.json({ errors: [{ message: refused, path: ['inventorySetQuantities'] }] });
      return;
    }
    const cost = requestedCost(op, coerced.coerced);
    const bucket = s.bucket(account);
    const throttleStatus = () => ({ maximumAvailable: s.maximumAvailable, currentlyAvailable: Math.floor(bucket.available), restoreRate: s.restoreRate });
    if (cost > s.singleQueryMax) {
      res.json({
        errors: [
          {
            message: `Query cost is ${cost}, which exceeds the single query max cost limit (${s.singleQueryMax}).`,
            extensions: { code: 'MAX_COST_EXCEEDED', cost, maxCost: s.singleQueryMax },
          },
        ],
        extensions: { cost: { requestedQueryCost: cost, actualQueryCost: null, throttleStatus: throttleStatus() } },
      });
      return;
    }
    if (cost > bucket.available) {
      s.throttled += 1;
      res.json({
        errors: [
          s.throttledAnswer === 'message'
            ? { message: 'Throttled' }
            : { message: 'Throttled', extensions: { code: 'THROTTLED', documentation: 'https://shopify.dev/api/usage/rate-limits' } },
        ],
        extensions: { cost: { requestedQueryCost: cost, actualQueryCost: null, throttleStatus: throttleStatus() } },
      });
      return;
    }
    bucket.available -= cost;
    const scopes = s.tokenScopes.get(token) ?? shopifyScopes;
    const result = await execute({
      schema: schemaNow,
      document: doc,
      // The token's scopes decide what it may ask (shopify-scopes.sandbox.ts) and which fulfillment orders it sees.
      rootValue: withScopes(rootOf(state, s, account, appOfToken(shopifyAppOf(state), token), scopes), scopes),
      variableValues: variables,
      operationName,
    });
    const actual = actualCost(op, result.data, cost);
    bucket.available = Math.min(s.maximumAvailable, bucket.available + cost - actual);
    res.json({ ...result, extensions: { cost: { requestedQueryCost: cost, actualQueryCost: actual, throttleStatus: throttleStatus() } } });
  };
}

/** Mounts the Admin API and its controls; the schema is built here, at start (a missing contract folder stops the sandbox naming it). */
export function mountShopify(app: express.Express, state: SandboxState): void {
  shopifySchema();
  const s = shopifyOf(state);
  mountContractControls(app, state);
  // Every version Kontor may be set to speak (SHOPIFY_API_VERSION), each played as it differs.
  for (const version of shopifyApiVersions) app.post(`/admin/api/${version}/graphql.json`, handler(state, s, version));
  mountShopifyApp(
    app,
    state,
    (account, orderId) => {
      const o = s.orders.get(`gid://shopify/Order/${orderId}`);
      return o && o.account === account ? restOrder(o) : undefined;
    },
    (token, account, scope) => {
      s.tokens.set(token, account);
      s.tokenScopes.set(token, scopeList(scope));
    },
  );
  app.post('/_sandbox/shopify/orders', (req: Request, res: Response) => {
    const body = (req.body ?? {}) as Partial<NewShopifyOrder>;
    if (body.portal_account === undefined || !Array.isArray(body.lines) || body.lines.length === 0 || body.lines.some((l) => typeof l?.sku !== 'string')) {
      res.status(400).json({ error: 'portal_account and lines [{sku, quantity?, price?}] are required' });
      return;
    }
    const taxes = [...body.lines.flatMap((l) => l.tax_lines ?? []), ...(body.shipping_tax_lines ?? [])];
    if (
      taxes.some(
        (t) =>
          typeof t?.title !== 'string' || typeof t.rate !== 'number' || !(t.rate >= 0) || (t.amount !== undefined && !/^\d+\.\d{2}$/.test(String(t.amount))),
      )
    ) {
      res.status(400).json({ error: 'tax_lines are [{title, rate (a decimal, 0.0625 for 6.25 %), amount? ("0.00")}]' });
      return;
    }
    const code = body.discount_code;
    if (
      (code !== undefined && (typeof code?.code !== 'string' || !/^\d+\.\d{2}$/.test(String(code.amount)))) ||
      body.lines.some(
        (l) => (l.discount !== undefined && !/^\d+\.\d{2}$/.test(String(l.discount))) || (l.taxable !== undefined && typeof l.taxable !== 'boolean'),
      )
    ) {
      res.status(400).json({ error: 'discount_code is {code, amount ("5.00")}; a line\'s discount is "0.00", taxable a boolean' });
      return;
    }
    const fees = body.additional_fees;
    if (
      body.lines.some((l) => [l.duty, l.duty_tax].some((a) => a !== undefined && !/^\d+\.\d{2}$/.test(String(a)))) ||
      (body.duties_included !== undefined && typeof body.duties_included !== 'boolean') ||
      (fees !== undefined &&
        (!Array.isArray(fees) ||
          fees.some(
            (f) => typeof f?.name !== 'string' || !/^\d+\.\d{2}$/.test(String(f.amount)) || (f.tax !== undefined && !/^\d+\.\d{2}$/.test(String(f.tax))),
          )))
    ) {
      res.status(400).json({ error: 'a line\'s duty and duty_tax are "0.00", duties_included a boolean, additional_fees [{name, amount ("0.00"), tax?}]' });
      return;
    }
    const presentment = body.presentment;
    if (
      presentment !== undefined &&
      (typeof presentment?.currency !== 'string' ||
        !/^[A-Z]{3}$/.test(presentment.currency) ||
        !/^\d+(\.\d{1,6})?$/.test(String(presentment.rate)) ||
        !(Number(presentment.rate) > 0))
    ) {
      res.status(400).json({ error: 'presentment is {currency (ISO 4217, "CHF"), rate (the shop currency of one unit, "0.93")}' });
      return;
    }
    if (body.tip !== undefined && !(/^\d+\.\d{2}$/.test(String(body.tip)) && toMills(String(body.tip)) > 0)) {
      res.status(400).json({ error: 'tip is an amount above 0 ("5.00")' });
      return;
    }
    const problem = body.fulfillment_orders === undefined ? undefined : planProblem(body.fulfillment_orders, body.lines);
    if (problem) {
      res.status(400).json({ error: problem });
      return;
    }
    // UNSUBMITTED "is the only valid request status for fulfillment orders that aren't assigned to a fulfillment service".
    const serviced = (n: number | undefined) => s.locationsOf(String(body.portal_account)).find((l) => l.id === gid('Location', n ?? 1))?.fulfillmentService;
    if ((body.fulfillment_orders ?? []).some((p) => p.request_status !== undefined && p.request_status !== 'UNSUBMITTED' && !serviced(p.location))) {
      res.status(400).json({ error: "request_status other than UNSUBMITTED is a fulfilment service's: give the location of one" });
      return;
    }
    const o = placeShopifyOrder(state, s, body as NewShopifyOrder);
    res.status(201).json({ id: o.id, name: o.name, lines: o.lines.map((l) => ({ id: l.id, sku: l.sku })) });
  });
  app.post('/_sandbox/shopify/tokens', (req: Request, res: Response) => {
    const account = (req.body as { portal_account?: unknown } | undefined)?.portal_account;
    if (account === undefined || account === null || String(account) === '') {
      res.status(400).json({ error: 'portal_account is required' });
      return;
    }
    // scopes: what the merchant granted a custom app (comma-separated or a list); none: Kontor's.
    const scopes = (req.body as { scopes?: unknown }).scopes;
    if (scopes !== undefined && typeof scopes !== 'string' && !(Array.isArray(scopes) && scopes.every((x) => typeof x === 'string'))) {
      res.status(400).json({ error: 'scopes is a comma-separated string or a list of access scope handles' });
      return;
    }
    const token = `shpat_${crypto.randomBytes(16).toString('hex')}`;
    s.tokens.set(token, String(account));
    if (scopes !== undefined) s.tokenScopes.set(token, scopeList(Array.isArray(scopes) ? scopes.join(',') : scopes));
    res.status(201).json({ access_token: token, scope: (s.tokenScopes.get(token) ?? shopifyScopes).join(',') });
  });
  app.post('/_sandbox/shopify/config', (req: Request, res: Response) => {
    const body = (req.body ?? {}) as { maximum_available?: unknown; restore_rate?: unknown; currently_available?: unknown; portal_account?: unknown };
    if (typeof body.maximum_available === 'number' && body.maximum_available > 0) s.maximumAvailable = body.maximum_available;
    if (typeof body.restore_rate === 'number' && body.restore_rate > 0) s.restoreRate = body.restore_rate;
    const retryMs = (req.body as { webhook_retry_ms?: unknown } | undefined)?.webhook_retry_ms;
    if (typeof retryMs === 'number' && retryMs >= 0) shopifyAppOf(state).retryMs = retryMs;
    const answer = (req.body as { throttled_answer?: unknown } | undefined)?.throttled_answer;
    if (answer !== undefined && answer !== 'code' && answer !== 'message') {
      res.status(400).json({ error: 'throttled_answer is code or message' });
      return;
    }
    if (answer) s.throttledAnswer = answer;
    if (typeof body.currently_available === 'number' && body.portal_account !== undefined) {
      s.buckets.set(String(body.portal_account), { available: Math.max(0, body.currently_available), at: Date.now() });
    }
    res.json({ maximum_available: s.maximumAvailable, restore_rate: s.restoreRate, throttled_answer: s.throttledAnswer });
  });
  /** The control's order (`:id`, the number of its gid), or a 404 answered. */
  const orderOr404 = (req: Request, res: Response) => {
    const o = s.orders.get(`gid://shopify/Order/${String(req.params.id)}`);
    if (!o) res.status(404).json({ error: 'no such order' });
    return o;
  };
  const fulfillmentOrderOr404 = (req: Request, res: Response) => {
    const id = `gid://shopify/FulfillmentOrder/${String(req.params.id)}`;
    const o = s.orders.get(s.fulfillmentOrderOwners.get(id) ?? '');
    const fo = o?.fulfillmentOrders.find((f) => f.id === id);
    if (o && fo) return { o, fo };
    res.status(404).json({ error: 'no such fulfillment order' });
    return undefined;
  };
  // The store cancels an order itself (its admin, or a buyer's request granted there): what the order import must bring to Kontor.
  app.post('/_sandbox/shopify/orders/:id/cancel', (req: Request, res: Response) => {
    const o = orderOr404(req, res);
    if (!o) return;
    const body = (req.body ?? {}) as { restock?: unknown; refund?: unknown; reason?: unknown };
    const errors = cancelShopifyOrder(state, s, o, {
      reason: typeof body.reason === 'string' ? body.reason : 'CUSTOMER',
      refund: body.refund !== false,
      restock: body.restock === true,
    });
    if (errors.length) res.status(422).json({ errors });
    else res.json(o);
  });
  // The store refunds (part of) an order: POST /_sandbox/shopify/orders/:id/refund {amount?, line?, quantity?, restock_type?, duty?, shipping?}
  // (all that is left without an amount; line, the LineItem's number, and quantity: units refunded with it;
  // restock_type RETURN, CANCEL or NO_RESTOCK, the default: shopify-refund.sandbox.ts; duty: "0.00", of the
  // line's duty given back with them, within the amount).
  app.post('/_sandbox/shopify/orders/:id/refund', (req: Request, res: Response) => {
    const o = orderOr404(req, res);
    if (!o) return;
    const body = (req.body ?? {}) as { amount?: unknown; line?: unknown; quantity?: unknown; restock_type?: unknown; duty?: unknown; shipping?: unknown };
    const amount = body.amount;
    if (body.duty !== undefined && (body.line === undefined || !/^\d+\.\d{2}$/.test(String(body.duty)))) {
      res.status(400).json({ error: 'duty is "0.00", given back with the units of a line' });
      return;
    }
    const units =
      body.line === undefined
        ? undefined
        : {
            line: gid('LineItem', Number(body.line)),
            quantity: Number(body.quantity ?? 1),
            ...(body.restock_type !== undefined ? { restockType: String(body.restock_type) } : {}),
            ...(body.duty !== undefined ? { duty: String(body.duty) } : {}),
          };
    if (body.shipping !== undefined && !/^\d+\.\d{2,3}$/.test(String(body.shipping))) {
      res.status(400).json({ error: 'shipping is the shipping price given back, "4.90"' });
      return;
    }
    const refused = refundShopifyOrder(
      state,
      s,
      o,
      typeof amount === 'number' ? amount.toFixed(2) : typeof amount === 'string' ? amount : undefined,
      units,
      body.shipping === undefined ? undefined : String(body.shipping),
    );
    if (refused) res.status(422).json({ errors: [{ message: refused }] });
    else res.json(o);
  });
  // The store edits an order, taking units out of a line: POST /_sandbox/shopify/orders/:id/edit
  // {line, remove, restock?} (line: the LineItem's number; restock, default true as the admin's
  // "Restock item": the units go back to the variant's available quantity).
  app.post('/_sandbox/shopify/orders/:id/edit', (req: Request, res: Response) => {
    const o = orderOr404(req, res);
    if (!o) return;
    const body = (req.body ?? {}) as { line?: unknown; remove?: unknown; restock?: unknown };
    const refused = editShopifyOrder(state, s, o, gid('LineItem', Number(body.line)), Number(body.remove), body.restock !== false);
    if (refused) res.status(422).json({ errors: [{ message: refused }] });
    else res.json(o);
  });
  // The store releases a fulfillment order's holds (its admin, or the fraud or payment app that placed them).
  app.post('/_sandbox/shopify/fulfillment_orders/:id/release_hold', (req: Request, res: Response) => {
    const found = fulfillmentOrderOr404(req, res);
    if (!found) return;
    const { o, fo } = found;
    if (!releaseHolds(fo)) {
      res.status(409).json({ error: 'the fulfillment order is not on hold' });
      return;
    }
    o.updatedAt = new Date().toISOString();
    res.json({ id: fo.id, status: 'OPEN' });
  });
  // The store moves a fulfillment order, or some of its units, to another of its locations (its
  // admin's "Change location", fulfillmentOrderMove): POST /_sandbox/shopify/fulfillment_orders/:id/move
  // {location, lines?: [{id, quantity}]} (the location's number; lines: the fulfillment order's line
  // items by number or gid and the units to move, as fulfillmentOrderLineItems; none: all unfulfilled).
  // Both scenarios of fulfillmentOrderMove (moveFulfillmentOrder). Refused as Shopify refuses a move:
  // a closed fulfillment order, one whose fulfilment service has a request pending (its request
  // status), a destination that "has never stocked the requested inventory item"; an INCOMPLETE one moves.
  // The units leave `available` at the new location and come back at the old one, as a sale's do
  // where its fulfillment order is assigned. Whether a move changes Order.updatedAt ("modified last")
  // the contract does not say: the sandbox leaves it (the reading a client must survive; a424004 set
  // it, so Kontor's fetch by updatedAt found every move), and sets the fulfillment orders' updatedAt
  // ("last updated"), which QueryRoot.fulfillmentOrders finds by updated_at.
  app.post('/_sandbox/shopify/fulfillment_orders/:id/move', (req: Request, res: Response) => {
    const found = fulfillmentOrderOr404(req, res);
    if (!found) return;
    const { o, fo } = found;
    const body = (req.body ?? {}) as { location?: unknown; lines?: unknown };
    const to = s.locationsOf(o.account).find((l) => l.id === gid('Location', Number(body.location)));
    if (!to || !to.isActive) {
      res.status(400).json({ error: 'location is the number of an active location of the store' });
      return;
    }
    if (
      body.lines !== undefined &&
      !(
        Array.isArray(body.lines) &&
        body.lines.every((l: unknown) => {
          const x = l as { id?: unknown; quantity?: unknown } | null;
          return x !== null && typeof x === 'object' && (typeof x.id === 'string' || Number.isInteger(x.id)) && Number.isInteger(x.quantity);
        })
      )
    ) {
      res.status(400).json({ error: 'lines is a list of {id, quantity}: a line item of the fulfillment order (its number or gid) and whole units' });
      return;
    }
    const lines = (body.lines as { id: string | number; quantity: number }[] | undefined)?.map((l) => ({
      id: String(l.id).startsWith('gid://') ? String(l.id) : gid('FulfillmentOrderLineItem', Number(l.id)),
      quantity: l.quantity,
    }));
    const neverStocked = (lineIds: string[]) =>
      lineIds.some((lineId) => {
        const v = s.variantBySku(o.account, o.lines.find((l) => l.id === lineId)!.sku);
        return !v || (to.id === sandboxLocationId ? !s.available.has(v.inventoryItemId) : !s.levels.has(`${v.inventoryItemId} ${to.id}`));
      });
    const movedLines = fo.lines.filter((fl) => (lines ? lines.some((l) => l.id === fl.id) : fl.quantity > fl.fulfilled)).map((fl) => fl.lineId);
    if (neverStocked(movedLines)) {
      res.status(422).json({ errors: [{ message: 'The destination location has never stocked the requested inventory item.' }] });
      return;
    }
    const from = fo.locationId;
    const done = moveFulfillmentOrder(o, fo, to.id, lines, () => s.next());
    if ('error' in done) {
      res.status(422).json({ errors: [{ message: done.error }] });
      return;
    }
    for (const f of o.fulfillmentOrders) {
      s.fulfillmentOrderOwners.set(f.id, o.id);
      f.location = s.locationsOf(o.account).find((l) => l.id === f.locationId);
    }
    for (const u of done.units) {
      const sku = o.lines.find((l) => l.id === u.lineId)!.sku;
      s.moveAvailable(o.account, sku, from, u.quantity);
      s.moveAvailable(o.account, sku, to.id, -u.quantity);
    }
    // Order.updatedAt left as it was (the reading above); the fulfillment orders moved carry the change.
    res.json({ id: done.moved.id, location: to.id, original: { id: fo.id, status: statusOf(fo) } });
  });
  // The store's collections (a seller's made in Shopify's admin: custom, or smart with a rule).
  app.post('/_sandbox/shopify/collections', (req: Request, res: Response) => {
    const body = (req.body ?? {}) as { portal_account?: unknown; title?: unknown; smart?: unknown };
    if (body.portal_account === undefined || typeof body.title !== 'string' || !body.title.trim()) {
      res.status(400).json({ error: 'portal_account and title are required' });
      return;
    }
    const ruleSet = body.smart === true ? { appliedDisjunctively: false, rules: [{ column: 'TAG', relation: 'EQUALS', condition: body.title }] } : null;
    res.status(201).json(s.addCollection(String(body.portal_account), body.title.trim(), [], ruleSet));
  });
  app.get('/_sandbox/shopify/collections', (req: Request, res: Response) => {
    const account = String(req.query.portal_account ?? '');
    res.json(
      [...s.collections.values()]
        .filter((c) => c.account === account)
        .map((c) => ({ ...c, products: c.products.map((id) => s.products.get(id)?.title ?? id) })),
    );
  });
  app.get('/_sandbox/shopify/throttled', (_req: Request, res: Response) => {
    res.json({ throttled: s.throttled });
  });
  app.get('/_sandbox/shopify/orders/:id', (req: Request, res: Response) => {
    const o = orderOr404(req, res);
    if (!o) return;
    res.json(o);
  });
  // The merchant changing a variant's available quantity in Shopify's admin (stock received there, a count), at Location/1 or the `location` named (its gid).
  app.post('/_sandbox/shopify/inventory', (req: Request, res: Response) => {
    const body = (req.body ?? {}) as { portal_account?: unknown; sku?: unknown; available?: unknown; location?: unknown };
    const account = String(body.portal_account ?? '');
    const v = typeof body.sku === 'string' ? s.variantBySku(account, body.sku) : undefined;
    const location = body.location === undefined ? sandboxLocationId : String(body.location);
    if (
      !v ||
      typeof body.available !== 'number' ||
      !Number.isInteger(body.available) ||
      body.available < 0 ||
      !s.locationsOf(account).some((l) => l.id === location)
    ) {
      res.status(400).json({
        error: "portal_account, the sku of one of its variants, available (an integer, 0 or more) and location (one of the store's, if given) are required",
      });
      return;
    }
    s.setAvailableAt(v.inventoryItemId, location, body.available);
    res.json({ sku: v.sku, location, available: body.available });
  });
  // The merchant's locations (Shopify admin, Settings > Locations): the store's whole list, the first
  // keeping Location/1 (the one a store starts with), each active and fulfilling online orders
  // unless `is_active` or `fulfills_online_orders` is false ("Fulfill online orders from this location").
  // `fulfillment_service: true`: the location of a fulfilment service app (a 3PL's warehouse),
  // `"legacy"` one of the legacy kind, which QueryRoot.locations lists only with includeLegacy;
  // the app tracks the stock there unless `inventory_management` is false.
  app.post('/_sandbox/shopify/locations', (req: Request, res: Response) => {
    const body = (req.body ?? {}) as { portal_account?: unknown; locations?: unknown };
    type Made = { name?: unknown; is_active?: unknown; fulfills_online_orders?: unknown; fulfillment_service?: unknown; inventory_management?: unknown };
    const list = Array.isArray(body.locations) ? (body.locations as Made[]) : [];
    if (body.portal_account === undefined || list.length === 0 || list.some((l) => typeof l?.name !== 'string' || !l.name)) {
      res.status(400).json({ error: 'portal_account and locations (each with a name) are required' });
      return;
    }
    const made = list.map((l, i): SandboxLocation => ({
      id: i === 0 ? sandboxLocationId : gid('Location', 1000 + s.next()),
      name: String(l.name),
      isActive: l.is_active !== false,
      fulfillsOnlineOrders: l.fulfills_online_orders !== false,
      isFulfillmentService: l.fulfillment_service === true || l.fulfillment_service === 'legacy',
      fulfillmentService:
        l.fulfillment_service === true || l.fulfillment_service === 'legacy'
          ? {
              id: gid('FulfillmentService', s.next()),
              handle: String(l.name).toLowerCase(),
              serviceName: String(l.name),
              inventoryManagement: l.inventory_management !== false,
            }
          : null,
      ...(l.fulfillment_service === 'legacy' ? { legacy: true } : {}),
    }));
    s.locations.set(String(body.portal_account), made);
    res.status(201).json(made);
  });
  // The merchant's inventory settings of a variant in Shopify's admin: "Track quantity" (InventoryItem.tracked)
  // and "Continue selling when out of stock" (ProductVariant.inventoryPolicy CONTINUE).
  app.post('/_sandbox/shopify/variant', (req: Request, res: Response) => {
    const body = (req.body ?? {}) as { portal_account?: unknown; sku?: unknown; tracked?: unknown; inventory_policy?: unknown };
    const v = typeof body.sku === 'string' ? s.variantBySku(String(body.portal_account ?? ''), body.sku) : undefined;
    if (
      !v ||
      (body.tracked !== undefined && typeof body.tracked !== 'boolean') ||
      (body.inventory_policy !== undefined && body.inventory_policy !== 'DENY' && body.inventory_policy !== 'CONTINUE')
    ) {
      res
        .status(400)
        .json({ error: 'portal_account, the sku of one of its variants, tracked (a boolean) and inventory_policy (DENY or CONTINUE) are required' });
      return;
    }
    if (typeof body.tracked === 'boolean') v.tracked = body.tracked;
    if (body.inventory_policy === 'DENY' || body.inventory_policy === 'CONTINUE') v.inventoryPolicy = body.inventory_policy;
    res.json({ sku: v.sku, tracked: v.tracked, inventory_policy: v.inventoryPolicy });
  });
  app.get('/_sandbox/shopify/variants', (req: Request, res: Response) => {
    const account = String(req.query.portal_account ?? '');
    res.json(
      [...s.variants.values()]
        .filter((v) => s.products.get(v.productId)?.account === account)
        .map((v) => {
          const product = s.products.get(v.productId)!;
          // status: Product.status (ACTIVE, DRAFT, ARCHIVED), whether the store offers it at all.
          return { ...v, title: product.title, status: product.status, available: s.available.get(v.inventoryItemId) ?? 0 };
        }),
    );
  });
  state.sellers.set(portal, (body: SellRequest) => {
    const o = placeShopifyOrder(state, s, {
      portal_account: body.portal_account,
      lines: [{ sku: body.sku, quantity: body.quantity, ...(body.price ? { price: body.price } : {}) }],
      buyer: body.buyer,
    });
    return { order_id: o.id };
  });
}
