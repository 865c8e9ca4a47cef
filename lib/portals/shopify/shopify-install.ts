/**
 * A store installs Kontor's Shopify app (Shopify's authorization code grant): the authorize link
 * of the store (`https://<shop>/admin/oauth/authorize?client_id&scope&redirect_uri&state`), the
 * check of the callback's `hmac` (hex HMAC-SHA256 with the app's client secret over the callback's
 * other parameters, sorted by name and URL-encoded as a query string, as Shopify's own libraries
 * compute it), and the exchange of the code at the store (`POST https://<shop>/admin/oauth/access_token
 * {client_id, client_secret, code}` -> `{access_token, scope}`). The code is good once.
 */
import crypto from 'node:crypto';
import { config } from '../../../config';
import { portalRefused, portalUnavailable } from '../../errors';
import { shopifyDomainPattern } from './shopify-credentials';

/** Kontor's Shopify app as the install needs it. */
export interface ShopifyApp {
  apiKey: string;
  apiSecret: string;
  redirectUri: string;
  /** A host playing every store (the sandbox), else null: the store's own https://<shop>. */
  storeUrl: string | null;
}

/** Where a store is reached: its own domain, or the host playing every store. */
export const storeOrigin = (app: Pick<ShopifyApp, 'storeUrl'>, shop: string) => (app.storeUrl ? new URL(app.storeUrl).origin : `https://${shop}`);

/** The link the seller opens to install the app on the store (the state ties the callback to the portal account that asked). */
export function shopifyInstallUrl(app: ShopifyApp, shop: string, state: string, scopes: readonly string[]): string {
  const url = new URL('/admin/oauth/authorize', storeOrigin(app, shop));
  url.search = new URLSearchParams({
    client_id: app.apiKey,
    scope: scopes.join(','),
    redirect_uri: app.redirectUri,
    state,
    // Only a host playing every store needs to be told which one; Shopify's own link names it by host.
    ...(app.storeUrl ? { shop } : {}),
  }).toString();
  return url.toString();
}

/** The callback's signature base: every parameter but hmac (and the legacy signature), sorted by name, as a query string. */
export function installQueryMessage(query: Record<string, unknown>): string {
  const pairs = Object.keys(query)
    .filter((k) => k !== 'hmac' && k !== 'signature')
    .sort()
    .map((k) => [k, Array.isArray(query[k]) ? (query[k] as unknown[]).map(String).join(',') : String(query[k] ?? '')] as [string, string]);
  return new URLSearchParams(pairs).toString();
}

/** Whether the callback's hmac is the app's (compared in constant time). */
export function installQueryValid(query: Record<string, unknown>, secret: string): boolean {
  const given = query.hmac;
  if (typeof given !== 'string' || !/^[0-9a-fA-F]{64}$/.test(given)) return false;
  const expected = crypto.createHmac('sha256', secret).update(installQueryMessage(query)).digest();
  return crypto.timingSafeEqual(Buffer.from(given.toLowerCase(), 'hex'), expected);
}

/** A shop parameter that is a store's own domain (never a host an attacker chose). */
export const isShopDomain = (shop: unknown): shop is string => typeof shop === 'string' && shopifyDomainPattern.test(shop);

export interface ShopifyGrant {
  access_token: string;
  /** The scopes granted, comma-separated as Shopify answers them. */
  scope: string;
}

/** The callback's code exchanged at the store for its offline access token. */
export async function shopifyInstallGrant(app: ShopifyApp, shop: string, code: string): Promise<ShopifyGrant> {
  if (!isShopDomain(shop)) throw portalRefused(`webshop install: ${shop} is not a <name>.myshopify.com store`);
  let res: Response;
  try {
    res = await fetch(new URL('/admin/oauth/access_token', storeOrigin(app, shop)), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', ...(app.storeUrl ? { 'X-Shopify-Shop-Domain': shop } : {}) },
      body: JSON.stringify({ client_id: app.apiKey, client_secret: app.apiSecret, code }),
      signal: AbortSignal.timeout(config().portalTimeoutMs),
    });
  } catch (err) {
    throw portalUnavailable(`webshop install: the store ${shop} did not answer (${(err as Error).message})`);
  }
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok || typeof body.access_token !== 'string' || body.access_token === '') {
    const reason = `${res.status}${typeof body.error_description === 'string' ? `: ${body.error_description}` : typeof body.error === 'string' ? `: ${body.error}` : ''}`;
    if (res.status === 429 || res.status >= 500) throw portalUnavailable(`webshop install: the store ${shop} answered ${reason}`);
    throw portalRefused(`webshop install: the store ${shop} refused the authorization code (${reason}); install the app again from a new link`);
  }
  return { access_token: body.access_token, scope: typeof body.scope === 'string' ? body.scope : '' };
}
