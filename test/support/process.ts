import { ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

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
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', file], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  return {
    child,
    output: () => out,
    waitFor: (pattern, ms = 20000) => new Promise((resolve, reject) => {
      const timer = setTimeout(() => { clearInterval(poll); reject(new Error(`no ${pattern} within ${ms} ms; output:\n${out}`)); }, ms);
      const poll = setInterval(() => {
        if (pattern.test(out)) { clearInterval(poll); clearTimeout(timer); resolve(); }
      }, 50);
    }),
    stop: (ms = 20000) => new Promise((resolve, reject) => {
      if (child.exitCode !== null) return resolve(child.exitCode);
      const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`did not stop within ${ms} ms`)); }, ms);
      child.once('exit', (code) => { clearTimeout(timer); resolve(code); });
      child.kill('SIGTERM');
    }),
  };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    }).on('error', reject);
  });
}
