import crypto from 'node:crypto';
import { config } from '../../config';
import { log } from '../log';
import { luaNow, redisScript } from '../redis';

/*
 * The webhook attempts of one account in flight, over every events worker: a sorted set of
 * leases (member: a random token, score: when the lease ends). Expired leases (a worker killed
 * mid-attempt) are dropped before counting. Timed by Redis's clock (luaNow): a host whose clock
 * runs ahead would otherwise drop other hosts' leases early. KEYS: the account's set. ARGV: lease
 * ms, limit, token. Returns 1 when the slot is taken, else 0.
 */
const takeScript = redisScript(
  'kontorWebhookSlot',
  1,
  `
${luaNow()}
local ends = now + tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ends, ARGV[3])
redis.call('PEXPIREAT', KEYS[1], ends)
return 1
`,
);

const releaseScript = redisScript('kontorWebhookSlotRelease', 1, `return redis.call('ZREM', KEYS[1], ARGV[1])`);

const slotsKey = (accountId: number) => `${config().queuePrefix}:webhook-slots:${accountId}`;

/** A taken slot; release() hands it back (idempotent). */
export interface WebhookSlot {
  release(): Promise<void>;
}

let warned = 0;

/**
 * One of the account's WEBHOOK_CONCURRENCY_PER_ACCOUNT attempt slots, or undefined when all are
 * in use: one seller's slow receivers then wait their turn instead of holding every events
 * worker's slots (issue 31). The lease is the webhook timeout and a margin. Redis unreachable: the
 * attempt goes ahead (fairness is lost for that moment, not deliveries).
 */
export async function takeWebhookSlot(accountId: number): Promise<WebhookSlot | undefined> {
  const { webhookConcurrencyPerAccount: limit, webhookTimeoutMs } = config();
  const token = crypto.randomUUID();
  try {
    const taken = await takeScript([slotsKey(accountId)], [webhookTimeoutMs + 5000, limit, token]);
    if (Number(taken) !== 1) return undefined;
  } catch (err) {
    if (warned++ % 100 === 0) log.warn({ err: (err as Error).message }, 'webhook slots unavailable (Redis); attempting without the per-account limit');
    return { release: async () => undefined };
  }
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      await releaseScript([slotsKey(accountId)], [token]).catch(() => undefined);
    },
  };
}
