/**
 * The Procfile is the one list of the service's processes and how node runs each: `npm start`
 * runs its lines, and the fleet bench measures them as they run there. Procfile.development adds
 * what only a developer machine runs (the sandbox portal): `npm start` in development mode runs
 * it too; a production deployment reads the Procfile alone.
 */
import fs from 'node:fs';
import path from 'node:path';

/** A line `name: node [node flags] dist/<entry>.js [arguments]`. */
export interface ProcfileProcess {
  name: string;
  /** Node's own flags (--max-semi-space-size=8 --heap-growing-percent=50). */
  flags: string[];
  /** The entry without dist/ and .js: server/index. */
  entry: string;
  args: string[];
}

export function procfileProcesses(root: string, file: 'Procfile' | 'Procfile.development' = 'Procfile'): ProcfileProcess[] {
  return fs
    .readFileSync(path.join(root, file), 'utf8')
    .split('\n')
    .map((line) => /^([\w-]+):\s*(.+)$/.exec(line.trim()))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => {
      const words = m[2]!.split(/\s+/);
      const at = words.findIndex((w) => /^dist\/\S+\.js$/.test(w));
      if (words[0] !== 'node' || at === -1) throw new Error(`Procfile line is not node [flags] dist/<entry>.js: ${m[0]}`);
      return { name: m[1]!, flags: words.slice(1, at), entry: words[at]!.slice('dist/'.length, -'.js'.length), args: words.slice(at + 1) };
    });
}

/**
 * Node's arguments for a process: its Procfile line's, or from the TypeScript source through tsx
 * (`extra` before the entry: a profiler's or a preloaded module's).
 */
export function nodeArgs(line: ProcfileProcess, fromSource: boolean, extra: string[] = []): string[] {
  const entry = fromSource ? ['--require', 'tsx/cjs', ...extra, `${line.entry}.ts`] : [...extra, `dist/${line.entry}.js`];
  return [...line.flags, ...entry, ...line.args];
}
