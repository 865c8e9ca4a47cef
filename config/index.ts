/**
 * The one place that reads process.env. Every key has a default and a one-line doc; the defaults
 * are production's (NODE_ENV unset is production): a built-in credentials key, webhooks to
 * private addresses, the sandbox and the mail catcher exist only in the explicit development mode
 * (`npm start` sets NODE_ENV=development) and, for the suite, in test mode. Service addresses
 * default to PostgreSQL and Redis on loopback. A bad value stops the process at start-up with a
 * message that names the variable.
 */
import crypto from 'node:crypto';
import net from 'node:net';
import Joi from 'joi';
import { channelApps, channelAppsSchema, EbayApplicationConfig, ShopifyApplicationConfig, SpApiApplicationConfig } from './channel-apps';
import { InvoiceConfig, invoiceConfig, invoiceSchema } from './invoice';

/**
 * The shortest push window derived from the portals' call rate. A push's bulk call costs the
 * same CPU (web excepted, every process takes part) however few quantities it carries: at 100 ms
 * a target takes at most 10 calls a second whatever the rate of sales, and a sale reaches all 9
 * sandbox targets within 250 ms at 100 orders a second (bench/RESULTS.md).
 */
export const minPushWindowMs = 100;

/** The push window that keeps one target's bulk calls within the portals' call rate. */
export function pushWindowFor(portalCallsPerSecond: number): number {
  return Math.max(minPushWindowMs, Math.ceil(1000 / portalCallsPerSecond));
}

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
  /** A streaming replica for the reads that tolerate lag (searches); unset: every read on the primary. */
  databaseReadUrl?: string;
  /** Replica lag (ms) beyond which those reads go to the primary (default 5000). */
  databaseReadMaxLagMs: number;
  /** How long one statement of the web process may take, lock waits included (0: unbounded); lib/db/knex.ts. */
  databaseStatementTimeoutMs: number;
  /** How long a migration's statement may wait for a table lock before the run fails (0: unbounded); lib/migrate.ts. */
  migrationLockTimeoutMs: number;
  /**
   * This stack's cell (CELL_ID, 0..cellCount-1) and the number of cell slots (CELL_COUNT, fixed
   * for the life of the installation: it decides every cell's id ranges). 1 (default): one stack,
   * sequences untouched, tokens without an account prefix (lib/db/cells.ts).
   */
  cellId: number;
  cellCount: number;
  redisUrl: string;
  /**
   * Nodes of a Redis Cluster (REDIS_CLUSTER_NODES=host:port,...; any few, the rest are
   * discovered); when set they take the place of REDIS_URL. Empty: the one Redis of REDIS_URL.
   */
  redisClusterNodes: { host: string; port: number }[];
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** The Procfile line this process runs (web, cia, ...), which `npm start` gives each child; every log line carries it. */
  processName?: string;
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
  /** Days in 30 on which reaching the call quota doubles it for the rest of that day, UTC (document 1: 3; 0 turns the relief off). */
  rateLimitReliefDays: number;
  /** Calls of one account processed at the same time; more get 429 (document 1: 1). */
  concurrentCallsPerAccount: number;
  /** Window of the login throttle at token.php and authorize.php, in seconds. */
  loginThrottleWindowSeconds: number;
  /** Login attempts per window for one login from one address; more get 429. */
  loginAttemptsPerLoginAndAddress: number;
  /** Login attempts per window from one address, any login. */
  loginAttemptsPerAddress: number;
  /** Login attempts per window for one login from all addresses but those it logged in from lately. */
  loginAttemptsPerLogin: number;
  /** Orders younger than this are left out of GET order/ (document 1: 10 s). */
  orderSearchMinAgeSeconds: number;
  /** scrypt cost parameter N for password hashes. */
  passwordHashCost: number;
  /** Prefix of every Redis key, queues and rate limits alike (lets several installations or test runs share one Redis). */
  queuePrefix: string;
  /** Jobs one worker process of a queue runs at once (queues without their own key). */
  workerConcurrency: number;
  /** Jobs one cia worker process runs at once. */
  ciaWorkerConcurrency: number;
  /** Jobs one portal_upload worker process runs at once (keep below the database pool size). */
  portalUploadWorkerConcurrency: number;
  /** Lock of a job in hand in ms; a killed worker's job is taken up again after it expires. */
  workerLockMs: number;
  /** Tries of a job before it lands in the failed set. */
  jobAttempts: number;
  /** First retry delay in ms; doubles with each try (exponential backoff). */
  jobBackoffMs: number;
  /** How long finished jobs and their results stay readable (GET job/{job_id}/), in seconds. */
  jobRetentionSeconds: number;
  /** Outbox rows the relay moves to BullMQ per transaction. */
  outboxRelayBatch: number;
  /** Safety-net poll of the outbox in ms, in case a NOTIFY was missed (the relay wakes on NOTIFY). */
  outboxRelayPollMs: number;
  /**
   * Least time in ms between two relay passes (default 50): NOTIFYs that come sooner wait for
   * the next pass, which then carries every row committed meanwhile (one transaction and one
   * add per queue for many orders; cia.adjust rows of one account become one job). A NOTIFY
   * after a quiet spell is relayed at once.
   */
  outboxRelayGatherMs: number;
  /** How often the relay's listening session shows it is alive; Postgres ends it after three silent periods. */
  outboxRelayHeartbeatMs: number;
  /** Base URL of the sandbox portal, used for portal accounts without a base_url. */
  sandboxPortalUrl: string;
  /**
   * Where the calls of a portal account without a base URL (not connected) go: the sandbox in
   * development and test mode; in production none (such a portal account's calls are refused as
   * not connected) unless SANDBOX_PORTAL_URL is set on purpose.
   */
  unconnectedPortalUrl: string | null;
  /** Port the sandbox portal server listens on (Procfile: sandbox). */
  sandboxPort: number;
  /** Where the sandbox reads the vendors' contract files; unset: ../shared/contracts beside the repository. */
  sandboxContractsDir?: string;
  /** Calls per second to a portal per portal account; bursts are smoothed to this rate. */
  portalCallsPerSecond: number;
  /** Timeout of one portal call in ms. */
  portalTimeoutMs: number;
  /**
   * How long a market_d quantity push polls its JSON_LISTINGS_FEED inside the push (which holds
   * the target's lock), in ms; a feed still in progress then is read again by the push's next try.
   */
  marketDFeedWaitMs: number;
  /**
   * How long after an accepted market_d listing (putListingsItem, patchListingsItem) Kontor asks
   * Amazon whether it is sold, and between further checks, in ms: "ACCEPTED" only means accepted
   * for processing (lib/portals/README.md, "Listings checked after Amazon's processing").
   */
  marketDListingCheckMs: number;
  /** How many such checks at most; a listing still not buyable after the last one is told to the seller. */
  marketDListingChecks: number;
  /**
   * How long a quantity push to a portal account waits for more changes to go in the same bulk
   * call, in ms: at most one call per target and window, whatever the rate of orders. By default
   * one call interval of PORTAL_CALLS_PER_SECOND (200 ms at its default 5), never under
   * minPushWindowMs.
   */
  ciaPushWindowMs: number;
  /**
   * How often the leading relay checks that Redis still holds its marker key, in ms: a Redis
   * restarted empty (or flushed) is noticed within this, and what only Redis held is queued again.
   */
  redisWatchMs: number;
  /** How often waiting quantity pushes are queued again from Postgres as a safety net, in ms. */
  ciaPushSweepMs: number;
  /**
   * After a quantity push whose outcome is unknown (no answer within PORTAL_TIMEOUT_MS, a reset
   * connection, a 5xx), how long beyond that timeout the channel may still apply the call, in ms:
   * its items are pushed once more after both (lib/portal-offer README "A push whose outcome is unknown").
   */
  ciaLateCallMarginMs: number;
  /** Cron expression of the full CIA reconcile of every active item (scheduler). */
  ciaReconcileCron: string;
  /** Cron expression of the clean-up of finished outbox rows older than the job retention. */
  outboxCleanupCron: string;
  /** Cron expression of the re-match of unassigned bank records (a transfer that came before its order). */
  bankRematchCron: string;
  /** How many days back the re-match looks (by transfer_date). */
  bankRematchDays: number;
  /** Cron expression of the payment provider sync (one job per connected provider account). */
  bankProviderSyncCron: string;
  /** Bank records matched per transaction by the bank worker. */
  bankMatchBatch: number;
  /** User name for the operator endpoints (queue dashboard, metrics). */
  operatorUser: string;
  /** Password for the operator endpoints; empty disables the dashboard and metrics. */
  operatorPassword: string;
  /** Timeout of one event-handler notification (webhook) POST in ms. */
  webhookTimeoutMs: number;
  /** How long a webhook delivery is retried, in hours from its first attempt (the last retry falls at the end). */
  webhookRetryHours: number;
  /** Smallest delay between two attempts of a webhook delivery in ms (decorrelated jitter grows from it). */
  webhookRetryBaseMs: number;
  /** Largest delay between two attempts of a webhook delivery in ms (also caps a receiver's Retry-After). */
  webhookRetryMaxDelayMs: number;
  /** A notification handler whose deliveries have failed without a success for this many hours is paused. */
  webhookPauseAfterHours: number;
  /** How often each events worker looks for webhook deliveries due for an attempt, in ms. */
  webhookSweepMs: number;
  /** Days a finished webhook delivery and its attempts stay in the seller's delivery log. */
  webhookLogRetentionDays: number;
  /** Deliveries kept in the log per handler (the oldest finished ones go first). */
  webhookLogMaxPerHandler: number;
  /** SMTP server of outgoing mail (event-handler mails, in-transit mails), as smtp://user:pass@host:port. */
  smtpUrl: string;
  /** Sender address of outgoing mail. */
  mailFrom: string;
  /**
   * How long an SMTP connection may take to open, the server's greeting to come, and the server
   * to stay silent on an open connection (a DATA without its answer), in ms: a mail's try ends
   * well within SHUTDOWN_TIMEOUT_MS (nodemailer's own: 2 min, 30 s, 10 min).
   */
  smtpConnectionTimeoutMs: number;
  smtpGreetingTimeoutMs: number;
  smtpSocketTimeoutMs: number;
  /**
   * The stop bound: how long a process may take on SIGTERM to finish its requests and jobs and
   * close its pools before it exits 1, logging the jobs still in hand (lib/shutdown.ts).
   */
  shutdownTimeoutMs: number;
  /**
   * Whether notification URLs may point at addresses that are not global unicast (loopback,
   * private, link-local ...). Default: only in development (the sandbox) and test mode (loopback
   * receivers); never by default in production.
   */
  webhookAllowPrivateHosts: boolean;
  /** Webhook attempts of one seller account in flight at once, over all events workers (more wait their turn). */
  webhookConcurrencyPerAccount: number;
  /** Event handlers one seller account may have; one more is a 400 naming event_handler. */
  eventHandlersPerAccount: number;
  /**
   * Most event handlers' actions that follow one another in a chain (an action's write raising an
   * event another handler's action takes); a further one that would write is not run (lib/event/README.md).
   */
  eventChainMaxDepth: number;
  /**
   * Proxies whose X-Forwarded-For is believed for the client address (Express `trust proxy`):
   * addresses, CIDR ranges or proxy-addr's names loopback, linklocal, uniquelocal. Default none:
   * the client address is the peer of the TCP connection.
   */
  trustedProxies: string[];
  /**
   * Unsafe settings the operator accepts in production (ACCEPT_UNSAFE_SETTINGS): without its name
   * here, WEBHOOK_ALLOW_PRIVATE_HOSTS or a TRUSTED_PROXIES trusting every address stops every
   * production process at start (config/safety.ts startRefusal).
   */
  acceptedUnsafeSettings: AcceptableUnsafeSetting[];
  /**
   * The key credentials are sealed with (AES-256-GCM): its id, written into every sealed value,
   * and its 32 bytes; `builtIn` names a published key of the development or test mode. null in
   * production without CREDENTIALS_KEY: nothing can be sealed or opened, and the Procfile's
   * processes refuse to start (config/safety.ts).
   */
  credentialsKey: { id: string; key: Buffer; builtIn: 'development' | 'test' | null } | null;
  /** Earlier keys by id, still opened (not sealed with) while values are re-sealed after a rotation. */
  credentialsOldKeys: Map<string, Buffer>;
  /** Seconds between two order fetches of a connected portal account of auction_a and market_d (scheduler). */
  orderFetchIntervalSeconds: number;
  /** Pages one order fetch reads at most (500); the next fetch of the account goes on where it stopped (lib/order-import). */
  orderFetchMaxPages: number;
  /** Orders a page of the Kaufland, Shopify and eBay order fetch asks for, below each channel's own (100, 100, 200); null: the channel's own. */
  orderFetchPageSize: number | null;
  /**
   * Seconds between two scheduled fetches of a market_d account (180, never below the interval above):
   * searchOrders' default usage plan (0.0056/s) carries one page per 179 s; lower it for sellers Amazon granted more.
   */
  marketDOrderFetchIntervalSeconds: number;
  /** Kontor's eBay application and account-deletion endpoint (config/channel-apps.ts). */
  ebayApplication: EbayApplicationConfig;
  /** Kontor's SP-API application (config/channel-apps.ts). */
  spApiApplication: SpApiApplicationConfig;
  /** Kontor's Shopify app: the install (OAuth) and the webhooks' signatures (config/channel-apps.ts). */
  shopifyApplication: ShopifyApplicationConfig;
  /** Invoices: archive and download links (config/invoice.ts). */
  invoice: InvoiceConfig;
}

/** A built-in key of the development or test mode: derived from a published string, so it protects nothing; none in production. */
const builtInCredentialsKey = (mode: 'development' | 'test') =>
  crypto
    .createHash('sha256')
    .update(mode === 'development' ? 'kontor development credentials key (not secret)' : 'kontor test credentials key (not secret)')
    .digest();

/** The unsafe settings a production process refuses unless ACCEPT_UNSAFE_SETTINGS names them. */
export const acceptableUnsafeSettings = ['WEBHOOK_ALLOW_PRIVATE_HOSTS', 'TRUSTED_PROXIES'] as const;
export type AcceptableUnsafeSetting = (typeof acceptableUnsafeSettings)[number];
const isAcceptable = (name: string): name is AcceptableUnsafeSetting => (acceptableUnsafeSettings as readonly string[]).includes(name);

/** proxy-addr's names of ranges, which `trust proxy` takes beside addresses and CIDR ranges. */
const proxyRangeNames = ['loopback', 'linklocal', 'uniquelocal'];

/** TRUSTED_PROXIES as a list; each entry a range name, an address or an address/prefix. */
function trustedProxyList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
}

/** Whether a TRUSTED_PROXIES entry names every address of its family: any address with the prefix 0 (0.0.0.0/0, ::/0, 10.0.0.0/0). */
export function namesEveryAddress(entry: string): boolean {
  const prefix = entry.split('/')[1];
  return prefix !== undefined && /^\d{1,3}$/.test(prefix) && Number(prefix) === 0;
}

/**
 * TRUSTED_PROXIES as Express's `trust proxy` (proxy-addr) takes it, false when empty. A /0 range
 * names every address of its family, but proxy-addr refuses the prefix 0 ('invalid range on
 * address'): the web process died at start with that TypeError, also once ACCEPT_UNSAFE_SETTINGS
 * accepted it. It is given as the family's two halves, which proxy-addr takes and which name the
 * same addresses (an IPv4 range trusts IPv4 clients, an IPv6 range IPv6 ones, as proxy-addr reads them).
 */
export function trustProxySetting(entries: string[]): string[] | false {
  if (!entries.length) return false;
  return entries.flatMap((entry) => {
    if (!namesEveryAddress(entry)) return [entry];
    return net.isIPv4(entry.split('/')[0]!) ? ['0.0.0.0/1', '128.0.0.0/1'] : ['::/1', '8000::/1'];
  });
}

function isProxyEntry(entry: string): boolean {
  if (proxyRangeNames.includes(entry)) return true;
  const [address, prefix, extra] = entry.split('/');
  const family = net.isIP(address ?? '');
  if (!family || extra !== undefined) return false;
  if (prefix === undefined) return true;
  const bits = Number(prefix);
  return /^\d{1,3}$/.test(prefix) && bits <= (family === 4 ? 32 : 128);
}

const keyBytes = Joi.string()
  .base64()
  .custom((v: string, helpers) => (Buffer.from(v, 'base64').length === 32 ? v : helpers.error('any.invalid')))
  .messages({ 'any.invalid': '{{#label}} must be 32 bytes, base64 encoded (openssl rand -base64 32)' });

function oldKeys(list: string | undefined): Map<string, Buffer> {
  return new Map(
    (list ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean)
      .map((entry) => {
        const [id, key] = entry.split(':');
        return [id!, Buffer.from(key!, 'base64')];
      }),
  );
}

const schema = Joi.object({
  // Unset is production: the safe defaults need no switch (npm start sets development).
  NODE_ENV: Joi.string().valid('development', 'test', 'production').default('production'),
  PORT: Joi.number().integer().min(0).max(65535).default(3000),
  HOST: Joi.string().hostname().default('127.0.0.1'),
  PUBLIC_URL: Joi.string().uri({ scheme: ['http', 'https'] }),
  DATABASE_URL: Joi.string()
    .uri({ scheme: ['postgres', 'postgresql'] })
    .default('postgres://postgres@127.0.0.1:5432/kontor'),
  DATABASE_POOL_MAX: Joi.number().integer().min(2).max(100).default(10),
  DATABASE_READ_URL: Joi.string().uri({ scheme: ['postgres', 'postgresql'] }),
  DATABASE_READ_MAX_LAG_MS: Joi.number().integer().min(0).max(3600000).default(5000),
  DATABASE_STATEMENT_TIMEOUT_MS: Joi.number().integer().min(0).max(600000).default(20000),
  MIGRATION_LOCK_TIMEOUT_MS: Joi.number().integer().min(0).max(600000).default(5000),
  CELL_COUNT: Joi.number().integer().min(1).max(1024).default(1),
  CELL_ID: Joi.number()
    .integer()
    .min(0)
    .max(Joi.ref('CELL_COUNT', { adjust: (count: number) => count - 1 }))
    .default(0)
    .messages({ 'number.max': '"CELL_ID" must be below CELL_COUNT' }),
  REDIS_URL: Joi.string()
    .uri({ scheme: ['redis', 'rediss'] })
    .default('redis://127.0.0.1:6379'),
  REDIS_CLUSTER_NODES: Joi.string()
    .pattern(/^[\w.-]+:\d{1,5}(,[\w.-]+:\d{1,5})*$/)
    .messages({ 'string.pattern.base': '"REDIS_CLUSTER_NODES" must be host:port[,host:port...]' }),
  LOG_LEVEL: Joi.string().valid('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent').default('info'),
  KONTOR_PROCESS: Joi.string().pattern(/^[\w-]{1,32}$/),
  BODY_LIMIT_BYTES: Joi.number()
    .integer()
    .min(1024)
    .default(10 * 1024 * 1024),
  ACCESS_TOKEN_TTL_SECONDS: Joi.number().integer().min(1).default(3600),
  REFRESH_TOKEN_TTL_SECONDS: Joi.number()
    .integer()
    .min(60)
    .default(2 * 365 * 24 * 3600),
  AUTHORIZATION_CODE_TTL_SECONDS: Joi.number().integer().min(10).default(600),
  RATE_LIMIT_PER_WINDOW: Joi.number().integer().min(1).default(10000),
  RATE_LIMIT_WINDOW_SECONDS: Joi.number().integer().min(1).default(3600),
  RATE_LIMIT_RELIEF_DAYS: Joi.number().integer().min(0).max(30).default(3),
  CONCURRENT_CALLS_PER_ACCOUNT: Joi.number().integer().min(1).default(1),
  LOGIN_THROTTLE_WINDOW_SECONDS: Joi.number().integer().min(1).default(900),
  LOGIN_ATTEMPTS_PER_LOGIN_AND_ADDRESS: Joi.number().integer().min(1).default(10),
  LOGIN_ATTEMPTS_PER_ADDRESS: Joi.number().integer().min(1).default(100),
  LOGIN_ATTEMPTS_PER_LOGIN: Joi.number().integer().min(1).default(100),
  ORDER_SEARCH_MIN_AGE_SECONDS: Joi.number().integer().min(0).default(10),
  PASSWORD_HASH_COST: Joi.number().integer().valid(1024, 2048, 4096, 8192, 16384, 32768, 65536).default(16384),
  QUEUE_PREFIX: Joi.string()
    .pattern(/^[\w.-]+$/)
    .default('kontor'),
  WORKER_CONCURRENCY: Joi.number().integer().min(1).max(200).default(4),
  CIA_WORKER_CONCURRENCY: Joi.number().integer().min(1).max(200).default(4),
  PORTAL_UPLOAD_WORKER_CONCURRENCY: Joi.number().integer().min(1).max(200).default(8),
  WORKER_LOCK_MS: Joi.number().integer().min(500).default(30000),
  JOB_ATTEMPTS: Joi.number().integer().min(1).max(100).default(8),
  JOB_BACKOFF_MS: Joi.number().integer().min(10).default(1000),
  JOB_RETENTION_SECONDS: Joi.number()
    .integer()
    .min(60)
    .default(7 * 24 * 3600),
  OUTBOX_RELAY_BATCH: Joi.number().integer().min(1).max(5000).default(500),
  OUTBOX_RELAY_POLL_MS: Joi.number().integer().min(50).default(2000),
  OUTBOX_RELAY_GATHER_MS: Joi.number().integer().min(0).max(1000).default(50),
  OUTBOX_RELAY_HEARTBEAT_MS: Joi.number().integer().min(100).max(60000).default(2000),
  // Default: the sandbox npm start runs, on SANDBOX_PORT (loadConfig).
  SANDBOX_PORTAL_URL: Joi.string().uri({ scheme: ['http', 'https'] }),
  SANDBOX_PORT: Joi.number().integer().min(0).max(65535).default(3900),
  SANDBOX_CONTRACTS_DIR: Joi.string(),
  PORTAL_CALLS_PER_SECOND: Joi.number().min(0.1).max(10000).default(5),
  PORTAL_TIMEOUT_MS: Joi.number().integer().min(100).default(10000),
  MARKET_D_FEED_WAIT_MS: Joi.number().integer().min(0).max(120000).default(10000),
  MARKET_D_LISTING_CHECK_MS: Joi.number().integer().min(1).max(3600000).default(300000),
  MARKET_D_LISTING_CHECKS: Joi.number().integer().min(1).max(20).default(3),
  CIA_PUSH_WINDOW_MS: Joi.number().integer().min(0).max(60000),
  REDIS_WATCH_MS: Joi.number().integer().min(100).max(60000).default(2000),
  CIA_PUSH_SWEEP_MS: Joi.number().integer().min(1000).default(60000),
  CIA_LATE_CALL_MARGIN_MS: Joi.number().integer().min(0).max(3600000).default(60000),
  CIA_RECONCILE_CRON: Joi.string().default('*/15 * * * *'),
  OUTBOX_CLEANUP_CRON: Joi.string().default('17 * * * *'),
  BANK_REMATCH_CRON: Joi.string().default('*/30 * * * *'),
  BANK_REMATCH_DAYS: Joi.number().integer().min(1).max(366).default(28),
  BANK_PROVIDER_SYNC_CRON: Joi.string().default('*/5 * * * *'),
  BANK_MATCH_BATCH: Joi.number().integer().min(1).max(10000).default(1000),
  OPERATOR_USER: Joi.string().default('operator'),
  OPERATOR_PASSWORD: Joi.string().allow('').default(''),
  WEBHOOK_TIMEOUT_MS: Joi.number().integer().min(100).max(120000).default(10000),
  WEBHOOK_RETRY_HOURS: Joi.number().min(0.0001).max(720).default(24),
  WEBHOOK_RETRY_BASE_MS: Joi.number().integer().min(10).default(30000),
  WEBHOOK_RETRY_MAX_DELAY_MS: Joi.number()
    .integer()
    .min(10)
    .default(3600 * 1000),
  WEBHOOK_PAUSE_AFTER_HOURS: Joi.number().min(0.0001).max(720).default(24),
  WEBHOOK_SWEEP_MS: Joi.number().integer().min(50).max(60000).default(1000),
  WEBHOOK_LOG_RETENTION_DAYS: Joi.number().integer().min(1).max(365).default(30),
  WEBHOOK_LOG_MAX_PER_HANDLER: Joi.number().integer().min(10).max(100000).default(1000),
  SMTP_URL: Joi.string()
    .uri({ scheme: ['smtp', 'smtps'] })
    .default('smtp://127.0.0.1:1025'),
  MAIL_FROM: Joi.string().default('Kontor <no-reply@kontor.localhost>'),
  SMTP_CONNECTION_TIMEOUT_MS: Joi.number().integer().min(100).max(600000).default(10000),
  SMTP_GREETING_TIMEOUT_MS: Joi.number().integer().min(100).max(600000).default(10000),
  SMTP_SOCKET_TIMEOUT_MS: Joi.number().integer().min(100).max(600000).default(15000),
  SHUTDOWN_TIMEOUT_MS: Joi.number().integer().min(1000).max(3600000).default(25000),
  WEBHOOK_ALLOW_PRIVATE_HOSTS: Joi.boolean(),
  WEBHOOK_CONCURRENCY_PER_ACCOUNT: Joi.number().integer().min(1).max(100).default(2),
  EVENT_HANDLERS_PER_ACCOUNT: Joi.number().integer().min(1).max(10000).default(50),
  EVENT_CHAIN_MAX_DEPTH: Joi.number().integer().min(1).max(10).default(3),
  TRUSTED_PROXIES: Joi.string()
    .allow('')
    .custom((v: string, helpers) => (trustedProxyList(v).every(isProxyEntry) ? v : helpers.error('any.invalid')))
    .messages({ 'any.invalid': '{{#label}} must be a comma-separated list of addresses, CIDR ranges (10.0.0.0/8) or loopback, linklocal, uniquelocal' }),
  ACCEPT_UNSAFE_SETTINGS: Joi.string()
    .allow('')
    .custom((v: string, helpers) => (trustedProxyList(v).every(isAcceptable) ? v : helpers.error('any.invalid')))
    .messages({ 'any.invalid': `{{#label}} must be a comma-separated list of ${acceptableUnsafeSettings.join(', ')}` }),
  // Not required here: the CLI's read-only commands work without it; the Procfile's processes refuse to start without it (config/safety.ts).
  CREDENTIALS_KEY: keyBytes,
  CREDENTIALS_KEY_ID: Joi.string()
    .pattern(/^[A-Za-z0-9_-]{1,32}$/)
    .default('k1'),
  CREDENTIALS_OLD_KEYS: Joi.string().pattern(/^\s*[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/]{43}=\s*(,\s*[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/]{43}=\s*)*$/),
  ORDER_FETCH_INTERVAL_SECONDS: Joi.number().integer().min(10).max(86400).default(60),
  MARKET_D_ORDER_FETCH_INTERVAL_SECONDS: Joi.number().integer().min(10).max(86400).default(180),
  ORDER_FETCH_MAX_PAGES: Joi.number().integer().min(1).max(100000).default(500),
  ORDER_FETCH_PAGE_SIZE: Joi.number().integer().min(1).max(200),
  ...channelAppsSchema,
  ...invoiceSchema,
}).unknown(true);

export class ConfigError extends Error {}

/**
 * CREDENTIALS_KEY when set; else the published key of the development or test mode; none in
 * production. A CREDENTIALS_KEY that is one of the published keys (copied from a developer's
 * environment) is marked builtIn as well: it protects nothing, and production refuses it
 * (config/safety.ts startRefusal).
 */
function credentialsKeyOf(env: Config['env'], key: string | undefined, id: string): Config['credentialsKey'] {
  if (key) {
    const bytes = Buffer.from(key, 'base64');
    const published = (['development', 'test'] as const).find((mode) => builtInCredentialsKey(mode).equals(bytes)) ?? null;
    return { id, key: bytes, builtIn: published };
  }
  if (env === 'production') return null;
  return { id: env === 'development' ? 'dev' : 'test', key: builtInCredentialsKey(env), builtIn: env };
}

function clusterNodes(list: string | undefined): { host: string; port: number }[] {
  if (!list) return [];
  return list.split(',').map((node) => {
    const at = node.lastIndexOf(':');
    return { host: node.slice(0, at), port: Number(node.slice(at + 1)) };
  });
}

/** Reads and validates the environment; throws ConfigError naming the first bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const { value, error } = schema.validate(env, { abortEarly: true, convert: true });
  if (error) {
    const variable = String(error.details[0]?.path[0] ?? 'environment');
    throw new ConfigError(`configuration: ${variable} is invalid: ${error.details[0]?.message ?? error.message}`);
  }
  const port = value.PORT as number;
  const host = value.HOST as string;
  const publicUrl = (value.PUBLIC_URL as string | undefined) ?? `http://${host}:${port}`;
  // An operator who moves npm start's sandbox (SANDBOX_PORT) moves the portals' calls with it:
  // with the URL fixed at 3900, every process called a port nothing listened on, and a second
  // instance's send_mit and CIA pushes failed with ECONNREFUSED (or reached the first's sandbox).
  const sandboxUrl = (value.SANDBOX_PORTAL_URL as string | undefined) ?? `http://127.0.0.1:${value.SANDBOX_PORT as number}`;
  return {
    env: value.NODE_ENV,
    port,
    host,
    publicUrl,
    databaseUrl: value.DATABASE_URL,
    databasePoolMax: value.DATABASE_POOL_MAX,
    ...(value.DATABASE_READ_URL ? { databaseReadUrl: value.DATABASE_READ_URL } : {}),
    databaseReadMaxLagMs: value.DATABASE_READ_MAX_LAG_MS,
    databaseStatementTimeoutMs: value.DATABASE_STATEMENT_TIMEOUT_MS,
    migrationLockTimeoutMs: value.MIGRATION_LOCK_TIMEOUT_MS,
    cellId: value.CELL_ID,
    cellCount: value.CELL_COUNT,
    redisUrl: value.REDIS_URL,
    redisClusterNodes: clusterNodes(value.REDIS_CLUSTER_NODES as string | undefined),
    logLevel: value.LOG_LEVEL,
    processName: value.KONTOR_PROCESS,
    bodyLimitBytes: value.BODY_LIMIT_BYTES,
    accessTokenTtlSeconds: value.ACCESS_TOKEN_TTL_SECONDS,
    refreshTokenTtlSeconds: value.REFRESH_TOKEN_TTL_SECONDS,
    authorizationCodeTtlSeconds: value.AUTHORIZATION_CODE_TTL_SECONDS,
    rateLimitPerWindow: value.RATE_LIMIT_PER_WINDOW,
    rateLimitWindowSeconds: value.RATE_LIMIT_WINDOW_SECONDS,
    rateLimitReliefDays: value.RATE_LIMIT_RELIEF_DAYS,
    concurrentCallsPerAccount: value.CONCURRENT_CALLS_PER_ACCOUNT,
    loginThrottleWindowSeconds: value.LOGIN_THROTTLE_WINDOW_SECONDS,
    loginAttemptsPerLoginAndAddress: value.LOGIN_ATTEMPTS_PER_LOGIN_AND_ADDRESS,
    loginAttemptsPerAddress: value.LOGIN_ATTEMPTS_PER_ADDRESS,
    loginAttemptsPerLogin: value.LOGIN_ATTEMPTS_PER_LOGIN,
    orderSearchMinAgeSeconds: value.ORDER_SEARCH_MIN_AGE_SECONDS,
    passwordHashCost: value.PASSWORD_HASH_COST,
    queuePrefix: value.QUEUE_PREFIX,
    workerConcurrency: value.WORKER_CONCURRENCY,
    ciaWorkerConcurrency: value.CIA_WORKER_CONCURRENCY,
    portalUploadWorkerConcurrency: value.PORTAL_UPLOAD_WORKER_CONCURRENCY,
    workerLockMs: value.WORKER_LOCK_MS,
    jobAttempts: value.JOB_ATTEMPTS,
    jobBackoffMs: value.JOB_BACKOFF_MS,
    jobRetentionSeconds: value.JOB_RETENTION_SECONDS,
    outboxRelayBatch: value.OUTBOX_RELAY_BATCH,
    outboxRelayPollMs: value.OUTBOX_RELAY_POLL_MS,
    outboxRelayGatherMs: value.OUTBOX_RELAY_GATHER_MS,
    outboxRelayHeartbeatMs: value.OUTBOX_RELAY_HEARTBEAT_MS,
    sandboxPortalUrl: sandboxUrl,
    unconnectedPortalUrl: value.NODE_ENV !== 'production' || env.SANDBOX_PORTAL_URL ? sandboxUrl : null,
    sandboxPort: value.SANDBOX_PORT,
    sandboxContractsDir: value.SANDBOX_CONTRACTS_DIR,
    portalCallsPerSecond: value.PORTAL_CALLS_PER_SECOND,
    portalTimeoutMs: value.PORTAL_TIMEOUT_MS,
    marketDFeedWaitMs: value.MARKET_D_FEED_WAIT_MS,
    marketDListingCheckMs: value.MARKET_D_LISTING_CHECK_MS,
    marketDListingChecks: value.MARKET_D_LISTING_CHECKS,
    ciaPushWindowMs: (value.CIA_PUSH_WINDOW_MS as number | undefined) ?? pushWindowFor(value.PORTAL_CALLS_PER_SECOND as number),
    redisWatchMs: value.REDIS_WATCH_MS,
    ciaPushSweepMs: value.CIA_PUSH_SWEEP_MS,
    ciaLateCallMarginMs: value.CIA_LATE_CALL_MARGIN_MS,
    ciaReconcileCron: value.CIA_RECONCILE_CRON,
    outboxCleanupCron: value.OUTBOX_CLEANUP_CRON,
    bankRematchCron: value.BANK_REMATCH_CRON,
    bankRematchDays: value.BANK_REMATCH_DAYS,
    bankProviderSyncCron: value.BANK_PROVIDER_SYNC_CRON,
    bankMatchBatch: value.BANK_MATCH_BATCH,
    operatorUser: value.OPERATOR_USER,
    operatorPassword: value.OPERATOR_PASSWORD,
    webhookTimeoutMs: value.WEBHOOK_TIMEOUT_MS,
    webhookRetryHours: value.WEBHOOK_RETRY_HOURS,
    webhookRetryBaseMs: value.WEBHOOK_RETRY_BASE_MS,
    webhookRetryMaxDelayMs: value.WEBHOOK_RETRY_MAX_DELAY_MS,
    webhookPauseAfterHours: value.WEBHOOK_PAUSE_AFTER_HOURS,
    webhookSweepMs: value.WEBHOOK_SWEEP_MS,
    webhookLogRetentionDays: value.WEBHOOK_LOG_RETENTION_DAYS,
    webhookLogMaxPerHandler: value.WEBHOOK_LOG_MAX_PER_HANDLER,
    smtpUrl: value.SMTP_URL,
    mailFrom: value.MAIL_FROM,
    smtpConnectionTimeoutMs: value.SMTP_CONNECTION_TIMEOUT_MS,
    smtpGreetingTimeoutMs: value.SMTP_GREETING_TIMEOUT_MS,
    smtpSocketTimeoutMs: value.SMTP_SOCKET_TIMEOUT_MS,
    shutdownTimeoutMs: value.SHUTDOWN_TIMEOUT_MS,
    webhookAllowPrivateHosts: value.WEBHOOK_ALLOW_PRIVATE_HOSTS ?? value.NODE_ENV !== 'production',
    webhookConcurrencyPerAccount: value.WEBHOOK_CONCURRENCY_PER_ACCOUNT,
    eventHandlersPerAccount: value.EVENT_HANDLERS_PER_ACCOUNT,
    eventChainMaxDepth: value.EVENT_CHAIN_MAX_DEPTH,
    trustedProxies: trustedProxyList(value.TRUSTED_PROXIES as string | undefined),
    acceptedUnsafeSettings: trustedProxyList(value.ACCEPT_UNSAFE_SETTINGS as string | undefined).filter(isAcceptable),
    credentialsKey: credentialsKeyOf(value.NODE_ENV as Config['env'], value.CREDENTIALS_KEY as string | undefined, value.CREDENTIALS_KEY_ID as string),
    credentialsOldKeys: oldKeys(value.CREDENTIALS_OLD_KEYS),
    orderFetchIntervalSeconds: value.ORDER_FETCH_INTERVAL_SECONDS,
    marketDOrderFetchIntervalSeconds: value.MARKET_D_ORDER_FETCH_INTERVAL_SECONDS,
    orderFetchMaxPages: value.ORDER_FETCH_MAX_PAGES,
    orderFetchPageSize: value.ORDER_FETCH_PAGE_SIZE ?? null,
    ...channelApps(value as Record<string, unknown>, value.NODE_ENV as string, publicUrl, sandboxUrl),
    invoice: invoiceConfig(value as Record<string, unknown>),
  };
}

let current: Config | undefined;

/**
 * The process's configuration, read once on first use. A bad environment ends the process
 * with one line naming the variable (exit code 78, EX_CONFIG), not a stack trace.
 */
export function config(): Config {
  if (!current) {
    try {
      current = loadConfig();
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      process.stderr.write(`kontor: ${err.message}\n`);
      process.exit(78);
    }
  }
  return current;
}

/** Replaces the configuration (tests only). */
export function setConfig(next: Config): void {
  current = next;
}
