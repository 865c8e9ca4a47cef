/**
 * Connecting a seller's Amazon account (SP-API "Website authorization workflow"): the consent
 * link the seller opens in Seller Central (application_id, state; version=beta while the
 * application is a draft), the exchange of the spapi_oauth_code Amazon sends to the application's
 * redirect URI (with state and selling_partner_id) for the seller's LWA refresh token (grant
 * authorization_code; the code is good for five minutes, once), and the marketplaces the seller
 * sells in (Sellers API getMarketplaceParticipations), which become the account's marketplace_id.
 * What the portal account keeps: client_id, client_secret, refresh_token, seller_id (the
 * selling_partner_id), marketplace_id (comma-separated when several).
 */
import { config } from '../../../config';
import { portalRefused, portalUnavailable } from '../../errors';
import type { PortalTarget } from '../portal.type';
import { SpApiSession } from './sp-api-client';
import { spApiExchange } from './sp-api-http';
import { knownMarketplace } from './marketplaces';

/** Kontor's SP-API application (Solution Provider Portal / Seller Central Developer Central). */
export interface SpApiApplication {
  /** amzn1.sp.solution.… */
  applicationId: string;
  clientId: string;
  clientSecret: string;
  /** The redirect URI registered with the application: where Amazon sends the seller back. */
  redirectUri: string;
  /** The seller's Seller Central, e.g. https://sellercentral-europe.amazon.com. */
  sellerCentralUrl: string;
  /** LWA's token endpoint: https://api.amazon.com/auth/o2/token. */
  lwaUrl: string;
  /** A draft application: the link carries version=beta. */
  draft?: boolean;
}

/** The consent link; `state` comes back unchanged with the code and ties the answer to the portal account that asked. */
export function spApiConsentUrl(app: SpApiApplication, state: string): string {
  const url = new URL('/apps/authorize/consent', app.sellerCentralUrl);
  url.search = new URLSearchParams({
    application_id: app.applicationId,
    state,
    redirect_uri: app.redirectUri,
    ...(app.draft ? { version: 'beta' } : {}),
  }).toString();
  return url.toString();
}

export interface SpApiConsent {
  refresh_token: string;
  seller_id: string;
}

/** The redirect's spapi_oauth_code exchanged for the seller's refresh token (LWA, grant authorization_code). */
export async function spApiConsentGrant(app: SpApiApplication, code: string, sellingPartnerId: string): Promise<SpApiConsent> {
  let res: Response;
  try {
    res = await fetch(app.lwaUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: app.redirectUri,
        client_id: app.clientId,
        client_secret: app.clientSecret,
      }).toString(),
      signal: AbortSignal.timeout(config().portalTimeoutMs),
    });
  } catch (err) {
    throw portalUnavailable(`market_d consent: Login with Amazon did not answer (${(err as Error).message})`);
  }
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok || typeof body.refresh_token !== 'string') {
    const reason = `${typeof body.error === 'string' ? body.error : res.status}${typeof body.error_description === 'string' ? `: ${body.error_description}` : ''}`;
    if (res.status === 429 || res.status >= 500) throw portalUnavailable(`market_d consent: Login with Amazon answered ${reason}`);
    throw portalRefused(`market_d consent: Amazon refused the authorization code (${reason}); the seller has to open the consent link again`);
  }
  return { refresh_token: body.refresh_token, seller_id: sellingPartnerId };
}

interface MarketplaceParticipation {
  marketplace: { id: string; countryCode?: string; defaultCurrencyCode?: string; name?: string };
  participation: { isParticipating: boolean; hasSuspendedListings?: boolean };
}

/**
 * The marketplaces the seller participates in (Sellers API v1 getMarketplaceParticipations) that
 * Kontor serves, for the account's marketplace_id, and those it leaves out. The call also lists
 * ids that are no shop of Amazon's (the "Non-Amazon" marketplaces of Multi-Channel Fulfilment,
 * amzn/selling-partner-api-models issue 1367) and marketplaces Kontor's table lacks
 * (marketplaces.ts): one such id in marketplace_id refused every listing in all the account's
 * marketplaces (marketplaceOf), and a Non-Amazon id brought the orders of the seller's other
 * channels in as Amazon's. So only known marketplaces are kept (decision, lib/portals/README.md);
 * the others are named to the seller.
 */
export async function participatingMarketplaces(target: PortalTarget): Promise<{ served: string[]; leftOut: string[] }> {
  // Asked before the account has its marketplaces: the call names none.
  const s = new SpApiSession({ ...target, credentials: { marketplace_id: 'none', ...target.credentials } });
  const path = '/sellers/v1/marketplaceParticipations';
  const answer = await s.call<{ payload?: MarketplaceParticipation[] } | undefined>('get', path, (o) =>
    spApiExchange(new URL(path, `${target.baseUrl.replace(/\/+$/, '')}/`), {
      headers: { accept: 'application/json', ...o.headers },
      timeoutMs: Number(o.timeout) || undefined,
    }),
  );
  const ids = (answer?.payload ?? []).filter((p) => p.participation.isParticipating).map((p) => p.marketplace.id);
  return { served: ids.filter((id) => knownMarketplace(id)), leftOut: ids.filter((id) => !knownMarketplace(id)) };
}
