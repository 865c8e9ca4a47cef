/**
 * The time as limits see it (rate-limit windows, the daily relief, login throttling). Tests move
 * it to cross a day or a window without sleeping; everything else reads the real clock.
 */
let source: () => number = Date.now;

/** Milliseconds since the Unix epoch. */
export function now(): number {
  return source();
}

/** Replaces the clock; undefined restores the real one (tests only). */
export function setClock(next: (() => number) | undefined): void {
  source = next ?? Date.now;
}
