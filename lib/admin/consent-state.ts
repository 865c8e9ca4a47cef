/**
 * The `state` of a consent link (RFC 6749 10.12): random, good once, for 10 minutes, and bound
 * to the seller account, portal account and connector that asked. Kept in Redis under its
 * SHA-256 (the value in the link is never stored), taken with GETDEL so a replayed callback
 * finds nothing.
 */
import crypto from 'node:crypto';
import { config } from '../../config';
import { routePrefix } from '../db';
import { redis, whenReady } from '../redis';

/** How long a consent link can be followed. */
export const consentStateTtlSeconds = 600;

export interface ConsentState {
  accountId: number;
  portalAccountId: number;
  connector: 'ebay' | 'amazon_sp' | 'shopify';
  /** eBay: the scopes the link asks for, which the consent grants and the account keeps (default Kontor's). */
  scopes?: string[];
  /** Shopify: the store the install link was made for (the callback must come from it). */
  shop?: string;
}

/** Waits for the first connection (a CLI process starts without one); when Redis stays away, the command's own error says so (a 503). */
const ready = () => whenReady(redis(), 2000).catch(() => undefined);

const keyOf = (state: string) => `${config().queuePrefix}:consent-state:${crypto.createHash('sha256').update(state).digest('hex')}`;

/** A new state for the link; with several cells it names the account, so the callback is routed to its cell (lib/db/cells.ts). */
export async function issueConsentState(bound: ConsentState): Promise<string> {
  const state = `${routePrefix(bound.accountId)}${crypto.randomBytes(32).toString('base64url')}`;
  await ready();
  await redis().set(keyOf(state), JSON.stringify(bound), 'EX', consentStateTtlSeconds);
  return state;
}

/**
 * What a callback's state was issued for, once: undefined for an unknown, expired or replayed
 * state, and for one of another connector (which is used up all the same).
 */
export async function takeConsentState(state: unknown, connector: ConsentState['connector']): Promise<ConsentState | undefined> {
  if (typeof state !== 'string' || !/^(a[1-9]\d{0,9}_)?[A-Za-z0-9_-]{43}$/.test(state)) return undefined;
  await ready();
  const stored = await redis().getdel(keyOf(state));
  if (!stored) return undefined;
  const bound = JSON.parse(stored) as ConsentState;
  return bound.connector === connector ? bound : undefined;
}
