/**
 * Development and test mode open what production keeps shut (a published credentials key,
 * webhooks to loopback and private addresses such as 169.254.169.254 or the Redis port). npm start
 * says so once for its tree, so its children stay quiet; a Procfile process started any other way
 * (a platform, a container whose NODE_ENV came from a developer's .env) said nothing and ran open.
 */
import { expect } from 'chai';
import { config } from '../../config';
import { freePort, runEntry } from '../support/process';

async function webOutput(env: Record<string, string>): Promise<string> {
  const port = await freePort();
  const web = runEntry('server/index.ts', { DATABASE_URL: config().databaseUrl, LOG_LEVEL: 'info', PORT: String(port), ...env });
  try {
    await web.waitFor(/api listening/, 30000);
    return web.output();
  } finally {
    await web.stop();
  }
}

describe('a process outside production says so (security review)', function () {
  this.timeout(60000);

  for (const mode of ['development', 'test']) {
    it(`when the web process starts with NODE_ENV=${mode} outside npm start, then a warn line names NODE_ENV, the published key and the private webhook hosts`, async () => {
      const out = await webOutput({ NODE_ENV: mode });
      const line = out.split('\n').find((l) => l.includes('"level":40') && l.includes(`NODE_ENV=${mode}`));
      expect(line, out).to.not.equal(undefined);
      expect(line).to.contain('published').and.contain('private addresses');
    });
  }

  it('when npm start runs it (KONTOR_PROCESS set, the mode said once by npm start), then it says nothing of the mode', async () => {
    const out = await webOutput({ NODE_ENV: 'development', KONTOR_PROCESS: 'web' });
    expect(out).not.to.contain('NODE_ENV=development');
  });
});
