/**
 * /health/ready is open (lib/operator/README.md: for the orchestrator, no credentials), so it may
 * say which dependency is down, never why: the drivers' messages name database roles, internal
 * host names and addresses ("role \"...\" does not exist", "connect ECONNREFUSED 10.0.3.4:5432").
 * Those go to the log, where the operator looks.
 */
import crypto from 'node:crypto';
import { expect } from 'chai';
import { freePort, runEntry } from '../support/process';

describe('the open readiness check tells nothing of the inside', function () {
  this.timeout(60000);

  it('when PostgreSQL refuses the role and Redis does not answer, then /health/ready names both as down, without role, address or port; the log has the reasons', async () => {
    const [port, deadRedis] = [await freePort(), await freePort()];
    const web = runEntry('server/index.ts', {
      NODE_ENV: 'production',
      CREDENTIALS_KEY: crypto.randomBytes(32).toString('base64'),
      PORT: String(port),
      DATABASE_URL: 'postgres://kontor_internal_role:pw@127.0.0.1:5432/kontor_nowhere',
      REDIS_URL: `redis://127.0.0.1:${deadRedis}`,
      LOG_LEVEL: 'info',
    });
    try {
      await web.waitFor(/api listening/, 30000);
      const ready = await fetch(`http://127.0.0.1:${port}/health/ready`);
      const text = await ready.text();
      expect(ready.status).to.equal(503);
      expect(JSON.parse(text)).to.deep.equal({ ready: false, down: ['postgres', 'redis'], postgres: 'unavailable', redis: 'unavailable', schema: 'unknown' });
      expect(text).not.to.match(/kontor_internal_role|127\.0\.0\.1|ECONNREFUSED/);
      await web.waitFor(/kontor_internal_role/);
    } finally {
      await web.stop();
    }
  });
});
