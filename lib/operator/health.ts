import { log } from '../log';
import { db, schemaCurrent } from '../db';
import { redis, whenReady } from '../redis';

const within = <T>(promise: Promise<T>, ms: number): Promise<T> =>
  Promise.race([promise, new Promise<T>((_resolve, reject) => setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms).unref())]);

/** The last reason logged per dependency, so a probe every few seconds logs a reason once, not each time. */
const lastReason = new Map<string, string>();

/**
 * 'ok', or 'unavailable' with the reason in the log: the readiness answer is open, and a driver's
 * message names database roles, internal hosts and addresses (lib/operator/README.md).
 */
async function check(name: 'postgres' | 'redis', probe: () => Promise<unknown>): Promise<string> {
  try {
    await probe();
    lastReason.delete(name);
    return 'ok';
  } catch (err) {
    const reason = (err as Error).message;
    if (lastReason.get(name) !== reason) log.warn({ dependency: name, reason }, 'readiness: a dependency is unavailable');
    lastReason.set(name, reason);
    return 'unavailable';
  }
}

/**
 * Readiness: Postgres and Redis both answer within a second, and the database holds every migration
 * this code ships (`schema`: a web process started before its release step would answer 500s); when
 * not ready, `down` names what is not.
 */
export async function readiness(): Promise<{ ready: boolean; down?: string[]; postgres: string; redis: string; schema: string }> {
  const [postgres, cache] = await Promise.all([
    check('postgres', () => within(db().raw('SELECT 1'), 1000)),
    check('redis', () =>
      within(
        whenReady(redis(), 1000).then(() => redis().ping()),
        1500,
      ),
    ),
  ]);
  const schema = postgres === 'ok' ? await schemaState() : 'unknown';
  const down = [postgres === 'ok' ? '' : 'postgres', cache === 'ok' ? '' : 'redis', schema === 'behind' ? 'schema' : ''].filter(Boolean);
  return down.length === 0 ? { ready: true, postgres, redis: cache, schema } : { ready: false, down, postgres, redis: cache, schema };
}

/** 'ok', 'behind' (a migration this code ships has not run: logged once, naming what to run) or 'unknown' (the check itself failed). */
async function schemaState(): Promise<string> {
  const state = await within(schemaCurrent(), 1000).then(
    (current) => (current ? 'ok' : 'behind'),
    () => 'unknown',
  );
  if (state === 'behind' && lastReason.get('schema') !== state)
    log.warn({ dependency: 'schema' }, 'readiness: the database lacks migrations this code ships; run `kontor migrate` (the release step)');
  if (state === 'ok') lastReason.delete('schema');
  else lastReason.set('schema', state);
  return state;
}
