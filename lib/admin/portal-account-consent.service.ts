/**
 * Connecting a seller's eBay or Amazon account through the channel's consent (issue 30 point 3):
 * the link the seller opens (startConsent), and the callbacks the channel sends the browser to
 * (completeEbayConsent, completeAmazonConsent), which exchange the code for the seller's refresh
 * token and store the credentials sealed on the portal account through the repository's connect,
 * as `kontor portal-account connect` does. eBay: the scopes granted and the refresh token's
 * expiry are kept with it (refreshes ask for those scopes only), and the merchant location is
 * chosen or made from the account's address. Amazon: the seller id and the marketplaces the
 * seller sells in. A bad, expired, replayed or foreign state changes nothing.
 */
import { config } from '../../config';
import { accountRepository } from '../account';
import { DomainError, domainError, invalidField } from '../errors';
import { portalAccountRepository, PortalAccountRow, getPortalAccount, portalTargetRepository } from '../portal-account';
import {
  AuctionAAdapter,
  Warehouse,
  participatingMarketplaces,
  SpApiApplication,
  spApiConsentGrant,
  spApiConsentUrl,
  EbayApplication,
  ebayConsentGrant,
  ebayConsentUrl,
  ebayScopes,
  realConnectors,
  shopifyDomainPattern,
  installQueryValid,
  isShopDomain,
  ShopifyApp,
  shopifyInstallGrant,
  shopifyInstallUrl,
  storeOrigin,
  ensureWebhooks,
} from '../portals';
import { shopifyScopes } from '../../config/channel-apps';
import { db } from '../db';
import { ConsentState, issueConsentState, takeConsentState } from './consent-state';

export const consentConnectors = ['ebay', 'amazon_sp', 'shopify'] as const;
export type ConsentConnector = (typeof consentConnectors)[number];

/** A callback that connected nothing: the page shows the message with this status. */
export class ConsentFailed extends Error {
  constructor(
    message: string,
    readonly status: 400 | 403 | 502 | 503 = 400,
  ) {
    super(message);
  }
}

export interface ConsentOutcome {
  portal_account_id: number;
  name: string;
  /** The Kontor account connected: shown, so a seller lured into completing someone else's link sees whose it was. */
  login: string;
  connector: ConsentConnector;
  /** What the seller should know besides "connected" (no merchant location yet ...). */
  notes: string[];
}

/** Kontor's eBay application, or a 503 naming the variables to set (never a 500). */
export function ebayApplication(): EbayApplication {
  const app = config().ebayApplication;
  if (!app.clientId || !app.clientSecret || !app.ruName)
    throw domainError(
      'service_unavailable',
      'the eBay consent is not configured on this installation: set EBAY_APP_CLIENT_ID, EBAY_APP_CLIENT_SECRET and EBAY_APP_RU_NAME (developer.ebay.com)',
    );
  return { clientId: app.clientId, clientSecret: app.clientSecret, ruName: app.ruName, authUrl: app.authUrl, apiUrl: app.apiUrl };
}

/** Kontor's SP-API application, or a 503 naming the variables to set. */
export function spApiApplication(): SpApiApplication {
  const app = config().spApiApplication;
  if (!app.applicationId || !app.clientId || !app.clientSecret)
    throw domainError(
      'service_unavailable',
      'the Amazon consent is not configured on this installation: set SP_API_APPLICATION_ID, SP_API_CLIENT_ID and SP_API_CLIENT_SECRET (Solution Provider Portal)',
    );
  return {
    applicationId: app.applicationId,
    clientId: app.clientId,
    clientSecret: app.clientSecret,
    redirectUri: app.redirectUri,
    sellerCentralUrl: app.sellerCentralUrl,
    lwaUrl: app.lwaUrl,
    draft: app.draft,
  };
}

/** Kontor's Shopify app, or a 503 naming the variables to set. */
export function shopifyApp(): ShopifyApp {
  const app = config().shopifyApplication;
  if (!app.apiKey || !app.apiSecret)
    throw domainError(
      'service_unavailable',
      'the Shopify install is not configured on this installation: set SHOPIFY_API_KEY and SHOPIFY_API_SECRET (the app client id and secret)',
    );
  return { apiKey: app.apiKey, apiSecret: app.apiSecret, redirectUri: app.redirectUri, storeUrl: app.storeUrl };
}

/**
 * The store a Shopify install link is for: the one given (lower-cased), else the one the portal
 * account was connected to before; neither is a 400 naming shop_domain.
 */
async function shopOf(accountId: number, portalAccountId: number, given: string | undefined): Promise<string> {
  if (given !== undefined) {
    const shop = given.trim().toLowerCase();
    if (!shopifyDomainPattern.test(shop)) throw invalidField('shop_domain', "shop_domain must be the store's <name>.myshopify.com domain");
    return shop;
  }
  const stored = (await portalTargetRepository.target(db(), accountId, portalAccountId))?.credentials.shop_domain;
  if (typeof stored === 'string' && isShopDomain(stored)) return stored;
  throw invalidField('shop_domain', "shop_domain is required for connector shopify: the store's <name>.myshopify.com domain");
}

/** The portal a connector serves; a portal account of another platform cannot take it. */
function portalOf(row: PortalAccountRow, connector: ConsentConnector): string {
  const portal = Object.keys(realConnectors).find((p) => realConnectors[p] === connector)!;
  if (row.platform !== null && row.platform !== portal)
    throw invalidField('connector', `connector ${connector} speaks to ${portal}; portal account ${row.id} is one of ${row.platform}`);
  return portal;
}

/**
 * The consent link for one of the seller's portal accounts (404 for another seller's). eBay:
 * `scopes` may narrow Kontor's (a seller who does not want feedback left, say); the link asks
 * for them, the state keeps them, and the account's token refreshes ask for no more.
 */
export async function startConsent(
  accountId: number,
  portalAccountId: number,
  connector: string,
  scopes?: string[],
  shopDomain?: string,
): Promise<{ url: string }> {
  if (!(consentConnectors as readonly string[]).includes(connector))
    throw invalidField('connector', `connector must be one of ${consentConnectors.join(', ')}`);
  const wanted = connector as ConsentConnector;
  if (scopes !== undefined) {
    if (wanted !== 'ebay') throw invalidField('scope', 'scope is taken for connector ebay only');
    const unknown = scopes.find((s) => !ebayScopes.includes(s));
    if (scopes.length === 0 || unknown !== undefined) throw invalidField('scope', `scope names one or more of ${ebayScopes.join(', ')}`);
  }
  if (shopDomain !== undefined && wanted !== 'shopify') throw invalidField('shop_domain', 'shop_domain is taken for connector shopify only');
  const row = await getPortalAccount(accountId, portalAccountId);
  portalOf(row, wanted);
  if (wanted === 'shopify') {
    const shop = await shopOf(accountId, row.id, shopDomain);
    const app = shopifyApp();
    const state = await issueConsentState({ accountId, portalAccountId: row.id, connector: 'shopify', shop });
    return { url: shopifyInstallUrl(app, shop, state, shopifyScopes) };
  }
  // The application is checked before a state is issued: an unconfigured one leaves nothing behind.
  const app = wanted === 'ebay' ? ebayApplication() : spApiApplication();
  const asked = scopes ? ebayScopes.filter((s) => scopes.includes(s)) : undefined;
  const state = await issueConsentState({ accountId, portalAccountId: row.id, connector: wanted, ...(asked ? { scopes: asked } : {}) });
  return { url: wanted === 'ebay' ? ebayConsentUrl(app as EbayApplication, state, asked) : spApiConsentUrl(app as SpApiApplication, state) };
}

async function boundState(state: unknown, connector: ConsentConnector): Promise<{ bound: ConsentState; row: PortalAccountRow }> {
  const bound = await takeConsentState(state, connector);
  if (!bound)
    throw new ConsentFailed('This link is not valid: it is unknown, expired (after 10 minutes) or was used already. Ask Kontor for a new consent link.');
  const row = await portalAccountRepository.get(bound.accountId, bound.portalAccountId);
  if (!row) throw new ConsentFailed('The portal account this link was made for no longer exists.');
  return { bound, row };
}

/** The channel's refusal or absence as the page's message and status. */
function channelFailure(err: unknown): never {
  if (err instanceof DomainError && (err.id === 'portal_refused' || err.id === 'portal_unavailable'))
    throw new ConsentFailed(err.message, err.id === 'portal_refused' ? 502 : 503);
  throw err;
}

/** Stores the connection the way `kontor portal-account connect` does (sealed, the import's refusal cleared). */
async function connect(row: PortalAccountRow, connector: ConsentConnector, baseUrl: string, credentials: Record<string, string>): Promise<void> {
  const platform = portalOf(row, connector);
  await portalAccountRepository.connect(row.account_id, row.id, { platform, connector, base_url: baseUrl, credentials });
  portalTargetRepository.forget(row.account_id, row.id);
}

const loginOf = async (accountId: number) => (await accountRepository.get(accountId))?.login ?? String(accountId);

/** The seller's address (Admin_user_type address) as the warehouse a first eBay location is made from. */
async function warehouseOf(accountId: number): Promise<Warehouse | undefined> {
  const address = (await accountRepository.get(accountId))?.address ?? {};
  if (!address.zip || !address.city || !address.country_iso2) return undefined;
  return {
    name: address.name || 'Kontor warehouse',
    street: address.street || undefined,
    zip: address.zip,
    city: address.city,
    country_iso2: address.country_iso2,
  };
}

/** eBay's accept (code, state) or decline (error, state) URL. */
export async function completeEbayConsent(query: Record<string, unknown>): Promise<ConsentOutcome> {
  const { bound, row } = await boundState(query.state, 'ebay');
  if (query.error !== undefined || typeof query.code !== 'string' || query.code === '')
    throw new ConsentFailed('eBay access was not granted (the consent was declined at eBay); nothing was changed.');
  const app = ebayApplication();
  // eBay grants every scope the link asked for or none: the state's are the account's.
  const granted = await ebayConsentGrant(app, query.code, bound.scopes).catch(channelFailure);
  const credentials: Record<string, string> = {
    client_id: app.clientId,
    client_secret: app.clientSecret,
    refresh_token: granted.refresh_token,
    scopes: granted.scopes,
    ...(granted.refresh_token_expires_at ? { refresh_token_expires_at: granted.refresh_token_expires_at } : {}),
  };
  const notes: string[] = [];
  try {
    const target = { portalAccountId: row.id, connector: 'ebay' as const, baseUrl: app.apiUrl, credentials };
    credentials.merchant_location_key = await new AuctionAAdapter().merchantLocation(target, await warehouseOf(row.account_id));
  } catch (err) {
    // Connected all the same: the location is needed to publish offers, not for quantities and orders.
    notes.push(`No eBay inventory location yet (${err instanceof Error ? err.message : 'eBay did not answer'}); listing needs one.`);
  }
  await connect(row, 'ebay', app.apiUrl, credentials);
  return { portal_account_id: row.id, name: row.name, login: await loginOf(row.account_id), connector: 'ebay', notes };
}

/** Amazon's redirect (spapi_oauth_code, state, selling_partner_id). */
export async function completeAmazonConsent(query: Record<string, unknown>): Promise<ConsentOutcome> {
  const { row } = await boundState(query.state, 'amazon_sp');
  const code = query.spapi_oauth_code;
  const sellerId = query.selling_partner_id;
  if (query.error !== undefined || typeof code !== 'string' || code === '' || typeof sellerId !== 'string' || !/^[A-Za-z0-9]{1,64}$/.test(sellerId))
    throw new ConsentFailed('Amazon access was not granted (no authorization code or seller came back); nothing was changed.');
  const app = spApiApplication();
  const apiUrl = config().spApiApplication.apiUrl;
  const granted = await spApiConsentGrant(app, code, sellerId).catch(channelFailure);
  const credentials: Record<string, string> = {
    client_id: app.clientId,
    client_secret: app.clientSecret,
    refresh_token: granted.refresh_token,
    seller_id: granted.seller_id,
  };
  const { served, leftOut } = await participatingMarketplaces({ portalAccountId: row.id, connector: 'amazon_sp', baseUrl: apiUrl, credentials }).catch(
    channelFailure,
  );
  const unserved = leftOut.length
    ? `Left out, as Kontor sells in no such marketplace (a Non-Amazon id is Multi-Channel Fulfilment, no shop): ${leftOut.join(', ')}.`
    : '';
  if (served.length === 0) throw new ConsentFailed(`The Amazon account takes part in no marketplace Kontor sells in; nothing was changed. ${unserved}`.trim());
  await connect(row, 'amazon_sp', apiUrl, { ...credentials, marketplace_id: served.join(',') });
  return { portal_account_id: row.id, name: row.name, login: await loginOf(row.account_id), connector: 'amazon_sp', notes: unserved ? [unserved] : [] };
}

/**
 * A store's install callback (code, hmac, shop, state, timestamp): the hmac checked first (a
 * forged callback burns no state: 403), then the state (once, and for this store), the code
 * exchanged at the store, the token sealed with the scopes granted and Kontor's client_id (its
 * webhooks carry Kontor's signature), and the webhooks subscribed (failing that, the account is
 * connected all the same and the page says the orders come by the poll).
 */
export async function completeShopifyInstall(query: Record<string, unknown>): Promise<ConsentOutcome> {
  const app = shopifyApp();
  if (!installQueryValid(query, app.apiSecret)) throw new ConsentFailed("This answer does not carry Shopify's signature (hmac); nothing was changed.", 403);
  const shop = typeof query.shop === 'string' ? query.shop.toLowerCase() : '';
  if (!isShopDomain(shop)) throw new ConsentFailed('The answer names no <name>.myshopify.com store; nothing was changed.');
  const { bound, row } = await boundState(query.state, 'shopify');
  if (bound.shop !== shop) throw new ConsentFailed(`This link was made for the store ${bound.shop ?? 'unknown'}, not ${shop}; nothing was changed.`);
  if (typeof query.code !== 'string' || query.code === '') throw new ConsentFailed('Shopify sent no authorization code; nothing was changed.');
  const granted = await shopifyInstallGrant(app, shop, query.code).catch(channelFailure);
  const baseUrl = storeOrigin(app, shop);
  const credentials: Record<string, string> = { shop_domain: shop, access_token: granted.access_token, scopes: granted.scope, client_id: app.apiKey };
  await connect(row, 'shopify', baseUrl, credentials);
  const notes: string[] = [];
  try {
    await ensureWebhooks(row.account_id, { portalAccountId: row.id, connector: 'shopify', baseUrl, credentials });
  } catch (err) {
    notes.push(
      `Shopify's webhooks are not subscribed yet (${err instanceof Error ? err.message : 'no answer'}); orders come in by the regular fetch, and the next one tries again.`,
    );
  }
  return { portal_account_id: row.id, name: row.name, login: await loginOf(row.account_id), connector: 'shopify', notes };
}
