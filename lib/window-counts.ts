/**
 * Counts per key within one time window, kept in this process: what a throttle counts here while
 * Redis, which holds its real counts, cannot answer (lib/auth client grants, lib/operator logins).
 * A new window starts every key again at 0, as Redis's keys expire with their window, so the
 * memory held is one window's keys at most.
 */
export class WindowCounts {
  private readonly counts = new Map<string, number>();
  private window = -1;

  /** The key's count in `window` (0 once a later window began). */
  of(key: string, window: number): number {
    if (window !== this.window) {
      this.counts.clear();
      this.window = window;
    }
    return this.counts.get(key) ?? 0;
  }

  /** Adds `by` (may be negative, never below 0) to the key's count in `window`; a past window is gone and left alone. */
  add(key: string, window: number, by = 1): void {
    if (window < this.window) return;
    this.counts.set(key, Math.max(0, this.of(key, window) + by));
  }
}
