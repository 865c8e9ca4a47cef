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
 * Failures Redis could not take, counted in this process (key as in Redis, so per address and
 * window) and added to what Redis counts. The throttle is a security check and never fails open:
 * with Redis away every guess went uncounted. In memory rather than refusing every operator
 * login, because the operator needs /operator/metrics most while Redis is away; with N web
 * processes an address gets at most N times the bound until Redis is back.
 */
const localFailures = new Map<string, number>();
let localWindow = -1;

function localFailuresOf(key: string, window: number): number {
  if (window !== localWindow) {
    localFailures.clear();
    localWindow = window;
  }
  return localFailures.get(key) ?? 0;
}

/**
 * Seconds to wait when this address has used up its failed operator logins in the window
 * (LOGIN_ATTEMPTS_PER_LOGIN_AND_ADDRESS), else undefined. Redis unreachable: the failures this
 * process counted meanwhile still refuse (see localFailures).
 */
export async function operatorLoginRefused(address: string): Promise<number | undefined> {
  const w = windowOf();
  const key = w.key(address);
  let failures = 0;
  try {
    failures = Number(await failureScript([key], [w.seconds, 0, 0]));
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'operator login throttle unavailable (Redis); failures counted in this process');
  }
  failures += localFailuresOf(key, w.window);
  return failures >= config().loginAttemptsPerLoginAndAddress ? w.retryAfter : undefined;
}

/** Counts a failed operator login of this address: in Redis, else in this process. */
export async function operatorLoginFailed(address: string): Promise<void> {
  const w = windowOf();
  const key = w.key(address);
  await failureScript([key], [w.seconds, 0, 1]).catch((err: unknown) => {
    log.warn({ err: (err as Error).message }, 'operator login throttle unavailable (Redis); failures counted in this process');
    localFailures.set(key, localFailuresOf(key, w.window) + 1);
  });
}
