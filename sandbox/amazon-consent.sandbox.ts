/**
 * The sandbox's Amazon consent (SP-API "Website authorization workflow"): Seller Central's
 * consent page, which sends the seller back to the application's redirect URI with state,
 * selling_partner_id and spapi_oauth_code; LWA's authorization_code grant (the code once, within
 * five minutes, with the same redirect_uri); and the Sellers API's getMarketplaceParticipations.
 * The Sellers API's contract is not among ../shared/contracts/ebay-amazon/, so that route is not
 * checked against one (the sandbox answers its documented shape: payload[] of marketplace and
 * participation).
 */
import crypto from 'node:crypto';
import express, { Request, Response } from 'express';

export interface AmazonConsentStore {
  /** spapi_oauth_code -> the consenting sandbox account, the redirect it was given, when. */
  codes: Map<string, { account: string; redirectUri: string; at: number; used: boolean }>;
  /** The marketplaces each sandbox account participates in (default Amazon.de). */
  marketplaces: Map<string, string[]>;
}

const codeLifetimeMs = 5 * 60_000;

/**
 * GET /apps/authorize/consent: the seller (the sandbox account named by `portal_account`, the
 * sandbox's stand-in for signing in) consents; 302 to redirect_uri with state, selling_partner_id
 * and spapi_oauth_code.
 */
export function consentPage(store: AmazonConsentStore) {
  return (req: Request, res: Response): void => {
    const q = req.query as Record<string, string | undefined>;
    if (!q.application_id?.startsWith('amzn1.sp.solution.') || !q.state || !q.redirect_uri || !/^https?:\/\//.test(q.redirect_uri)) {
      res.status(400).type('text/plain').send('application_id (amzn1.sp.solution.…), state and redirect_uri are required');
      return;
    }
    const account = q.portal_account ?? 'consent';
    const code = `ANsandbox${crypto.randomBytes(12).toString('hex')}`;
    store.codes.set(code, { account, redirectUri: q.redirect_uri, at: Date.now(), used: false });
    const back = new URL(q.redirect_uri);
    back.searchParams.set('state', q.state);
    back.searchParams.set('selling_partner_id', `SANDBOX${account}`);
    back.searchParams.set('spapi_oauth_code', code);
    res.redirect(302, back.toString());
  };
}

/** LWA's authorization_code grant: the refresh token of the consenting account, or invalid_grant. */
export function authorizationCodeGrant(
  store: AmazonConsentStore,
  body: Record<string, string | undefined>,
): { status: number; payload: Record<string, unknown>; account: string } {
  const entry = body.code ? store.codes.get(body.code) : undefined;
  if (!body.client_id || !body.client_secret || !body.code || !body.redirect_uri)
    return {
      status: 400,
      account: 'unknown',
      payload: { error: 'invalid_request', error_description: 'code, redirect_uri, client_id and client_secret are required' },
    };
  if (!entry || entry.used || Date.now() - entry.at > codeLifetimeMs || entry.redirectUri !== body.redirect_uri)
    return {
      status: 400,
      account: entry?.account ?? 'unknown',
      payload: { error: 'invalid_grant', error_description: 'The authorization code is invalid, expired, already used or for another redirect_uri' },
    };
  entry.used = true;
  return {
    status: 200,
    account: entry.account,
    payload: {
      access_token: `Atza|consent-${crypto.randomBytes(8).toString('hex')}`,
      refresh_token: `Atzr|sandbox-${entry.account}`,
      token_type: 'bearer',
      expires_in: 3600,
    },
  };
}

/** Sellers API v1: getMarketplaceParticipations of the account the access token names. */
export function sellers(store: AmazonConsentStore): express.Router {
  const router = express.Router();
  router.get('/marketplaceParticipations', (_req: Request, res: Response) => {
    const ids = store.marketplaces.get(String(res.locals.account)) ?? ['A1PA6795UKMFR9'];
    res.json({
      payload: ids.map((id) => ({
        marketplace: {
          id,
          countryCode: id === 'A1PA6795UKMFR9' ? 'DE' : 'XX',
          name: id,
          defaultCurrencyCode: 'EUR',
          defaultLanguageCode: 'de_DE',
          domainName: 'www.amazon.de',
        },
        participation: { isParticipating: true, hasSuspendedListings: false },
      })),
    });
  });
  return router;
}
