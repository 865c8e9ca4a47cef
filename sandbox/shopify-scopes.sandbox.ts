/**
 * The access scopes of the sandbox's Shopify store: which scopes each root field the adapter sends
 * requires, and Shopify's answer to a token lacking them. The schema file names no scope
 * (admin_schema_2025-01.json); the table is shopify.dev's page of each query, mutation or the
 * object it answers ("Requires `write_orders` access scope", "Requires ... access scope or ...
 * access scope": any one of a field's list grants it). A write scope grants its read scope too
 * (Shopify's changelog "Downgrade app access scopes from write to read": "Revoking a write scope ...
 * also removes its read access when the read scope was only granted through the write scope").
 */
import { GraphQLError } from 'graphql';

const readOrders = ['read_orders', 'read_marketplace_orders'];
const readFulfillmentOrders = [
  'read_assigned_fulfillment_orders',
  'read_merchant_managed_fulfillment_orders',
  'read_third_party_fulfillment_orders',
  'read_marketplace_fulfillment_orders',
];
const writeFulfillments = ['write_assigned_fulfillment_orders', 'write_merchant_managed_fulfillment_orders', 'write_third_party_fulfillment_orders'];

/**
 * Root field -> the access scopes that grant it (shopify.dev, 2025-01 where the page was stored, else
 * the nearest version). Not listed, so never refused: `shop`, `currentAppInstallation` (no scope), and
 * `webhookSubscriptions`/`webhookSubscriptionCreate`, whose scope is the subscribed topic's.
 */
export const requiredScopes: Readonly<Record<string, readonly string[]>> = {
  // "read_products, write_products: Access to Product, Product Variant, ... Custom Collection, and Smart Collection" (access scopes page).
  productVariants: ['read_products'],
  product: ['read_products'],
  collections: ['read_products'],
  productCreate: ['write_products'],
  productUpdate: ['write_products'],
  productVariantsBulkUpdate: ['write_products'],
  collectionCreate: ['write_products'],
  // collectionAddProducts: "Requires `write_products` access scope".
  collectionAddProducts: ['write_products'],
  // InventoryItem "can now be ... queried using the ... read_products" scope (changelog 2025-01-22), besides read_inventory.
  inventoryItems: ['read_inventory', 'read_products'],
  // inventorySetQuantities: "Requires write_inventory access scope".
  inventorySetQuantities: ['write_inventory'],
  // "As of GraphQL API version 2024-07, the Location fields require the read_locations scope."
  locations: ['read_locations'],
  // Order: "`read_orders` access scope or `read_marketplace_orders` access scope" (Refund likewise).
  orders: readOrders,
  order: readOrders,
  refund: readOrders,
  // Fulfillment: "Requires read_orders ..., read_marketplace_orders ..., read_assigned_fulfillment_orders ..., read_merchant_managed_fulfillment_orders ..., read_third_party_fulfillment_orders ... or read_marketplace_fulfillment_orders".
  fulfillment: [...readOrders, ...readFulfillmentOrders],
  // FulfillmentOrder: "Requires read_assigned_fulfillment_orders ..., read_merchant_managed_fulfillment_orders ..., read_third_party_fulfillment_orders ... or read_marketplace_fulfillment_orders".
  fulfillmentOrder: readFulfillmentOrders,
  fulfillmentOrders: readFulfillmentOrders,
  // fulfillmentOrderOpen: "Requires write_merchant_managed_fulfillment_orders access scope or write_third_party_fulfillment_orders access scope".
  fulfillmentOrderOpen: ['write_merchant_managed_fulfillment_orders', 'write_third_party_fulfillment_orders'],
  // orderCancel: "Requires `write_orders` access scope. Also: This action cannot be reversed."
  orderCancel: ['write_orders'],
  // fulfillmentCreate and fulfillmentTrackingInfoUpdate: "`write_assigned_fulfillment_orders` access scope, `write_merchant_managed_fulfillment_orders` access scope or `write_third_party_fulfillment_orders` access scope".
  fulfillmentCreate: writeFulfillments,
  fulfillmentTrackingInfoUpdate: writeFulfillments,
};

/** Whether the granted scopes hold `handle`, itself or through its write scope. */
export const scopeGranted = (granted: readonly string[], handle: string): boolean =>
  granted.includes(handle) || (handle.startsWith('read_') && granted.includes(`write_${handle.slice('read_'.length)}`));

/** "`a` access scope, `b` access scope or `c` access scope", as Shopify names a field's scopes. */
const requiredAccess = (scopes: readonly string[]) => {
  const named = scopes.map((s) => `\`${s}\` access scope`);
  return `${named.length > 1 ? `${named.slice(0, -1).join(', ')} or ${named.at(-1)}` : named[0]}.`;
};

/**
 * Shopify's refusal of a field the token may not ask (changelog "New error messages for GraphQL
 * operations without necessary access scopes", 2020-07: "Access denied for <field-name>. Required
 * access: <access scope required> access scope", with "an error code, link to necessary
 * documentation, and the name of the required access scope"), as integrations quote it: the field
 * answers null, and the error carries its path and locations (graphql's execute adds them).
 */
export const accessDenied = (field: string, scopes: readonly string[]) =>
  new GraphQLError(`Access denied for ${field} field. Required access: ${requiredAccess(scopes)}`, {
    extensions: { code: 'ACCESS_DENIED', documentation: 'https://shopify.dev/api/usage/access-scopes', requiredAccess: requiredAccess(scopes) },
  });

/** The root value with each field the granted scopes do not cover answering Shopify's ACCESS_DENIED instead of its data. */
export function withScopes<T extends Record<string, unknown>>(root: T, granted: readonly string[]): T {
  const guarded: Record<string, unknown> = { ...root };
  for (const [field, scopes] of Object.entries(requiredScopes)) {
    if (!(field in root) || scopes.some((s) => scopeGranted(granted, s))) continue;
    guarded[field] = () => {
      throw accessDenied(field, scopes);
    };
  }
  return guarded as T;
}
