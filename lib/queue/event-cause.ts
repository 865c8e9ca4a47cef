import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What caused an event that an event handler's action raised: the handlers whose actions led to
 * it, in order, the last being the one whose write raised it (lib/event/README.md, "Chains").
 * An event without a cause was raised by an API client, a channel import, a bank match or any
 * other work no handler started.
 */
export interface EventCause {
  chain: number[];
}

/**
 * The cause of the events the work in hand raises (workers only: the events worker runs each
 * handler's action under it). The outbox stamps it on the event rows written meanwhile, so the
 * cause travels with the write that raised the event, whoever wrote it (lib/order, lib/customer).
 */
const causeScope = new AsyncLocalStorage<EventCause>();

/** Runs `fn` (an event handler's action) so that every event it raises carries `cause`. */
export function withEventCause<T>(cause: EventCause, fn: () => T): T {
  return causeScope.run(cause, fn);
}

/** The cause of the events raised now, if a handler's action is running. */
export function currentEventCause(): EventCause | undefined {
  return causeScope.getStore();
}

/** The event jobs dispatch reads a cause from. */
export const causedJobs: ReadonlySet<string> = new Set(['event.emit', 'event.emit_batch']);
