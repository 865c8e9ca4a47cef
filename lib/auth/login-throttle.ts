import crypto from 'node:crypto';
import { config } from '../../config';
import { movedTime } from '../clock';
import { throttled, dependencyUnavailable } from '../errors';
import { log } from '../log';
import { isSlotError, luaNow, redisScript } from '../redis';

/** How long an address that logged in successfully counts as the seller's own. */
const knownAddressDays = 30;
/** Own addresses remembered per login (the newest). */
const knownAddressesKept = 20;

/*
 * Windowed counters in Lua: a hash of the window's number and the count, so that the window is
 * Redis's (luaNow: one clock for every web host; a test's moved clock is sent instead) and the
 * key names carry none.
 */
const counters = (nowArg: number) => `
${luaNow(nowArg)}
local windowSeconds = tonumber(ARGV[1])
local window = math.floor(now / 1000 / windowSeconds)
local function count(key)
  local c = redis.call('HMGET', key, 'w', 'n')
  if tonumber(c[1]) == window then return tonumber(c[2]) or 0 end
  return 0
end
local function add(key, by)
  if count(key) > 0 or by < 0 then
    if count(key) + by >= 0 then redis.call('HINCRBY', key, 'n', by) end
  else
    redis.call('HSET', key, 'w', window, 'n', by)
    redis.call('EXPIRE', key, windowSeconds)
  end
end
`;

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
 * ARGV: window seconds, a moved clock's ms or '', login+address bound, login bound, address,
 * known-address age ms.
 * Returns {0 admitted, or 1 (login+address) or 3 (login) for the bound that refused; Redis's time ms}.
 */
const loginAttemptScript = redisScript(
  'kontorLoginAttemptOfLogin',
  3,
  `${counters(2)}
local known = redis.call('ZSCORE', KEYS[3], ARGV[5])
local exempt = known and tonumber(known) > now - tonumber(ARGV[6])
if count(KEYS[1]) >= tonumber(ARGV[3]) then return {1, now} end
if not exempt and count(KEYS[2]) >= tonumber(ARGV[4]) then return {3, now} end
add(KEYS[1], 1)
add(KEYS[2], 1)
return {0, now}
`,
);

/* The address side: KEYS: the address's counter. ARGV: window seconds, a moved clock's ms or '', bound. Returns {0 counted or 2 full; Redis's time ms}. */
const addressAttemptScript = redisScript(
  'kontorLoginAttemptOfAddress',
  1,
  `${counters(2)}
if count(KEYS[1]) >= tonumber(ARGV[3]) then return {2, now} end
add(KEYS[1], 1)
return {0, now}
`,
);

/* Takes a count back (a refused attempt, or a success's address): KEYS: counters. ARGV: window seconds, a moved clock's ms or ''. */
const uncountScript = redisScript(
  'kontorLoginUncount',
  'varying',
  `${counters(2)}
for i = 1, #KEYS do add(KEYS[i], -1) end
return 1
`,
);

/* A successful login: its attempt was no failure, the login+address count starts anew, the address is the seller's own.
 * KEYS: login+address counter, login counter, known addresses. ARGV: window seconds, a moved clock's ms or '', address, kept, known-address age ms. */
const successScript = redisScript(
  'kontorLoginSuccess',
  3,
  `${counters(2)}
redis.call('DEL', KEYS[1])
add(KEYS[2], -1)
redis.call('ZADD', KEYS[3], now, ARGV[3])
redis.call('ZREMRANGEBYRANK', KEYS[3], 0, -1 - tonumber(ARGV[4]))
redis.call('PEXPIRE', KEYS[3], ARGV[5])
return 1
`,
);

const bounds = ['this login from this address', 'this address', 'this login'];

function keysOf(login: string, address: string): { ofLogin: string[]; ofAddress: string } {
  // Logins are case-insensitive (account lookup) and may hold any character: keyed by a hash.
  const who = crypto.createHash('sha256').update(login.toLowerCase()).digest('hex').slice(0, 32);
  const prefix = `${config().queuePrefix}:login`;
  const tag = `${prefix}:{l${who}}`;
  return { ofLogin: [`${tag}:la:${address}`, `${tag}:l`, `${tag}:known`], ofAddress: `${prefix}:{a:${address}}` };
}

let unavailableWarnings = 0;

/** Counts an attempt on both sides: 0 admitted, else the bound (1..3) that refused; with Redis's time. */
async function countAttempt(keys: ReturnType<typeof keysOf>, address: string): Promise<{ refused: number; nowMs: number }> {
  const { loginThrottleWindowSeconds: windowSeconds, loginAttemptsPerLoginAndAddress, loginAttemptsPerAddress, loginAttemptsPerLogin } = config();
  const at = movedTime();
  const knownMs = knownAddressDays * 86400 * 1000;
  const [ofLogin, ofAddress] = await Promise.allSettled([
    loginAttemptScript(keys.ofLogin, [windowSeconds, at, loginAttemptsPerLoginAndAddress, loginAttemptsPerLogin, address, knownMs]) as Promise<
      [number, number]
    >,
    addressAttemptScript([keys.ofAddress], [windowSeconds, at, loginAttemptsPerAddress]) as Promise<[number, number]>,
  ]);
  const failure = [ofLogin, ofAddress].find((r): r is PromiseRejectedResult => r.status === 'rejected');
  const loginSide = ofLogin.status === 'fulfilled' ? Number(ofLogin.value[0]) : undefined;
  const addressSide = ofAddress.status === 'fulfilled' ? Number(ofAddress.value[0]) : undefined;
  const nowMs = Number(ofLogin.status === 'fulfilled' ? ofLogin.value[1] : ofAddress.status === 'fulfilled' ? ofAddress.value[1] : 0);
  // A side that counted while the other refused (or failed) takes its count back.
  if (loginSide === 0 && addressSide !== 0) await uncountScript(keys.ofLogin.slice(0, 2), [windowSeconds, at]).catch(() => undefined);
  if (addressSide === 0 && loginSide !== 0) await uncountScript([keys.ofAddress], [windowSeconds, at]).catch(() => undefined);
  if (loginSide === 1) return { refused: 1, nowMs };
  if (addressSide === 2) return { refused: 2, nowMs };
  if (loginSide === 3) return { refused: 3, nowMs };
  if (failure) throw failure.reason;
  return { refused: 0, nowMs };
}

/**
 * Runs a login attempt (token.php client_credentials, authorize.php) under the throttle: attempts
 * per login and address, per address and per login in LOGIN_THROTTLE_WINDOW_SECONDS, across web
 * processes (Redis). Past a bound the attempt is refused before the password is checked: 429
 * too_many_login_attempts with Retry-After (the end of the window). `attempt` answers the account
 * id, or undefined for a wrong login or password. When Redis cannot count the attempt, the login
 * is refused (503 service_unavailable with Retry-After): a security check never fails open.
 * Failed and refused attempts are logged as warn lines with `login_failed` (where: `via`), the
 * login and the address, never the password.
 */
export async function throttledLogin<T>(login: string, address: string, attempt: () => Promise<T | undefined>, via: string): Promise<T | undefined> {
  const { loginThrottleWindowSeconds: windowSeconds } = config();
  const keys = keysOf(login, address);
  const { refused, nowMs } = await countAttempt(keys, address).catch((err: unknown) => {
    // Keys a Redis Cluster refuses as spanning slots are a defect that would hold on every
    // attempt: refused (503), never let through without a word.
    if (isSlotError(err)) {
      log.error({ err }, 'login throttle keys span cluster slots; logins are refused until this is fixed');
      throw dependencyUnavailable('redis');
    }
    // The throttle is a security check and fails closed: an attempt it cannot count is refused
    // (503 with Retry-After) before the password is checked. Let through, every guess went
    // uncounted while Redis was away or slow (a command timed out: a flood of requests can
    // cause that), unlimited guessing. Tokens already issued, refresh tokens and client secrets
    // (not throttled) keep working.
    if (unavailableWarnings++ % 100 === 0) log.warn({ err: (err as Error).message }, 'login throttle unavailable (Redis); logins refused until it answers');
    throw dependencyUnavailable('redis');
  });
  if (refused > 0) {
    // The end of the window, by the clock that counted it.
    const nowSeconds = Math.floor(nowMs / 1000);
    const retryAfter = Math.max(1, (Math.floor(nowSeconds / windowSeconds) + 1) * windowSeconds - nowSeconds);
    log.warn({ login_failed: via, login, address, throttled: bounds[refused - 1] }, 'login refused by the login throttle');
    throw throttled('too_many_login_attempts', `too many login attempts for ${bounds[refused - 1]}; try again in ${retryAfter} s`, retryAfter);
  }
  const signedIn = await attempt();
  const at = movedTime();
  if (signedIn !== undefined)
    await Promise.all([
      successScript(keys.ofLogin, [windowSeconds, at, address, knownAddressesKept, knownAddressDays * 86400 * 1000]).catch(() => undefined),
      uncountScript([keys.ofAddress], [windowSeconds, at]).catch(() => undefined),
    ]);
  // A failed login is an operator's signal (credential stuffing): the login and the address, never the password.
  else log.warn({ login_failed: via, login, address }, 'login failed');
  return signedIn;
}
