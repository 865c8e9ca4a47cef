/**
 * The sandbox eBay's OAuth (eBay "Getting user access tokens", "OAuth refresh token request";
 * no OpenAPI contract is published for it, so these are the documented rules, checked here):
 * - GET /oauth2/authorize (auth.ebay.com): client_id of a registered application,
 *   response_type=code, redirect_uri = the application's RuName, scopes eBay knows; the seller
 *   (query `login`, the eBay user who signs in; default sandbox-seller) consents, and the
 *   browser is sent to the RuName's accept URL with code, state and expires_in;
 * - POST /identity/v1/oauth2/token, grant authorization_code: the code once, within its
 *   expires_in (299 s), with the same RuName and the application's Basic credentials; answers
 *   access and refresh token with their lifetimes;
 * - grant client_credentials: an application token for a registered application (scope api_scope);
 * - grant refresh_token: the consent's client; scope may name the consent's scopes or fewer,
 *   more is invalid_scope; a revoked consent invalid_grant.
 * Applications: POST /_sandbox/ebay/apps {ru_name, accept_url} (developer.ebay.com's keys
 * and RuName) answers client_id and client_secret; Kontor's development application
 * (config/channel-apps.ts) is registered at start, its accept URL under PUBLIC_URL.
 */
import crypto from 'node:crypto';
import express, { Request, Response } from 'express';
import { config } from '../config';
import { connectPaths, developmentEbayApplication } from '../config/channel-apps';
import type { EbayState } from './ebay-state.sandbox';

/** The scopes the sandbox eBay knows (the Sell scopes Kontor asks for, and the read-only ones). */
export const knownScopes = new Set(
  [
    'api_scope',
    'api_scope/sell.inventory',
    'api_scope/sell.inventory.readonly',
    'api_scope/sell.fulfillment',
    'api_scope/sell.fulfillment.readonly',
    'api_scope/commerce.feedback',
    'api_scope/commerce.feedback.readonly',
    'api_scope/sell.account',
    'api_scope/sell.account.readonly',
  ].map((s) => `https://api.ebay.com/oauth/${s}`),
);

interface Application {
  clientId: string;
  clientSecret: string;
  ruName: string;
  acceptUrl: string;
}

interface Code {
  clientId: string;
  ruName: string;
  account: string;
  scopes: string[];
  expiresAt: number;
}

const applications = new WeakMap<EbayState, Map<string, Application>>();
const codes = new WeakMap<EbayState, Map<string, Code>>();
const appsOf = (ebay: EbayState) => applications.get(ebay) ?? applications.set(ebay, new Map()).get(ebay)!;
const codesOf = (ebay: EbayState) => codes.get(ebay) ?? codes.set(ebay, new Map()).get(ebay)!;

function basic(req: Request): { id: string; secret: string } | undefined {
  const match = /^Basic (.+)$/.exec(req.get('Authorization') ?? '');
  if (!match) return undefined;
  const [id = '', ...rest] = Buffer.from(match[1]!, 'base64').toString('utf8').split(':');
  return { id, secret: rest.join(':') };
}

const oauthError = (res: Response, status: number, error: string, description: string) => res.status(status).json({ error, error_description: description });

function issue(ebay: EbayState, account: string): { access_token: string; expires_in: number; token_type: string } {
  const token = `v^1.1#i^1#sandbox#${account}#${crypto.randomBytes(12).toString('hex')}`;
  ebay.tokens.set(token, account);
  return { access_token: token, expires_in: 7200, token_type: 'User Access Token' };
}

function authorize(ebay: EbayState) {
  return (req: Request, res: Response): void => {
    const q = req.query as Record<string, string | undefined>;
    const app = appsOf(ebay).get(q.client_id ?? '');
    const scopes = (q.scope ?? '').split(/\s+/).filter(Boolean);
    if (!app || q.redirect_uri !== app.ruName) {
      res.status(400).json({ error: 'invalid_request', error_description: 'unknown client_id or a redirect_uri that is not its RuName' });
      return;
    }
    if (q.response_type !== 'code' || scopes.length === 0 || scopes.some((s) => !knownScopes.has(s))) {
      const back = new URL(app.acceptUrl);
      back.search = new URLSearchParams({
        error: q.response_type !== 'code' ? 'unsupported_response_type' : 'invalid_scope',
        ...(q.state ? { state: q.state } : {}),
      }).toString();
      res.redirect(302, back.toString());
      return;
    }
    const code = `v^1.1#i^1#c^${crypto.randomBytes(16).toString('hex')}`;
    codesOf(ebay).set(code, { clientId: app.clientId, ruName: app.ruName, account: q.login || 'sandbox-seller', scopes, expiresAt: Date.now() + 299_000 });
    const back = new URL(app.acceptUrl);
    back.search = new URLSearchParams({ ...(q.state ? { state: q.state } : {}), code, expires_in: '299' }).toString();
    res.redirect(302, back.toString());
  };
}

function token(ebay: EbayState) {
  return (req: Request, res: Response): void => {
    const client = basic(req);
    const body = req.body as { grant_type?: string; refresh_token?: string; code?: string; redirect_uri?: string; scope?: string };
    if (body.grant_type === 'authorization_code') {
      const app = client ? appsOf(ebay).get(client.id) : undefined;
      if (!app || app.clientSecret !== client!.secret) return void oauthError(res, 401, 'invalid_client', 'client authentication failed');
      const code = codesOf(ebay).get(body.code ?? '');
      codesOf(ebay).delete(body.code ?? '');
      if (!code || code.clientId !== app.clientId || code.expiresAt < Date.now() || body.redirect_uri !== code.ruName)
        return void oauthError(res, 400, 'invalid_grant', 'the provided authorization grant code is invalid or was issued to another client');
      const refresh = `v^1.1#r^1#${crypto.randomBytes(16).toString('hex')}`;
      ebay.consents.set(refresh, { account: code.account, clientId: app.clientId, clientSecret: app.clientSecret, revoked: false, scopes: code.scopes });
      res.json({ ...issue(ebay, code.account), refresh_token: refresh, refresh_token_expires_in: 47304000 });
      return;
    }
    if (body.grant_type === 'client_credentials') {
      // An application token (the Notification API's getPublicKey asks for one): the application's keys, the public scope.
      const app = client ? appsOf(ebay).get(client.id) : undefined;
      if (!app || app.clientSecret !== client!.secret) return void oauthError(res, 401, 'invalid_client', 'client authentication failed');
      if (body.scope !== 'https://api.ebay.com/oauth/api_scope')
        return void oauthError(res, 400, 'invalid_scope', 'an application token takes the scope api_scope');
      res.json({ access_token: `v^1.1#i^1#app#${crypto.randomBytes(12).toString('hex')}`, expires_in: 7200, token_type: 'Application Access Token' });
      return;
    }
    const consent = body.refresh_token ? ebay.consents.get(body.refresh_token) : undefined;
    if (!client || (consent && (consent.clientId !== client.id || consent.clientSecret !== client.secret)))
      return void oauthError(res, 401, 'invalid_client', 'client authentication failed');
    if (body.grant_type !== 'refresh_token' || !consent || consent.revoked)
      return void oauthError(res, 400, 'invalid_grant', 'the provided authorization refresh token is invalid or was issued to another client');
    const asked = (body.scope ?? '').split(/\s+/).filter(Boolean);
    if (consent.scopes && asked.some((s) => !consent.scopes!.includes(s)))
      return void oauthError(res, 400, 'invalid_scope', 'The requested scope is invalid, unknown, malformed, or exceeds the scope granted to the client');
    res.json(issue(ebay, consent.account));
  };
}

/** The authorize page, the token endpoint and POST /_sandbox/ebay/apps. */
export function mountOAuth(app: express.Express, ebay: EbayState): void {
  // Kontor's development application (config/channel-apps.ts), so npm start's consent works with no keys.
  const dev = developmentEbayApplication;
  appsOf(ebay).set(dev.clientId, {
    clientId: dev.clientId,
    clientSecret: dev.clientSecret,
    ruName: dev.ruName,
    acceptUrl: `${config().publicUrl}${connectPaths.ebayAccepted}`,
  });
  app.get('/oauth2/authorize', authorize(ebay));
  app.post('/identity/v1/oauth2/token', express.urlencoded({ extended: false }), token(ebay));
  app.post('/_sandbox/ebay/apps', (req: Request, res: Response) => {
    const body = (req.body ?? {}) as { ru_name?: string; accept_url?: string };
    if (!body.ru_name || !body.accept_url || !URL.canParse(body.accept_url)) {
      res.status(400).json({ message: 'ru_name and an accept_url are required' });
      return;
    }
    const registered: Application = {
      clientId: `Kontor-App-SBX-${crypto.randomBytes(4).toString('hex')}`,
      clientSecret: `SBX-${crypto.randomBytes(12).toString('hex')}`,
      ruName: body.ru_name,
      acceptUrl: body.accept_url,
    };
    appsOf(ebay).set(registered.clientId, registered);
    res.status(201).json({ client_id: registered.clientId, client_secret: registered.clientSecret, ru_name: registered.ruName });
  });
}
