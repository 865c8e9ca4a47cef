import crypto from 'node:crypto';
import { config } from '../../config';
import { now } from '../clock';
import { throttled } from '../errors';
import { dependencyUnavailable } from '../errors/dependency';
import { log } from '../log';
import { isSlotError, redisScript } from '../redis';

/** How long an address that logged in successfully counts as the seller's own. */
const knownAddressDays = 30;
/** Own addresses remembered per login (the newest). */
const knownAddressesKept = 20;

/*
 * One round trip per attempt (two script calls sent together). Counts the attempt in three fixed
 * windows: login + address, address (any login), login (any address); refuses when one is
 * already full. The login-wide bound is skipped for an address the login succeeded from in the
 * last 30 days, so guesses from foreign addresses never lock the seller out where it usually works.
 * The login's keys share its hash tag, the address's counter has its own (on a Redis Cluster a
 * script's keys must share a slot): each side checks and counts atomically, and a side that
 * counted while the other refused takes its count back, so a bound is never exceeded, even by
 * attempts sent at once.
 * KEYS: login+address counter, login counter, the login's known addresses.
 * ARGV: window seconds, login+address bound, login bound, address, now ms, known-address age ms.
 * Returns 0 when admitted, 1 (login+address) or 3 (login) for the bound that refused.
 */
const loginAttemptScript = redisScript(
  'kontorLoginAttemptOfLogin',
  3,
  `
local known = redis.call('ZSCORE', KEYS[3], ARGV[4])
local exempt = known and tonumber(known) > tonumber(ARGV[5]) - tonumber(ARGV[6])
if tonumber(redis.call('GET', KEYS[1]) or '0') >= tonumber(ARGV[2]) then return 1 end
if not exempt and tonumber(redis.call('GET', KEYS[2]) or '0') >= tonumber(ARGV[3]) then return 3 end
for i = 1, 2 do
  if redis.call('INCR', KEYS[i]) == 1 then redis.call('EXPIRE', KEYS[i], ARGV[1]) end
end
return 0
`,
);

/* The address side: KEYS: the address's counter. ARGV: window seconds, bound. Returns 0 when counted, 2 when full. */
const addressAttemptScript = redisScript(
  'kontorLoginAttemptOfAddress',
  1,
  `
if tonumber(redis.call('GET', KEYS[1]) or '0') >= tonumber(ARGV[2]) then return 2 end
if redis.call('INCR', KEYS[1]) == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return 0
`,
);

/* Takes a count back (a refused attempt, or a success's address): KEYS: counters. */
const uncountScript = redisScript(
  'kontorLoginUncount',
  'varying',
  `
for i = 1, #KEYS do
  if tonumber(redis.call('GET', KEYS[i]) or '0') > 0 then redis.call('DECR', KEYS[i]) end
end
return 1
`,
);

/* A successful login: its attempt was no failure, the login+address count starts anew, the address is the seller's own.
 * KEYS: login+address counter, login counter, known addresses. ARGV: address, now ms, kept, known-address age ms. */
const successScript = redisScript(
  'kontorLoginSuccess',
  3,
  `
redis.call('DEL', KEYS[1])
if tonumber(redis.call('GET', KEYS[2]) or '0') > 0 then redis.call('DECR', KEYS[2]) end
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1])
redis.call('ZREMRANGEBYRANK', KEYS[3], 0, -1 - tonumber(ARGV[3]))
redis.call('PEXPIRE', KEYS[3], ARGV[4])
return 1
`,
);

const bounds = ['this login from this address', 'this address', 'this login'];

function keysOf(login: string, address: string, window: number): { ofLogin: string[]; ofAddress: string } {
  // Logins are case-insensitive (account lookup) and may hold any character: keyed by a hash.
  const who = crypto.createHash('sha256').update(login.toLowerCase()).digest('hex').slice(0, 32);
  const prefix = `${config().queuePrefix}:login`;
  const tag = `${prefix}:{l${who}}`;
  return { ofLogin: [`${tag}:la:${address}:${window}`, `${tag}:l:${window}`, `${tag}:known`], ofAddress: `${prefix}:{a:${address}}:${window}` };
}

let unavailableWarnings = 0;

/** Counts an attempt on both sides: 0 admitted, else the bound (1..3) that refused. */
async function countAttempt(keys: ReturnType<typeof keysOf>, windowSeconds: number, address: string, nowMs: number, knownMs: number): Promise<number> {
  const { loginAttemptsPerLoginAndAddress, loginAttemptsPerAddress, loginAttemptsPerLogin } = config();
  const [ofLogin, ofAddress] = await Promise.allSettled([
    loginAttemptScript(keys.ofLogin, [windowSeconds, loginAttemptsPerLoginAndAddress, loginAttemptsPerLogin, address, nowMs, knownMs]),
    addressAttemptScript([keys.ofAddress], [windowSeconds, loginAttemptsPerAddress]),
  ]);
  const failure = [ofLogin, ofAddress].find((r): r is PromiseRejectedResult => r.status === 'rejected');
  const loginSide = ofLogin.status === 'fulfilled' ? Number(ofLogin.value) : undefined;
  const addressSide = ofAddress.status === 'fulfilled' ? Number(ofAddress.value) : undefined;
  // A side that counted while the other refused (or failed) takes its count back.
  if (loginSide === 0 && addressSide !== 0) await uncountScript(keys.ofLogin.slice(0, 2), []).catch(() => undefined);
  if (addressSide === 0 && loginSide !== 0) await uncountScript([keys.ofAddress], []).catch(() => undefined);
  if (loginSide === 1) return 1;
  if (addressSide === 2) return 2;
  if (loginSide === 3) return 3;
  if (failure) throw failure.reason;
  return 0;
}

/**
 * Runs a login attempt (token.php client_credentials, authorize.php) under the throttle: attempts
 * per login and address, per address and per login in LOGIN_THROTTLE_WINDOW_SECONDS, across web
 * processes (Redis). Past a bound the attempt is refused before the password is checked: 429
 * too_many_login_attempts with Retry-After (the end of the window). `attempt` answers the account
 * id, or undefined for a wrong login or password. When Redis cannot be reached, logins are not
 * throttled rather than refused. Failed and refused attempts are logged as warn lines with
 * `login_failed` (where: `via`), the login and the address, never the password.
 */
export async function throttledLogin(login: string, address: string, attempt: () => Promise<number | undefined>, via: string): Promise<number | undefined> {
  const { loginThrottleWindowSeconds: windowSeconds } = config();
  const nowMs = now();
  const window = Math.floor(nowMs / 1000 / windowSeconds);
  const keys = keysOf(login, address, window);
  const knownMs = knownAddressDays * 86400 * 1000;
  let refused = 0;
  try {
    refused = await countAttempt(keys, windowSeconds, address, nowMs, knownMs);
  } catch (err) {
    // Keys a Redis Cluster refuses as spanning slots are a defect that would hold on every
    // attempt: refused (503), never let through without a word.
    if (isSlotError(err)) {
      log.error({ err }, 'login throttle keys span cluster slots; logins are refused until this is fixed');
      throw dependencyUnavailable('redis');
    }
    if (unavailableWarnings++ % 100 === 0) log.warn({ err }, 'login throttle unavailable (Redis); logins not throttled');
  }
  if (refused > 0) {
    const retryAfter = Math.max(1, (window + 1) * windowSeconds - Math.floor(nowMs / 1000));
    log.warn({ login_failed: via, login, address, throttled: bounds[refused - 1] }, 'login refused by the login throttle');
    throw throttled('too_many_login_attempts', `too many login attempts for ${bounds[refused - 1]}; try again in ${retryAfter} s`, retryAfter);
  }
  const accountId = await attempt();
  if (accountId !== undefined)
    await Promise.all([
      successScript(keys.ofLogin, [address, nowMs, knownAddressesKept, knownMs]).catch(() => undefined),
      uncountScript([keys.ofAddress], []).catch(() => undefined),
    ]);
  // A failed login is an operator's signal (credential stuffing): the login and the address, never the password.
  else log.warn({ login_failed: via, login, address }, 'login failed');
  return accountId;
}
