import { expect } from 'chai';
import { ConfigError, loadConfig } from '../config';

describe('configuration', () => {
  it('when the environment is empty, then defaults for the loopback services are used', () => {
    const cfg = loadConfig({});
    expect(cfg.port).to.equal(3000);
    expect(cfg.databaseUrl).to.equal('postgres://postgres@127.0.0.1:5432/kontor');
    expect(cfg.redisUrl).to.equal('redis://127.0.0.1:6379');
    expect(cfg.publicUrl).to.equal('http://127.0.0.1:3000');
    expect(cfg.accessTokenTtlSeconds).to.equal(3600);
  });

  it('when the sandbox is moved to another port, then the portals call it there unless SANDBOX_PORTAL_URL names another address', () => {
    expect(loadConfig({}).sandboxPortalUrl).to.equal('http://127.0.0.1:3900');
    const moved = loadConfig({ NODE_ENV: 'development', SANDBOX_PORT: '3951' });
    expect([moved.sandboxPort, moved.sandboxPortalUrl, moved.unconnectedPortalUrl]).to.deep.equal([3951, 'http://127.0.0.1:3951', 'http://127.0.0.1:3951']);
    expect(loadConfig({ SANDBOX_PORT: '3951', SANDBOX_PORTAL_URL: 'http://sandbox.test:8080' }).sandboxPortalUrl).to.equal('http://sandbox.test:8080');
    expect(loadConfig({ NODE_ENV: 'production', SANDBOX_PORT: '3951' }).unconnectedPortalUrl).to.equal(null);
  });

  it("when the push window is not set, then it is one call interval of the portals' rate, never under 100 ms", () => {
    expect(loadConfig({}).ciaPushWindowMs).to.equal(200);
    expect(loadConfig({ PORTAL_CALLS_PER_SECOND: '2' }).ciaPushWindowMs).to.equal(500);
    expect(loadConfig({ PORTAL_CALLS_PER_SECOND: '10000' }).ciaPushWindowMs).to.equal(100);
    expect(loadConfig({ PORTAL_CALLS_PER_SECOND: '10000', CIA_PUSH_WINDOW_MS: '0' }).ciaPushWindowMs).to.equal(0);
  });

  it('when SHOPIFY_API_VERSION is not set, then the Shopify adapter speaks 2026-07 (supported until at least 2027-07); a listed version is taken', () => {
    expect(loadConfig({}).shopifyApplication.apiVersion).to.equal('2026-07');
    expect(loadConfig({ SHOPIFY_API_VERSION: '2025-01' }).shopifyApplication.apiVersion).to.equal('2025-01');
    expect(loadConfig({ SHOPIFY_API_VERSION: '2026-10' }).shopifyApplication.apiVersion).to.equal('2026-10');
  });

  for (const [variable, value] of [
    ['PORT', 'abc'],
    ['DATABASE_URL', 'mysql://x/y'],
    ['REDIS_URL', 'nope'],
    ['LOG_LEVEL', 'loud'],
    ['RATE_LIMIT_PER_WINDOW', '0'],
    // Only the versions whose differences the adapter writes (config/channel-apps.ts shopifyApiVersions).
    ['SHOPIFY_API_VERSION', '2025-04'],
  ]) {
    it(`when ${variable} is ${value}, then loading fails with a message naming ${variable}`, () => {
      expect(() => loadConfig({ [variable!]: value })).to.throw(ConfigError, variable);
    });
  }
});
