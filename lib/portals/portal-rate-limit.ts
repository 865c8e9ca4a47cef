import { config } from '../../config';
import { log } from '../log';
import { luaNow, redis, redisScript, whenReady } from '../redis';

// Reserves the next free call slot of a portal account: slots are 1/rate apart, so a burst is
// spread out evenly instead of hitting the portal's own limit. Returns the wait in ms and the
// slot (ms of Redis's clock). Given a slot reserved before (ARGV[2]), reserves nothing and
// answers how far off that one is. Timed by Redis's clock (luaNow): hosts whose clocks differ
// still keep the spacing.
const reserveSlot = redisScript(
  'kontorPortalSlot',
  1,
  `
${luaNow()}
local held = tonumber(ARGV[2] or '')
if held then return {math.floor(held - now), math.floor(held)} end
local interval = tonumber(ARGV[1])
local nextSlot = tonumber(redis.call('GET', KEYS[1]) or '0')
local slot = math.max(now, nextSlot)
redis.call('SET', KEYS[1], tostring(slot + interval), 'PX', math.ceil(slot + interval - now) + 1000)
return {math.floor(slot - now), math.floor(slot)}
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
 * How long a job that can give its worker back sleeps for its slot at most, in ms (settable by
 * tests; not in config, as no deployment needs another yet). Decision: 250, a little more than
 * one call interval at the default 5 calls a second: the job right behind one call sleeps (a
 * re-queue costs more Redis round trips than the sleep saves), and no worker is held longer
 * than this for one account's backlog. A slot further off gives the worker back (lib/portal-offer
 * README, "A job whose slot is far gives its worker back").
 */
export const portalSlotSleep = { maxMs: 250 };

/** A call slot a job reserved: its rate key and when it is (ms of Redis's clock). */
export interface PortalSlot {
  key: string;
  at: number;
}

/**
 * A job's turn at the slots when it can wait without its worker (a BullMQ job moved to delayed):
 * `held` is the slot it reserved before it gave its worker back. The first wait for that key uses
 * it, reserving none, and clears it; later waits reserve as usual.
 */
export interface SlotTurn {
  held?: PortalSlot;
}

/**
 * Thrown by waitForPortalSlot in a turn when the slot is further off than portalSlotSleep.maxMs:
 * the slot is reserved for the job, which is to come back for it (`waitMs` from now) without
 * holding its worker meanwhile, and use it then (SlotTurn.held).
 */
export class PortalSlotLater extends Error {
  override name = 'PortalSlotLater';
  constructor(
    readonly slot: PortalSlot,
    readonly waitMs: number,
  ) {
    super(`portal call slot ${slot.key} in ${waitMs} ms`);
  }
}

/**
 * Waits for the next call slot of a seller's account at a portal (PORTAL_CALLS_PER_SECOND per
 * portal and portal account, shared by every worker process through Redis). `holder` is whom the
 * portal counts: the portal account, or what the portal itself counts by (Kaufland's seller keys). When Redis cannot answer, the call goes ahead: the portal's
 * 429 and the retry with Retry-After are the fallback. In a `turn`, a slot further off than
 * portalSlotSleep.maxMs is not slept for: PortalSlotLater is thrown with the slot reserved.
 */
export async function waitForPortalSlot(
  portal: string,
  holder: number | string,
  callsPerSecond = config().portalCallsPerSecond,
  turn?: SlotTurn,
): Promise<number> {
  const key = `${config().queuePrefix}:portal-rate:${portal}:${holder}`;
  const held = turn?.held?.key === key ? turn.held : undefined;
  if (held) turn!.held = undefined;
  let wait: number;
  let at: number;
  try {
    const interval = 1000 / callsPerSecond;
    await redisReady();
    [wait, at] = ((await reserveSlot([key], [interval, held ? held.at : ''])) as number[]).map(Number) as [number, number];
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'portal rate limit not available; calling without it');
    return 0;
  }
  if (turn && wait > portalSlotSleep.maxMs) throw new PortalSlotLater({ key, at }, wait);
  if (wait > 0) await sleep(wait);
  return Math.max(0, wait);
}
