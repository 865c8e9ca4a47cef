import crypto from 'node:crypto';
import { config } from '../../config';
import { now } from '../clock';
import { throttled } from '../errors';
import { log } from '../log';
import { redisScript } from '../redis';

/** How long an address that logged in successfully counts as the seller's own. */
const knownAddressDays = 30;
/** Own addresses remembered per login (the newest). */
const knownAddressesKept = 20;

/*
 * One round trip per attempt. Counts the attempt in three fixed windows: login + address, address
 * (any login), login (any address); refuses when one is already full. The login-wide bound is
 * skipped for an address the login succeeded from in the last 30 days, so guesses from foreign
 * addresses never lock the seller out where it usually works.
 * KEYS: login+address counter, address counter, login counter, the login's known addresses.
 * ARGV: window seconds, the three bounds, address, now ms, known-address age ms.
 * Returns 0 when admitted, else the number (1..3) of the bound that refused.
 */
const attemptScript = redisScript(
  'kontorLoginAttempt',
  4,
  `
local known = redis.call('ZSCORE', KEYS[4], ARGV[5])
local exempt = known and tonumber(known) > tonumber(ARGV[6]) - tonumber(ARGV[7])
for i = 1, 3 do
  if not (i == 3 and exempt) then
    local count = tonumber(redis.call('GET', KEYS[i]) or '0')
    if count >= tonumber(ARGV[i + 1]) then return i end
  end
end
for i = 1, 3 do
  if redis.call('INCR', KEYS[i]) == 1 then redis.call('EXPIRE', KEYS[i], ARGV[1]) end
end
return 0
`,
);

/* A successful login: its attempt was no failure, the login+address count starts anew, the address is the seller's own. */
const successScript = redisScript(
  'kontorLoginSuccess',
  4,
  `
redis.call('DEL', KEYS[1])
for i = 2, 3 do
  if tonumber(redis.call('GET', KEYS[i]) or '0') > 0 then redis.call('DECR', KEYS[i]) end
end
redis.call('ZADD', KEYS[4], ARGV[2], ARGV[1])
redis.call('ZREMRANGEBYRANK', KEYS[4], 0, -1 - tonumber(ARGV[3]))
redis.call('PEXPIRE', KEYS[4], ARGV[4])
return 1
`,
);

const bounds = ['this login from this address', 'this address', 'this login'];

function keysOf(login: string, address: string, window: number): string[] {
  // Logins are case-insensitive (account lookup) and may hold any character: keyed by a hash.
  const who = crypto.createHash('sha256').update(login.toLowerCase()).digest('hex').slice(0, 32);
  const prefix = `${config().queuePrefix}:login`;
  return [`${prefix}:la:${who}:${address}:${window}`, `${prefix}:a:${address}:${window}`, `${prefix}:l:${who}:${window}`, `${prefix}:known:${who}`];
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
  const { loginThrottleWindowSeconds: windowSeconds, loginAttemptsPerLoginAndAddress, loginAttemptsPerAddress, loginAttemptsPerLogin } = config();
  const nowMs = now();
  const window = Math.floor(nowMs / 1000 / windowSeconds);
  const keys = keysOf(login, address, window);
  const knownMs = knownAddressDays * 86400 * 1000;
  let refused = 0;
  try {
    refused = Number(
      await attemptScript(keys, [windowSeconds, loginAttemptsPerLoginAndAddress, loginAttemptsPerAddress, loginAttemptsPerLogin, address, nowMs, knownMs]),
    );
  } catch (err) {
    log.warn({ err }, 'login throttle unavailable');
  }
  if (refused > 0) {
    const retryAfter = Math.max(1, (window + 1) * windowSeconds - Math.floor(nowMs / 1000));
    log.warn({ login_failed: via, login, address, throttled: bounds[refused - 1] }, 'login refused by the login throttle');
    throw throttled('too_many_login_attempts', `too many login attempts for ${bounds[refused - 1]}; try again in ${retryAfter} s`, retryAfter);
  }
  const accountId = await attempt();
  if (accountId !== undefined) await successScript(keys, [address, nowMs, knownAddressesKept, knownMs]).catch(() => undefined);
  // A failed login is an operator's signal (credential stuffing): the login and the address, never the password.
  else log.warn({ login_failed: via, login, address }, 'login failed');
  return accountId;
}
