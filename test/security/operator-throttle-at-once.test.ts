/**
 * Operator logins guessed at once from one address (/operator/, lib/operator operator-throttle.ts):
 * only LOGIN_ATTEMPTS_PER_LOGIN_AND_ADDRESS of them are tried, the rest 429, whether Redis answers
 * late (paused for less than the producer's command timeout) or not at all (paused for longer: the
 * web process counts them itself). A redis-server of the test's own, never the shared one.
 */
import type { ChildProcess } from 'node:child_process';
import { expect } from 'chai';
import { config, Config, setConfig } from '../../config';
import { setClock } from '../../lib/clock';
import { closeQueues } from '../../lib/queue';
import { closeRedis, redis as producer, whenReady } from '../../lib/redis';
import { apiBase } from '../support/api';
import { freePort, killChild, startRedisServer } from '../support/process';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const password = 'a-long-operator-password-4712';
const windowSeconds = 900;

describe('operator logins guessed at once: only the bound of them are tried (Redis slow or stalled)', function () {
  this.timeout(60000);
  let original: Config;
  let redisPort = 0;
  let redis: ChildProcess | undefined;
  // Each test in a throttle window of its own, so the process's own count of one never counts in another.
  let window = Math.floor(Date.UTC(2026, 6, 1, 9) / 1000 / windowSeconds);

  before(() => {
    original = config();
  });
  beforeEach(async () => {
    window += 4;
    const at = window * windowSeconds * 1000;
    setClock(() => at);
    redisPort = await freePort();
    redis = await startRedisServer(redisPort);
    setConfig({
      ...original,
      redisUrl: `redis://127.0.0.1:${redisPort}`,
      operatorUser: 'ops',
      operatorPassword: password,
      loginThrottleWindowSeconds: windowSeconds,
      loginAttemptsPerLoginAndAddress: 2,
    });
    await closeRedis();
    await whenReady(producer());
  });
  afterEach(async () => {
    redis?.kill('SIGCONT');
    await Promise.all([closeRedis(), closeQueues()]);
    setConfig(original);
    setClock(undefined);
    await killChild(redis);
    redis = undefined;
  });

  const from = async (address: string, pw: string) =>
    fetch(`${await apiBase()}/operator/metrics`, { headers: { Authorization: basic('ops', pw), 'X-Forwarded-For': address } });
  const statusesOf = (answers: Response[]) => answers.map((a) => a.status).sort();

  /** Ten guesses sent while Redis is paused for `pauseMs`; their statuses, sorted. */
  async function guessesDuringPause(address: string, pauseMs: number): Promise<number[]> {
    await apiBase();
    redis!.kill('SIGSTOP');
    const resumed = new Promise((resolve) => setTimeout(resolve, pauseMs)).then(() => redis!.kill('SIGCONT'));
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => from(address, `guess-${i}`)));
    await resumed;
    return statusesOf(answers);
  }

  it('when Redis answers ten guesses sent at once late (paused 300 ms), then two are tried (401) and eight refused 429; the right password is refused too', async () => {
    // Checked first and counted only after the wrong password, each read the count before any was added: all ten were tried.
    expect(await guessesDuringPause('203.0.113.7', 300)).to.deep.equal([401, 401, 429, 429, 429, 429, 429, 429, 429, 429]);
    const refused = await from('203.0.113.7', password);
    expect(refused.status).to.equal(429);
    expect(Number(refused.headers.get('retry-after'))).to.be.within(1, windowSeconds);
  });

  it('when Redis does not answer ten guesses sent at once (paused beyond the command timeout), then the web process lets two be tried (401) and refuses eight 429', async () => {
    expect(await guessesDuringPause('203.0.113.8', 2500)).to.deep.equal([401, 401, 429, 429, 429, 429, 429, 429, 429, 429]);
  });

  it('when the right password comes again and again, also at once, then it is never refused: a success takes its count back', async () => {
    for (let i = 0; i < 4; i++) expect((await from('203.0.113.9', password)).status).to.equal(200);
    expect(statusesOf(await Promise.all([1, 2].map(() => from('203.0.113.9', password))))).to.deep.equal([200, 200]);
    expect((await from('203.0.113.9', 'wrong')).status).to.equal(401);
    expect((await from('203.0.113.9', password)).status).to.equal(200);
  });
});
