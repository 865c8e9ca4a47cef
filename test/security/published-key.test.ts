/**
 * A production process refuses to start with a published credentials key, as it refuses one
 * without a key: the development and test modes' built-in keys are derived from strings in this
 * repository, so credentials sealed with one are open to anyone who reads it. Set as
 * CREDENTIALS_KEY (copied from a developer's environment), it passed as a real key and the
 * process started without a word. Development and test mode keep their keys (npm start works).
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import { expect } from 'chai';
import { config, loadConfig } from '../../config';
import { startRefusal, unsafeSettings } from '../../config/safety';
import { root } from '../support/process';

const publishedKey = (mode: 'development' | 'test') =>
  crypto.createHash('sha256').update(`kontor ${mode} credentials key (not secret)`).digest().toString('base64');

describe('a published credentials key in production', function () {
  this.timeout(60000);

  it('when CREDENTIALS_KEY is the development or test key in production, then the start is refused naming CREDENTIALS_KEY, and doctor names it', () => {
    for (const mode of ['development', 'test'] as const) {
      const cfg = loadConfig({ NODE_ENV: 'production', CREDENTIALS_KEY: publishedKey(mode) });
      expect(startRefusal(cfg, 'web'), mode).to.contain('kontor web: CREDENTIALS_KEY is the published').and.contain(mode);
      expect(unsafeSettings(cfg).map((f) => f.variable)).to.include('CREDENTIALS_KEY');
    }
  });

  it('when the key is a random one in production, or the mode is development or test (npm start), then nothing is refused', () => {
    expect(startRefusal(loadConfig({ NODE_ENV: 'production', CREDENTIALS_KEY: crypto.randomBytes(32).toString('base64') }), 'web')).to.equal(undefined);
    expect(startRefusal(loadConfig({ NODE_ENV: 'development' }), 'web')).to.equal(undefined);
    expect(startRefusal(loadConfig({ NODE_ENV: 'development', CREDENTIALS_KEY: publishedKey('development') }), 'web')).to.equal(undefined);
    expect(startRefusal(loadConfig({ NODE_ENV: 'test' }), 'web')).to.equal(undefined);
  });

  it('when the web process starts in production with the development key, then it exits 78 naming CREDENTIALS_KEY', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: config().databaseUrl, NODE_ENV: 'production', CREDENTIALS_KEY: publishedKey('development') };
    delete env.KONTOR_PROCESS;
    const proc = spawn(process.execPath, ['--require', 'tsx/cjs', 'server/index.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    proc.stdout.on('data', (d) => (out += d));
    proc.stderr.on('data', (d) => (out += d));
    const code = await new Promise<number | null>((resolve) => proc.once('exit', resolve));
    expect(code, out).to.equal(78);
    expect(out).to.contain('kontor web: CREDENTIALS_KEY is the published development key');
  });
});
