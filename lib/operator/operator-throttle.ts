import { config } from '../../config';
import { now } from '../clock';
import { log } from '../log';
import { redisScript } from '../redis';
import { WindowCounts } from '../window-counts';

/*
 * Operator login attempts per client address in a fixed window (LOGIN_THROTTLE_WINDOW_SECONDS, the
 * sellers' window), across web processes. An attempt carrying credentials is counted before its
 * password is checked, in the same script that checks the bound, and a success takes its count
 * back: only failures stay counted, so an operator who knows the password is never held up by its
 * own use, and attempts sent at once cannot pass the bound. Checked first and counted only after a
 * wrong password, twenty guesses sent together were all tried with a bound of 3 (each read the count
 * before any failure was added).
 * KEYS: the address's counter. ARGV: window seconds, bound, 1 to count an attempt (unless the bound
 * is reached) / 0 to check / -1 to take an attempt back. Returns the attempts counted before this one.
 */
const attemptScript = redisScript(
  'kontorOperatorAttempt',
  1,
  `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if ARGV[3] == '1' and count < tonumber(ARGV[2]) then
  if redis.call('INCR', KEYS[1]) == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
elseif ARGV[3] == '-1' and count > 0 then
  redis.call('DECR', KEYS[1])
end
return count
`,
);

function windowOf(): { key: (address: string) => string; retryAfter: number; seconds: number; window: number } {
  const seconds = config().loginThrottleWindowSeconds;
  const nowSeconds = Math.floor(now() / 1000);
  const window = Math.floor(nowSeconds / seconds);
  return {
    key: (address) => `${config().queuePrefix}:operator-login:${address}:${window}`,
    retryAfter: Math.max(1, (window + 1) * seconds - nowSeconds),
    seconds,
    window,
  };
}

/*
 * Attempts Redis could not take, counted in this process (key as in Redis, so per address and
 * window) and added to what Redis counts. The throttle is a security check and never fails open:
 * with Redis away every guess went uncounted. In memory rather than refusing every operator
 * login, because the operator needs /operator/metrics most while Redis is away; with N web
 * processes an address gets at most N times the bound until Redis is back. Checked and counted
 * in one synchronous step, so attempts sent at once hold the bound here too.
 */
const localFailures = new WindowCounts();

/** An operator login attempt under the throttle: refused (`retryAfter`, seconds), or let through and told whether it succeeded. */
export interface OperatorAttempt {
  retryAfter?: number;
  /** The password was right: the attempt's count is taken back (successes never count). */
  succeeded(): Promise<void>;
}

/**
 * Checks this address against its failed operator logins in the window
 * (LOGIN_ATTEMPTS_PER_LOGIN_AND_ADDRESS) and, for an attempt carrying credentials (`counted`),
 * counts it in the same step: the address is refused (`retryAfter`) once the bound is reached,
 * even for the right password, until the window ends. Redis unreachable: counted in this process
 * (see localFailures).
 */
export async function operatorLoginAttempt(address: string, counted: boolean): Promise<OperatorAttempt> {
  const w = windowOf();
  const key = w.key(address);
  const bound = config().loginAttemptsPerLoginAndAddress;
  const refused: OperatorAttempt = { retryAfter: w.retryAfter, succeeded: async () => undefined };
  // What this process counted while Redis was away this window leaves Redis that much less.
  const room = bound - localFailures.of(key, w.window);
  if (room <= 0) return refused;
  try {
    const before = Number(await attemptScript([key], [w.seconds, room, counted ? 1 : 0]));
    if (before >= room) return refused;
    return {
      succeeded: async () => {
        if (counted) await attemptScript([key], [w.seconds, bound, -1]).catch(() => undefined);
      },
    };
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'operator login throttle unavailable (Redis); attempts counted in this process');
  }
  // Redis could not answer: checked and counted here, with no await between the two.
  if (localFailures.of(key, w.window) >= bound) return refused;
  if (!counted) return { succeeded: async () => undefined };
  localFailures.add(key, w.window);
  return { succeeded: async () => localFailures.add(key, w.window, -1) };
}
