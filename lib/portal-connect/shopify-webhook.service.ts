/**
 * Shopify's webhooks at POST /connect/shopify/webhooks (issue 33). A delivery is read only when
 * its X-Shopify-Hmac-Sha256 is the raw body's under Kontor's app secret (else 401, as Shopify
 * asks of compliance webhooks, and nothing changes), once per X-Shopify-Webhook-Id (Shopify
 * delivers again when an answer is late or not 2xx, and may deliver twice: the id is kept a day in
 * Redis). An order topic queues the order import of every portal account the store reaches
 * (shopify_store, by X-Shopify-Shop-Domain): the poll's own job, so an order is still imported
 * once, whichever of webhook and poll fetches it first. The answer comes before any import: Shopify
 * waits 5 s at most. What the other topics do: lib/portals/README.md, "Shopify webhooks".
 */
import crypto from 'node:crypto';
import { config } from '../../config';
import { domainError } from '../errors';
import { log } from '../log';
import { channelWebhooks } from '../metrics';
import { queues } from '../queue';
import { redis, whenReady } from '../redis';
import { isShopDomain, ShopifyStoreRow, shopifyStoreRepository, forgetSubscribed, webhookSignatureValid } from '../portals';
import { createTaskOnce } from '../task';

/** How long a webhook id is remembered: Shopify's retries of one delivery span 4 hours. */
export const webhookIdTtlSeconds = 86_400;

export const orderTopics = ['orders/create', 'orders/updated', 'orders/cancelled'];

/** A delivery refused before anything is read: 401, the body says why (no data). */
export class ShopifyWebhookRefused extends Error {
  readonly status = 401;
}

export interface ShopifyDelivery {
  raw: Buffer;
  hmac: string | undefined;
  topic: string | undefined;
  shop: string | undefined;
  webhookId: string | undefined;
}

export type WebhookOutcome = 'queued' | 'duplicate' | 'unknown_shop' | 'acted' | 'ignored';

const digest = (value: string) => crypto.createHash('sha256').update(value).digest('hex');

/** The app secret, or a 503 naming the variable (a delivery is never read unverified). */
function appSecret(): string {
  const secret = config().shopifyApplication.apiSecret;
  if (!secret)
    throw domainError('service_unavailable', 'Shopify webhooks are not configured on this installation: set SHOPIFY_API_SECRET (the app client secret)');
  return secret;
}

/** The delivery's body as JSON (verified before), or an empty object. */
function payloadOf(raw: Buffer): Record<string, unknown> {
  try {
    const v = JSON.parse(raw.toString('utf8')) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** One task per seller account the store reaches (the webhook id makes it once on a redelivery). */
async function tellSellers(stores: ShopifyStoreRow[], webhookId: string, title: string, text: string): Promise<void> {
  const accounts = [...new Set(stores.map((s) => s.account_id))];
  for (const accountId of accounts)
    await createTaskOnce(accountId, { title: title.slice(0, 255), text, priority: 'high' }, `shopify-webhook-${digest(webhookId).slice(0, 40)}`);
}

async function act(topic: string, shop: string, stores: ShopifyStoreRow[], webhookId: string, payload: Record<string, unknown>): Promise<WebhookOutcome> {
  if (orderTopics.includes(topic)) {
    if (stores.length === 0) return 'unknown_shop';
    const id = digest(webhookId).slice(0, 32);
    // The poll's job: its import claims each order by its key, so a webhook and a poll fetching one order import it once.
    for (const s of stores)
      await queues().add('order.import', { accountId: s.account_id, portalAccountId: s.portal_account_id }, `order-import-${s.portal_account_id}-wh-${id}`);
    return 'queued';
  }
  if (stores.length === 0) return topic === 'app/uninstalled' || topic.includes('/redact') || topic.includes('data_request') ? 'unknown_shop' : 'ignored';
  const names = stores.map((s) => `portal account ${s.portal_account_id}`).join(', ');
  switch (topic) {
    case 'app/uninstalled':
      // The token is void: webhooks stop reaching the accounts; their next poll is refused and says so.
      for (const s of stores) {
        await shopifyStoreRepository.forget(s.account_id, s.portal_account_id);
        forgetSubscribed(s.portal_account_id);
      }
      await tellSellers(
        stores,
        webhookId,
        `Shopify: Kontor's app was uninstalled from ${shop}`,
        `The store ${shop} removed Kontor's app; ${names} no longer reaches it. Install it again (POST admin/portal_account/{id}/consent/ with connector shopify).`,
      );
      return 'acted';
    case 'customers/data_request':
    case 'customers/redact': {
      // The seller is the controller of its buyers' data in Kontor (and must keep invoiced orders): the seller decides, Kontor tells.
      const customer = (payload.customer ?? {}) as Record<string, unknown>;
      const orders = Array.isArray(payload.orders_requested)
        ? payload.orders_requested
        : Array.isArray(payload.orders_to_redact)
          ? payload.orders_to_redact
          : [];
      const what = topic === 'customers/redact' ? 'asks to erase the data of' : 'asks for the data Kontor holds of';
      await tellSellers(
        stores,
        webhookId,
        `Shopify: a buyer of ${shop} ${topic === 'customers/redact' ? 'asks for erasure' : 'asks for their data'}`,
        `Shopify ${what} the buyer ${String(customer.email ?? customer.id ?? 'unknown')} (Shopify orders ${orders.map(String).join(', ') || 'none named'}) of ${shop} (${names}). Answer within 30 days; invoiced orders keep their recipient (§14 UStG, §147 AO).`,
      );
      return 'acted';
    }
    case 'shop/redact':
      for (const s of stores) {
        await shopifyStoreRepository.forget(s.account_id, s.portal_account_id);
        forgetSubscribed(s.portal_account_id);
      }
      await tellSellers(
        stores,
        webhookId,
        `Shopify: ${shop} asks to erase its store data`,
        `48 hours after the uninstall, Shopify asks to erase what Kontor holds of ${shop} (${names}). Kontor no longer reaches the store; the orders imported are the seller's own records in Kontor and stay until the seller deletes them.`,
      );
      return 'acted';
    default:
      return 'ignored';
  }
}

/**
 * One delivery: verified, deduplicated, acted on. 401 (ShopifyWebhookRefused) for a bad
 * signature; a verified delivery of a store Kontor does not know is answered 200 as well
 * (`unknown_shop`, counted and logged): a non-2xx would only make Shopify deliver it 8 more times.
 */
export async function receiveShopifyWebhook(d: ShopifyDelivery): Promise<{ outcome: WebhookOutcome }> {
  const secret = appSecret();
  if (!webhookSignatureValid(d.raw, d.hmac, secret)) {
    channelWebhooks.inc({ channel: 'shopify', outcome: 'refused' });
    throw new ShopifyWebhookRefused('the X-Shopify-Hmac-Sha256 signature does not match the body');
  }
  const topic = String(d.topic ?? '').toLowerCase();
  const shop = String(d.shop ?? '').toLowerCase();
  const webhookId = d.webhookId && d.webhookId.length <= 200 ? d.webhookId : `body:${digest(`${topic}|${shop}|${d.raw.toString('base64')}`)}`;
  await whenReady(redis(), 2000).catch(() => undefined);
  const key = `${config().queuePrefix}:shopify-webhook:${digest(webhookId)}`;
  if ((await redis().set(key, '1', 'EX', webhookIdTtlSeconds, 'NX')) !== 'OK') {
    channelWebhooks.inc({ channel: 'shopify', outcome: 'duplicate' });
    return { outcome: 'duplicate' };
  }
  let outcome: WebhookOutcome;
  try {
    const stores = isShopDomain(shop) ? await shopifyStoreRepository.byDomain(shop) : [];
    outcome = await act(topic, shop, stores, webhookId, payloadOf(d.raw));
  } catch (err) {
    // Not acted on: the id is given back, so Shopify's redelivery is read again.
    await redis()
      .del(key)
      .catch(() => undefined);
    throw err;
  }
  channelWebhooks.inc({ channel: 'shopify', outcome });
  log.info({ topic, shop, outcome }, 'shopify webhook');
  return { outcome };
}
