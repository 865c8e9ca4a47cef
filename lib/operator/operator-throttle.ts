import { config } from '../../config';
import { now } from '../clock';
import { log } from '../log';
import { redisScript } from '../redis';

/*
 * Failed operator logins per client address in a fixed window (LOGIN_THROTTLE_WINDOW_SECONDS, the
 * sellers' window), across web processes. Only failures count, so an operator who knows the
 * password is never held up by its own use. KEYS: the address's counter. ARGV: window seconds,
 * bound, 1 to count a failure / 0 to check. Returns the failures so far (before this one).
 */
const failureScript = redisScript(
  'kontorOperatorFailures',
  1,
  `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if ARGV[3] == '1' then
  if redis.call('INCR', KEYS[1]) == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
end
return count
`,
);

function windowOf(): { key: (address: string) => string; retryAfter: number; seconds: number } {
  const seconds = config().loginThrottleWindowSeconds;
  const nowSeconds = Math.floor(now() / 1000);
  const window = Math.floor(nowSeconds / seconds);
  return {
    key: (address) => `${config().queuePrefix}:operator-login:${address}:${window}`,
    retryAfter: Math.max(1, (window + 1) * seconds - nowSeconds),
    seconds,
  };
}

/**
 * Seconds to wait when this address has used up its failed operator logins in the window
 * (LOGIN_ATTEMPTS_PER_LOGIN_AND_ADDRESS), else undefined. Redis unreachable: not throttled (the
 * password still guards), as for the sellers' logins.
 */
export async function operatorLoginRefused(address: string): Promise<number | undefined> {
  const w = windowOf();
  try {
    const failures = Number(await failureScript([w.key(address)], [w.seconds, 0, 0]));
    return failures >= config().loginAttemptsPerLoginAndAddress ? w.retryAfter : undefined;
  } catch (err) {
    log.warn({ err }, 'operator login throttle unavailable');
    return undefined;
  }
}

/** Counts a failed operator login of this address. */
export async function operatorLoginFailed(address: string): Promise<void> {
  const w = windowOf();
  await failureScript([w.key(address)], [w.seconds, 0, 1]).catch((err: unknown) => log.warn({ err }, 'operator login throttle unavailable'));
}
