/**
 * Revoked access tokens leave the grant cache of every process at once (issue 16: a revoked
 * client access stops working at once, in every web process): the revoking process publishes the
 * tokens' hashes on a Redis channel every process subscribes to. A process caches grants only
 * while it is subscribed, and forgets its cache whenever the subscription drops, so a message
 * missed while Redis was away can never keep a revoked token alive.
 */
import type { Redis } from 'ioredis';
import { config } from '../../config';
import { log } from '../log';
import { createRedis, redis } from '../redis';

type Forget = (hashes: string[] | 'all') => void;

let subscriber: Redis | undefined;
let subscribed = false;
const forgetters = new Set<Forget>();

const channel = () => `${config().queuePrefix}:token-revoked`;

function forget(hashes: string[] | 'all'): void {
  for (const f of forgetters) f(hashes);
}

function listen(): Redis {
  const connection = createRedis('worker', { lazyConnect: false });
  connection.on('error', () => undefined);
  const down = () => {
    if (subscribed) forget('all');
    subscribed = false;
  };
  connection.on('close', down);
  // Messages published while the connection was down are lost: cache again only once subscribed.
  connection.on('ready', () => {
    connection
      .subscribe(channel())
      .then(() => {
        forget('all');
        subscribed = true;
      })
      .catch((err: Error) => log.warn({ err: err.message }, 'token revocation channel not subscribed'));
  });
  connection.on('message', (_channel: string, message: string) => {
    try {
      const hashes = JSON.parse(message) as unknown;
      if (Array.isArray(hashes)) forget(hashes.filter((h): h is string => typeof h === 'string'));
    } catch {
      forget('all');
    }
  });
  return connection;
}

/**
 * Registers a cache's forget function and starts listening; answers whether the cache may keep
 * entries now (the subscription is up).
 */
export function revocationsHeard(forgetter: Forget): boolean {
  forgetters.add(forgetter);
  subscriber ??= listen();
  return subscribed;
}

/** Tells every process (this one included) that these access tokens are gone. */
export async function publishRevocation(hashes: string[]): Promise<void> {
  forget(hashes);
  if (!hashes.length) return;
  try {
    await redis().publish(channel(), JSON.stringify(hashes));
  } catch (err) {
    // The others' subscriptions are then most likely down too, and they are not caching.
    log.warn({ err: (err as Error).message }, 'token revocation not published');
  }
}

export async function closeRevocations(): Promise<void> {
  const connection = subscriber;
  subscriber = undefined;
  subscribed = false;
  if (connection) await connection.quit().catch(() => connection.disconnect());
}
