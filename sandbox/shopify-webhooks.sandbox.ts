/**
 * The sandbox's Shopify plays what a store does for an app beyond the Admin API (issue 33): the
 * install (authorization code grant) and the webhooks.
 * - GET /admin/oauth/authorize?client_id&scope&redirect_uri&state&shop: the merchant approves at
 *   once (the sandbox's stand-in for Shopify's install screen) and is sent to redirect_uri with
 *   code, hmac, host, shop, state and timestamp; hmac is the hex HMAC-SHA256 of the other
 *   parameters sorted and URL-encoded, under the app's secret.
 * - POST /admin/oauth/access_token {client_id, client_secret, code}: the code once, within a
 *   minute, for the app it was issued to -> {access_token, scope}; the token's store is the shop
 *   domain (the sandbox's account of that store).
 * - webhookSubscriptionCreate / webhookSubscriptions (resolved by shopify.sandbox.ts, checked
 *   against the schema like every call): a subscription per store, topic and callback URL
 *   (another with the same topic and URL is refused as Shopify does: "Address for this topic has
 *   already been taken"); the callback must be https (loopback hosts may be http: the tests'
 *   Kontor).
 * - Deliveries: every order created, updated (fulfilment) or cancelled reaches the store's
 *   subscriptions of its topic as Shopify sends them: POST, the REST order as JSON, headers
 *   X-Shopify-Topic, X-Shopify-Hmac-Sha256 (base64 HMAC-SHA256 of the body with the secret of the
 *   app that subscribed), X-Shopify-Shop-Domain, X-Shopify-Webhook-Id, X-Shopify-Event-Id,
 *   X-Shopify-Triggered-At, X-Shopify-API-Version. An answer that is not 2xx within 5 s is
 *   delivered again with the same webhook id, 8 times (Shopify: over 4 hours; here after
 *   `retry_ms`, POST /_sandbox/shopify/config {webhook_retry_ms}); after the 8th failure the
 *   subscription is removed, as Shopify removes one made through the Admin API.
 * Controls: GET /_sandbox/shopify/webhooks?portal_account= (deliveries and subscriptions),
 * POST /_sandbox/shopify/webhooks/send {portal_account, topic, order_id, tamper?, duplicate_of?}.
 */
import crypto from 'node:crypto';
import type express from 'express';
import type { Request, Response } from 'express';
import { developmentShopifyApplication } from '../config/channel-apps';
import type { SandboxState } from './sandbox.app';

/** The version the deliveries are made in (the subscriptions' API version). */
const apiVersion = '2025-01';
const domainPattern = /^[a-z0-9][a-z0-9-]{0,62}\.myshopify\.com$/;

export interface WebhookSubscription {
  id: string;
  account: string;
  topic: string;
  callbackUrl: string;
  format: string;
  createdAt: string;
  /** The app whose token made it: deliveries are signed with its secret. */
  apiKey: string;
}

export interface WebhookDelivery {
  webhook_id: string;
  event_id: string;
  topic: string;
  shop_domain: string;
  callback_url: string;
  subscription_id: string | null;
  tampered: boolean;
  attempts: { at: string; status: number | null; error?: string }[];
  delivered: boolean;
}

/** What the store side holds beyond the Admin API's data; cleared with the sandbox. */
export class ShopifyAppState {
  /** App api keys -> secrets (the development app always; POST /_sandbox/shopify/apps adds others). */
  apps = new Map<string, string>();
  /** Install codes -> store, app, when, used. */
  codes = new Map<string, { shop: string; apiKey: string; scope: string; at: number; used: boolean }>();
  /** Access tokens made by an install -> the app they belong to. */
  tokenApps = new Map<string, string>();
  subscriptions = new Map<string, WebhookSubscription>();
  deliveries: WebhookDelivery[] = [];
  /** What each delivery sent (body signed, headers), for a duplicate sent again byte for byte. */
  sent = new Map<string, { body: string; headers: Record<string, string>; apiKey: string }>();
  /** Wait before each redelivery (Shopify: spread over 4 hours). */
  retryMs = 60_000;
  retries = 8;
  timers = new Set<NodeJS.Timeout>();
  private n = 0;

  constructor() {
    this.clear();
  }

  next(): number {
    this.n += 1;
    return this.n;
  }

  clear(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.apps = new Map([[developmentShopifyApplication.apiKey, developmentShopifyApplication.apiSecret]]);
    this.codes.clear();
    this.tokenApps.clear();
    this.subscriptions.clear();
    this.deliveries = [];
    this.sent.clear();
    this.retryMs = 60_000;
  }
}

const apps = new WeakMap<SandboxState, ShopifyAppState>();

export function shopifyAppOf(state: SandboxState): ShopifyAppState {
  let a = apps.get(state);
  if (!a) {
    const created = new ShopifyAppState();
    apps.set(state, created);
    state.events.on('reset', () => created.clear());
    a = created;
  }
  return a;
}

/** The store's domain: an installed store's account is its domain; a development account N is sandbox-N.myshopify.com. */
export const shopDomainOf = (account: string) => (domainPattern.test(account) ? account : `sandbox-${account}.myshopify.com`);

/** The app a token belongs to: an install's, else the development app (development and custom-app tokens). */
export const appOfToken = (a: ShopifyAppState, token: string) => a.tokenApps.get(token) ?? developmentShopifyApplication.apiKey;

/** The callback's hmac as Shopify computes it. */
export function installHmac(params: Record<string, string>, secret: string): string {
  const message = new URLSearchParams(
    Object.keys(params)
      .filter((k) => k !== 'hmac' && k !== 'signature')
      .sort()
      .map((k) => [k, params[k]!] as [string, string]),
  ).toString();
  return crypto.createHmac('sha256', secret).update(message).digest('hex');
}

const loopback = (host: string) => host === 'localhost' || host === '127.0.0.1' || host === '[::1]';

/** webhookSubscriptionCreate over the store's subscriptions (userErrors as Shopify's). */
export function createSubscription(
  a: ShopifyAppState,
  account: string,
  apiKey: string,
  topic: string,
  input: { callbackUrl?: string | null; format?: string | null },
): { webhookSubscription: WebhookSubscription | null; userErrors: { field: string[]; message: string }[] } {
  const refuse = (field: string[], message: string) => ({ webhookSubscription: null, userErrors: [{ field, message }] });
  let url: URL;
  try {
    url = new URL(String(input.callbackUrl ?? ''));
  } catch {
    return refuse(['webhookSubscription', 'callbackUrl'], 'Address is invalid');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback(url.hostname)))
    return refuse(['webhookSubscription', 'callbackUrl'], 'Address protocol http:// is not supported');
  const taken = [...a.subscriptions.values()].some((s) => s.account === account && s.topic === topic && s.callbackUrl === url.toString());
  if (taken) return refuse(['webhookSubscription', 'callbackUrl'], 'Address for this topic has already been taken');
  const n = a.next();
  const sub: WebhookSubscription = {
    id: `gid://shopify/WebhookSubscription/${n}`,
    account,
    topic,
    callbackUrl: url.toString(),
    format: input.format ?? 'JSON',
    createdAt: new Date().toISOString(),
    apiKey,
  };
  a.subscriptions.set(sub.id, sub);
  return { webhookSubscription: sub, userErrors: [] };
}

/** A subscription as the schema's WebhookSubscription (endpoint a WebhookHttpEndpoint). */
export const subscriptionNode = (s: WebhookSubscription) => ({
  id: s.id,
  topic: s.topic,
  callbackUrl: s.callbackUrl,
  format: s.format,
  createdAt: s.createdAt,
  updatedAt: s.createdAt,
  apiVersion: { handle: apiVersion, displayName: apiVersion, supported: true },
  includeFields: [],
  metafieldNamespaces: [],
  filter: null,
  legacyResourceId: s.id.split('/').pop(),
  endpoint: { __typename: 'WebhookHttpEndpoint', callbackUrl: s.callbackUrl },
});

/** The topic's REST name: ORDERS_CREATE -> orders/create. */
const restTopic = (topic: string) => {
  const [resource, ...rest] = topic.toLowerCase().split('_');
  return `${resource}/${rest.join('_')}`;
};

async function attempt(a: ShopifyAppState, d: WebhookDelivery, body: string, headers: Record<string, string>): Promise<void> {
  let status: number | null = null;
  let error: string | undefined;
  try {
    const res = await fetch(d.callback_url, { method: 'POST', headers, body, signal: AbortSignal.timeout(5000) });
    status = res.status;
    await res.arrayBuffer().catch(() => undefined);
  } catch (err) {
    error = (err as Error).name === 'TimeoutError' ? 'no answer within 5 s' : (err as Error).message;
  }
  d.attempts.push({ at: new Date().toISOString(), status, ...(error ? { error } : {}) });
  if (status !== null && status >= 200 && status < 300) {
    d.delivered = true;
    return;
  }
  if (d.attempts.length > a.retries) {
    // Shopify removes a subscription made through the Admin API after the retries fail.
    if (d.subscription_id) a.subscriptions.delete(d.subscription_id);
    return;
  }
  const timer = setTimeout(() => {
    a.timers.delete(timer);
    void attempt(a, d, body, headers);
  }, a.retryMs);
  a.timers.add(timer);
}

/** One delivery (its first attempt starts now, after the caller's answer). */
export function deliver(
  a: ShopifyAppState,
  account: string,
  to: { callbackUrl: string; apiKey: string; subscriptionId: string | null },
  topic: string,
  payload: unknown,
  options: { tamper?: boolean; webhookId?: string; eventId?: string } = {},
): WebhookDelivery {
  const body = JSON.stringify(payload);
  const secret = a.apps.get(to.apiKey) ?? developmentShopifyApplication.apiSecret;
  const hmac = crypto.createHmac('sha256', secret).update(body).digest('base64');
  const d: WebhookDelivery = {
    webhook_id: options.webhookId ?? crypto.randomUUID(),
    event_id: options.eventId ?? crypto.randomUUID(),
    topic: restTopic(topic),
    shop_domain: shopDomainOf(account),
    callback_url: to.callbackUrl,
    subscription_id: to.subscriptionId,
    tampered: options.tamper === true,
    attempts: [],
    delivered: false,
  };
  const headers = {
    'Content-Type': 'application/json',
    'X-Shopify-Topic': d.topic,
    'X-Shopify-Hmac-Sha256': hmac,
    'X-Shopify-Shop-Domain': d.shop_domain,
    'X-Shopify-Webhook-Id': d.webhook_id,
    'X-Shopify-Event-Id': d.event_id,
    'X-Shopify-Triggered-At': new Date().toISOString(),
    'X-Shopify-API-Version': apiVersion,
  };
  // Tampered: the body changed after signing (what a forger without the secret can send).
  const sent = options.tamper ? body.replace(/}$/, ',"tampered":true}') : body;
  return start(a, d, sent, headers, to.apiKey);
}

function start(a: ShopifyAppState, d: WebhookDelivery, body: string, headers: Record<string, string>, apiKey: string): WebhookDelivery {
  a.deliveries.push(d);
  if (a.deliveries.length > 5000) a.deliveries.splice(0, a.deliveries.length - 5000);
  if (!a.sent.has(d.webhook_id)) a.sent.set(d.webhook_id, { body, headers, apiKey });
  setImmediate(() => void attempt(a, d, body, headers));
  return d;
}

/** Every subscription of the store to the topic gets the payload (one event, one webhook id each). */
export function notifyTopic(a: ShopifyAppState, account: string, topic: string, payload: unknown): WebhookDelivery[] {
  const eventId = crypto.randomUUID();
  return [...a.subscriptions.values()]
    .filter((s) => s.account === account && s.topic === topic)
    .map((s) => deliver(a, account, { callbackUrl: s.callbackUrl, apiKey: s.apiKey, subscriptionId: s.id }, topic, payload, { eventId }));
}

/**
 * Mounts the install endpoints and the webhook controls. `restOrder`: an order of the store as its
 * REST JSON (the payload of order topics); `issueToken`: the Admin API takes the token for the store.
 */
export function mountShopifyApp(
  app: express.Express,
  state: SandboxState,
  restOrder: (account: string, orderId: string) => unknown,
  issueToken: (token: string, account: string, scope: string) => void,
): void {
  const a = shopifyAppOf(state);

  app.get('/admin/oauth/authorize', (req: Request, res: Response) => {
    const q = req.query as Record<string, string | undefined>;
    const secret = q.client_id ? a.apps.get(q.client_id) : undefined;
    const shop = String(q.shop ?? '').toLowerCase();
    if (!secret || !q.state || !q.redirect_uri || !/^https?:\/\//.test(q.redirect_uri) || !domainPattern.test(shop)) {
      res
        .status(400)
        .type('text/plain')
        .send('client_id (a known app), scope, redirect_uri, state and shop (<name>.myshopify.com: the sandbox plays every store) are required');
      return;
    }
    const code = crypto.randomBytes(16).toString('hex');
    a.codes.set(code, { shop, apiKey: q.client_id!, scope: String(q.scope ?? ''), at: Date.now(), used: false });
    const params: Record<string, string> = {
      code,
      host: Buffer.from(`admin.shopify.com/store/${shop.replace('.myshopify.com', '')}`).toString('base64url'),
      shop,
      state: q.state,
      timestamp: String(Math.floor(Date.now() / 1000)),
    };
    const back = new URL(q.redirect_uri);
    for (const [k, v] of Object.entries({ ...params, hmac: installHmac(params, secret) })) back.searchParams.set(k, v);
    res.redirect(302, back.toString());
  });

  app.post('/admin/oauth/access_token', (req: Request, res: Response) => {
    const b = (req.body ?? {}) as Record<string, unknown>;
    const entry = typeof b.code === 'string' ? a.codes.get(b.code) : undefined;
    if (typeof b.client_id !== 'string' || typeof b.client_secret !== 'string' || typeof b.code !== 'string') {
      res.status(400).json({ error: 'invalid_request', error_description: 'client_id, client_secret and code are required' });
      return;
    }
    if (a.apps.get(b.client_id) !== b.client_secret) {
      res.status(400).json({ error: 'invalid_client', error_description: 'The client id or client secret is wrong' });
      return;
    }
    if (!entry || entry.used || entry.apiKey !== b.client_id || Date.now() - entry.at > 60_000) {
      res.status(400).json({ error: 'invalid_request', error_description: 'The authorization code was not found or was already used' });
      return;
    }
    entry.used = true;
    const token = `shpua_${crypto.randomBytes(16).toString('hex')}`;
    a.tokenApps.set(token, entry.apiKey);
    issueToken(token, entry.shop, entry.scope);
    res.json({ access_token: token, scope: entry.scope });
  });

  app.post('/_sandbox/shopify/apps', (req: Request, res: Response) => {
    const b = (req.body ?? {}) as { api_key?: unknown; api_secret?: unknown };
    if (typeof b.api_key !== 'string' || typeof b.api_secret !== 'string') {
      res.status(400).json({ error: 'api_key and api_secret are required' });
      return;
    }
    a.apps.set(b.api_key, b.api_secret);
    res.status(201).json({ api_key: b.api_key });
  });

  app.get('/_sandbox/shopify/webhooks', (req: Request, res: Response) => {
    const account = String(req.query.portal_account ?? '');
    const shop = shopDomainOf(account);
    res.json({
      subscriptions: [...a.subscriptions.values()].filter((s) => s.account === account).map((s) => ({ id: s.id, topic: s.topic, callback_url: s.callbackUrl })),
      deliveries: a.deliveries.filter((d) => d.shop_domain === shop),
    });
  });

  app.post('/_sandbox/shopify/webhooks/send', (req: Request, res: Response) => {
    const b = (req.body ?? {}) as {
      portal_account?: unknown;
      topic?: unknown;
      order_id?: unknown;
      tamper?: unknown;
      duplicate_of?: unknown;
      callback_url?: unknown;
    };
    const account = b.portal_account === undefined ? '' : String(b.portal_account);
    if (typeof b.duplicate_of === 'string') {
      // The same delivery again (same webhook id, body and signature), as Shopify may send it.
      const first = a.deliveries.find((d) => d.webhook_id === b.duplicate_of);
      const sent = a.sent.get(String(b.duplicate_of));
      if (!first || !sent) {
        res.status(404).json({ error: 'no such delivery' });
        return;
      }
      const d: WebhookDelivery = { ...first, attempts: [], delivered: false };
      res.status(202).json(start(a, d, sent.body, sent.headers, sent.apiKey));
      return;
    }
    const topic = typeof b.topic === 'string' ? b.topic : 'ORDERS_CREATE';
    const payload = restOrder(account, String(b.order_id ?? ''));
    const subs = [...a.subscriptions.values()].filter((s) => s.account === account && s.topic === topic);
    const to =
      typeof b.callback_url === 'string'
        ? [{ callbackUrl: b.callback_url, apiKey: developmentShopifyApplication.apiKey, subscriptionId: null }]
        : subs.map((s) => ({ callbackUrl: s.callbackUrl, apiKey: s.apiKey, subscriptionId: s.id }));
    if (to.length === 0) {
      res.status(404).json({ error: `the store of ${account} has no subscription of ${topic} (or give callback_url)` });
      return;
    }
    res.status(202).json(to.map((t) => deliver(a, account, t, topic, payload ?? { id: null }, { tamper: b.tamper === true })));
  });
}
