/**
 * The one place that reads process.env. Every key has a default for a developer machine with
 * PostgreSQL and Redis on loopback, and a one-line doc. A bad value stops the process at
 * start-up with a message that names the variable.
 */
import Joi from 'joi';

export interface Config {
  env: 'development' | 'test' | 'production';
  /** HTTP port of the API (web process). */
  port: number;
  /** Address the API binds to. */
  host: string;
  /** Public base URL printed at start-up, without the version segment. */
  publicUrl: string;
  databaseUrl: string;
  /** Pool size per process. */
  databasePoolMax: number;
  redisUrl: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Largest request body accepted, in bytes; larger gets 413. */
  bodyLimitBytes: number;
  /** Lifetime of an access token in seconds (document 1: one hour). */
  accessTokenTtlSeconds: number;
  /** Lifetime of a refresh token in seconds (document 1, v1.1.10: up to two years). */
  refreshTokenTtlSeconds: number;
  /** Lifetime of an authorization code from authorize.php, in seconds. */
  authorizationCodeTtlSeconds: number;
  /** Request weight allowed per account and rate-limit window (bulk items count 1/10). */
  rateLimitPerWindow: number;
  /** Length of the rate-limit window in seconds. */
  rateLimitWindowSeconds: number;
  /** Calls of one account processed at the same time; more get 429 (document 1 says 1). */
  concurrentCallsPerAccount: number;
  /** Orders younger than this are left out of GET order/ (document 1: 10 s). */
  orderSearchMinAgeSeconds: number;
  /** scrypt cost parameter N for password hashes. */
  passwordHashCost: number;
}

const schema = Joi.object({
  NODE_ENV: Joi.string().valid('development', 'test', 'production').default('development'),
  PORT: Joi.number().integer().min(0).max(65535).default(3000),
  HOST: Joi.string().hostname().default('127.0.0.1'),
  PUBLIC_URL: Joi.string().uri({ scheme: ['http', 'https'] }),
  DATABASE_URL: Joi.string().uri({ scheme: ['postgres', 'postgresql'] }).default('postgres://postgres@127.0.0.1:5432/kontor'),
  DATABASE_POOL_MAX: Joi.number().integer().min(2).max(100).default(10),
  REDIS_URL: Joi.string().uri({ scheme: ['redis', 'rediss'] }).default('redis://127.0.0.1:6379'),
  LOG_LEVEL: Joi.string().valid('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent').default('info'),
  BODY_LIMIT_BYTES: Joi.number().integer().min(1024).default(10 * 1024 * 1024),
  ACCESS_TOKEN_TTL_SECONDS: Joi.number().integer().min(1).default(3600),
  REFRESH_TOKEN_TTL_SECONDS: Joi.number().integer().min(60).default(2 * 365 * 24 * 3600),
  AUTHORIZATION_CODE_TTL_SECONDS: Joi.number().integer().min(10).default(600),
  RATE_LIMIT_PER_WINDOW: Joi.number().integer().min(1).default(10000),
  RATE_LIMIT_WINDOW_SECONDS: Joi.number().integer().min(1).default(3600),
  CONCURRENT_CALLS_PER_ACCOUNT: Joi.number().integer().min(1).default(8),
  ORDER_SEARCH_MIN_AGE_SECONDS: Joi.number().integer().min(0).default(10),
  PASSWORD_HASH_COST: Joi.number().integer().valid(1024, 2048, 4096, 8192, 16384, 32768, 65536).default(16384),
}).unknown(true);

export class ConfigError extends Error {}

/** Reads and validates the environment; throws ConfigError naming the first bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const { value, error } = schema.validate(env, { abortEarly: true, convert: true });
  if (error) {
    const variable = String(error.details[0]?.path[0] ?? 'environment');
    throw new ConfigError(`configuration: ${variable} is invalid: ${error.details[0]?.message ?? error.message}`);
  }
  const port = value.PORT as number;
  const host = value.HOST as string;
  return {
    env: value.NODE_ENV,
    port,
    host,
    publicUrl: (value.PUBLIC_URL as string | undefined) ?? `http://${host}:${port}`,
    databaseUrl: value.DATABASE_URL,
    databasePoolMax: value.DATABASE_POOL_MAX,
    redisUrl: value.REDIS_URL,
    logLevel: value.LOG_LEVEL,
    bodyLimitBytes: value.BODY_LIMIT_BYTES,
    accessTokenTtlSeconds: value.ACCESS_TOKEN_TTL_SECONDS,
    refreshTokenTtlSeconds: value.REFRESH_TOKEN_TTL_SECONDS,
    authorizationCodeTtlSeconds: value.AUTHORIZATION_CODE_TTL_SECONDS,
    rateLimitPerWindow: value.RATE_LIMIT_PER_WINDOW,
    rateLimitWindowSeconds: value.RATE_LIMIT_WINDOW_SECONDS,
    concurrentCallsPerAccount: value.CONCURRENT_CALLS_PER_ACCOUNT,
    orderSearchMinAgeSeconds: value.ORDER_SEARCH_MIN_AGE_SECONDS,
    passwordHashCost: value.PASSWORD_HASH_COST,
  };
}

let current: Config | undefined;

/** The process's configuration, read once on first use. */
export function config(): Config {
  if (!current) current = loadConfig();
  return current;
}

/** Replaces the configuration (tests only). */
export function setConfig(next: Config): void {
  current = next;
}
