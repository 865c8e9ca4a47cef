/**
 * Kontor's own applications at eBay, Amazon and Shopify: what a seller's consent is asked for and
 * exchanged with (lib/admin/portal-account-consent.service.ts), and eBay's Marketplace Account
 * Deletion endpoint. Production has no defaults for the keys: unset, the consent answers which
 * variables to set. Development (npm start) defaults to the sandbox's published application, so
 * the walkthrough needs no real keys; the sandbox registers it at start (sandbox/ebay-oauth.sandbox.ts).
 */
import Joi from 'joi';

/** Where the callbacks are, under PUBLIC_URL and outside the versioned API (server/routes/connect.pages.ts). */
export const connectPaths = {
  ebayAccepted: '/connect/ebay/accepted',
  ebayDeclined: '/connect/ebay/declined',
  amazonAuthorized: '/connect/amazon/authorized',
  ebayAccountDeletion: '/connect/ebay/account-deletion',
  shopifyCallback: '/connect/shopify/callback',
  shopifyWebhooks: '/connect/shopify/webhooks',
} as const;

/** The sandbox's development application (published: it protects nothing, and only the sandbox takes it). */
export const developmentEbayApplication = {
  clientId: 'Kontor-App-SBX-development',
  clientSecret: 'SBX-development-not-secret',
  ruName: 'Kontor-development-RuName',
  deletionVerificationToken: 'kontor-development-verification-token-not-secret',
} as const;

/** The sandbox's development Shopify app (published, like the eBay one: only the sandbox takes it, and it signs the sandbox's webhooks with it). */
export const developmentShopifyApplication = {
  apiKey: 'kontor-development-shopify-app',
  apiSecret: 'shpss_development-not-secret',
} as const;

/**
 * The access scopes Kontor asks a store for (products and variants, inventory, orders, fulfilments;
 * Shopify's access scope names), each the one shopify.dev names for an operation the adapter sends
 * (lib/portals/README.md "Access scopes"). read_third_party_fulfillment_orders: the fulfillment
 * orders the store routed to a fulfilment app's location, which Shopify shows no app without it
 * (lib/portals/README.md "Orders a fulfilment app ships"); Kontor reads them, never fulfils them.
 * write_orders: a seller's cancellation sent to the store (orderCancel: "Requires `write_orders`
 * access scope"); a store connected before it was asked refuses the cancel ACCESS_DENIED.
 */
export const shopifyScopes = [
  'write_products',
  'write_inventory',
  'read_locations',
  'read_orders',
  'write_orders',
  'write_merchant_managed_fulfillment_orders',
  'read_third_party_fulfillment_orders',
] as const;

/**
 * The Admin API versions Kontor can speak (SHOPIFY_API_VERSION). 2025-01 is the one whose schema
 * Kontor holds (../shared/contracts/shopify/admin_schema_2025-01.json) and validates every document
 * against; the 2026 ones are those Shopify's changelog describes the inventory changes of (the
 * documents that differ are written per version in lib/portals/shopify/shopify-version.ts).
 */
export const shopifyApiVersions = ['2025-01', '2026-01', '2026-04', '2026-07', '2026-10'] as const;
export type ShopifyApiVersion = (typeof shopifyApiVersions)[number];

export interface ShopifyApplicationConfig {
  /**
   * SHOPIFY_API_VERSION: the Admin API version every call names in its path (default 2026-07, a
   * supported one, as the contract's SOURCES.md advises; Shopify answers a retired one with its
   * oldest supported version: lib/portals/README.md "The version").
   */
  apiVersion: ShopifyApiVersion;
  /** SHOPIFY_API_KEY, SHOPIFY_API_SECRET: the app's client id and client secret (Partner Dashboard); null: not configured. The secret also verifies webhooks. */
  apiKey: string | null;
  apiSecret: string | null;
  /** SHOPIFY_REDIRECT_URI: the app's allowed redirection URL (default PUBLIC_URL + /connect/shopify/callback). */
  redirectUri: string;
  /** SHOPIFY_WEBHOOK_URL: where the stores deliver webhooks (default PUBLIC_URL + /connect/shopify/webhooks). */
  webhookUrl: string;
  /**
   * SHOPIFY_STORE_URL: a host that plays every store (the sandbox); null (production): each store at
   * https://<shop domain>. Set, the authorize link also carries `shop` so that host knows the store.
   */
  storeUrl: string | null;
}

export interface EbayApplicationConfig {
  /** EBAY_APP_CLIENT_ID, EBAY_APP_CLIENT_SECRET, EBAY_APP_RU_NAME: the application's keys and RuName (developer.ebay.com); null: not configured. */
  clientId: string | null;
  clientSecret: string | null;
  ruName: string | null;
  /** EBAY_AUTH_URL: where sellers consent (default https://auth.ebay.com; development: the sandbox). */
  authUrl: string;
  /** EBAY_API_URL: eBay's API host for the token exchange, new accounts' base URL and getPublicKey (default https://api.ebay.com). */
  apiUrl: string;
  /** EBAY_DELETION_VERIFICATION_TOKEN: the token entered at developer.ebay.com for account deletion (32 to 80 of A-Z a-z 0-9 _ -); null: not configured. */
  deletionVerificationToken: string | null;
  /** EBAY_DELETION_ENDPOINT_URL: the endpoint URL exactly as registered with eBay (default PUBLIC_URL + /connect/ebay/account-deletion). */
  deletionEndpointUrl: string;
}

export interface SpApiApplicationConfig {
  /** SP_API_APPLICATION_ID (amzn1.sp.solution.…), SP_API_CLIENT_ID, SP_API_CLIENT_SECRET (its LWA credentials); null: not configured. */
  applicationId: string | null;
  clientId: string | null;
  clientSecret: string | null;
  /** SP_API_REDIRECT_URI: the redirect URI registered with the application (default PUBLIC_URL + /connect/amazon/authorized). */
  redirectUri: string;
  /** SP_API_SELLER_CENTRAL_URL: the sellers' Seller Central (default https://sellercentral-europe.amazon.com; development: the sandbox). */
  sellerCentralUrl: string;
  /** SP_API_LWA_URL: LWA's token endpoint (default https://api.amazon.com/auth/o2/token). */
  lwaUrl: string;
  /** SP_API_URL: the SP-API endpoint new accounts get (default https://sellingpartnerapi-eu.amazon.com). */
  apiUrl: string;
  /** SP_API_DRAFT: the application is still a draft, so the consent link carries version=beta (default false). */
  draft: boolean;
}

const url = () => Joi.string().uri({ scheme: ['http', 'https'] });
const key = () => Joi.string().pattern(/^\S{1,4000}$/);

export const channelAppsSchema = {
  EBAY_APP_CLIENT_ID: key(),
  EBAY_APP_CLIENT_SECRET: key(),
  EBAY_APP_RU_NAME: key(),
  EBAY_AUTH_URL: url(),
  EBAY_API_URL: url(),
  EBAY_DELETION_VERIFICATION_TOKEN: Joi.string().pattern(/^[A-Za-z0-9_-]{32,80}$/),
  EBAY_DELETION_ENDPOINT_URL: Joi.string().uri({ scheme: ['https', 'http'] }),
  SP_API_APPLICATION_ID: Joi.string().pattern(/^amzn1\.sp\.solution\.\S+$/),
  SP_API_CLIENT_ID: key(),
  SP_API_CLIENT_SECRET: key(),
  SP_API_REDIRECT_URI: url(),
  SP_API_SELLER_CENTRAL_URL: url(),
  SP_API_LWA_URL: url(),
  SP_API_URL: url(),
  SP_API_DRAFT: Joi.boolean().default(false),
  SHOPIFY_API_KEY: key(),
  SHOPIFY_API_SECRET: key(),
  SHOPIFY_REDIRECT_URI: url(),
  SHOPIFY_WEBHOOK_URL: url(),
  SHOPIFY_STORE_URL: url(),
  SHOPIFY_API_VERSION: Joi.string()
    .valid(...shopifyApiVersions)
    .default('2026-07'),
};

/** The two applications from the validated environment; development falls back to the sandbox. */
export function channelApps(
  value: Record<string, unknown>,
  env: string,
  publicUrl: string,
  sandboxUrl: string,
): { ebayApplication: EbayApplicationConfig; spApiApplication: SpApiApplicationConfig; shopifyApplication: ShopifyApplicationConfig } {
  const dev = env === 'development';
  const str = (name: string) => (value[name] as string | undefined) ?? null;
  const sandbox = sandboxUrl.replace(/\/+$/, '');
  return {
    ebayApplication: {
      clientId: str('EBAY_APP_CLIENT_ID') ?? (dev ? developmentEbayApplication.clientId : null),
      clientSecret: str('EBAY_APP_CLIENT_SECRET') ?? (dev ? developmentEbayApplication.clientSecret : null),
      ruName: str('EBAY_APP_RU_NAME') ?? (dev ? developmentEbayApplication.ruName : null),
      authUrl: str('EBAY_AUTH_URL') ?? (dev ? sandbox : 'https://auth.ebay.com'),
      apiUrl: str('EBAY_API_URL') ?? (dev ? sandbox : 'https://api.ebay.com'),
      deletionVerificationToken: str('EBAY_DELETION_VERIFICATION_TOKEN') ?? (dev ? developmentEbayApplication.deletionVerificationToken : null),
      deletionEndpointUrl: str('EBAY_DELETION_ENDPOINT_URL') ?? `${publicUrl}${connectPaths.ebayAccountDeletion}`,
    },
    spApiApplication: {
      applicationId: str('SP_API_APPLICATION_ID') ?? (dev ? 'amzn1.sp.solution.kontor-development' : null),
      clientId: str('SP_API_CLIENT_ID') ?? (dev ? 'amzn1.application-oa2-client.kontor-development' : null),
      clientSecret: str('SP_API_CLIENT_SECRET') ?? (dev ? 'development-not-secret' : null),
      redirectUri: str('SP_API_REDIRECT_URI') ?? `${publicUrl}${connectPaths.amazonAuthorized}`,
      sellerCentralUrl: str('SP_API_SELLER_CENTRAL_URL') ?? (dev ? sandbox : 'https://sellercentral-europe.amazon.com'),
      lwaUrl: str('SP_API_LWA_URL') ?? (dev ? `${sandbox}/auth/o2/token` : 'https://api.amazon.com/auth/o2/token'),
      apiUrl: str('SP_API_URL') ?? (dev ? sandbox : 'https://sellingpartnerapi-eu.amazon.com'),
      draft: value.SP_API_DRAFT === true,
    },
    shopifyApplication: {
      apiKey: str('SHOPIFY_API_KEY') ?? (dev ? developmentShopifyApplication.apiKey : null),
      apiSecret: str('SHOPIFY_API_SECRET') ?? (dev ? developmentShopifyApplication.apiSecret : null),
      redirectUri: str('SHOPIFY_REDIRECT_URI') ?? `${publicUrl}${connectPaths.shopifyCallback}`,
      webhookUrl: str('SHOPIFY_WEBHOOK_URL') ?? `${publicUrl}${connectPaths.shopifyWebhooks}`,
      storeUrl: str('SHOPIFY_STORE_URL') ?? (dev ? sandbox : null),
      apiVersion: value.SHOPIFY_API_VERSION as ShopifyApiVersion,
    },
  };
}
