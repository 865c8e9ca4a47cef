/**
 * Where the vendors' published contract files are: `../shared/contracts/<folder>/` beside the
 * repository root (CI has shared/ at the same place). They are third-party files read as data,
 * never copied into the project; a missing folder stops the sandbox at start with its name.
 */
import fs from 'node:fs';
import path from 'node:path';
import { config } from '../../config';

/** The repository root: the nearest folder above this file that holds package.json (works from sandbox/ and dist/sandbox/). */
function repositoryRoot(from = __dirname): string {
  let dir = from;
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${from}: cannot find the repository root`);
    dir = parent;
  }
}

/** The shared contracts root; SANDBOX_CONTRACTS_DIR overrides it (a deployment keeping them elsewhere). */
export function contractsRoot(): string {
  const dir = config().sandboxContractsDir;
  return dir ? path.resolve(dir) : path.resolve(repositoryRoot(), '../shared/contracts');
}

/** A contract folder, checked to exist; the error names the folder the sandbox looked for. */
export function contractFolder(folder: string, root = contractsRoot()): string {
  const dir = path.join(root, folder);
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory())
    throw new Error(
      `the sandbox cannot start: the contract folder ${dir} is missing (the vendors' published contracts are read from ../shared/contracts/${folder}/ beside the repository; see its SOURCES.md)`,
    );
  return dir;
}

/** One contract file of a folder, parsed; the error names the file when it is missing or not JSON. */
export function readContract(folder: string, file: string, root = contractsRoot()): Record<string, unknown> {
  const full = path.join(contractFolder(folder, root), file);
  if (!fs.existsSync(full)) throw new Error(`the sandbox cannot start: the contract file ${full} is missing`);
  try {
    return JSON.parse(fs.readFileSync(full, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    throw new Error(`the sandbox cannot start: the contract file ${full} is not JSON (${(err as Error).message})`, { cause: err });
  }
}
