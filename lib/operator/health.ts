import { db } from '../db';
import { redis, whenReady } from '../redis';

const within = <T>(promise: Promise<T>, ms: number): Promise<T> =>
  Promise.race([promise, new Promise<T>((_resolve, reject) => setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms).unref())]);

/** Readiness: Postgres and Redis both answer within a second; when not ready, `down` names those that do not. */
export async function readiness(): Promise<{ ready: boolean; down?: string[]; postgres: string; redis: string }> {
  const [postgres, cache] = await Promise.all([
    within(db().raw('SELECT 1'), 1000).then(
      () => 'ok',
      (err: Error) => err.message,
    ),
    within(
      whenReady(redis(), 1000).then(() => redis().ping()),
      1500,
    ).then(
      () => 'ok',
      (err: Error) => err.message,
    ),
  ]);
  const down = [postgres === 'ok' ? '' : 'postgres', cache === 'ok' ? '' : 'redis'].filter(Boolean);
  return down.length === 0 ? { ready: true, postgres, redis: cache } : { ready: false, down, postgres, redis: cache };
}
