import { ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { config } from '../../config';

export const root = path.join(__dirname, '..', '..');

export interface Running {
  child: ChildProcess;
  output: () => string;
  /** Resolves when a line of output matches, or rejects after ms. */
  waitFor(pattern: RegExp, ms?: number): Promise<void>;
  /** Sends SIGTERM and resolves with the exit code (rejects after ms). */
  stop(ms?: number): Promise<number | null>;
}

/** Runs a TypeScript entry as its own process, as its Procfile line does. */
export function runEntry(file: string, env: Record<string, string>): Running {
  return runNode(['--require', 'tsx/cjs', file], env);
}

/**
 * A worker entry as its own node process on this run's database and queues: node itself, not the
 * tsx CLI (which runs a grandchild), so that a SIGKILL hits the worker.
 */
export function spawnWorker(entry: string, env: Record<string, string>): ChildProcess {
  const base = { NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: config().databaseUrl, QUEUE_PREFIX: config().queuePrefix };
  return spawn(process.execPath, ['--require', 'tsx/cjs', entry], { cwd: root, stdio: 'ignore', env: { ...process.env, ...base, ...env } });
}

/** Runs node with the arguments (a compiled entry: ['dist/server/index.js']). */
export function runNode(args: string[], env: Record<string, string>): Running {
  const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    out += d;
  });
  return {
    child,
    output: () => out,
    waitFor: (pattern, ms = 20000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          clearInterval(poll);
          reject(new Error(`no ${pattern} within ${ms} ms; output:\n${out}`));
        }, ms);
        const poll = setInterval(() => {
          if (pattern.test(out)) {
            clearInterval(poll);
            clearTimeout(timer);
            resolve();
          }
        }, 50);
      }),
    stop: (ms = 20000) =>
      new Promise((resolve, reject) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          reject(new Error(`did not stop within ${ms} ms`));
        }, ms);
        child.once('exit', (code) => {
          clearTimeout(timer);
          resolve(code);
        });
        child.kill('SIGTERM');
      }),
  };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net
      .createServer()
      .listen(0, '127.0.0.1', () => {
        const { port } = server.address() as net.AddressInfo;
        server.close(() => resolve(port));
      })
      .on('error', reject);
  });
}

/** Resolves when something accepts connections on the port, or rejects after ms. */
export async function whenListening(port: number, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > until) throw new Error(`nothing listens on port ${port} after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * A redis-server of the test's own on a port, without persistence (a restart starts empty):
 * fault tests kill and restart it, never the shared Redis.
 */
export async function startRedisServer(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--maxmemory-policy', 'noeviction'], {
    stdio: 'ignore',
  });
  await whenListening(port);
  return child;
}

/** SIGKILLs a child process (if it still runs) and resolves when it has exited. */
export async function killChild(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}
