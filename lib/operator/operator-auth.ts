import crypto from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { config, Config } from '../../config';
import { log } from '../log';
import { operatorLoginAttempt } from './operator-throttle';

const same = (a: string, b: string) => {
  const x = crypto.createHash('sha256').update(a).digest();
  const y = crypto.createHash('sha256').update(b).digest();
  return crypto.timingSafeEqual(x, y);
};

/** The shortest operator password production takes (NIST SP 800-63B asks 8 of a user; this one guards every seller's queues). */
export const minOperatorPasswordLength = 16;

/** Passwords shipped in examples and guessed first. */
const knownWeak = new Set(['operator', 'password', 'admin', 'changeme', 'secret', 'kontor', 'ops-secret']);

/**
 * Why the operator password may not guard the operator pages, or undefined when it may. Empty:
 * the pages are off everywhere. In production also a password shorter than 16 characters, the
 * user name itself, or a known default: the pages stay off rather than open to a guess.
 */
export function operatorPasswordProblem(c: Pick<Config, 'env' | 'operatorUser' | 'operatorPassword'>): string | undefined {
  const password = c.operatorPassword;
  if (!password) return 'operator pages are disabled: set OPERATOR_PASSWORD (and OPERATOR_USER)';
  if (c.env !== 'production') return undefined;
  if (password.length < minOperatorPasswordLength || password === c.operatorUser || knownWeak.has(password.toLowerCase()))
    return `operator pages are disabled: OPERATOR_PASSWORD is too weak for production (at least ${minOperatorPasswordLength} characters, not the user name or a default)`;
  return undefined;
}

const readOnlyMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether an Origin header names this host (the request's Host, or PUBLIC_URL's origin). */
function isOwnOrigin(origin: string, req: Request): boolean {
  try {
    const url = new URL(origin);
    return url.host === req.get('host') || url.origin === new URL(config().publicUrl).origin;
  } catch {
    return false;
  }
}

/**
 * Writes on the operator pages only from the pages themselves. A browser attaches the operator's
 * cached Basic credentials to every request for this host, also to a form another site's page
 * POSTs here (cross-site request forgery): `POST /operator/queues/api/queues/<queue>/add` with a
 * text/plain body added a job to a queue of every seller's work, answered 200 (found by the
 * security pass). Refused (403) when the browser says the request comes from another site
 * (Sec-Fetch-Site, Fetch Metadata; `same-origin` and `none`, a typed URL, pass) or, from a browser
 * that sends no such header, its Origin names another host (OWASP CSRF Prevention Cheat Sheet:
 * fetch metadata, then the standard headers). Reads stay open to the operator's links; a client
 * that is no browser (curl, a script) sends neither header and is unaffected.
 */
export function sameOriginWrites(req: Request, res: Response, next: NextFunction): void {
  if (readOnlyMethods.has(req.method)) return next();
  const site = req.get('sec-fetch-site');
  const origin = req.get('origin');
  const crossSite = (site !== undefined && site !== 'same-origin' && site !== 'none') || (origin !== undefined && !isOwnOrigin(origin, req));
  if (crossSite) {
    log.warn(
      { refused: 'operator write from another site', method: req.method, path: req.path, origin: origin ?? null, site: site ?? null },
      'operator write refused',
    );
    res.status(403).json({ message: 'operator pages take writes only from their own pages (Sec-Fetch-Site or Origin names another site)' });
    return;
  }
  next();
}

function credentialsOf(req: Request): { user: string; password: string } | undefined {
  const match = /^Basic\s+(.+)$/i.exec(req.get('Authorization') ?? '');
  const decoded = match ? Buffer.from(match[1]!, 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/**
 * Basic authentication with the operator credentials of the configuration. Without a usable
 * password (operatorPasswordProblem) the operator pages are off (503), never open. Failed logins
 * are throttled per client address (429 with Retry-After, even for the right password, until the
 * window ends) and logged with the user name and address, never the password.
 */
export async function operatorAuth(req: Request, res: Response, next: NextFunction): Promise<void> {
  const c = config();
  const problem = operatorPasswordProblem(c);
  if (problem) {
    res.status(503).json({ message: problem });
    return;
  }
  // req.ip walks only TRUSTED_PROXIES (server/app.ts sets trust proxy), as the API's address does.
  const address = req.ip ?? req.socket.remoteAddress ?? 'unknown';
  const sent = credentialsOf(req);
  // Counted before the password is checked, a success taking it back (operator-throttle.ts):
  // guesses sent at once cannot all be tried.
  const attempt = await operatorLoginAttempt(address, sent !== undefined);
  const { retryAfter } = attempt;
  if (retryAfter !== undefined) {
    log.warn({ login_failed: 'operator', address, throttled: 'this address' }, 'operator login refused by the login throttle');
    res
      .set('Retry-After', String(retryAfter))
      .status(429)
      .json({ message: `too many failed operator logins from this address; try again in ${retryAfter} s` });
    return;
  }
  if (!sent || !same(sent.user, c.operatorUser) || !same(sent.password, c.operatorPassword)) {
    // A browser's first request carries no credentials: not a failed login (not counted).
    if (sent) log.warn({ login_failed: 'operator', login: sent.user, address }, 'operator login failed');
    res.set('WWW-Authenticate', 'Basic realm="kontor operator"').status(401).json({ message: 'operator credentials required' });
    return;
  }
  await attempt.succeeded();
  next();
}
