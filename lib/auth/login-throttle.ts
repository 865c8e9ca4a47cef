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
 * One round trip per attempt (a script call per login it counts under and one for the address, sent
 * together). Counts the attempt in three fixed windows: login + address, address (any login),
 * login (any address); refuses when one is already full. The login-wide bound is skipped for an address the login succeeded from in the
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

/**
 * A login an attempt names (a reading of its credentials), as the account lookup saw it
 * (lib/account findByLogins): its fold by PostgreSQL's lower(), which the lookup compares, and the
 * account it names, if any.
 */
export interface NamedLogin {
  /** As sent (logged). */
  login: string;
  /** lower(login), the account lookup's fold: the throttle's key. */
  folded: string;
  accountId?: number;
}

/** A login's keys, by its fold: its login+address counter, its counter, its known addresses (one hash tag). */
function loginKeys(folded: string, address: string): string[] {
  // Logins may hold any character: keyed by a hash.
  const who = crypto.createHash('sha256').update(folded).digest('hex').slice(0, 32);
  const tag = `${config().queuePrefix}:login:{l${who}}`;
  return [`${tag}:la:${address}`, `${tag}:l`, `${tag}:known`];
}

/** The address's counter (any login), in a slot of its own. */
const addressKey = (address: string) => `${config().queuePrefix}:login:{a:${address}}`;

/**
 * What an attempt counts under, each once: the accounts its readings name (by the lookup's fold,
 * which is one per account: its unique index), or, when they name none, the last reading (the
 * decoded one). A reading that names no account beside one that does (Basic as sent,
 * x%40shop.example, beside its decoding) checks no password and is no count of its own: counted,
 * it split the account's counts from its known addresses, and guesses in an RFC 6749 2.3.1 client's
 * spelling locked the seller out at her own address.
 */
function countedUnder(logins: readonly NamedLogin[]): NamedLogin[] {
  const accounts = logins.filter((l) => l.accountId !== undefined);
  const named = accounts.length > 0 ? accounts : logins.slice(-1);
  const seen = new Set<string>();
  return named.filter((l) => !seen.has(l.folded) && seen.add(l.folded));
}

let unavailableWarnings = 0;

/**
 * Counts an attempt under each login given (countedUnder) and once under the address: 0 admitted, else the
 * bound (1..3) that refused; with Redis's time. Each login's side is atomic on its own (its keys
 * share a hash tag); a side that counted while another refused (or failed) takes its count back.
 */
async function countAttempt(logins: NamedLogin[], address: string): Promise<{ refused: number; nowMs: number }> {
  const { loginThrottleWindowSeconds: windowSeconds, loginAttemptsPerLoginAndAddress, loginAttemptsPerAddress, loginAttemptsPerLogin } = config();
  const at = movedTime();
  const knownMs = knownAddressDays * 86400 * 1000;
  const ofLogins = logins.map((login) => loginKeys(login.folded, address));
  const [ofAddress, ...ofEach] = await Promise.allSettled([
    addressAttemptScript([addressKey(address)], [windowSeconds, at, loginAttemptsPerAddress]) as Promise<[number, number]>,
    ...ofLogins.map(
      (keys) =>
        loginAttemptScript(keys, [windowSeconds, at, loginAttemptsPerLoginAndAddress, loginAttemptsPerLogin, address, knownMs]) as Promise<[number, number]>,
    ),
  ]);
  const sides = [ofAddress, ...ofEach];
  const failure = sides.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  const answer = (r: PromiseSettledResult<[number, number]>) => (r.status === 'fulfilled' ? Number(r.value[0]) : undefined);
  const nowMs = Number(sides.map((r) => (r.status === 'fulfilled' ? r.value[1] : undefined)).find((v) => v !== undefined) ?? 0);
  const addressSide = answer(ofAddress!);
  const loginSides = ofEach.map(answer);
  const admitted = addressSide === 0 && loginSides.every((a) => a === 0);
  // A side that counted while another refused (or failed) takes its count back.
  if (!admitted) {
    await Promise.all([
      ...(addressSide === 0 ? [uncountScript([addressKey(address)], [windowSeconds, at]).catch(() => undefined)] : []),
      ...ofLogins.filter((_, i) => loginSides[i] === 0).map((keys) => uncountScript(keys.slice(0, 2), [windowSeconds, at]).catch(() => undefined)),
    ]);
  }
  if (loginSides.includes(1)) return { refused: 1, nowMs };
  if (addressSide === 2) return { refused: 2, nowMs };
  if (loginSides.includes(3)) return { refused: 3, nowMs };
  if (failure) throw failure.reason;
  return { refused: 0, nowMs };
}

/** An attempt that signed in: what it answers, and the account the password opened (one its logins named). */
export interface SignedInAs<T> {
  signedIn: T;
  accountId: number;
}

/**
 * Runs a login attempt (token.php client_credentials, authorize.php) under the throttle: attempts
 * per login and address, per address and per login in LOGIN_THROTTLE_WINDOW_SECONDS, across web
 * processes (Redis). `logins` are the logins the attempt's readings name (client-credentials.ts:
 * Basic as sent, then form-decoded), each with the account lookup's fold and account: the attempt
 * counts under each account they name, by its fold (else under the last login), and once under
 * the address, so no spelling of a login is a fresh count for its password, nor one the known
 * addresses of its account do not cover. Past a bound the attempt
 * is refused before the password is checked: 429 too_many_login_attempts with Retry-After (the
 * end of the window). `attempt` answers what it signed in as and the account, or undefined
 * for a wrong login or password. When Redis cannot count the attempt, the login is refused (503
 * service_unavailable with Retry-After): a security check never fails open. Failed and refused
 * attempts are logged as warn lines with `login_failed` (where: `via`), the login the last reading
 * names (the decoded one; `login_sent` beside it when it differs) and the address, never the password.
 */
export async function throttledLogin<T>(
  logins: readonly NamedLogin[],
  address: string,
  attempt: () => Promise<SignedInAs<T> | undefined>,
  via: string,
): Promise<T | undefined> {
  const { loginThrottleWindowSeconds: windowSeconds } = config();
  const named = countedUnder(logins);
  if (named.length === 0) throw new Error('throttledLogin: an attempt names at least one login');
  const [first, last] = [logins[0]!.login, logins[logins.length - 1]!.login];
  const logged = { login: last, ...(first !== last ? { login_sent: first } : {}) };
  const { refused, nowMs } = await countAttempt(named, address).catch((err: unknown) => {
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
    log.warn({ login_failed: via, ...logged, address, throttled: bounds[refused - 1] }, 'login refused by the login throttle');
    throw throttled('too_many_login_attempts', `too many login attempts for ${bounds[refused - 1]}; try again in ${retryAfter} s`, retryAfter);
  }
  const outcome = await attempt();
  const at = movedTime();
  if (outcome !== undefined) {
    // The attempt was no failure: the account signed in starts its login+address count anew and
    // knows the address; another account it named takes its count back, as the address does.
    await Promise.all([
      ...named.map((login) => {
        const keys = loginKeys(login.folded, address);
        return (
          login.accountId === outcome.accountId
            ? successScript(keys, [windowSeconds, at, address, knownAddressesKept, knownAddressDays * 86400 * 1000])
            : uncountScript(keys.slice(0, 2), [windowSeconds, at])
        ).catch(() => undefined);
      }),
      uncountScript([addressKey(address)], [windowSeconds, at]).catch(() => undefined),
    ]);
    return outcome.signedIn;
  }
  // A failed login is an operator's signal (credential stuffing): the login and the address, never the password.
  log.warn({ login_failed: via, ...logged, address }, 'login failed');
  return undefined;
}
