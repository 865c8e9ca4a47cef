import { fetchPageSize } from './order-fetch-page';
import type { ChannelOrder, ChannelOrderPage } from './channel-order.type';
import { HttpPortalAdapter, pictures, portalInputError, str } from './portal-http';
import type { ListingItem, PortalTarget, QuantityOutcome, QuantityUpdate, Shipment } from './portal.type';
import { lowestPerListing } from './shared-listing';
import { refuseUserErrors, ShopifyAccessDenied, shopifyDocument, shopifyLaterDocument, ShopifySession } from './shopify/shopify-client';
import { idempotentParts, idempotentVariables, quantityCompare, speaksChangeFrom, staleQuantityCodes } from './shopify/shopify-version';
import { ShopifyApiVersion, shopifyApiVersions } from '../../config/channel-apps';
import { channelOrder, legacyId, lineFields, orderFields, ShopifyLineNode, ShopifyOrderNode } from './shopify/order-mapping';
import { readOrderLineAmounts } from './shopify/order-amounts';
import { hasRefundedUnits, refundLines, restockedUnits } from './shopify/order-refunds';
import { shopifyTrackingCompany } from './shopify/tracking-company';
import { skuOf, VariantData, variantData } from './shopify/variant-mapping';
import {
  appLines,
  appService,
  sellerLines,
  appsLinesMessage,
  linesInNoFulfillmentOrder,
  thirdPartyScopes,
  FulfillmentGroup,
  FulfillmentOrderRead,
  FulfillmentRead,
  heldMessage,
  planShipment,
  trackingAddition,
  trackingInfoRead,
} from './shopify/fulfillment-plan';
import { shopifyInventoryRepository, StoreSale } from './shopify/shopify-inventory.repository';
import { isPermanent, portalRefused, portalWaiting } from '../errors';

type UserErrors = { field: string[] | null; message: string }[];
interface VariantNode {
  id: string;
  sku: string | null;
  product: { id: string };
  /** What bounds the store's sales by the quantity: tracked (InventoryItem) and DENY (ProductVariant.inventoryPolicy). */
  inventoryPolicy: string;
  inventoryItem: { id: string; tracked: boolean };
}

const variantFields = 'id sku product { id } inventoryPolicy inventoryItem { id tracked }';
const findVariants = shopifyDocument(
  `query KontorVariants($query: String!, $first: Int!) { productVariants(first: $first, query: $query) { nodes { ${variantFields} } } }`,
);
/**
 * Location: what decides where the web shop's stock is kept (isActive, fulfillsOnlineOrders:
 * "Whether this location can fulfill online orders."; fulfillmentService: "Name of the service
 * provider that fulfills from this location", null for the merchant's own, its inventoryManagement
 * "Whether the fulfillment service tracks product inventory and provides updates to Shopify").
 */
interface LocationNode {
  id: string;
  name: string;
  isActive: boolean;
  fulfillsOnlineOrders: boolean;
  fulfillmentService: { serviceName: string; inventoryManagement: boolean } | null;
}
/**
 * The store's active locations (QueryRoot.locations lists active ones only unless includeInactive),
 * the legacy locations of fulfilment service apps included (includeLegacy: "Whether to include the
 * legacy locations of fulfillment services", false by default: a store selling online from such an
 * app's warehouse looked to Kontor as if it had no location doing so, or the stock there was never
 * seen by `elsewhereOutcome`), oldest first (sortKey ID: a store's first location is the one it was
 * opened with), 50 a page: 103 points requested in the sandbox's model (2 + 50 x 2 + pageInfo),
 * refunded to the few it holds.
 */
const locationsQuery = shopifyDocument(`query KontorLocations($first: Int!, $after: String) {
  locations(first: $first, after: $after, sortKey: ID, includeLegacy: true) { pageInfo { hasNextPage endCursor }
    nodes { id name isActive fulfillsOnlineOrders fulfillmentService { serviceName inventoryManagement } } } }`);
/** A location whose stock a fulfilment app reports to Shopify (its inventoryManagement): Kontor's count set there would be overwritten by the app's. */
const appKeepsStock = (l: LocationNode) => l.fulfillmentService?.inventoryManagement === true;
const accessScopesQuery = shopifyDocument('query KontorAccessScopes { currentAppInstallation { accessScopes { handle } } }');
/** Told at the import of an order with lines in no fulfillment order a token lacking thirdPartyScopes reads (linesInNoFulfillmentOrder). */
const unseenLinesNote = (lines: { name: string }[], apps: string[]) =>
  `${lines.map((l) => l.name).join(', ')}: in no fulfillment order Kontor may read, so taken as the seller's (they take stock here); ` +
  `the store may have routed them to ${[...new Set(apps)].join(', ')}, a fulfilment app that ships from the stock it keeps, whose fulfillment orders ` +
  `Shopify shows Kontor only with the access scope read_third_party_fulfillment_orders: connect the store again to grant it; ` +
  `if the app ships them, unlink them from their items and do not ship them`;
/** The store's first location as Kontor took it before `storeLocations` (rows of shopify_inventory_set without location, `knownAt`). */
const firstLocation = shopifyDocument('query KontorLocation { locations(first: 1) { nodes { id } } }');
const createProduct = shopifyDocument(`mutation KontorProductCreate($product: ProductCreateInput!) {
  productCreate(product: $product) { product { id variants(first: 1) { nodes { ${variantFields} } } } userErrors { field message } } }`);
const updateProduct = shopifyDocument(
  'mutation KontorProductUpdate($product: ProductUpdateInput!) { productUpdate(product: $product) { product { id } userErrors { field message } } }',
);
const updateVariants = shopifyDocument(`mutation KontorVariants($productId: ID!, $variants: [ProductVariantsBulkInput!]!) {
  productVariantsBulkUpdate(productId: $productId, variants: $variants) { productVariants { id } userErrors { field message } } }`);
/**
 * The set, and of each item it changed whether its quantity bounds the store's sales (unsold: fresh
 * on every push that moves it). Per version only the idempotency key differs (shopify-version.ts):
 * the 2025-01 document is registered for the schema check, the later one as a later document
 * (no schema file of those versions: shopify-documents.test.ts).
 */
const setQuantitiesIn = (version: ShopifyApiVersion) => {
  const { variable, directive } = idempotentParts(version);
  return `mutation KontorQuantities($input: InventorySetQuantitiesInput!${variable}) {
  inventorySetQuantities(input: $input)${directive} { inventoryAdjustmentGroup { id createdAt
    changes(quantityNames: ["available"]) { item { id tracked variant { inventoryPolicy } } } } userErrors { field message code } } }`;
};
const setQuantities = new Map(
  shopifyApiVersions.map((v) => [v, speaksChangeFrom(v) ? shopifyLaterDocument(setQuantitiesIn(v)) : shopifyDocument(setQuantitiesIn(v))]),
);
type InventoryChange = { item: { id: string; tracked: boolean; variant: { inventoryPolicy: string } | null } | null };
/**
 * The `available` quantity of inventory items at one location: measured with the sandbox's cost
 * model (requestedCost), 2 + 2 an item: 4 points for one, 102 for 50 (a page of 10 orders is 753).
 */
const inventoryLevelsQuery = shopifyDocument(`query KontorAvailable($first: Int!, $query: String!, $location: ID!) {
  inventoryItems(first: $first, query: $query) { nodes { id inventoryLevel(locationId: $location) { quantities(names: ["available"]) { name quantity } } } } }`);
/** What bounds the store's sales by an inventory item's quantity, read when the set's changes did not show it (`unboundedSales`). */
const inventorySettingsQuery = shopifyDocument(`query KontorInventorySettings($first: Int!, $query: String!) {
  inventoryItems(first: $first, query: $query) { nodes { id tracked variant { inventoryPolicy } } } }`);
const ordersQuery = shopifyDocument(`query KontorOrders($first: Int!, $after: String, $query: String) {
  orders(first: $first, after: $after, query: $query, sortKey: UPDATED_AT) { pageInfo { hasNextPage endCursor } nodes { ${orderFields} } } }`);
const orderListQuery = shopifyDocument(`query KontorOrderList($first: Int!, $after: String, $query: String) {
  orders(first: $first, after: $after, query: $query, sortKey: UPDATED_AT, reverse: true) { pageInfo { hasNextPage endCursor } nodes { id updatedAt } } }`);
/**
 * The store's fulfillment orders changed since a time (QueryRoot.fulfillmentOrders, "filtered
 * according to the fulfillment order access scopes granted to the app"; FulfillmentOrder.updatedAt
 * "last updated"), by their order: a move (fulfillmentOrderMove) changes the fulfillment orders,
 * while the contract does not say it changes Order.updatedAt, by which orders are listed
 * (movedOrders). 100 a page, about 2 points each.
 */
const changedFulfillmentOrdersQuery = shopifyDocument(`query KontorChangedFulfillmentOrders($first: Int!, $after: String, $query: String) {
  fulfillmentOrders(first: $first, after: $after, query: $query, sortKey: UPDATED_AT, reverse: true) { pageInfo { hasNextPage endCursor } nodes { orderId } } }`);
/** Pages of changed fulfillment orders read a fetch at most (movedOrders), newest first: 1,000, about 200 points. */
const changedFulfillmentOrderPages = 10;
const orderLinesQuery = shopifyDocument(`query KontorOrderLines($id: ID!, $after: String) {
  order(id: $id) { lineItems(first: 100, after: $after) { pageInfo { hasNextPage endCursor } nodes { ${lineFields} } } } }`);
type PageInfo = { hasNextPage: boolean; endCursor: string | null };
interface FulfillmentLines {
  pageInfo: PageInfo;
  nodes: FulfillmentOrderRead['lines'];
}
type FulfillmentOrderNode = Omit<FulfillmentOrderRead, 'lines'> & { lineItems: FulfillmentLines };
const fulfillmentLines = 'pageInfo { hasNextPage endCursor } nodes { id totalQuantity remainingQuantity sku lineItem { id } }';
/**
 * An order's fulfillment orders, 10 a page (one per location, or more: split, held, scheduled),
 * each with its first 50 lines: about 550 points a page, within the 1000 of one query.
 * displayable: true leaves out those "closed after being combined or moved" (appLines' holdsUnits),
 * which hold nothing to fulfil either.
 */
const fulfillmentOrdersQuery = shopifyDocument(`query KontorFulfillmentOrders($id: ID!, $after: String) { order(id: $id) { id
  fulfillmentOrders(first: 10, after: $after, displayable: true) { pageInfo { hasNextPage endCursor } nodes { id status fulfillAt
    assignedLocation { location { id fulfillmentService { serviceName inventoryManagement } } } fulfillmentHolds { reason } lineItems(first: 50) { ${fulfillmentLines} } } } } }`);
const openFulfillmentOrder = shopifyDocument(`mutation KontorFulfillmentOrderOpen($id: ID!) {
  fulfillmentOrderOpen(id: $id) { fulfillmentOrder { id status } userErrors { field message } } }`);
const fulfillmentOrderLinesQuery = shopifyDocument(`query KontorFulfillmentOrderLines($id: ID!, $after: String) { fulfillmentOrder(id: $id) {
  lineItems(first: 50, after: $after) { ${fulfillmentLines} } } }`);
const orderCancelledAt = shopifyDocument('query KontorOrderCancelled($id: ID!) { order(id: $id) { id cancelledAt } }');
const cancelOrder =
  shopifyDocument(`mutation KontorOrderCancel($orderId: ID!, $refund: Boolean!, $restock: Boolean!, $reason: OrderCancelReason!, $notifyCustomer: Boolean, $staffNote: String) {
  orderCancel(orderId: $orderId, refund: $refund, restock: $restock, reason: $reason, notifyCustomer: $notifyCustomer, staffNote: $staffNote) {
    job { id done } orderCancelUserErrors { field message code } } }`);
/**
 * A cancellation the store's token may not send (orderCancel "Requires `write_orders` access
 * scope"; a store connected before Kontor asked it, or a custom app's token without it). Decision:
 * fails for good (the same token is denied again) saying what the seller must do, as Kontor's order
 * is cancelled and its stock back already while the store's order stays open and its buyer is not
 * refunded: cancel it in Shopify's admin, and connect the store again so the next ones reach it.
 */
const cancelDenied = (orderId: string, err: ShopifyAccessDenied) =>
  portalRefused(
    `webshop (Shopify) did not cancel order ${orderId}: ${err.message}. The order stays open at the store and its buyer is not refunded there: ` +
      `cancel it in Shopify's admin (Kontor's order is cancelled and its stock back)`,
  );
/**
 * The store's collections of the categories' titles, each saying whether it holds the product
 * (Collection.hasProduct), a page of 50 at a time (2 + 50 x 2 points).
 */
const findCollections = shopifyDocument(`query KontorCollections($query: String!, $first: Int!, $after: String, $product: ID!) {
  collections(first: $first, after: $after, query: $query) { nodes { id title ruleSet { appliedDisjunctively } hasProduct(id: $product) } pageInfo { hasNextPage endCursor } } }`);
/** Pages of that search read at most (1,000 collections of the item's category titles): beyond, the listing is refused rather than a collection guessed. */
const collectionPages = 20;
const createCollection = shopifyDocument(
  `mutation KontorCollectionCreate($input: CollectionInput!) { collectionCreate(input: $input) { collection { id title } userErrors { field message } } }`,
);
const addToCollection = shopifyDocument(`mutation KontorCollectionAdd($id: ID!, $productIds: [ID!]!) {
  collectionAddProducts(id: $id, productIds: $productIds) { collection { id } userErrors { field message } } }`);
const createFulfillment = shopifyDocument(`mutation KontorFulfillment($fulfillment: FulfillmentInput!) {
  fulfillmentCreate(fulfillment: $fulfillment) { fulfillment { id status } userErrors { field message } } }`);
const fulfillmentsQuery = shopifyDocument(`query KontorFulfillments($id: ID!) { order(id: $id) { id
  fulfillments(first: 50) { id status trackingInfo(first: ${trackingInfoRead}) { number company url }
    location { id fulfillmentService { serviceName inventoryManagement } } } } }`);
/** A fulfilment app's fulfilment's lines, to name them in a refusal (trackingAddition's `apps`): 50 lines, some 100 points. */
const fulfillmentLinesQuery = shopifyDocument(`query KontorFulfillmentLines($id: ID!) { fulfillment(id: $id) { id
  fulfillmentLineItems(first: 50) { nodes { quantity lineItem { id sku name } } } } }`);
const updateTracking =
  shopifyDocument(`mutation KontorFulfillmentTracking($fulfillmentId: ID!, $trackingInfoInput: FulfillmentTrackingInput!, $notifyCustomer: Boolean) {
  fulfillmentTrackingInfoUpdate(fulfillmentId: $fulfillmentId, trackingInfoInput: $trackingInfoInput, notifyCustomer: $notifyCustomer) {
    fulfillment { id } userErrors { field message } } }`);

/**
 * Orders a page of a fetch: an order with its 30 lines costs about 75 points (753 the page in the
 * sandbox's model), so 10 a page stay within Shopify's 1000-point limit of one query (a page of
 * 50 would cost some 3400). Refunds are not on the page (20 refunds of 10 lines each would add
 * 263 an order): an order with refunded units has them read by a query of its own (order-refunds.ts).
 */
const orderPageSize = 10;
/** Orders listed a page (id and updatedAt only: about 2 points each, Shopify counts the node). */
const orderListPageSize = 100;
/** SKUs looked up in one productVariants query (Shopify's search joins them with OR). */
const lookupBatch = 50;

/**
 * The web shop's categories of an entry (Stock_webshop_type.category[]): names, trimmed, each once
 * (case ignored, as Shopify's title search), at most 50 (a product's collections read at once).
 */
function categoriesOf(group: Record<string, unknown>): string[] {
  const names = (Array.isArray(group.category) ? group.category : []).map((c) => String(c).trim()).filter((c) => c.length > 0 && c.length <= 255);
  const seen = new Set<string>();
  return names.filter((n) => !seen.has(n.toLowerCase()) && seen.add(n.toLowerCase())).slice(0, 50);
}

/**
 * The product's status (ProductStatus) from the shop entry's is_active (Stock_webshop_type), sent on
 * every list and revise: DRAFT "isn't ready to sell and is unavailable to customers on sales
 * channels", ACTIVE "is ready to sell" (absent: active). A revise used to send ACTIVE whatever the
 * entry said, so an item the seller had set inactive at the shop was on sale again after a change
 * of its title. **Decision:** a product the merchant ARCHIVED in Shopify is set by the entry too,
 * as the entry is the seller's word on whether the shop sells it.
 */
type ProductStatus = 'ACTIVE' | 'DRAFT';
const productStatus = (item: Pick<ListingItem, 'group'>): ProductStatus => (item.group.is_active === false ? 'DRAFT' : 'ACTIVE');

/** Shopify's search syntax quotes a value with double quotes; one inside is escaped. */
const quoted = (v: string) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/** Variants per store, remembered for the process (a variant gone at Shopify is looked up again). */
const variantsBySku = new Map<string, VariantNode>();
const storeKey = (s: ShopifySession) => `${s.target.portalAccountId}|${s.creds.endpoint}`;

/**
 * Orders read whole, per store and order, with the updatedAt they had: a fetch overlaps the one
 * before (10 minutes, lib/order-import), so most orders it lists were read before and have not
 * changed. Those are answered from here; only new or changed ones are read whole (about 68
 * points each against the store's 100 a second: a store of 10 sales a second would otherwise
 * read 6,000 orders per fetch). Process-local, the oldest dropped beyond 20,000 orders.
 */
/** null: a test order, read but not imported (fetchOrders). */
const ordersRead = new Map<string, { updatedAt: string; order: ChannelOrder | null }>();
const ordersReadMax = 20_000;
function rememberOrder(key: string, updatedAt: string, order: ChannelOrder | null): void {
  ordersRead.delete(key);
  if (ordersRead.size >= ordersReadMax) ordersRead.delete(ordersRead.keys().next().value!);
  ordersRead.set(key, { updatedAt, order });
}

/**
 * The units of each SKU an order took off the store's available quantity when it was placed
 * (`quantity`: as ordered), at Kontor's location: not the lines a fulfilment app ships (`byApp`),
 * whose units left the app's stock.
 */
function saleOf(order: ShopifyOrderNode, byApp: Map<string, string>): StoreSale {
  const units = new Map<string, number>();
  for (const l of order.lineItems.nodes) if (l.sku && !byApp.has(l.id)) units.set(l.sku, (units.get(l.sku) ?? 0) + l.quantity);
  return { orderId: legacyId(order.id), createdAt: order.createdAt, units };
}

/**
 * What to set when Shopify's `available` is not what Kontor expected (COMPARE_QUANTITY_STALE, from 2026-01 CHANGE_FROM_QUANTITY_STALE),
 * **decision (fail safe, never oversells):** lower than expected, the store sold units Kontor has
 * not read yet: Kontor's count less them (at least 0), since that count does not include them yet
 * (when the order comes in, Kontor's count falls and the next push compares against this set, so
 * nothing is taken off twice); higher (the merchant added stock there, a restock or edit Kontor
 * has not read): Kontor's count, the truth of what there is.
 */
export function staleTarget(target: number, expected: number, current: number): number {
  return current < expected ? Math.max(0, target - (expected - current)) : target;
}

/**
 * An item the store also sells online from another of its locations (active, fulfilling online
 * orders, `available` above 0; `stocked`): Shopify sells the sum of a variant's `available` over
 * such locations, so the store sells more than Kontor set at its own (`storeLocations`).
 * **Decision:** as for `setOutcome`, the quantity stays set and the item is refused naming those
 * locations and what to change, so the push is not counted done. Kontor does not empty another
 * location itself: what is there is the merchant's stock (a shop's shelf, a second warehouse),
 * which Kontor does not count. A negative `available` elsewhere (sold there beyond its stock) adds
 * nothing to sell and is left out. An item refused already (`setOutcome`) gets both reasons.
 */
export function elsewhereOutcome(
  outcome: QuantityOutcome,
  sku: string,
  quantity: number,
  at: string,
  stocked: { name: string; available: number }[],
): QuantityOutcome {
  if (stocked.length === 0) return outcome;
  const names = stocked.map((l) => l.name).join(', ');
  const message =
    `webshop (Shopify) set quantity ${quantity} of SKU ${sku} at the location ${at}, but the store also sells it online from ` +
    `${stocked.map((l) => `${l.name} (${l.available} available)`).join(', ')}: it can sell more than Kontor counts. ` +
    `Kontor keeps the web shop's stock at one location: set the variant's quantity to 0 at ${names}, or switch "Fulfill online orders from this location" off there, in Shopify.`;
  return {
    stockId: outcome.stockId,
    outcome: 'refused',
    message: outcome.outcome === 'refused' && outcome.message ? `${outcome.message} ${message}` : message,
  };
}

/**
 * Why the store sells the variant beyond the quantity Kontor set, or undefined when it does not:
 * an inventory item whose levels are not tracked (InventoryItem.tracked false), or a variant that
 * "Customers can buy ... after it's out of stock" (ProductVariant.inventoryPolicy CONTINUE).
 * Shopify takes the quantity of either without a userError (the schema names none), so the push
 * looked done while the store went on selling units sold elsewhere.
 */
export function unboundedSales(v: Pick<VariantNode, 'inventoryPolicy' | 'inventoryItem'>): string | undefined {
  const why = [
    ...(v.inventoryItem.tracked === false ? ['its inventory is not tracked ("Track quantity" is off)'] : []),
    ...(v.inventoryPolicy === 'CONTINUE' ? ['it keeps selling when out of stock (inventory policy CONTINUE, "Continue selling when out of stock")'] : []),
  ];
  return why.length ? why.join(' and ') : undefined;
}

/**
 * A quantity Shopify took: accepted, unless the store does not hold its sales to it (`unboundedSales`)
 * and CIA keeps the item's quantity there (`ciaActive`).
 * **Decision:** the quantity stays set (it is right the moment the merchant switches tracking on or
 * continue-selling off), and the item is refused with what to change, so that the push is not
 * counted done: the CIA state shows the message and the job fails for good naming it. Kontor does
 * not change the setting itself: selling on when out of stock (preorders, made to order) is the
 * merchant's choice, and such an item is not one CIA can keep from being sold twice. With CIA off
 * for the item at this store (a listing's `ListingItem.ciaActive` false) nothing counts on the
 * store stopping at the quantity, so it is accepted: the refusal's own advice ("or CIA off") works.
 */
function setOutcome(u: QuantityUpdate, sku: string, quantity: number, v: VariantNode, ciaActive: boolean): QuantityOutcome {
  const why = ciaActive ? unboundedSales(v) : undefined;
  if (!why) return { stockId: u.stockId, outcome: 'accepted' };
  return {
    stockId: u.stockId,
    outcome: 'refused',
    message:
      `webshop (Shopify) took quantity ${quantity} of SKU ${sku}, but the store does not stop selling at it: ${why}. ` +
      'Units sold elsewhere can be sold there again; switch "Track quantity" on and "Continue selling when out of stock" off for the variant in Shopify, or CIA off for the item at the web shop.',
  };
}

/**
 * The service's own web shop (Stock_webshop_type), document 1's `webshop` CIA key. A portal
 * account connected with `shopify` is a Shopify store reached through its Admin GraphQL API
 * (SHOPIFY_API_VERSION, default 2026-07, lib/portals/shopify/; README "webshop is a Shopify store"): a variant per
 * stock item addressed by SKU (created with its product when missing), quantities set with
 * inventorySetQuantities at the store's location, orders read by update time, shipments as
 * fulfilments with tracking. Any other target keeps the neutral JSON dialect of portal-http.ts.
 */
export class WebshopAdapter extends HttpPortalAdapter {
  readonly portal = 'webshop' as const;
  override readonly cia = { namedAccounts: false };
  override readonly fieldGroup = 'list' as const;
  /**
   * inventorySetQuantities refuses more (admin_schema_2025-01.json, InventorySetQuantitiesUserErrorCode
   * INVALID_QUANTITY_TOO_HIGH: "The total quantity can't be higher than 1,000,000,000"), and refuses
   * the whole call with it. The neutral dialect's shop takes the same cap (one adapter for both).
   */
  readonly maxQuantity = 1000000000;

  protected mapListing(item: ListingItem): Record<string, unknown> {
    const g = item.group;
    const prices = Array.isArray(g.price) ? g.price : [];
    return {
      shop_id: str(g, 'shop_id'),
      name: str(g, 'name', item.name),
      sku: str(g, 'sku', item.sku),
      ean: str(g, 'ean', item.ean),
      net_prices: prices,
      gross_price: item.price,
      quantity: item.quantityAvailable,
      active: g.is_active !== false,
      images: pictures(g),
    };
  }

  protected override checkLimits(p: Record<string, unknown>): void {
    if (!p.shop_id) throw portalInputError(this.portal, 'shop_id is required');
    if ((p.images as string[]).length > 12) throw portalInputError(this.portal, 'at most 12 pictures');
  }

  /** The item's variant (by SKU) updated, or its product created with it; then its quantity at the store's location. */
  override async list(target: PortalTarget, item: ListingItem, key: string): Promise<{ portalItemId: string }> {
    if (target.connector !== 'shopify') return super.list(target, item, key);
    const s = new ShopifySession(target);
    const data = variantData(item);
    const found = (await this.variants(s, [data.sku])).get(data.sku);
    const variant = found ?? (await this.createProduct(s, data, productStatus(item)));
    if (found) await this.updateProduct(s, variant.product.id, data.title, productStatus(item));
    await this.updateVariant(s, variant, data);
    await this.addToCollections(s, variant.product.id, categoriesOf(item.group));
    // A variant sold on when out of stock is refused only when CIA keeps the item's quantity here (absent: taken as kept).
    const outcome = (
      await this.setAt(
        target,
        [{ stockId: item.stockId, quantity: item.quantityAvailable, key, sku: data.sku, group: item.group }],
        key,
        item.ciaActive !== false,
      )
    )[0]!;
    if (outcome.outcome !== 'accepted') throw portalRefused(outcome.message);
    return { portalItemId: legacyId(variant.id) };
  }

  /** Title, status (the entry's is_active), SKU, barcode, prices and weight of the item's variant (found by SKU): all of them, whichever values were named. */
  override async revise(target: PortalTarget, item: ListingItem, portalItemId: string, values: string[], key: string): Promise<void> {
    if (target.connector !== 'shopify') return super.revise(target, item, portalItemId, values, key);
    const s = new ShopifySession(target);
    const data = variantData(item);
    const variant = (await this.variants(s, [data.sku])).get(data.sku);
    if (!variant) throw portalRefused(`webshop: the Shopify store has no variant with SKU ${data.sku}; list it first`);
    await this.updateProduct(s, variant.product.id, data.title, productStatus(item));
    await this.updateVariant(s, variant, data);
    await this.addToCollections(s, variant.product.id, categoriesOf(item.group));
  }

  /** Ending hides the product (status DRAFT): its orders and history stay in the store; listing it again makes it ACTIVE. */
  override async end(
    target: PortalTarget,
    stockId: number,
    portalItemId: string | null,
    key: string,
    item?: Pick<ListingItem, 'sku' | 'group'>,
  ): Promise<void> {
    if (target.connector !== 'shopify') return super.end(target, stockId, portalItemId, key);
    const s = new ShopifySession(target);
    const sku = skuOf({ stockId, sku: item?.sku ?? null, group: item?.group ?? {} });
    const variant = (await this.variants(s, [sku])).get(sku);
    if (!variant) return;
    const answer = await s.call<{ productUpdate: { userErrors: UserErrors } }>(updateProduct, { product: { id: variant.product.id, status: 'DRAFT' } });
    refuseUserErrors(`ending the product of SKU ${sku}`, answer.productUpdate.userErrors);
  }

  /**
   * CIA with compare-and-set (README "CIA with compare-and-set"): the batch's variants (remembered,
   * else one productVariants query for up to 50), then one inventorySetQuantities of all of them at
   * the store's location, name `available`, each with `compareQuantity` (from 2026-01 `changeFromQuantity`) = what Kontor knows the
   * store to hold (shopify_inventory_set: what it last set, less the store's sales it has read
   * since; for an item never set, the store's quantity read first). Shopify applies such a call
   * whole or not at all. COMPARE_QUANTITY_STALE (CHANGE_FROM_QUANTITY_STALE): the store's quantity moved without Kontor; the
   * named items' `available` is read (one inventoryItems query) and sent again with it as the
   * compare quantity, lowered by what the store sold that Kontor has not read (`staleTarget`).
   * Other items its userErrors name are refused (retried when the inventory item is gone, looked
   * up again then), the rest sent again without them. An item without a variant is refused: list it first.
   */
  override async setQuantities(target: PortalTarget, updates: QuantityUpdate[], key: string): Promise<QuantityOutcome[]> {
    if (target.connector !== 'shopify') return super.setQuantities(target, updates, key);
    // A CIA push: each item's quantity is CIA's to keep (CIA off pushes nothing).
    return this.setAt(target, updates, key, true);
  }

  /** setQuantities at a Shopify store; `ciaActive`: CIA keeps these items' quantities here (`setOutcome`). */
  private async setAt(target: PortalTarget, updates: QuantityUpdate[], key: string, ciaActive: boolean): Promise<QuantityOutcome[]> {
    const s = new ShopifySession(target);
    const version = s.creds.version;
    const { at, others } = await this.storeLocations(s);
    const location = at.id;
    const skus = updates.map((u) => skuOf({ stockId: u.stockId, sku: u.sku, group: u.group }));
    const variants = await this.variants(s, skus);
    const outcomes = new Map<number, QuantityOutcome>();
    const found = updates.flatMap((u, i) => {
      const v = variants.get(skus[i]!);
      if (!v) {
        outcomes.set(u.stockId, {
          stockId: u.stockId,
          outcome: 'refused',
          message: `webshop: the Shopify store has no variant with SKU ${skus[i]}; list the item first`,
        });
        return [];
      }
      return [{ u, v, sku: skus[i]! }];
    });
    const { sent, clashes } = lowestPerListing(found, (p) => p.v.inventoryItem.id, 'webshop (Shopify)');
    for (const clash of clashes) outcomes.set(clash.stockId, clash);
    const itemIds = sent.map((p) => p.v.inventoryItem.id);
    const known = await this.knownAt(s, location, await shopifyInventoryRepository.known(target.portalAccountId, itemIds));
    // An item Kontor never set here: the store's quantity now is what it compares against (decision: no ignoreCompareQuantity, which is per call).
    const unknown = itemIds.filter((id) => !known.has(id));
    const read = unknown.length ? await this.availableAt(s, location, unknown) : new Map<string, number>();
    let pending = sent.map((p) => {
      const id = p.v.inventoryItem.id;
      const expected = known.get(id) ?? read.get(id) ?? 0;
      const want = Math.max(0, p.u.quantity);
      return { ...p, expected, compare: expected, quantity: want };
    });
    // Rounds: a stale compare quantity read and sent again, other refusals left out; a store selling the same item again in between is stale once more.
    for (let round = 0; pending.length > 0 && round < 4; round++) {
      const answer = await s.call<{
        inventorySetQuantities: {
          inventoryAdjustmentGroup: { createdAt: string; changes: InventoryChange[] } | null;
          userErrors: (UserErrors[number] & { code?: string | null })[];
        };
      }>(
        setQuantities.get(version)!,
        idempotentVariables(version, setQuantities.get(version)!, {
          input: {
            name: 'available',
            reason: 'correction',
            referenceDocumentUri: `kontor://cia/${encodeURIComponent(key)}`,
            // The quantity Kontor expects the store to hold: compareQuantity, or changeFromQuantity from 2026-01 (shopify-version.ts).
            quantities: pending.map((p) => ({
              inventoryItemId: p.v.inventoryItem.id,
              locationId: location,
              quantity: p.quantity,
              ...quantityCompare(version, p.compare),
            })),
          },
        }),
      );
      const errors = answer.inventorySetQuantities.userErrors;
      if (errors.length === 0) {
        await shopifyInventoryRepository.recordSet(
          target.portalAccountId,
          location,
          pending.map((p) => ({ inventoryItemId: p.v.inventoryItem.id, sku: p.sku, quantity: p.quantity })),
          answer.inventorySetQuantities.inventoryAdjustmentGroup?.createdAt ?? new Date().toISOString(),
        );
        // The items it changed show their settings as they are now (a variant remembered from an earlier push may have changed since).
        const fresh = new Set<string>();
        const settle = (item: InventoryChange['item']) => {
          const p = item && pending.find((x) => x.v.inventoryItem.id === item.id);
          if (!p || !item) return;
          p.v.inventoryItem.tracked = item.tracked;
          if (item.variant) p.v.inventoryPolicy = item.variant.inventoryPolicy;
          fresh.add(item.id);
        };
        for (const c of answer.inventorySetQuantities.inventoryAdjustmentGroup?.changes ?? []) settle(c.item);
        // An item the set did not move (the store held the quantity already: a refused push, or an
        // earlier push, set it) is not in changes, and the settings the process remembered may be
        // old either way: refused on them, it stayed refused after the merchant switched as told;
        // counted done on them, a variant the merchant switched to continue selling since it was
        // remembered was counted done. Such items alone are read once more.
        const doubtful = pending.filter((p) => ciaActive && !fresh.has(p.v.inventoryItem.id)).map((p) => p.v.inventoryItem.id);
        for (const item of doubtful.length ? await this.inventorySettings(s, doubtful) : []) settle(item);
        for (const p of pending) outcomes.set(p.u.stockId, setOutcome(p.u, p.sku, p.quantity, p.v, ciaActive));
        // Stock the store sells online from elsewhere: read only when it has another such location (none: no call)
        // and CIA keeps these items' quantities here (CIA off: nothing counts on the store selling no more than set, as in `setOutcome`).
        const ids = pending.map((p) => p.v.inventoryItem.id);
        const elsewhere = ciaActive && others.length ? await this.stockedElsewhere(s, others, ids) : new Map<string, never[]>();
        for (const p of pending)
          outcomes.set(p.u.stockId, elsewhereOutcome(outcomes.get(p.u.stockId)!, p.sku, p.quantity, at.name, elsewhere.get(p.v.inventoryItem.id) ?? []));
        pending = [];
        break;
      }
      const named = new Set<number>();
      const stale = new Set<number>();
      for (const e of errors) {
        const index = e.field && e.field[1] === 'quantities' ? Number(e.field[2]) : NaN;
        const p = Number.isInteger(index) ? pending[index] : undefined;
        if (!p) continue;
        if (e.code && staleQuantityCodes.has(e.code)) {
          stale.add(index);
          continue;
        }
        named.add(index);
        variantsBySku.delete(`${storeKey(s)}|${p.sku}`);
        // An inventory item Shopify no longer has (the variant deleted there): forgotten, retried; the next push looks the SKU up again.
        outcomes.set(p.u.stockId, {
          stockId: p.u.stockId,
          outcome: e.code === 'INVALID_INVENTORY_ITEM' ? 'retry' : 'refused',
          message: `webshop (Shopify) refused the quantity of SKU ${p.sku}: ${e.message}`,
        });
      }
      // An error naming no item (the location, the call): nothing was applied; the whole batch is tried again later.
      if (named.size === 0 && stale.size === 0) break;
      for (const i of named) stale.delete(i);
      if (stale.size > 0) {
        const now = await this.availableAt(
          s,
          location,
          [...stale].map((i) => pending[i]!.v.inventoryItem.id),
        );
        for (const i of stale) {
          const p = pending[i]!;
          const current = now.get(p.v.inventoryItem.id) ?? 0;
          p.quantity = staleTarget(Math.max(0, p.u.quantity), p.expected, current);
          p.compare = current;
        }
      }
      pending = pending.filter((_p, i) => !named.has(i));
    }
    for (const p of pending)
      if (!outcomes.has(p.u.stockId))
        outcomes.set(p.u.stockId, { stockId: p.u.stockId, outcome: 'retry', message: `webshop (Shopify) did not take the quantity of SKU ${p.sku}` });
    return updates.map((u) => outcomes.get(u.stockId)!);
  }

  /** The `available` quantity of these inventory items at the location, 50 to a query (an item not stocked there: absent). */
  /** Whether these inventory items bound the store's sales now (tracked, their variant's inventoryPolicy), 50 to a query. */
  private async inventorySettings(s: ShopifySession, inventoryItemIds: string[]): Promise<InventoryChange['item'][]> {
    const out: InventoryChange['item'][] = [];
    for (let i = 0; i < inventoryItemIds.length; i += lookupBatch) {
      const chunk = inventoryItemIds.slice(i, i + lookupBatch);
      const answer = await s.call<{ inventoryItems: { nodes: NonNullable<InventoryChange['item']>[] } }>(inventorySettingsQuery, {
        first: chunk.length,
        query: chunk.map((id) => `id:${legacyId(id)}`).join(' OR '),
      });
      out.push(...answer.inventoryItems.nodes);
    }
    return out;
  }

  /**
   * What Kontor set at this location, of what it knows it set (`shopifyInventoryRepository.known`):
   * the compare quantity of a push. A quantity set at another location is none here: the location
   * Kontor sets at can change (`storeLocations`), and compared against the new one's `available`
   * it read as store sales Kontor had not imported (`staleTarget`), lowering Kontor's count there
   * (set 5 at a first location now a pickup counter, a new warehouse holding 0: 0 set for a count
   * of 4, counted done). Such an item is read as one never set. A row without location (set
   * before it was recorded) was set at the store's first location as `locations(first: 1)` named
   * it: asked only when such a row is there.
   */
  private async knownAt(s: ShopifySession, location: string, rows: Map<string, { quantity: number; locationId: string | null }>): Promise<Map<string, number>> {
    const legacy = [...rows.values()].some((r) => r.locationId === null)
      ? (await s.call<{ locations: { nodes: { id: string }[] } }>(firstLocation)).locations.nodes[0]?.id
      : undefined;
    const out = new Map<string, number>();
    for (const [id, r] of rows) if ((r.locationId ?? legacy) === location) out.set(id, r.quantity);
    return out;
  }

  /** Per inventory item, the other locations it has `available` above 0 at: one `availableAt` per location (102 points for 50 items). */
  private async stockedElsewhere(
    s: ShopifySession,
    others: LocationNode[],
    inventoryItemIds: string[],
  ): Promise<Map<string, { name: string; available: number }[]>> {
    const out = new Map<string, { name: string; available: number }[]>();
    for (const l of others)
      for (const [id, available] of await this.availableAt(s, l.id, inventoryItemIds))
        if (available > 0) out.set(id, [...(out.get(id) ?? []), { name: l.name, available }]);
    return out;
  }

  private async availableAt(s: ShopifySession, location: string, inventoryItemIds: string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (let i = 0; i < inventoryItemIds.length; i += lookupBatch) {
      const chunk = inventoryItemIds.slice(i, i + lookupBatch);
      const answer = await s.call<{ inventoryItems: { nodes: { id: string; inventoryLevel: { quantities: { name: string; quantity: number }[] } | null }[] } }>(
        inventoryLevelsQuery,
        { first: chunk.length, query: chunk.map((id) => `id:${legacyId(id)}`).join(' OR '), location },
      );
      for (const n of answer.inventoryItems.nodes) {
        const available = n.inventoryLevel?.quantities.find((q) => q.name === 'available');
        if (available) out.set(n.id, available.quantity);
      }
    }
    return out;
  }

  /**
   * send_mit: the order's fulfillment orders read whole (every page, every line), the shipment
   * planned over them (shopify/fulfillment-plan.ts: by status, one fulfillmentCreate per assigned
   * location), due SCHEDULED ones opened, then one fulfilment per location with the package's
   * tracking number and carrier. Lines of ON_HOLD fulfillment orders are not sent: the call fails
   * retryable and waiting (`portalWaiting`, waitsFor `fulfillment_hold`) naming them after the
   * rest went out; send_mit waits for the release (lib/order send-mit-hold.ts), and the next try
   * sends only what still remains. Nothing left to fulfil and a tracking number given (a code
   * sent after the order was fulfilled without one, a second package's code): the number is added
   * to the order's fulfilment (shopify/fulfillment-plan.ts trackingAddition), so it reaches the
   * buyer instead of being dropped while the send says ok.
   */
  override async markShipped(target: PortalTarget, shipment: Shipment, key: string): Promise<void> {
    if (target.connector !== 'shopify') return super.markShipped(target, shipment, key);
    const s = new ShopifySession(target);
    const orderId = shipment.externalOrderId ?? shipment.orderId;
    if (!/^\d+$/.test(orderId)) throw portalInputError(this.portal, `order ${shipment.orderId} has no Shopify order id`);
    const all = await this.fulfillmentOrders(s, orderId);
    // A fulfilment app's fulfillment orders are the app's to fulfil from its stock (appService): never Kontor's.
    const orders = all.filter((fo) => appService(fo) === undefined);
    const wanted = new Map((shipment.lines ?? []).map((l) => [l.transactionId, l.quantity]));
    const plan = planShipment(orders, wanted, new Date());
    const appsOnly = plan.byLocation.length === 0 && plan.held.length === 0 ? appsLinesMessage(orderId, all, wanted) : undefined;
    if (appsOnly) throw portalRefused(appsOnly);
    if (plan.byLocation.length === 0 && plan.held.length === 0 && shipment.trackingCode)
      return this.addTracking(s, orderId, shipment.trackingCode, shipment.carrier, shipment.trackingUrl);
    for (const id of plan.open) {
      const opened = await s.call<{ fulfillmentOrderOpen: { userErrors: UserErrors } }>(openFulfillmentOrder, { id });
      refuseUserErrors(`opening the scheduled fulfillment order ${legacyId(id)} of order ${orderId}`, opened.fulfillmentOrderOpen.userErrors);
    }
    // The carrier as Shopify lists it ("dpdp" is DPD); one it does not list goes without a company,
    // the number with Kontor's tracking URL of it (tracking-company.ts).
    const company = shopifyTrackingCompany(shipment.carrier);
    const tracking = shipment.trackingCode
      ? {
          number: shipment.trackingCode,
          ...(company ? { company } : {}),
          ...(shipment.trackingUrl ? { url: shipment.trackingUrl } : {}),
        }
      : undefined;
    const refused: string[] = [];
    for (const batch of plan.byLocation) {
      try {
        await this.createFulfillment(s, orderId, batch.groups, tracking);
      } catch (err) {
        // Another location's fulfilment is still sent: a refusal here does not hold back a parcel that left elsewhere.
        if (!isPermanent(err)) throw err;
        refused.push((err as Error).message);
      }
    }
    const held = plan.held.length ? heldMessage(orderId, plan.held) : '';
    if (refused.length) throw portalRefused([...refused, held].filter(Boolean).join('; ').slice(0, 1500));
    // Waiting, not failing: a hold is the store's (a fraud or payment app's, the merchant's) to lift, and may last days.
    if (held) throw portalWaiting(held, 'fulfillment_hold');
  }

  /** One fulfillmentCreate: fulfillment orders of one location, with the shipment's tracking. */
  private async createFulfillment(
    s: ShopifySession,
    orderId: string,
    groups: FulfillmentGroup[],
    tracking: { number: string; company?: string; url?: string } | undefined,
  ) {
    const created = await s.call<{ fulfillmentCreate: { userErrors: UserErrors } }>(createFulfillment, {
      fulfillment: { lineItemsByFulfillmentOrder: groups, notifyCustomer: true, ...(tracking ? { trackingInfo: tracking } : {}) },
    });
    refuseUserErrors(`the fulfilment of order ${orderId}`, created.fulfillmentCreate.userErrors);
  }

  /** A tracking number for an order fulfilled already: added to its fulfilment (fulfillmentTrackingInfoUpdate), or refused naming why. */
  private async addTracking(s: ShopifySession, orderId: string, number: string, carrier: string | undefined, url: string | undefined): Promise<void> {
    const read = await s.call<{ order: { fulfillments: FulfillmentRead[] } | null }>(fulfillmentsQuery, { id: `gid://shopify/Order/${orderId}` });
    if (!read.order) throw await this.noOrder(s, orderId);
    const addition = trackingAddition(read.order.fulfillments, number, carrier, url);
    if (addition.action === 'none') return;
    if (addition.action === 'refuse') throw portalRefused(`webshop (Shopify) order ${orderId}: ${addition.message}`);
    if (addition.action === 'apps') throw portalRefused(await this.appsFulfilmentsMessage(s, orderId, number, addition.fulfillments));
    const updated = await s.call<{ fulfillmentTrackingInfoUpdate: { userErrors: UserErrors } }>(updateTracking, {
      fulfillmentId: addition.fulfillmentId,
      // The whole tracking: the update replaces it, so the URLs kept are sent again with their numbers.
      trackingInfoInput: {
        numbers: addition.numbers,
        ...(addition.urls.length ? { urls: addition.urls } : {}),
        ...(addition.company ? { company: addition.company } : {}),
      },
      notifyCustomer: true,
    });
    refuseUserErrors(`the tracking number ${number} of order ${orderId}`, updated.fulfillmentTrackingInfoUpdate.userErrors);
  }

  /**
   * The refusal of a tracking number for an order whose only fulfilments a fulfilment app made
   * (trackingAddition `apps`), naming their lines and the app: the parcel is the app's, Kontor sent
   * nothing (decision, found by a reviewer of a424004: the number was added to the app's fulfilment
   * and its buyer notified, when the app's lines were fulfilled or the token could not see them).
   */
  private async appsFulfilmentsMessage(s: ShopifySession, orderId: string, number: string, fulfillments: { id: string; app: string }[]): Promise<string> {
    const parts: string[] = [];
    for (const f of fulfillments) {
      const read = await s.call<{
        fulfillment: { fulfillmentLineItems: { nodes: { quantity: number; lineItem: { id: string; sku: string | null; name: string } }[] } } | null;
      }>(fulfillmentLinesQuery, { id: f.id });
      const lines = (read.fulfillment?.fulfillmentLineItems.nodes ?? []).map((l) => `${l.quantity} x ${l.lineItem.sku ?? l.lineItem.name}`);
      parts.push(`${lines.length ? lines.join(', ') : `fulfilment ${legacyId(f.id)}`} fulfilled by ${f.app}`);
    }
    return (
      `webshop (Shopify) order ${orderId}: nothing of the seller's is left to fulfil, and the store's fulfilments are a fulfilment app's: ${parts.join('; ')}, ` +
      `which ships from the stock it keeps; ${number} is not added to the app's parcel (Kontor fulfils only the lines at the seller's locations)`
    );
  }

  /** Every fulfillment order of the order, page by page, each with all its lines (only the first 5 were read, so a sixth location's lines were never sent). */
  private async fulfillmentOrders(s: ShopifySession, orderId: string): Promise<FulfillmentOrderRead[]> {
    const out: FulfillmentOrderRead[] = [];
    let after: string | null = null;
    do {
      const answer: { order: { fulfillmentOrders: { pageInfo: PageInfo; nodes: FulfillmentOrderNode[] } } | null } = await s.call(fulfillmentOrdersQuery, {
        id: `gid://shopify/Order/${orderId}`,
        after,
      });
      if (!answer.order) throw await this.noOrder(s, orderId);
      for (const { lineItems, ...fo } of answer.order.fulfillmentOrders.nodes) out.push({ ...fo, lines: await this.allLines(s, fo.id, lineItems) });
      const page = answer.order.fulfillmentOrders.pageInfo;
      after = page.hasNextPage ? page.endCursor : null;
    } while (after);
    return out;
  }

  /** Every line of a fulfillment order: an order of more than a page of lines was fulfilled in part, silently. */
  private async allLines(s: ShopifySession, id: string, first: FulfillmentLines): Promise<FulfillmentLines['nodes']> {
    const lines = [...first.nodes];
    for (let page = first.pageInfo; page.hasNextPage;) {
      const more = await s.call<{ fulfillmentOrder: { lineItems: FulfillmentLines } | null }>(fulfillmentOrderLinesQuery, { id, after: page.endCursor });
      if (!more.fulfillmentOrder) break;
      lines.push(...more.fulfillmentOrder.lineItems.nodes);
      page = more.fulfillmentOrder.lineItems.pageInfo;
    }
    return lines;
  }

  /**
   * A seller's cancellation in Kontor, at the store: `orderCancel` (lib/order/order-channel-cancel.*).
   * An order the store already shows cancelled is left (a retry, or cancelled there first).
   * **Decisions:** `restock: false`, Kontor's stock is the truth and its CIA push sets the store's
   * quantity after the cancellation (a restock at Shopify as well would count the units twice until
   * that push lands); `refund: true`, the buyer paid at the store and gets the money back the way
   * Shopify's own cancel dialog does by default; `notifyCustomer: true`; reason `OTHER` (Kontor
   * keeps no reason); the staff note names the Kontor order. Shopify cancels in a background job
   * and cannot undo it: a cancellation undone in Kontor later is not undone at the store. A token
   * without write_orders is denied (`cancelDenied`: the refusal names the scope and what to do).
   */
  async cancelOrder(target: PortalTarget, externalOrderId: string, staffNote: string): Promise<void> {
    if (target.connector !== 'shopify') throw portalInputError(this.portal, 'orders are cancelled at portal accounts connected with shopify');
    if (!/^\d+$/.test(externalOrderId)) throw portalInputError(this.portal, `${externalOrderId} is no Shopify order id`);
    const s = new ShopifySession(target);
    const orderId = `gid://shopify/Order/${externalOrderId}`;
    const found = await s.call<{ order: { id: string; cancelledAt: string | null } | null }>(orderCancelledAt, { id: orderId });
    if (!found.order) throw await this.noOrder(s, externalOrderId);
    if (found.order.cancelledAt) return;
    const answer = await s
      .call<{ orderCancel: { orderCancelUserErrors: UserErrors } }>(cancelOrder, {
        orderId,
        refund: true,
        restock: false,
        reason: 'OTHER',
        notifyCustomer: true,
        staffNote,
      })
      .catch((err: unknown) => {
        throw err instanceof ShopifyAccessDenied ? cancelDenied(externalOrderId, err) : err;
      });
    refuseUserErrors(`the cancellation of order ${externalOrderId}`, answer.orderCancel.orderCancelUserErrors);
  }

  /**
   * Orders updated since a time, newest change first: listed 100 a page by id and updatedAt (the
   * cursor is Shopify's), and only those not read whole before at that updatedAt read whole, 10 to
   * a query (`id:N OR id:M`, Shopify's order search), the rest answered from that read. Newest
   * first, as Kaufland's: a fetch overlaps the one before by 10 minutes, and oldest first put the
   * new sales on its last page, behind every order of the overlap; an order changed during the
   * fetch moves to the front, where the next fetch (from this one's start) reads it.
   */
  async fetchOrders(target: PortalTarget, modifiedSince: Date, cursor: string | null): Promise<ChannelOrderPage> {
    if (target.connector !== 'shopify') throw portalInputError(this.portal, 'orders are fetched from portal accounts connected with shopify');
    const s = new ShopifySession(target);
    const listed = await s.call<{ orders: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: { id: string; updatedAt: string }[] } }>(
      orderListQuery,
      { first: fetchPageSize(orderListPageSize), after: cursor, query: `updated_at:>='${modifiedSince.toISOString()}'` },
    );
    const key = (id: string) => `${storeKey(s)}|${id}`;
    const changed = listed.orders.nodes.filter((n) => ordersRead.get(key(n.id))?.updatedAt !== n.updatedAt);
    const sales: StoreSale[] = [];
    // A store with a location whose fulfilment app keeps the stock: each order read has its
    // fulfillment orders read too, to tell the lines the app ships (appLines); other stores need no
    // more. Only a token granted thirdPartyScopes is shown the app's fulfillment orders (accessScopes).
    // The fetch's first page also reads again the orders whose fulfillment orders changed since
    // (movedOrders): a line moved to or from an app's location, whatever Order.updatedAt says.
    const apps = changed.length || cursor === null ? await this.appKeptLocations(s) : [];
    const moved = apps.length && cursor === null ? await this.movedOrders(s, modifiedSince) : [];
    // Read whole again even when listed at the updatedAt read before (a move need not change it).
    const stale = [...changed, ...moved.filter((id) => !changed.some((n) => n.id === id)).map((id) => ({ id }))];
    const listedIds = new Set(listed.orders.nodes.map((n) => n.id));
    const seesApps = apps.length && stale.length ? await this.seesAppsFulfillmentOrders(s) : true;
    for (let i = 0; i < stale.length; i += orderPageSize) {
      const chunk = stale.slice(i, i + orderPageSize);
      const answer = await s.call<{ orders: { nodes: ShopifyOrderNode[] } }>(ordersQuery, {
        first: chunk.length,
        query: chunk.map((n) => `id:${legacyId(n.id)}`).join(' OR '),
      });
      for (const order of answer.orders.nodes) {
        await this.readAllLines(s, order);
        // Refunds only of orders with refunded units (few): whether those units came back (order-refunds.ts).
        const restocks = hasRefundedUnits(order.lineItems.nodes) ? restockedUnits(await refundLines(s, order.id)) : undefined;
        // A test checkout (Order.test: "made using the Shopify Bogus Gateway or a payment provider
        // with test mode enabled", never converted into a real order) is no sale: it is not
        // imported, so it takes no stock in Kontor (which CIA would take off every channel), gets
        // no invoice number and no paid event (decision, README). Its units are still counted as
        // the store's sale below, as the store's available fell with it like any order's; were it
        // not to, the compare-and-set's higher-than-expected path sends Kontor's count (the truth).
        // Exact line totals and taxes only of orders that need them (order-amounts.ts): a discount
        // spread over units, a net-price store's taxes, a tax-included order of several rates.
        const amounts = order.test ? undefined : await readOrderLineAmounts(s, order);
        const fulfillmentOrders = apps.length && !order.test ? await this.fulfillmentOrders(s, legacyId(order.id)) : undefined;
        const byApp = fulfillmentOrders && seesApps ? appLines(order.lineItems.nodes, fulfillmentOrders) : new Map<string, string>();
        const bySeller = fulfillmentOrders && seesApps ? sellerLines(order.lineItems.nodes, fulfillmentOrders) : undefined;
        const mapped = order.test ? null : channelOrder(order, restocks, amounts, byApp, bySeller);
        // Without the scope the app's fulfillment orders are not shown, and a line in none read cannot
        // be told from one not routed yet: the seller's, and the seller is told (decision, README).
        const unseen = fulfillmentOrders && !seesApps ? linesInNoFulfillmentOrder(order.lineItems.nodes, fulfillmentOrders) : [];
        if (mapped && unseen.length) mapped.import_notes = [unseenLinesNote(unseen, apps)];
        rememberOrder(key(order.id), order.updatedAt, mapped);
        if (!order.cancelledAt) sales.push(saleOf(order, byApp));
      }
    }
    // The store took these units off `available` when each order was placed: what Kontor knows it to hold falls with them (once per order).
    await shopifyInventoryRepository.countSales(target.portalAccountId, sales);
    // An order listed but not read (deleted in between) is left out: the next fetch lists it again if it is still there.
    const orders = [...listedIds, ...moved.filter((id) => !listedIds.has(id))].flatMap((id) => {
      const read = ordersRead.get(key(id))?.order;
      return read ? [structuredClone(read)] : [];
    });
    return { orders, next: listed.orders.pageInfo.hasNextPage ? listed.orders.pageInfo.endCursor : null };
  }

  /**
   * Whether the token is granted a scope that shows the fulfillment orders of fulfilment services'
   * locations (thirdPartyScopes), as the store says ("The access scopes granted to the application by
   * a merchant during installation", AppInstallation.accessScopes): a store connected before Kontor
   * asked it, or a custom app's token, may lack it.
   */
  private async seesAppsFulfillmentOrders(s: ShopifySession): Promise<boolean> {
    return (await this.accessScopes(s)).some((handle) => thirdPartyScopes.includes(handle));
  }

  /** The access scopes the store granted the token (AppInstallation.accessScopes). */
  private async accessScopes(s: ShopifySession): Promise<string[]> {
    const answer = await s.call<{ currentAppInstallation: { accessScopes: { handle: string }[] } }>(accessScopesQuery, {});
    return answer.currentAppInstallation.accessScopes.map((a) => a.handle);
  }

  /**
   * The refusal of an order the store does not show (QueryRoot.order null). Order: "Only the last
   * 60 days' worth of orders from a store are accessible from the `Order` object by default", older
   * ones only with the access scope `read_all_orders`, which Kontor does not ask (decision, README:
   * Shopify grants it a public app only on request). A send_mit of made-to-order goods, a tracking
   * number or a cancellation after 60 days was refused as "has no order", which sent the seller
   * looking for a deleted order; a token without the scope is told why and what to do.
   */
  private async noOrder(s: ShopifySession, orderId: string): Promise<Error> {
    if ((await this.accessScopes(s)).includes('read_all_orders')) return portalRefused(`webshop: the Shopify store has no order ${orderId}`);
    return portalRefused(
      `webshop: the Shopify store shows Kontor no order ${orderId}: it has none, or the order is older than 60 days, which Shopify shows an app only ` +
        'with the access scope read_all_orders ("Only the last 60 days\' worth of orders from a store are accessible ... by default"); ' +
        "do this one in Shopify's admin, or connect the store with a token granted read_all_orders",
    );
  }

  /**
   * The orders (ids) whose fulfillment orders changed since the time (changedFulfillmentOrdersQuery),
   * found by a reviewer of ea9c996: a424004 saw a line moved to a fulfilment app only if the move
   * changed Order.updatedAt, which the contract does not say, so a line the store gave ShipBob kept
   * its stock until the order changed otherwise. FULFILLMENT_ORDERS_MOVED ("Occurs whenever the
   * location which is assigned to fulfill one or more fulfillment order line items is changed") would
   * tell it as well but is not subscribed: its delivery would queue this same fetch, which would not
   * find the order by its updatedAt either. Read only in stores with an app-kept location (the
   * caller), newest first, changedFulfillmentOrderPages at most: beyond 1,000 fulfillment orders
   * changed within one fetch's window the oldest are not read again this way (seen at their order's next change).
   */
  private async movedOrders(s: ShopifySession, since: Date): Promise<string[]> {
    const out = new Set<string>();
    let after: string | null = null;
    for (let page = 0; page < changedFulfillmentOrderPages; page++) {
      const answer: { fulfillmentOrders: { pageInfo: PageInfo; nodes: { orderId: string }[] } } = await s.call(changedFulfillmentOrdersQuery, {
        first: 100,
        after,
        query: `updated_at:>='${since.toISOString()}'`,
      });
      for (const n of answer.fulfillmentOrders.nodes) out.add(n.orderId);
      if (!answer.fulfillmentOrders.pageInfo.hasNextPage) break;
      after = answer.fulfillmentOrders.pageInfo.endCursor;
    }
    return [...out];
  }

  /** The names of the store's locations whose fulfilment app keeps the stock (appKeepsStock). */
  private async appKeptLocations(s: ShopifySession): Promise<string[]> {
    return (await this.locationsOf(s)).filter(appKeepsStock).map((l) => l.fulfillmentService!.serviceName);
  }

  /** Every location of the store (locationsQuery), page by page. */
  private async locationsOf(s: ShopifySession): Promise<LocationNode[]> {
    const out: LocationNode[] = [];
    let after: string | null = null;
    do {
      const answer: { locations: { pageInfo: PageInfo; nodes: LocationNode[] } } = await s.call(locationsQuery, { first: 50, after });
      out.push(...answer.locations.nodes);
      after = answer.locations.pageInfo.hasNextPage ? answer.locations.pageInfo.endCursor : null;
    } while (after);
    return out;
  }

  /** The lines of an order past the first 30 the page carried: the order's own line paging, 100 at a time. */
  private async readAllLines(s: ShopifySession, order: ShopifyOrderNode): Promise<void> {
    let info = order.lineItems.pageInfo;
    while (info?.hasNextPage) {
      const more = await s.call<{ order: { lineItems: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: ShopifyLineNode[] } } | null }>(
        orderLinesQuery,
        { id: order.id, after: info.endCursor },
      );
      if (!more.order) return;
      order.lineItems.nodes.push(...more.order.lineItems.nodes);
      info = more.order.lineItems.pageInfo;
    }
  }

  /**
   * The location Kontor's stock is set at (`at`; Kontor keeps one warehouse a store) and the
   * store's other locations it sells online from (`others`). **Decision:** `at` is the oldest
   * active location that fulfils online orders (Location.isActive, fulfillsOnlineOrders): the store's
   * first location may be a pickup counter or a closed one, whose stock the online store does not
   * sell. Read on every push, not remembered: a location the merchant switches to fulfil online
   * orders counts from the next push (its stock refuses the item, `elsewhereOutcome`).
   * **Fulfilment apps' locations (decision):** read with the legacy ones (`locationsQuery`). One whose
   * app tracks the stock (`appKeepsStock`) is never `at`, as the app's own updates would overwrite
   * Kontor's count there (the store selling the 3PL's count, not Kontor's), but it is one of the
   * `others`: stock there that the store sells online refuses the item as any other location's
   * does. An app that leaves the stock to the merchant (inventoryManagement false) makes a location
   * like the merchant's own. A store that sells online only from app-kept locations is refused
   * naming them (Kontor has no location to set at; the seller keeps that stock at the app, or
   * switches CIA off for the web shop).
   */
  private async storeLocations(s: ShopifySession): Promise<{ at: LocationNode; others: LocationNode[] }> {
    const online = (await this.locationsOf(s)).filter((l) => l.isActive && l.fulfillsOnlineOrders);
    const at = online.find((l) => !appKeepsStock(l));
    if (!at) {
      const apps = online.map((l) => `${l.name} (${l.fulfillmentService!.serviceName})`).join(', ');
      throw portalRefused(
        apps
          ? `webshop: the Shopify store of portal account ${s.target.portalAccountId} fulfils online orders only from locations whose fulfilment app keeps the stock: ${apps}; Kontor does not set a quantity the app overwrites: let a location of the store's own fulfil online orders, or switch CIA off for the web shop`
          : `webshop: the Shopify store of portal account ${s.target.portalAccountId} has no active location that fulfils online orders ("Fulfill online orders from this location"); Kontor sets the web shop's stock there`,
      );
    }
    return { at, others: online.filter((l) => l !== at) };
  }

  /** The variants of these SKUs (remembered ones, the rest looked up 50 to a query). */
  private async variants(s: ShopifySession, skus: string[]): Promise<Map<string, VariantNode>> {
    const out = new Map<string, VariantNode>();
    const missing: string[] = [];
    for (const sku of new Set(skus)) {
      const v = variantsBySku.get(`${storeKey(s)}|${sku}`);
      if (v) out.set(sku, v);
      else missing.push(sku);
    }
    for (let i = 0; i < missing.length; i += lookupBatch) {
      const chunk = missing.slice(i, i + lookupBatch);
      const answer = await s.call<{ productVariants: { nodes: VariantNode[] } }>(findVariants, {
        first: chunk.length,
        query: chunk.map((sku) => `sku:${quoted(sku)}`).join(' OR '),
      });
      for (const v of answer.productVariants.nodes) {
        if (!v.sku || !chunk.includes(v.sku)) continue;
        out.set(v.sku, v);
        this.remember(s, v);
      }
    }
    return out;
  }

  private remember(s: ShopifySession, v: VariantNode): void {
    if (variantsBySku.size > 200_000) variantsBySku.clear();
    if (v.sku) variantsBySku.set(`${storeKey(s)}|${v.sku}`, v);
  }

  /**
   * The product in the store's collection of each of its web shop categories (README: "Collections
   * from the web shop's categories"): by title, ignoring case; a custom collection made with the
   * product when the store has none of that title; a smart collection (its ruleSet) left to its
   * rules. Nothing is removed: a category dropped from the item leaves the product where it is.
   * Calls: one title search for them all (a page more per 50 collections it answers), each found
   * collection saying whether it holds the product (Collection.hasProduct), then one call per
   * collection to add to or create. Membership is asked of the collections found, not read from
   * the product's own list: that list came 50 at a time and only its first page was read, so the
   * collection of a category beyond a product's first 50 collections was added to again, which
   * Shopify refuses ("If any of the products is already present in the input collection, then an
   * error is raised", collectionAddProducts), and every list and revise of the item failed.
   */
  private async addToCollections(s: ShopifySession, productId: string, categories: string[]): Promise<void> {
    if (categories.length === 0) return;
    type Found = { id: string; title: string; ruleSet: unknown; hasProduct: boolean };
    const found: Found[] = [];
    let after: string | null = null;
    for (let page = 0; ; page++) {
      if (page === collectionPages)
        throw portalRefused(
          `webshop (Shopify): the store answers more than ${collectionPages * 50} collections titled ${categories.join(', ')}; Kontor does not guess which one is the category's`,
        );
      const answer: { collections: { nodes: Found[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } } = await s.call(findCollections, {
        first: 50,
        after,
        product: productId,
        query: categories.map((title) => `title:${quoted(title)}`).join(' OR '),
      });
      found.push(...answer.collections.nodes);
      if (!answer.collections.pageInfo.hasNextPage || !answer.collections.pageInfo.endCursor) break;
      after = answer.collections.pageInfo.endCursor;
    }
    for (const title of categories) {
      // Shopify's title search need not be exact: only a collection of this very title (ignoring case) is the category's.
      const same = found.filter((c) => c.title.toLowerCase() === title.toLowerCase());
      if (same.some((c) => c.hasProduct)) continue;
      // Decision: of several collections of the title, the first custom one takes the product; only smart ones: left to their rules.
      const custom = same.find((c) => !c.ruleSet);
      if (custom) {
        const added = await s.call<{ collectionAddProducts: { userErrors: UserErrors } }>(addToCollection, { id: custom.id, productIds: [productId] });
        refuseUserErrors(`the product in the collection ${title}`, added.collectionAddProducts.userErrors);
      } else if (same.length === 0) {
        const made = await s.call<{ collectionCreate: { userErrors: UserErrors } }>(createCollection, { input: { title, products: [productId] } });
        refuseUserErrors(`the collection ${title}`, made.collectionCreate.userErrors);
      }
    }
  }

  private async createProduct(s: ShopifySession, data: VariantData, status: ProductStatus): Promise<VariantNode> {
    const answer = await s.call<{ productCreate: { product: { id: string; variants: { nodes: VariantNode[] } } | null; userErrors: UserErrors } }>(
      createProduct,
      { product: { title: data.title, status } },
    );
    refuseUserErrors(`the product ${data.title}`, answer.productCreate.userErrors);
    const variant = answer.productCreate.product?.variants.nodes[0];
    if (!variant) throw portalRefused(`webshop (Shopify) created the product ${data.title} without a variant`);
    return variant;
  }

  private async updateProduct(s: ShopifySession, productId: string, title: string, status: ProductStatus): Promise<void> {
    const answer = await s.call<{ productUpdate: { userErrors: UserErrors } }>(updateProduct, { product: { id: productId, title, status } });
    refuseUserErrors(`the title and status of ${productId}`, answer.productUpdate.userErrors);
  }

  private async updateVariant(s: ShopifySession, variant: VariantNode, data: VariantData): Promise<void> {
    const answer = await s.call<{ productVariantsBulkUpdate: { userErrors: UserErrors } }>(updateVariants, {
      productId: variant.product.id,
      variants: [
        {
          id: variant.id,
          price: data.price,
          compareAtPrice: data.compareAtPrice,
          barcode: data.barcode,
          inventoryItem: { sku: data.sku, tracked: true, ...(data.weight ? { measurement: { weight: data.weight } } : {}) },
        },
      ],
    });
    refuseUserErrors(`the variant of SKU ${data.sku}`, answer.productVariantsBulkUpdate.userErrors);
    this.remember(s, { ...variant, sku: data.sku, inventoryItem: { ...variant.inventoryItem, tracked: true } });
  }
}
