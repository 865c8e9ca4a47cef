/**
 * `npm start` as a newcomer runs it (bin/start.ts --development), in a process group of its own: a
 * stop or a kill reaches every process it started, also when the start process itself is gone or
 * the test run ends early (mocha exits without waiting for the processes it did not start).
 */
import { spawn, ChildProcess } from 'node:child_process';
import { root } from '../support/process';

const groups = new Set<number>();
process.on('exit', () => {
  for (const pid of groups) signalGroup(pid, 'SIGKILL');
});

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is gone.
  }
}

export class Service {
  private readonly child: ChildProcess;
  private out = '';

  constructor(env: Record<string, string>) {
    this.child = spawn(process.execPath, ['--import', 'tsx', 'bin/start.ts', '--development'], {
      cwd: root,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    groups.add(this.child.pid!);
    this.child.stdout!.on('data', (d: Buffer) => (this.out += d.toString('utf8')));
    this.child.stderr!.on('data', (d: Buffer) => (this.out += d.toString('utf8')));
  }

  output(): string {
    return this.out;
  }

  /** Resolves once it prints the base URL (the API answers), or rejects after ms. */
  async ready(ms = 120000): Promise<void> {
    for (const until = Date.now() + ms; !/kontor: running at http:\/\/127\.0\.0\.1:\d+\/v1\.1\//.test(this.out);) {
      if (this.child.exitCode !== null || Date.now() > until) throw new Error(`npm start did not come up:\n${this.out.slice(-3000)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Ctrl-C, as the README says; after 30 s, SIGKILL to every process of the group. */
  async stop(): Promise<void> {
    const pid = this.child.pid!;
    const exited = new Promise((resolve) => (this.child.exitCode !== null ? resolve(undefined) : this.child.once('exit', resolve)));
    signalGroup(pid, 'SIGINT');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 30000))]);
    signalGroup(pid, 'SIGKILL');
    groups.delete(pid);
  }
}
