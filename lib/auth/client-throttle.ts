import crypto from 'node:crypto';
import { config } from '../../config';
import { now } from '../clock';
import { throttled } from '../errors';
import { log } from '../log';
import { redisScript } from '../redis';
import { WindowCounts } from '../window-counts';

/*
 * Failed client authentications and grants at token.php's authorization_code and refresh_token
 * grants (decision; document 1 is silent, RFC 6749 2.3.1 asks an endpoint that takes a client
 * password to be protected against brute force). Only failures count, so a client's server that
 * refreshes many sellers' tokens at once is never held up by its own use:
 * - a wrong secret (invalid_client) per client_id as sent and address, bound
 *   LOGIN_ATTEMPTS_PER_LOGIN_AND_ADDRESS, and per address, bound LOGIN_ATTEMPTS_PER_ADDRESS;
 * in the login throttle's window (LOGIN_THROTTLE_WINDOW_SECONDS). Past a bound the address is
 * refused before the secret is checked: 429 too_many_login_attempts with Retry-After.
 * No bound per client_id over all addresses: client_ids are public (authorize.php's links), so
 * anyone could lock a client out of every seller, and a 256-bit secret cannot be guessed from many
 * addresses either. An invalid_grant (an unknown, used, replaced or expired code or refresh token,
 * a wrong redirect_uri or code_verifier) is not counted (decision): it comes only from a client
 * that authenticated, the codes and refresh tokens are 256 random bits, so it is no guess of
 * anything; it is a connector presenting tokens of sellers who revoked its access, and counted per
 * address a hundred of those refused every grant of that server (all its other sellers'
 * refreshes, a new seller's code exchange) and of every client sharing its address.
 * KEYS: the counter. ARGV: window seconds, 1 to count a failure / 0 to read. Returns the failures
 * so far (before this one).
 */
const failureScript = redisScript(
  'kontorClientGrantFailures',
  1,
  `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if ARGV[2] == '1' then
  if redis.call('INCR', KEYS[1]) == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
end
return count
`,
);

interface Window {
  seconds: number;
  window: number;
  retryAfter: number;
  /** The counters of a client_id (as sent) and address, and of the address. */
  keys(clientId: string, address: string): { ofClient: string; ofAddress: string };
}

function windowOf(): Window {
  const seconds = config().loginThrottleWindowSeconds;
  const nowSeconds = Math.floor(now() / 1000);
  const window = Math.floor(nowSeconds / seconds);
  const prefix = `${config().queuePrefix}:client-grant`;
  return {
    seconds,
    window,
    retryAfter: Math.max(1, (window + 1) * seconds - nowSeconds),
    keys: (clientId, address) => {
      // A client_id as sent may hold any character (up to 200): keyed by a hash.
      const who = crypto.createHash('sha256').update(clientId).digest('hex').slice(0, 32);
      return { ofClient: `${prefix}:c:${who}:${address}:${window}`, ofAddress: `${prefix}:a:${address}:${window}` };
    },
  };
}

/*
 * Failures Redis could not take, counted in this process (keys as in Redis) and added to what
 * Redis counts, as the operator login throttle does (lib/operator). Never fail open: with Redis
 * away every guess went uncounted. Not refused outright (503) either, unlike password logins:
 * a client's secret and its refresh tokens are 256 random bits, and refusing every refresh while
 * Redis is away would stop every third-party integration an hour (an access token's life) into
 * the outage. With N web processes an address gets at most N times a bound until Redis is back.
 */
const localFailures = new WindowCounts();

let unavailableWarnings = 0;
function unavailable(err: unknown): void {
  if (unavailableWarnings++ % 100 === 0)
    log.warn({ err: (err as Error).message }, 'client grant throttle unavailable (Redis); failures counted in this process');
}

async function failures(key: string, w: Window): Promise<number> {
  const counted = await (failureScript([key], [w.seconds, 0]) as Promise<number>).then(Number, (err: unknown) => {
    unavailable(err);
    return 0;
  });
  return counted + localFailures.of(key, w.window);
}

async function countFailure(key: string, w: Window): Promise<void> {
  await failureScript([key], [w.seconds, 1]).catch((err: unknown) => {
    unavailable(err);
    localFailures.add(key, w.window);
  });
}

/** What the grant failed with, as the throttle counts it. */
export type GrantFailure = 'invalid_client' | 'invalid_grant';

/**
 * Runs a client's authorization_code or refresh_token grant under the throttle (see above):
 * refused with 429 before anything is checked when the address used up a bound; a failure the
 * grant throws (`failureOf` names it) is counted, then thrown on. `clientId`: the client_id as
 * sent ('' when none was).
 */
export async function throttledClientGrant<T>(
  clientId: string,
  address: string,
  grant: () => Promise<T>,
  failureOf: (err: unknown) => GrantFailure | undefined,
): Promise<T> {
  const { loginAttemptsPerLoginAndAddress, loginAttemptsPerAddress } = config();
  const w = windowOf();
  const { ofClient, ofAddress } = w.keys(clientId, address);
  const [ofClientSoFar, ofAddressSoFar] = await Promise.all([failures(ofClient, w), failures(ofAddress, w)]);
  const bound =
    ofClientSoFar >= loginAttemptsPerLoginAndAddress ? 'this client from this address' : ofAddressSoFar >= loginAttemptsPerAddress ? 'this address' : undefined;
  if (bound) {
    log.warn({ login_failed: 'token.php', client_id: clientId || null, address, throttled: bound }, 'client grant refused by the client throttle');
    throw throttled('too_many_login_attempts', `too many failed client authentications or grants for ${bound}; try again in ${w.retryAfter} s`, w.retryAfter);
  }
  try {
    return await grant();
  } catch (err) {
    const failure = failureOf(err);
    // Only a wrong secret is a guess (see above): an invalid_grant counts nowhere.
    if (failure === 'invalid_client') await Promise.all([countFailure(ofAddress, w), countFailure(ofClient, w)]);
    throw err;
  }
}
