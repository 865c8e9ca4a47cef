/** Statement files of test/bank/fixtures/ with their {{NAME}} placeholders filled. */
import { readFileSync } from 'node:fs';
import path from 'node:path';

const dir = path.join(__dirname, 'fixtures');
const defaults: Record<string, string> = { ORDER_1: '1_2026_11', ORDER_2: '2_2026_11', AMOUNT_1: '49.90', AMOUNT_2: '24.50', BATCH_TOTAL: '29.50' };

/** A fixture with its {{NAME}} placeholders filled (bytes kept for non-UTF-8 files). */
export function fixture(name: string, values: Record<string, string> = {}): Buffer {
  const bytes = readFileSync(path.join(dir, name));
  const all = { ...defaults, ...values };
  const latin1 = bytes.toString('latin1').replace(/\{\{(\w+)\}\}/g, (_, key: string) => all[key] ?? '');
  return Buffer.from(latin1, 'latin1');
}

/**
 * An entry with the content digest of its key (lib/bank/statement/entry-key.ts) written `~digest`:
 * for a file read in several versions of its format, whose elements (and so digests) differ.
 */
export const withKeyShape = <T extends { reference: string | null }>(entry: T): T => ({
  ...entry,
  reference: entry.reference?.replace(/~[\w-]{43}/, '~digest') ?? null,
});
