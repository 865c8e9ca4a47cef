/**
 * `npm run bench -- fleet-cluster` (issue 34, "Speed"): the fleet bench (bench/fleet.ts) on a
 * single Redis, then on a Redis Cluster of 3 masters and 3 replicas started here, in one run;
 * CPU per order of the service and p99 from 201 to the last channel acknowledged, and their
 * ratios (target: within 1.2x). Each leg runs as its own `bench fleet` process with its
 * environment, so nothing of the first leg's connections or queues is left for the second.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { startRedisCluster } from '../test/support/redis-cluster';
import type { BenchCase } from './cases';

const root = path.join(__dirname, '..');

interface Leg {
  p99: number;
  /** Service CPU per order (web, workers, Postgres, Redis), ms. */
  cpu: number;
  /** Redis's share of it (every redis-server of the machine: on the cluster its 6 nodes), ms. */
  redisCpu: number;
  output: string;
}

function runFleet(env: NodeJS.ProcessEnv): Promise<Leg> {
  return new Promise((resolve, reject) => {
    const base = { ...process.env };
    delete base.REDIS_CLUSTER_NODES;
    const child = spawn(process.execPath, ['--require', 'tsx/cjs', 'bench/index.ts', 'fleet'], {
      cwd: root,
      env: { ...base, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      process.stdout.write(d);
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      const p99 = /last portal acknowledged \(9 targets\): p50 \d+ ms, p99 (\d+) ms/.exec(output);
      const cpu = /the service \(web, workers, Postgres, Redis\) ([\d.]+) ms/.exec(output);
      const redisCpu = /CPU per order \(ms\): [^;]*\bredis ([\d.]+)/.exec(output);
      if (code !== 0 || !p99 || !cpu) return reject(new Error(`bench fleet exited ${code} without its figures`));
      resolve({ p99: Number(p99[1]), cpu: Number(cpu[1]), redisCpu: Number(redisCpu?.[1] ?? NaN), output });
    });
  });
}

async function run(): Promise<void> {
  process.stdout.write('-- leg 1: single Redis (REDIS_URL)\n');
  const single = await runFleet({});
  const cluster = await startRedisCluster();
  let onCluster: Leg;
  try {
    process.stdout.write(`-- leg 2: Redis Cluster, 3 masters + 3 replicas (REDIS_CLUSTER_NODES=${cluster.env})\n`);
    onCluster = await runFleet({ REDIS_CLUSTER_NODES: cluster.env });
  } finally {
    await cluster.stop();
  }
  process.stdout.write(
    [
      '-- fleet-cluster: the cluster over the single Redis',
      `service CPU per order: single ${single.cpu.toFixed(1)} ms, cluster ${onCluster.cpu.toFixed(1)} ms, ratio ${(onCluster.cpu / single.cpu).toFixed(2)} (Redis's part: ${single.redisCpu.toFixed(1)} vs ${onCluster.redisCpu.toFixed(1)} ms, replicas included)`,
      `p99 201 -> last channel acknowledged: single ${single.p99} ms, cluster ${onCluster.p99} ms, ratio ${(onCluster.p99 / single.p99).toFixed(2)}`,
      '',
    ].join('\n'),
  );
}

export const fleetClusterBench: BenchCase = {
  name: 'fleet-cluster',
  description: 'the fleet bench on a single Redis and on a Redis Cluster (3 masters + 3 replicas) in one run: CPU per order and p99, ratios',
  run,
};
