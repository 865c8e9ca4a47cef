// Tests run TypeScript through tsx against the real PostgreSQL and Redis (see test/setup.ts).
module.exports = {
  require: ['tsx/cjs', 'test/env.ts', 'test/setup.ts', 'test/support/contract.ts'],
  extension: ['ts'],
  timeout: 30000,
  exit: true,
  reporter: 'spec',
};
