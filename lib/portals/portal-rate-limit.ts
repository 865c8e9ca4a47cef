import { config } from '../../config';
import { log } from '../log';
import { luaNow, redis, redisScript, whenReady } from '../redis';

// Reserves the next free call slot of a portal account: slots are 1/rate apart, so a burst is
// spread out evenly instead of hitting the portal's own limit. Returns the wait in ms. Timed by
// Redis's clock (luaNow): hosts whose clocks differ still keep the spacing.
const reserveSlot = redisScript(
  'kontorPortalSlot',
  1,
  `
${luaNow()}
local interval = tonumber(ARGV[1])
local nextSlot = tonumber(redis.call('GET', KEYS[1]) or '0')
local slot = math.max(now, nextSlot)
redis.call('SET', KEYS[1], tostring(slot + interval), 'PX', math.ceil(slot + interval - now) + 1000)
return math.floor(slot - now)
`,
);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let ready: Promise<void> | undefined;

/** One wait for the shared connection, however many jobs ask at once. */
export function redisReady(): Promise<void> {
  if (redis().status === 'ready') return Promise.resolve();
  ready ??= whenReady(redis(), 2000).finally(() => {
    ready = undefined;
  });
  return ready;
}

/**
 * Waits for the next call slot of a seller's account at a portal (PORTAL_CALLS_PER_SECOND per
 * portal and portal account, shared by every worker process through Redis). `holder` is whom the
 * portal counts: the portal account, or what the portal itself counts by (Kaufland's seller keys). When Redis cannot answer, the call goes ahead: the portal's
 * 429 and the retry with Retry-After are the fallback.
 */
export async function waitForPortalSlot(portal: string, holder: number | string, callsPerSecond = config().portalCallsPerSecond): Promise<number> {
  let wait: number;
  try {
    const interval = 1000 / callsPerSecond;
    await redisReady();
    wait = Number(await reserveSlot([`${config().queuePrefix}:portal-rate:${portal}:${holder}`], [interval]));
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'portal rate limit not available; calling without it');
    return 0;
  }
  if (wait > 0) await sleep(wait);
  return wait;
}
