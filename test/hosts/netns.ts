import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import { root } from '../support/process';

/**
 * "Hosts" on this machine for tests of what crosses a network: one network namespace per host,
 * each with its own address on a bridge, and its own host name (a UTS namespace), so that what
 * a process reads of its host (os.hostname(), its address) is that host's. The bridge's address
 * is the outside world: the test forwards the shared Postgres, Redis and the sandbox there.
 * Names carry a random tag, so that runs side by side do not meet.
 */
export interface HostNetwork {
  /** The bridge's address: what the hosts reach the test's forwarders at. */
  gateway: string;
  addressOf(host: string): string;
  /** Runs a TypeScript entry on a host (node with tsx, as runEntry does), in a process group of its own. */
  run(host: string, entry: string, env: Record<string, string>): HostProcess;
  close(): void;
}

export interface HostProcess {
  child: ChildProcess;
  /** What it printed (the last 20 kB), for a failing test's message. */
  output(): string;
}

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: 'pipe' });

/** Why this machine cannot make network namespaces, or undefined when it can. */
export function netnsUnavailable(): string | undefined {
  const probe = `kp-${crypto.randomBytes(3).toString('hex')}`;
  try {
    ip('netns', 'add', probe);
    ip('netns', 'del', probe);
    execFileSync('unshare', ['--uts', 'true'], { stdio: 'pipe' });
    return undefined;
  } catch (err) {
    return `ip netns / unshare --uts refused (${(err as Error).message.split('\n')[0]}): needs root and iproute2`;
  }
}

export function createHostNetwork(hosts: string[]): HostNetwork {
  const tag = crypto.randomBytes(2).toString('hex');
  const net = `10.${100 + crypto.randomInt(100)}.${crypto.randomInt(250)}`;
  const bridge = `kb-${tag}`;
  const nsOf = (host: string) => `kh-${tag}-${host}`;
  const addresses = new Map(hosts.map((host, i) => [host, `${net}.${10 + i}`]));
  ip('link', 'add', bridge, 'type', 'bridge');
  ip('addr', 'add', `${net}.1/24`, 'dev', bridge);
  ip('link', 'set', bridge, 'up');
  hosts.forEach((host, i) => {
    const ns = nsOf(host);
    const veth = `kv-${tag}-${i}`;
    ip('netns', 'add', ns);
    ip('link', 'add', veth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns);
    ip('link', 'set', veth, 'master', bridge, 'up');
    ip('-n', ns, 'addr', 'add', `${addresses.get(host)}/24`, 'dev', 'eth0');
    ip('-n', ns, 'link', 'set', 'eth0', 'up');
    ip('-n', ns, 'link', 'set', 'lo', 'up');
    ip('-n', ns, 'route', 'add', 'default', 'via', `${net}.1`);
  });
  return {
    gateway: `${net}.1`,
    addressOf: (host) => addresses.get(host)!,
    run(host, entry, env) {
      // unshare and ip netns exec each exec the next program: the child's pid is node's.
      const child = spawn(
        'unshare',
        ['--uts', 'sh', '-c', 'hostname "$0" && exec ip netns exec "$1" "$2" --require tsx/cjs "$3"', host, nsOf(host), process.execPath, entry],
        { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
      );
      let out = '';
      const keep = (chunk: Buffer) => {
        out = (out + chunk.toString()).slice(-20000);
      };
      child.stdout!.on('data', keep);
      child.stderr!.on('data', keep);
      return { child, output: () => out };
    },
    close() {
      for (const host of hosts) {
        try {
          ip('netns', 'del', nsOf(host));
        } catch {
          /* already gone */
        }
      }
      try {
        ip('link', 'del', bridge);
      } catch {
        /* already gone */
      }
    },
  };
}
