import { listening, onChange } from '../db';

/**
 * A small reference table held whole in memory: loaded on first use, loaded again after a trigger
 * announced a change of the table (migration 20261124_0800), in whichever process made it. While
 * the process hears no notices, every use reads the table.
 */
export function cachedTable<T>(table: string, load: () => Promise<T>): () => Promise<T> {
  let held: Promise<T> | undefined;
  let notices = 0;
  onChange('reference', (changed) => {
    if (changed !== null && changed !== table) return;
    notices += 1;
    held = undefined;
  });
  return () => {
    if (!listening()) return load();
    if (held) return held;
    const seen = notices;
    const loading = load();
    held = loading;
    // A change announced while loading may be missing from what was read: load again next time.
    loading.then(
      () => {
        if (seen !== notices && held === loading) held = undefined;
      },
      () => {
        if (held === loading) held = undefined;
      },
    );
    return loading;
  };
}
