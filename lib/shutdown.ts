import http from 'node:http';
import { config } from '../config';
import { log } from './log';

/** What a closer still has in hand (a worker's jobs), named in the log when the stop bound is reached. */
export type Unfinished = () => Record<string, unknown>[];

type Closer = { name: string; close: () => Promise<void>; unfinished?: Unfinished };

const closers: Closer[] = [];
let stopping: Promise<void> | undefined;
let closing: string | undefined;

/**
 * Registers something to close on SIGTERM/SIGINT. Closed in reverse order of registration, so a
 * process registers its pools first and its servers and workers last: the HTTP server stops
 * taking requests and finishes those in flight, workers finish the job in hand, then queues,
 * Redis and Knex close. `unfinished` answers what it still has in hand (a worker's jobs).
 */
export function onShutdown(name: string, close: () => Promise<void>, unfinished?: Unfinished): void {
  closers.push({ name, close, ...(unfinished ? { unfinished } : {}) });
}

export function shutdown(reason: string): Promise<void> {
  stopping ??= (async () => {
    log.info({ reason }, 'shutting down');
    for (const closer of [...closers].reverse()) {
      closing = closer.name;
      try {
        await closer.close();
      } catch (err) {
        log.warn({ err, closer: closer.name }, 'close failed');
      }
    }
    closing = undefined;
    log.info('stopped');
  })();
  return stopping;
}

/**
 * The stop bound reached (SHUTDOWN_TIMEOUT_MS after the signal): one warning naming what is left
 * (each worker's jobs in hand: queue, job id, job name), then exit 1. Before, the process quit
 * silently after 25 s and nothing said which job it left; such a job keeps its lock until it
 * expires (WORKER_LOCK_MS), then another worker takes it up again from the progress it saved.
 */
function stopBoundReached(reason: string, boundMs: number): void {
  const jobs = closers.flatMap((c) => c.unfinished?.() ?? []);
  log.warn({ reason, bound_ms: boundMs, closing, jobs }, 'stop bound reached: exiting with jobs unfinished');
  process.exit(1);
}

let handled = false;

/**
 * Installs the signal handlers once per process. They stay installed: a process often gets the
 * same signal twice (Ctrl-C or a kill of the process group, and npm start passing it on), and a
 * second signal must not fall through to the default action in the middle of a clean stop.
 */
export function handleSignals(): void {
  if (handled) return;
  handled = true;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      shutdown(signal).then(
        () => process.exit(0),
        () => process.exit(1),
      );
      // A stuck close must not keep the process alive for ever: the stop bound (README, "Operating it").
      const boundMs = config().shutdownTimeoutMs;
      setTimeout(() => stopBoundReached(signal, boundMs), boundMs).unref();
    });
  }
}

/**
 * Serves a request handler on port and host, closed on shutdown. A port it cannot take (in use,
 * not permitted) ends the process with exit code 1 and one clear line: Express 5 would hand the
 * error to the listen callback and leave the process running without a socket.
 */
export function serve(name: string, handler: http.RequestListener, port: number, host: string, onListening: () => void): http.Server {
  const server = http.createServer(handler);
  server.once('error', (err: NodeJS.ErrnoException) => {
    const reason = err.code === 'EADDRINUSE' ? 'the port is in use by another process' : err.code === 'EACCES' ? 'not permitted to use the port' : err.message;
    log.fatal({ err: err.message, code: err.code, host, port }, `${name} cannot listen on ${host}:${port}: ${reason}`);
    process.stderr.write(`kontor ${name}: cannot listen on ${host}:${port}: ${reason}\n`);
    process.exit(1);
  });
  server.listen(port, host, onListening);
  onShutdown(
    name,
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  );
  return server;
}
