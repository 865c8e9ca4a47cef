/** The web process: the API only (Procfile: web). */
import { config } from '../config';
import { guardProcessStart } from '../config/safety';
import { boundStatements, closeDb } from '../lib/db';
import { answerClientError, stopLiveness } from '../lib/http';
import { log } from '../lib/log';
import { processRegistry } from '../lib/metrics';
import { closeRedis, redis, whenReady } from '../lib/redis';
import { handleSignals, onShutdown, serve } from '../lib/shutdown';
import { createApp } from './app';

function main(): void {
  const { port, host, publicUrl } = config();
  // A request waits for no statement without end (lib/db/knex.ts boundStatements).
  boundStatements(config().databaseStatementTimeoutMs);
  // No start without CREDENTIALS_KEY in production; every unsafe setting named in the log.
  guardProcessStart(config(), 'web', (line) => log.warn(line));
  onShutdown('knex', closeDb);
  onShutdown('redis', closeRedis);
  // After the HTTP server has answered its calls, before Redis closes: what is left in flight ends.
  onShutdown('rate limit liveness', stopLiveness);
  processRegistry.setDefaultLabels({ process: 'web' });
  const server = serve('http', createApp(), port, host, () => {
    log.info({ url: `${publicUrl}/v1.1/` }, 'api listening');
  });
  server.keepAliveTimeout = 65000;
  server.on('clientError', answerClientError);
  handleSignals();
  // Rate limits live in Redis; until it answers they are not enforced (see lib/http/rate-limit.ts).
  whenReady(redis()).catch((err: Error) => log.warn({ err: err.message }, 'redis not reachable yet'));
}

main();
