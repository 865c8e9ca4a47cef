/**
 * How Kontor speaks to a portal account: the channel's real API (eBay's Sell APIs for
 * auction_a, Amazon's Selling Partner API for market_d, Kaufland's Marketplace Seller API v2 for
 * market_e, Shopify's Admin GraphQL API for webshop), or `json`, the generic JSON dialect
 * of portal-http.ts that every other portal keeps and that a seller's own middleware can speak
 * for any channel (lib/portals/README.md, Connectors).
 */
export const connectors = ['ebay', 'amazon_sp', 'kaufland', 'shopify', 'json'] as const;
export type Connector = (typeof connectors)[number];

/** The real connector of the portals that have one; every other portal speaks json. */
export const realConnectors: Readonly<Record<string, Exclude<Connector, 'json'>>> = {
  auction_a: 'ebay',
  market_d: 'amazon_sp',
  market_e: 'kaufland',
  webshop: 'shopify',
};

/**
 * The connector a new portal account of a platform gets: its portal's real one, else json; an
 * account of no platform (the default account, which serves every portal) gets none: each
 * portal is then reached through its own adapter (the real one where it has one).
 */
export function defaultConnector(platform: string | null | undefined): Connector | null {
  if (!platform) return null;
  return realConnectors[platform] ?? 'json';
}

/**
 * The credentials each connector needs (the refresh token of the seller's consent; Amazon also
 * names the seller and marketplace; Kaufland signs with the client and secret keys of the
 * seller's Seller Portal and sells in one storefront; Shopify needs the store's myshopify.com
 * domain and the Admin API access token of its custom app or OAuth install).
 */
export const connectorCredentials: Readonly<Record<Connector, readonly string[]>> = {
  ebay: ['client_id', 'client_secret', 'refresh_token'],
  amazon_sp: ['client_id', 'client_secret', 'refresh_token', 'seller_id', 'marketplace_id'],
  kaufland: ['client_key', 'secret_key', 'storefront'],
  shopify: ['shop_domain', 'access_token'],
  json: [],
};
