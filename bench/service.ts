/**
 * The whole service as `npm start` runs it, for the benches that compare it with the web process
 * alone (issue 32): every Procfile process but release, each as its line runs it (node's flags
 * included, from the source through tsx), in production mode on the bench database and a queue
 * prefix of its own. The workers stay idle beside the web process unless the bench gives them
 * work; what they cost (their pools, Redis connections and polling) is on the same two cores.
 * The web process counts its Postgres statements and Redis commands (bench/call-counter.ts):
 * `calls()` asks it for them.
 */
import { spawn, ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { config } from '../config';
import { nodeArgs, procfileProcesses } from '../bin/procfile';
import type { CallCounts } from './call-counter';
import { benchConcurrentCalls, benchDatabaseUrl } from './order-support';

const root = path.join(__dirname, '..');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface RunningService {
  /** The API's base URL (…/v1.1). */
  api: string;
  /** The web process's id (its CPU time is in /proc/<pid>/stat). */
  webPid: number;
  /** The web process's statements and Redis commands so far. */
  calls(): Promise<CallCounts>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(10000)]);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/** Starts the Procfile's processes (the database is migrated already: benchBase) and waits for the API. */
export async function startService(options: { logLevel?: 'info' | 'warn' } = {}): Promise<RunningService> {
  const callsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-bench-service-'));
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    // warn unless asked: info, npm start's default, writes a line per request.
    LOG_LEVEL: options.logLevel ?? 'warn',
    DATABASE_URL: benchDatabaseUrl().toString(),
    // Production requires a credentials key: this process's own when it has one (what it sealed
    // opens there), else one for this run (these benches seal nothing).
    CREDENTIALS_KEY: (config().credentialsKey?.key ?? crypto.randomBytes(32)).toString('base64'),
    CREDENTIALS_KEY_ID: config().credentialsKey?.id ?? 'bench',
    QUEUE_PREFIX: `bench-service-${process.pid}`,
    PORT: String(port),
    RATE_LIMIT_PER_WINDOW: '1000000000',
    CONCURRENT_CALLS_PER_ACCOUNT: String(benchConcurrentCalls),
    BENCH_CALLS_DIR: callsDir,
  };
  const counter = ['--require', path.join(__dirname, 'call-counter.ts')];
  // BENCH_WEB_CPU_PROFILE_DIR: the web process writes a V8 CPU profile there when it stops.
  const profileDir = process.env.BENCH_WEB_CPU_PROFILE_DIR;
  if (profileDir) counter.unshift('--cpu-prof', `--cpu-prof-dir=${profileDir}`);
  const children = new Map<string, ChildProcess>();
  for (const line of procfileProcesses(root).filter((p) => p.name !== 'release')) {
    const child = spawn(process.execPath, nodeArgs(line, true, line.name === 'web' ? counter : []), {
      cwd: root,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...env, KONTOR_PROCESS: line.name },
    });
    children.set(line.name, child);
  }
  const web = children.get('web')!;
  const api = `http://127.0.0.1:${port}/v1.1`;
  const stop = async () => {
    await Promise.all([...children.values()].map(stopChild));
    fs.rmSync(callsDir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; ; i++) {
      if (web.exitCode !== null) throw new Error('the web process exited');
      if (
        await fetch(`${api}/system/currency/`).then(
          () => true,
          () => false,
        )
      )
        break;
      // Seven processes compiling their TypeScript at once on two cores take a while.
      if (i > 1200) throw new Error(`${api} never answered`);
      await sleep(100);
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    api,
    webPid: web.pid!,
    async calls() {
      const file = path.join(callsDir, `${web.pid}.json`);
      fs.rmSync(file, { force: true });
      web.kill('SIGUSR2');
      // The handler writes the file synchronously: read it once it parses.
      for (let i = 0; ; i++) {
        await sleep(20);
        try {
          return JSON.parse(fs.readFileSync(file, 'utf8')) as CallCounts;
        } catch (err) {
          if (i > 250) throw err;
        }
      }
    },
    stop,
  };
}
