/**
 * The time as limits see it (rate-limit windows, the daily relief, login throttling). Tests move
 * it to cross a day or a window without sleeping; everything else reads the real clock.
 */
let source: () => number = Date.now;
let moved = false;

/** Milliseconds since the Unix epoch. */
export function now(): number {
  return source();
}

/** Replaces the clock; undefined restores the real one (tests only). */
export function setClock(next: (() => number) | undefined): void {
  source = next ?? Date.now;
  moved = next !== undefined;
}

/**
 * The time a test moved the clock to, else '' : limits shared through Redis read Redis's clock
 * (one for every host, lib/redis luaNow) unless a test moved time, which they are then sent.
 */
export function movedTime(): number | '' {
  return moved ? source() : '';
}
