/**
 * Debian's PostgreSQL 15 tools for tests that start a server of their own beside the machine's
 * (a streaming pair: test/db/read-replica.test.ts; a server initialised SQL_ASCII:
 * test/db/ensure-database.test.ts), each in a temporary directory of its own.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const bin = '/usr/lib/postgresql/15/bin';

/** Runs a PostgreSQL tool; PostgreSQL refuses to run as root: as root (CI containers), it runs as postgres. */
export async function pg(tool: string, args: string[]): Promise<void> {
  const asRoot = process.getuid?.() === 0;
  const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', path.join(bin, tool), ...args]] : [path.join(bin, tool), args];
  await run(file, argv, { timeout: 30000 });
}

/** A new temporary directory the tools may write to (owned by postgres when the test runs as root). */
export async function pgTempDir(prefix: string): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  if (process.getuid?.() === 0) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    fs.chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  return dir;
}
