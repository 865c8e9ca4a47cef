/**
 * Imported first by bench/index.ts: a developer's tool runs in development mode (its credentials
 * key and loopback receivers). Set before any other module loads, because some read config() as
 * they load (lib/log.ts's level, through lib/db/knex.ts) and config() keeps what it read first.
 */
process.env.NODE_ENV ??= 'development';
