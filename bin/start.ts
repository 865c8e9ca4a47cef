/**
 * `npm start`: the whole service for a developer in one process tree. Creates and migrates the
 * database, then runs every Procfile process except release as a child, prints the base URL
 * once the API answers, and passes SIGINT/SIGTERM on so that each child shuts down cleanly.
 *
 * `--development` (what `npm start` passes) is the one switch into development mode: it sets
 * NODE_ENV=development for this process and its children (unless NODE_ENV is set already), which
 * brings the published credentials key, webhooks to private addresses, the sandbox portal
 * (Procfile.development) and the mail catcher, and says so. Without it (`node dist/bin/start.js`)
 * the mode is NODE_ENV's, production when unset: the Procfile alone, and no start without
 * CREDENTIALS_KEY.
 */
// First: the mode is chosen before any module reads the configuration.
import { developmentSwitch } from './development-mode';
import { spawn, ChildProcess } from 'node:child_process';
import path from 'node:path';
import { config } from '../config';
import { guardProcessStart, unsafeLines } from '../config/safety';
import { migrateDatabase } from '../lib/migrate';
import { nodeArgs, procfileProcesses } from './procfile';

/** Running as TypeScript (npm start in development) rather than from dist/. */
const fromSource = __filename.endsWith('.ts');
const root = path.join(__dirname, fromSource ? '..' : '../..');

async function waitForApi(url: string, children: ChildProcess[]): Promise<boolean> {
  for (let i = 0; i < 120; i++) {
    if (children.some((c) => c.exitCode !== null)) return false;
    try {
      await fetch(url);
      return true;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  return false;
}

function announceMode(): void {
  const { env } = config();
  const how = developmentSwitch && env === 'development' ? 'npm start sets NODE_ENV=development' : `NODE_ENV=${env}`;
  if (env === 'development')
    process.stdout.write(
      `kontor: development mode (${how}): published credentials key, webhooks to private addresses allowed, sandbox portal and mail catcher running; never for real data\n`,
    );
  else process.stdout.write(`kontor: ${env} mode (${how})\n`);
}

async function main(): Promise<void> {
  announceMode();
  const { databaseUrl, publicUrl, env } = config();
  guardProcessStart(config(), 'start', () => undefined);
  // Once for the whole tree: its processes say nothing of it outside production.
  for (const line of unsafeLines(config())) process.stderr.write(`kontor: ${line}\n`);
  const applied = await migrateDatabase(databaseUrl);
  process.stdout.write(`kontor: database ready (${applied.length} migration(s) applied)\n`);
  const processes = [
    ...procfileProcesses(root).filter((p) => p.name !== 'release'),
    ...(env === 'development' ? procfileProcesses(root, 'Procfile.development') : []),
  ];
  const children = processes.map((p) => {
    const { name } = p;
    // The Procfile's line, run with this very node; from the TypeScript source (through tsx) when
    // npm start itself runs from source, so development needs no build.
    const args = nodeArgs(p, fromSource);
    const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit', env: { ...process.env, KONTOR_PROCESS: name } });
    child.on('exit', (code, signal) => {
      if (!stopping) {
        process.stderr.write(`kontor: process ${name} exited (${signal ?? code}); stopping the rest\n`);
        stop('SIGTERM');
      }
    });
    return child;
  });
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    stopping = true;
    for (const child of children) if (child.exitCode === null) child.kill(signal);
  };
  process.on('SIGINT', () => stop('SIGTERM'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  const base = `${publicUrl}/v1.1/`;
  if (await waitForApi(`${base}system/currency/`, children)) {
    process.stdout.write(
      `\nkontor: running at ${base}\n  processes: ${processes.map((p) => p.name).join(', ')}\n  create a seller: npx kontor user create --login L --password P\n` +
        (env === 'development' ? '  CLI commands that seal credentials (portal-account connect) run in this mode with NODE_ENV=development\n' : '') +
        '\n',
    );
  }
  await Promise.all(children.map((c) => new Promise((resolve) => (c.exitCode !== null ? resolve(null) : c.once('exit', resolve)))));
  process.exitCode = stopping ? 0 : 1;
}

main().catch((err: Error) => {
  process.stderr.write(`kontor: could not start: ${err.message}\n`);
  process.exit(1);
});
