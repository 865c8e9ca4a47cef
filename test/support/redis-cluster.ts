/**
 * A Redis Cluster of the test's own: 3 masters and 3 replicas of the machine's redis-server on
 * loopback ports, in a temp dir, without persistence. Started and stopped by the test (or bench).
 */
import { ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface ClusterNode {
  port: number;
  child: ChildProcess;
}

export interface RedisClusterUnderTest {
  nodes: ClusterNode[];
  /** host:port of every node, as REDIS_CLUSTER_NODES takes them. */
  env: string;
  /** config().redisClusterNodes for the test process. */
  list: { host: string; port: number }[];
  /** redis-cli against a node: its answer as text. */
  cli(port: number, ...args: string[]): Promise<string>;
  /** The port of the master serving a slot. */
  masterOf(slot: number): Promise<number>;
  /** Ports of the masters now. */
  masters(): Promise<number[]>;
  /** Hands a master's slots to its replica (CLUSTER FAILOVER on the replica); resolves with the new master's port once the cluster is ok. */
  failover(masterPort: number): Promise<number>;
  stop(): Promise<void>;
}

const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/** Six consecutive ports whose cluster bus ports (+10000) are free too, from a random start. */
async function freeBase(count: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 7100 + Math.floor(Math.random() * 80) * 10;
    const ports = Array.from({ length: count }, (_, i) => base + i);
    if ((await Promise.all(ports.flatMap((p) => [portFree(p), portFree(p + 10000)]))).every(Boolean)) return base;
  }
  throw new Error('no free ports for a Redis Cluster');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitUntil(what: string, check: () => Promise<boolean>, ms = 20000): Promise<void> {
  const until = Date.now() + ms;
  let last = '';
  for (;;) {
    if (
      await check().catch((err: Error) => {
        last = err.message;
        return false;
      })
    )
      return;
    if (Date.now() > until) throw new Error(`Redis Cluster: timed out waiting for ${what}${last ? ` (last: ${last.split('\n')[0]})` : ''}`);
    await sleep(100);
  }
}

/** host: the address the nodes bind and announce (another than loopback: reachable from the test's network namespaces). */
export async function startRedisCluster(masters = 3, replicasPerMaster = 1, host = '127.0.0.1'): Promise<RedisClusterUnderTest> {
  const count = masters * (1 + replicasPerMaster);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-redis-cluster-'));
  const base = await freeBase(count);
  const ports = Array.from({ length: count }, (_, i) => base + i);
  const nodes: ClusterNode[] = ports.map((port) => {
    const nodeDir = path.join(dir, String(port));
    fs.mkdirSync(nodeDir);
    const child = spawn(
      '/usr/bin/redis-server',
      [
        '--port',
        String(port),
        '--bind',
        host,
        // Redis 7 takes only loopback clients without a password, whatever it binds: the nodes on
        // a test bridge's address serve the test's namespaces (and nothing else reaches it).
        '--protected-mode',
        host === '127.0.0.1' ? 'yes' : 'no',
        '--dir',
        nodeDir,
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        'nodes.conf',
        // Short, so that a dead master is replaced within seconds; not shorter: on a loaded
        // machine nodes would take each other for dead.
        '--cluster-node-timeout',
        '5000',
        '--save',
        '',
        '--appendonly',
        'no',
        '--maxmemory-policy',
        'noeviction',
      ],
      { stdio: 'ignore' },
    );
    return { port, child };
  });
  const cli = async (port: number, ...args: string[]) => (await run('redis-cli', ['-h', host, '-p', String(port), ...args])).stdout;
  const stop = async () => {
    await Promise.all(
      nodes.map(async ({ child }) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      }),
    );
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitUntil('the nodes to listen', async () => (await Promise.all(ports.map((p) => cli(p, 'PING')))).every((a) => a.trim() === 'PONG'));
    await run('redis-cli', ['--cluster', 'create', ...ports.map((p) => `${host}:${p}`), '--cluster-replicas', String(replicasPerMaster), '--cluster-yes']);
    const clusterOk = async () => (await Promise.all(ports.map((p) => cli(p, 'CLUSTER', 'INFO')))).every((info) => /cluster_state:ok/.test(info));
    await waitUntil('cluster_state:ok on every node', clusterOk);
    const masterPorts = async () =>
      (await cli(ports[0]!, 'CLUSTER', 'NODES'))
        .split('\n')
        // A master serves slots: a demoted one keeps the flag until gossip tells it otherwise.
        .filter((line) => /\bmaster\b/.test(line) && !/\bfail\b/.test(line) && line.trim().split(' ').length > 8)
        .map((line) => Number(/:(\d+)@/.exec(line)![1]));
    const replicasSeeing = async () => {
      // Every replica in sync with its master, so that a failover loses nothing.
      const infos = await Promise.all(ports.map((p) => cli(p, 'INFO', 'replication')));
      return infos.filter((i) => /role:slave/.test(i)).every((i) => /master_link_status:up/.test(i));
    };
    await waitUntil('replicas in sync', replicasSeeing);
    // cluster_state:ok comes before every node knows every other's role: a client that reads the
    // slots from a node still seeing a replica as a master without slots starts with a wrong map
    // (MOVED, then timeouts). Wait until every node sees the same masters and replicas.
    const agreed = async () => {
      const views = await Promise.all(ports.map((p) => cli(p, 'CLUSTER', 'NODES')));
      return views.every((view) => {
        const lines = view.split('\n').filter((l) => l.includes('@'));
        const roles = lines.map((l) => l.split(' ')[2]!);
        return (
          lines.length === count &&
          roles.filter((r) => /master/.test(r)).length === masters &&
          roles.filter((r) => /slave/.test(r)).length === count - masters &&
          !roles.some((r) => /fail|handshake|noaddr/.test(r))
        );
      });
    };
    await waitUntil('every node to agree on masters and replicas', agreed);
    await run('redis-cli', ['--cluster', 'check', `${host}:${ports[0]}`]);
    return {
      nodes,
      env: ports.map((p) => `${host}:${p}`).join(','),
      list: ports.map((port) => ({ host, port })),
      cli,
      masters: masterPorts,
      async masterOf(slot) {
        const slots = (await cli(ports[0]!, 'CLUSTER', 'NODES')).split('\n').filter((line) => /\bmaster\b/.test(line));
        for (const line of slots) {
          const ranges = line.split(' ').slice(8);
          for (const range of ranges) {
            const [from, to] = range.split('-').map(Number);
            if (slot >= from! && slot <= (to ?? from!)) return Number(/:(\d+)@/.exec(line)![1]);
          }
        }
        throw new Error(`no master serves slot ${slot}`);
      },
      async failover(masterPort) {
        const id = (await cli(masterPort, 'CLUSTER', 'MYID')).trim();
        const replicaLine = (await cli(masterPort, 'CLUSTER', 'REPLICAS', id)).split('\n').find((l) => l.includes('@'));
        if (!replicaLine) throw new Error(`master ${masterPort} has no replica`);
        const replica = Number(/:(\d+)@/.exec(replicaLine)![1]);
        await cli(replica, 'CLUSTER', 'FAILOVER');
        await waitUntil(`node ${replica} to be master`, async () => /role:master/.test(await cli(replica, 'INFO', 'replication')));
        await waitUntil('cluster_state:ok after the failover', clusterOk);
        // The node the helpers ask must see the new layout too, or the next test counts the old master.
        await waitUntil('the failover known to the node asked', async () => {
          const now = await masterPorts();
          return now.length === masters && now.includes(replica) && !now.includes(masterPort);
        });
        return replica;
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
