/**
 * The step between the seller's login and their choice of portal account on authorize.php: a
 * random ticket in the form, its hash in Redis for 10 minutes with what was decided so far. It is
 * bound to the page's CSRF cookie, so a ticket copied into another browser is worthless.
 */
import crypto from 'node:crypto';
import { config } from '../../config';
import type { Scope } from '../access';
import { redis, whenReady } from '../redis';
import { secretHash } from './secret';

const ticketSeconds = 600;

export interface Consent {
  accountId: number;
  login: string;
  /** The authorization request's parameters as the client sent them (read again on use). */
  request: Record<string, string>;
  scope: Scope[];
  csrfHash: string;
  /** The stamp of the password checked at sign-in (SignedIn): the code is refused if it changed since. */
  loginStamp: string;
}

/** Waits for the first connection; when Redis stays away, the command's own error says so (a 503). */
const ready = () => whenReady(redis(), 2000).catch(() => undefined);

const keyOf = (ticket: string) => `${config().queuePrefix}:consent:${secretHash(ticket)}`;

export async function saveConsent(consent: Consent): Promise<string> {
  const ticket = crypto.randomBytes(32).toString('base64url');
  await ready();
  await redis().set(keyOf(ticket), JSON.stringify(consent), 'EX', ticketSeconds);
  return ticket;
}

/** The consent of a ticket sent with this CSRF cookie, or undefined (expired, used, another browser's). */
export async function loadConsent(ticket: string, csrf: string): Promise<Consent | undefined> {
  await ready();
  const raw = await redis().get(keyOf(ticket));
  if (!raw) return undefined;
  const consent = JSON.parse(raw) as Consent;
  return consent.csrfHash === secretHash(csrf) ? consent : undefined;
}

export async function dropConsent(ticket: string): Promise<void> {
  await redis().del(keyOf(ticket));
}
