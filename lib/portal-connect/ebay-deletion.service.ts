/**
 * eBay's Marketplace Account Deletion endpoint (issue 30 point 3): the challenge answer, and a
 * signed notification verified (readEbayDeletion, the Notification API's public key fetched
 * with Kontor's application token and cached) and acted on in every seller account connected
 * to eBay. What goes and what stays is written in lib/portals/README.md ("eBay account
 * deletion"): contact data and delivery addresses go; amounts, lines, dates and an invoiced
 * order's billing name and address stay (bookkeeping law: invoices are kept 10 years).
 * The work is two statements over every account connected to eBay (the orders found by the
 * username's index), done before answering so that a failure is answered 5xx and eBay delivers
 * again; a redelivery is harmless (same statements).
 */
import { config } from '../../config';
import { ebayApplication } from '../admin';
import { db } from '../db';
import { domainError, invalidField, portalUnavailable } from '../errors';
import { log } from '../log';
import { ebayChallengeResponse, EbayNotificationRefused, readEbayDeletion } from '../portals';
import { ebayDeletionRepository } from './ebay-deletion.repository';

/** The verification token and endpoint URL, or a 503 naming what to set. */
function endpointKeys(): { token: string; endpoint: string } {
  const app = config().ebayApplication;
  if (!app.deletionVerificationToken)
    throw domainError(
      'service_unavailable',
      'eBay account deletion is not configured on this installation: set EBAY_DELETION_VERIFICATION_TOKEN (and EBAY_DELETION_ENDPOINT_URL)',
    );
  return { token: app.deletionVerificationToken, endpoint: app.deletionEndpointUrl };
}

/** GET ?challenge_code=: eBay's check that the endpoint is Kontor's. */
export function ebayChallenge(code: unknown): { challengeResponse: string } {
  if (typeof code !== 'string' || !/^[\w.-]{1,256}$/.test(code)) throw invalidField('challenge_code', 'challenge_code is required');
  const { token, endpoint } = endpointKeys();
  return ebayChallengeResponse(code, token, endpoint);
}

// eBay advises caching its public keys (they change rarely) and its application token until it expires.
const keys = new Map<string, { key: { algorithm?: string; digest?: string; key: string }; until: number }>();
let appToken: { token: string; until: number } | undefined;
const keyTtlMs = 3600_000;

async function ebayFetch(path: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(new URL(path, config().ebayApplication.apiUrl), { ...init, signal: AbortSignal.timeout(config().portalTimeoutMs) });
  } catch (err) {
    throw portalUnavailable(`eBay did not answer ${path} (${(err as Error).message})`);
  }
}

/** Kontor's application access token (client credentials grant): the Notification API asks for one. */
async function applicationToken(): Promise<string> {
  if (appToken && appToken.until > Date.now()) return appToken.token;
  const app = ebayApplication();
  const res = await ebayFetch('/identity/v1/oauth2/token', {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'https://api.ebay.com/oauth/api_scope' }).toString(),
  });
  const body = (await res.json().catch(() => ({}))) as { access_token?: unknown; expires_in?: unknown };
  if (!res.ok || typeof body.access_token !== 'string') throw portalUnavailable(`eBay refused Kontor's application token (${res.status})`);
  appToken = { token: body.access_token, until: Date.now() + (typeof body.expires_in === 'number' ? body.expires_in : 7200) * 1000 - 60_000 };
  return appToken.token;
}

/**
 * Lookups of key ids not cached, per process and minute. The endpoint takes POSTs without a
 * login (eBay's design) and each new key id in a forged signature would cost one getPublicKey
 * call on Kontor's application quota; eBay signs with a handful of keys, so more than this in a
 * minute is someone trying ids. Beyond it a notification is answered 503, which eBay delivers
 * again later (any non-2xx), with the keys it already knows cached and taken at once.
 */
const keyLookupsPerMinute = 10;
let keyLookups: number[] = [];

function countKeyLookup(kid: string): void {
  const now = Date.now();
  keyLookups = keyLookups.filter((at) => at > now - 60_000);
  if (keyLookups.length >= keyLookupsPerMinute)
    throw portalUnavailable(`eBay public key ${kid} not looked up: ${keyLookupsPerMinute} unknown key ids were looked up in the last minute`, 60_000);
  keyLookups.push(now);
}

/** getPublicKey of the Notification API; an unknown key id refuses the notification (412). */
async function publicKey(kid: string): Promise<{ algorithm?: string; digest?: string; key: string }> {
  const cached = keys.get(kid);
  if (cached && cached.until > Date.now()) return cached.key;
  countKeyLookup(kid);
  const res = await ebayFetch(`/commerce/notification/v1/public_key/${encodeURIComponent(kid)}`, {
    headers: { Accept: 'application/json', Authorization: `Bearer ${await applicationToken()}` },
  });
  const body = (await res.json().catch(() => ({}))) as { algorithm?: string; digest?: string; key?: unknown };
  if (res.status === 404 || res.status === 400) throw new EbayNotificationRefused(`eBay knows no public key ${kid}`);
  if (!res.ok || typeof body.key !== 'string') throw portalUnavailable(`eBay's getPublicKey answered ${res.status}`);
  const key = { algorithm: body.algorithm, digest: body.digest, key: body.key };
  if (keys.size > 100) keys.clear();
  keys.set(kid, { key, until: Date.now() + keyTtlMs });
  return key;
}

export interface DeletionDone {
  notification_id: string;
  accounts: number;
  orders: number;
  customers: number;
}

/**
 * A POSTed notification: verified against its signature (EbayNotificationRefused, 412, when it
 * does not match), then that eBay user's data made less in every account connected to eBay.
 */
export async function receiveEbayDeletion(rawBody: string, signature: string | undefined): Promise<DeletionDone> {
  endpointKeys();
  const user = await readEbayDeletion(rawBody, signature, publicKey);
  const done = { accounts: 0, orders: 0, customers: 0 };
  const { accountIds, portalAccountIds } = await ebayDeletionRepository.ebayAccounts(db());
  if (user.username && accountIds.length) {
    const [customers, orders] = await db().transaction(async (trx) => [
      // Customers first: they are found through the orders, which then lose the username.
      await ebayDeletionRepository.anonymiseCustomers(trx, accountIds, portalAccountIds, user.username),
      await ebayDeletionRepository.anonymiseOrders(trx, accountIds, portalAccountIds, user.username),
    ]);
    Object.assign(done, { accounts: new Set([...orders, ...customers]).size, orders: orders.length, customers: customers.length });
  }
  const notificationId = user.notificationId || 'unnamed';
  await ebayDeletionRepository.record(db(), notificationId, done);
  // Counts only: the username is personal data and stays out of the logs.
  log.info({ notificationId, ...done }, 'ebay account deletion applied');
  return { notification_id: notificationId, ...done };
}
