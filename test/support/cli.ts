import { execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { config } from '../../config';

const run = promisify(execFile);
const root = path.join(__dirname, '..', '..');

/** Runs the kontor CLI against the test database; resolves with exit code, stdout and stderr. */
export async function kontor(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', path.join(root, 'bin', 'cli.ts'), ...args], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: config().databaseUrl, LOG_LEVEL: 'silent' },
    });
    return { code: 0, out: stdout, err: stderr };
  } catch (e) {
    const failure = e as { code: number; stdout: string; stderr: string };
    return { code: failure.code, out: failure.stdout, err: failure.stderr };
  }
}

/** Runs the kontor CLI with the text given on its standard input (secrets kept out of the arguments). */
export async function kontorWithInput(input: string, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'bin', 'cli.ts'), ...args], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: config().databaseUrl, LOG_LEVEL: 'silent' },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  child.stdin.end(input);
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? 1)));
  return { code, out, err };
}
