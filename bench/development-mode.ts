/**
 * Imported first by bench/index.ts: a developer's tool runs in development mode (loopback
 * receivers). Set before any other module loads, because some read config() as they load
 * (lib/log.ts's level, through lib/db/knex.ts) and config() keeps what it read first.
 *
 * Its credentials key is one of this run, not the published development key: the fleet's and the
 * whole service's processes run in production mode, which refuses the published keys (45d7225),
 * and open what this process sealed with the same key.
 */
import crypto from 'node:crypto';

process.env.NODE_ENV ??= 'development';
process.env.CREDENTIALS_KEY ??= crypto.randomBytes(32).toString('base64');
