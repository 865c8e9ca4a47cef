/**
 * A store's webhooks (issue 33): the subscriptions Kontor makes with `webhookSubscriptionCreate`
 * (orders created, updated and cancelled, and the app's uninstall), made once per store and
 * callback (the store's existing subscriptions are read first, so a second run creates nothing),
 * and the check of a delivery's X-Shopify-Hmac-Sha256: the base64 HMAC-SHA256 of the raw body
 * with the app's client secret, compared in constant time.
 */
import crypto from 'node:crypto';
import { config } from '../../../config';
import { log } from '../../log';
import type { PortalTarget } from '../portal.type';
import { refuseUserErrors, shopifyDocument, ShopifySession } from './shopify-client';
import { shopifyStoreRepository } from './shopify-store.repository';

/** The topics Kontor subscribes (names of the 2025-01 schema's WebhookSubscriptionTopic). */
export const webhookTopics = ['ORDERS_CREATE', 'ORDERS_UPDATED', 'ORDERS_CANCELLED', 'APP_UNINSTALLED'] as const;

const subscriptionsQuery = shopifyDocument(`query KontorWebhooks($topics: [WebhookSubscriptionTopic!]) {
  shop { myshopifyDomain }
  webhookSubscriptions(first: 20, topics: $topics) { nodes { id topic endpoint { __typename ... on WebhookHttpEndpoint { callbackUrl } } } }
}`);

const createMutation = shopifyDocument(`mutation KontorWebhookCreate($topic: WebhookSubscriptionTopic!, $webhookSubscription: WebhookSubscriptionInput!) {
  webhookSubscriptionCreate(topic: $topic, webhookSubscription: $webhookSubscription) { webhookSubscription { id topic } userErrors { field message } }
}`);

interface Subscriptions {
  shop: { myshopifyDomain: string };
  webhookSubscriptions: { nodes: { id: string; topic: string; endpoint: { __typename: string; callbackUrl?: string } }[] };
}

/** Subscribes the store's webhooks to `callbackUrl` where missing; answers the store's domain as Shopify names it and the topics created now. */
export async function subscribeWebhooks(target: PortalTarget, callbackUrl: string): Promise<{ shopDomain: string; created: string[] }> {
  const session = new ShopifySession(target);
  const seen = await session.call<Subscriptions>(subscriptionsQuery, { topics: [...webhookTopics] });
  const have = new Set(seen.webhookSubscriptions.nodes.filter((n) => n.endpoint.callbackUrl === callbackUrl).map((n) => n.topic));
  const created: string[] = [];
  for (const topic of webhookTopics.filter((t) => !have.has(t))) {
    const answer = await session.call<{ webhookSubscriptionCreate: { userErrors: { field?: string[] | null; message: string }[] } }>(createMutation, {
      topic,
      webhookSubscription: { callbackUrl, format: 'JSON' },
    });
    refuseUserErrors(`the webhook subscription ${topic}`, answer.webhookSubscriptionCreate.userErrors);
    created.push(topic);
  }
  return { shopDomain: seen.shop.myshopifyDomain.toLowerCase(), created };
}

/** Base64 HMAC-SHA256 of the raw body with the secret: what X-Shopify-Hmac-Sha256 carries. */
export const webhookSignature = (raw: Buffer | string, secret: string) => crypto.createHmac('sha256', secret).update(raw).digest('base64');

/** Whether a delivery's X-Shopify-Hmac-Sha256 is the raw body's under the secret (constant time; a header of another length is false). */
export function webhookSignatureValid(raw: Buffer, header: string | undefined, secret: string): boolean {
  if (typeof header !== 'string' || !/^[A-Za-z0-9+/]{43}=$/.test(header.trim())) return false;
  const expected = crypto.createHmac('sha256', secret).update(raw).digest();
  return crypto.timingSafeEqual(Buffer.from(header.trim(), 'base64'), expected);
}

/**
 * Whether deliveries to this account would carry Kontor's signature: Shopify signs a webhook with
 * the secret of the app whose token subscribed it. An OAuth install's token is Kontor's app's
 * (its client_id kept with it); a development account's is the sandbox's, which signs with the
 * configured app. A custom app's token (kontor portal-account connect) is that app's, whose secret
 * Kontor does not hold: its webhooks could not be verified, so it is not subscribed (its orders
 * come by the poll).
 */
export function signedByKontor(target: PortalTarget): boolean {
  const key = config().shopifyApplication.apiKey;
  const c = target.credentials;
  return (!c.access_token && !c.shop_domain) || (key !== null && c.client_id === key);
}

/**
 * Subscribes the account's store and records its domain (the endpoint finds accounts by it).
 * Nothing without a configured app secret (no delivery could be verified) or for a token of
 * another app.
 */
export async function ensureWebhooks(accountId: number, target: PortalTarget): Promise<{ shopDomain: string; created: string[] } | undefined> {
  const app = config().shopifyApplication;
  if (!app.apiSecret || !signedByKontor(target)) return undefined;
  const done = await subscribeWebhooks(target, app.webhookUrl);
  await shopifyStoreRepository.subscribed(accountId, target.portalAccountId, done.shopDomain);
  return done;
}

/** Accounts this process found subscribed (their next imports skip the check). */
const known = new Set<number>();

/**
 * Called by each order import of a Shopify account: subscribes an account that is not yet
 * (a development account, one connected before webhooks, one whose install could not subscribe).
 * A failure is logged, never fails the import: the poll still brings the orders.
 */
export async function subscribeOnce(accountId: number, target: PortalTarget): Promise<void> {
  if (known.has(target.portalAccountId)) return;
  try {
    if (!(await shopifyStoreRepository.has(accountId, target.portalAccountId))) {
      if (!(await ensureWebhooks(accountId, target))) return;
    }
    known.add(target.portalAccountId);
  } catch (err) {
    log.warn({ portal_account_id: target.portalAccountId, err: (err as Error).message }, 'shopify webhooks not subscribed; the poll goes on');
  }
}

/** The process forgets that an account was subscribed (its store was uninstalled or redacted). */
export const forgetSubscribed = (portalAccountId: number) => known.delete(portalAccountId);
