import { Client } from 'pg';
import { config } from '../../config';
import { log } from '../log';

/**
 * Memory that must follow the database (reference rows, verified tokens, a seller's default
 * portal account) learns of changes from NOTIFY: triggers send `<topic>:<key>` on this channel
 * when such rows change (migration 20261124_0800), delivered at commit to every process, whoever
 * made the change (a web process, a worker, the CLI, psql). Each process keeps one listening
 * connection, opened on first use. Caches serve from memory only while it listens: while it
 * reconnects a notice may be lost, so they read through, and are emptied when it listens again.
 */
export const changedChannel = 'kontor_changed';

/**
 * How often the listening session proves it is alive (2 s, as the outbox relay's by default,
 * lib/queue relay.ts). A partition closes no socket (nor does a NAT or firewall that forgets an
 * idle flow), so without it a cut-off listener counted as listening until TCP keepalive noticed,
 * hours, and caches (a seller's default portal account, the reference tables, verified tokens)
 * were served as they were while their notices went nowhere. A heartbeat unanswered for two
 * periods ends the session (one period flapped on a loaded machine): caches read through at once
 * and are emptied, and the next use listens anew. Unlike the relay's, the session asks for no
 * idle_session_timeout: it holds no lock a standby waits for, and a start-up option more is one a
 * pooler in front of the web's DATABASE_URL may refuse (PgBouncer without
 * ignore_startup_parameters), which would leave the caches reading through for good.
 */
export const noticeHeartbeatMs = 2000;

/** Called with the key of a changed row, or null when anything may have changed (a reconnect). */
type Handler = (key: string | null) => void;

const handlers = new Map<string, Set<Handler>>();
let listener: Client | undefined;
let heartbeat: NodeJS.Timeout | undefined;
/** Resolves once the current listener listens (or failed). */
let started: Promise<void> = Promise.resolve();
let ready = false;
/** After a failure, the next listening() call from this time on starts again; until then caches read through. */
let retryAt = 0;

/** Runs handler for every notice of the topic (and with null after a reconnect). */
export function onChange(topic: string, handler: Handler): void {
  const set = handlers.get(topic) ?? new Set<Handler>();
  handlers.set(topic, set.add(handler));
}

/** Whether memory may be served: the process listens (starts listening on first call). */
export function listening(): boolean {
  if (!listener && Date.now() >= retryAt) start();
  return ready;
}

/**
 * Resolves when every notice committed before the call has been handled here: PostgreSQL sends
 * pending notices on a connection before its answer to the next query (tests, and a writer that
 * must see its own change in this process at once).
 */
export async function changesSettled(): Promise<void> {
  listening();
  await started;
  if (ready && listener) await listener.query('SELECT 1').catch(() => undefined);
}

/** Stops listening (closeDb calls it: the next use listens on the database configured then). */
export async function stopChangeNotices(): Promise<void> {
  ready = false;
  const client = listener;
  listener = undefined;
  clearInterval(heartbeat);
  await client?.end().catch(() => undefined);
}

function dispatch(payload: string): void {
  const colon = payload.indexOf(':');
  const topic = colon < 0 ? payload : payload.slice(0, colon);
  const key = colon < 0 ? null : payload.slice(colon + 1);
  for (const handler of handlers.get(topic) ?? []) handler(key);
}

function resetAll(): void {
  for (const set of handlers.values()) for (const handler of set) handler(null);
}

function start(): void {
  const client = new Client({ connectionString: config().databaseUrl, connectionTimeoutMillis: 5000 });
  listener = client;
  const retry = () => {
    if (listener !== client) return;
    listener = undefined;
    clearInterval(heartbeat);
    const wasReady = ready;
    ready = false;
    retryAt = Date.now() + 1000;
    // Ends a hung heartbeat too (pg destroys the socket of a client with a query out).
    client.end().catch(() => undefined);
    // Notices may be lost from now on: nothing kept before is served again (resetAll once more when it listens).
    if (wasReady) resetAll();
  };
  client.on('error', retry);
  client.on('end', retry);
  client.on('notification', (message) => {
    if (message.channel === changedChannel) dispatch(message.payload ?? '');
  });
  started = client
    .connect()
    .then(() => {
      if (listener !== client) return;
      // The process must be free to exit while it listens (or waits to).
      (client as unknown as { connection?: { stream?: { unref?: () => void } } }).connection?.stream?.unref?.();
      // The heartbeat runs from the connect on, as the relay's (lib/queue relay.ts listen()): the
      // LISTEN is the first query it waits for. A session cut off between the connect and the
      // LISTEN's answer (a partition closes no socket) was never noticed: not listening, and never
      // trying again, so the caches read through for as long as the process ran.
      clearInterval(heartbeat);
      heartbeat = setInterval(() => beat(client, retry), noticeHeartbeatMs);
      heartbeat.unref();
      return sessionQuery(client, `LISTEN ${changedChannel}`).then(() => {
        if (listener !== client) return;
        // Whatever was kept before may have changed unseen.
        resetAll();
        ready = true;
      });
    })
    .catch((err: Error) => {
      // Stopped on purpose while starting (a CLI command ends at once): nothing went wrong.
      if (listener !== client) return;
      log.warn({ err: err.message }, 'change notices: cannot listen; caches read through');
      retry();
    });
}

/** When the query now out on a listener was sent (the LISTEN or a heartbeat; one at a time: pg queues a second behind it). */
const sentAt = new WeakMap<Client, number>();

/** A query of the listening session, remembered while it is out: beat() waits for it as for its own. */
async function sessionQuery(client: Client, sql: string): Promise<void> {
  sentAt.set(client, Date.now());
  await client.query(sql);
  sentAt.delete(client);
}

/** One heartbeat of the listener: lost when a query of it (the LISTEN or a heartbeat) is unanswered after two periods, or fails. */
function beat(client: Client, lost: () => void): void {
  if (listener !== client) return;
  const sent = sentAt.get(client);
  if (sent !== undefined) {
    if (Date.now() - sent > 2 * noticeHeartbeatMs) {
      log.warn({ silent_ms: Date.now() - sent }, 'change notices: the listening session stopped answering; caches read through until it listens again');
      lost();
    }
    return;
  }
  sessionQuery(client, 'SELECT 1').catch(() => lost());
}
