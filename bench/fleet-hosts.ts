/**
 * `npm run bench -- fleet-hosts` (issue 34, "Speed"): the fleet bench with one set of workers,
 * then with two (standing in for two worker hosts: each set the Procfile's cia, portal_upload and
 * events), in one run: CPU per order and p99 of both, how the second run's jobs spread over the
 * two sets (aim: within 60/40) and how many ran more than once (aim: none).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import type { BenchCase } from './cases';

const root = path.join(__dirname, '..');

function runFleet(env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--require', 'tsx/cjs', 'bench/index.ts', 'fleet'], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      process.stdout.write(d);
    });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(output) : reject(new Error(`bench fleet exited ${code}`))));
  });
}

const figure = (output: string, pattern: RegExp) => Number(pattern.exec(output)?.[1] ?? NaN);
const p99Of = (output: string) => figure(output, /last portal acknowledged \(9 targets\): p50 \d+ ms, p99 (\d+) ms/);
const cpuOf = (output: string) => figure(output, /the service \(web, workers, Postgres, Redis\) ([\d.]+) ms/);

async function run(): Promise<void> {
  process.stdout.write('-- leg 1: one worker host\n');
  const one = await runFleet({ BENCH_WORKER_HOSTS: '1' });
  process.stdout.write('-- leg 2: two worker hosts\n');
  const two = await runFleet({ BENCH_WORKER_HOSTS: '2' });
  const spread = /worker hosts: .*/.exec(two)?.[0] ?? 'worker hosts: no figures';
  process.stdout.write(
    [
      '-- fleet-hosts: two worker hosts over one',
      `service CPU per order: one ${cpuOf(one).toFixed(1)} ms, two ${cpuOf(two).toFixed(1)} ms, ratio ${(cpuOf(two) / cpuOf(one)).toFixed(2)}`,
      `p99 201 -> last channel acknowledged: one ${p99Of(one)} ms, two ${p99Of(two)} ms, ratio ${(p99Of(two) / p99Of(one)).toFixed(2)}`,
      spread,
      '',
    ].join('\n'),
  );
}

export const fleetHostsBench: BenchCase = {
  name: 'fleet-hosts',
  description: 'the fleet bench with one and with two sets of workers (worker hosts) in one run: CPU per order, p99, the spread of jobs, jobs run twice',
  run,
};
