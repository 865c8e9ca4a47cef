/**
 * Loaded before anything else (see .mocharc.cjs): the configuration for tests, set in the
 * environment before config/ first reads it. Each test run may name its own database.
 */
process.env.NODE_ENV = 'test';
process.env.DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/kontor_test';
process.env.LOG_LEVEL ??= 'silent';
// The cheapest scrypt cost: tests create many sellers; production keeps the default.
process.env.PASSWORD_HASH_COST = '1024';
// Redis keys (queues, rate limits) of this run apart from any other run's: account ids start
// at 1 again in every fresh test database.
process.env.QUEUE_PREFIX ??= `kontor-test-${process.pid}`;
// Every seller of the suite logs in from 127.0.0.1: the per-address login bound would make tests
// that send many wrong logins (fuzzing) refuse the next tests' sellers. Throttle tests set it lower.
process.env.LOGIN_ATTEMPTS_PER_ADDRESS ??= '100000';
// The suite's clients pretend to come from many addresses through X-Forwarded-For, as a load
// balancer on this machine would send it; production trusts no proxy unless TRUSTED_PROXIES says so.
process.env.TRUSTED_PROXIES ??= 'loopback';
