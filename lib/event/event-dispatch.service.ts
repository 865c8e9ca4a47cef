import { db } from '../db';
import { withRequestId } from '../log';
import type { JobPayloads, MergedPart, MergedResult } from '../queue';
import { addToOutbox } from '../queue';
import { chainOf, ChainStop, chainStop, reportChainStop } from './event-chain';
import { conditionsHold } from './event-condition';
import { eventHandlerRepository, EventHandlerRow } from './event-handler.repository';
import { EventRecord, handlerScope, loadEventRecord } from './event-record';
import { eventRunRepository } from './event-run.repository';
import { loginDisabled, loginDisabledReason } from './login-disabled';

export interface DispatchResult {
  /** One run job per handler whose condition held (visible at GET job/{job_id}/). */
  runs: { handler_id: number; job_id: string }[];
  /** Handlers of the type that were not run, and why. */
  skipped: { handler_id: number; reason: string }[];
}

/** stock/cia notifies only the handlers named in cia.event target[] (by id or by target_name). */
function targeted(handler: EventHandlerRow, targets: unknown): boolean {
  if (!Array.isArray(targets)) return false;
  const names = targets.map(String);
  return names.includes(String(handler.id)) || (handler.required.target_name !== undefined && names.includes(handler.required.target_name));
}

/**
 * event.emit: finds the account's active handlers of the event's type whose condition holds on
 * the record, and queues one event.run job per handler through the outbox, so each run retries,
 * fails and shows its state on its own. Idempotent: a pair already queued is not queued again.
 */
export async function dispatchEvent(eventId: string, event: JobPayloads['event.emit'], occurredAt: Date): Promise<DispatchResult> {
  const handlers = await eventHandlerRepository.activeFor(event.accountId, event.section, event.type);
  if (handlers.length === 0) return { runs: [], skipped: [] };
  if (await loginDisabled(event.accountId)) return notRun(handlers);
  return dispatchTo(handlers, eventId, event, occurredAt);
}

/** Every handler skipped: the account's login is disabled (login-disabled.ts). */
const notRun = (handlers: EventHandlerRow[]): DispatchResult => ({
  runs: [],
  skipped: handlers.map((h) => ({ handler_id: h.id, reason: loginDisabledReason })),
});

/**
 * event.emit_many: each part dispatched as its own event.emit would be (its row's job id is the
 * event id, its result the part's), the handlers of each section and type read once: an account
 * without handlers of a type costs one query for the whole job. Each part occurred when its row was
 * written (`queuedAt`); `occurredAt` (the job's) stands in for a part that names no time.
 */
export async function dispatchEventParts(parts: MergedPart<JobPayloads['event.emit']>[], occurredAt: Date): Promise<MergedResult> {
  const outcome: MergedResult = { parts: {} };
  const handlersOf = new Map<string, Promise<EventHandlerRow[]>>();
  const disabledOf = new Map<number, Promise<boolean>>();
  for (const { jobId, data, queuedAt } of parts) {
    const key = `${data.accountId} ${data.section} ${data.type}`;
    if (!handlersOf.has(key)) handlersOf.set(key, eventHandlerRepository.activeFor(data.accountId, data.section, data.type));
    const handlers = await handlersOf.get(key)!;
    if (handlers.length > 0 && !disabledOf.has(data.accountId)) disabledOf.set(data.accountId, loginDisabled(data.accountId));
    // Under the request that queued the part, as the worker runs a job of its own: its runs and their deliveries carry it.
    const result =
      handlers.length === 0
        ? { runs: [], skipped: [] }
        : (await disabledOf.get(data.accountId))
          ? notRun(handlers)
          : await withRequestId(data.request_id, () => dispatchTo(handlers, jobId, data, queuedAt === undefined ? occurredAt : new Date(queuedAt)));
    outcome.parts[jobId] = { state: 'completed', result };
  }
  return outcome;
}

/** What event.emit_batch did, per record (record_id names it). */
export interface BatchDispatchResult {
  records: number;
  runs: { record_id: string; handler_id: number; job_id: string }[];
  skipped: { record_id: string; handler_id: number; reason: string }[];
}

/** The event id of one record of an event.emit_batch job: stable, so a re-run finds its runs. */
export const batchEventId = (batchJobId: string, recordId: string) => `${batchJobId}-${recordId}`;

/**
 * event.emit_batch: each record dispatched as its own event.emit would be (same handlers,
 * conditions, runs and payloads), under the event id batchEventId. The handlers are read once:
 * an account with none of the type costs one query whatever the number of records.
 */
export async function dispatchEventBatch(batchJobId: string, batch: JobPayloads['event.emit_batch'], occurredAt: Date): Promise<BatchDispatchResult> {
  const result: BatchDispatchResult = { records: batch.recordIds.length, runs: [], skipped: [] };
  const handlers = await eventHandlerRepository.activeFor(batch.accountId, batch.section, batch.type);
  if (handlers.length === 0) return result;
  const disabled = await loginDisabled(batch.accountId);
  for (const recordId of batch.recordIds) {
    if (disabled) {
      result.skipped.push(...notRun(handlers).skipped.map((r) => ({ record_id: recordId, ...r })));
      continue;
    }
    const event = { accountId: batch.accountId, section: batch.section, type: batch.type, recordId, ...(batch.cause ? { cause: batch.cause } : {}) };
    const one = await dispatchTo(handlers, batchEventId(batchJobId, recordId), event, occurredAt);
    result.runs.push(...one.runs.map((r) => ({ record_id: recordId, ...r })));
    result.skipped.push(...one.skipped.map((r) => ({ record_id: recordId, ...r })));
  }
  return result;
}

/** One event against the account's active handlers of its type (read by the caller). */
async function dispatchTo(handlers: EventHandlerRow[], eventId: string, event: JobPayloads['event.emit'], occurredAt: Date): Promise<DispatchResult> {
  const result: DispatchResult = { runs: [], skipped: [] };
  // The record as each grant sees it: read once for all-account handlers, once per bound portal account.
  const records = new Map<number | null, Promise<EventRecord | undefined>>();
  const recordFor = (grant: number | null) => {
    if (!records.has(grant)) records.set(grant, loadEventRecord(handlerScope(event.accountId, grant), event.section, event.recordId, event.data));
    return records.get(grant)!;
  };
  const chosen: EventHandlerRow[] = [];
  const chain = chainOf(event.cause);
  const stops: { handler: EventHandlerRow; stop: ChainStop }[] = [];
  for (const handler of handlers) {
    const record = await recordFor(handler.portal_account_grant);
    // A bound client's handler acts only on its portal account's records (issue 31).
    if (handler.portal_account_grant !== null && !record && (await recordFor(null)))
      result.skipped.push({ handler_id: handler.id, reason: "record of a portal account outside the handler's grant" });
    else if (event.section === 'stock' && !targeted(handler, event.data?.target))
      result.skipped.push({ handler_id: handler.id, reason: 'not a target of cia.event' });
    else if (handler.portal_account_grant !== null && !record) result.skipped.push({ handler_id: handler.id, reason: 'record gone' });
    else if (handler.condition.length > 0 && !record) result.skipped.push({ handler_id: handler.id, reason: 'record gone; condition cannot hold' });
    else if (record && !conditionsHold(handler.condition, record)) result.skipped.push({ handler_id: handler.id, reason: 'condition does not hold' });
    else {
      // An event a handler's action raised: no handler runs again on its own change, and the chain has a depth (event-chain.ts).
      const stop = chain.length ? chainStop(handler, chain, record) : undefined;
      if (!stop) chosen.push(handler);
      else {
        result.skipped.push({ handler_id: handler.id, reason: stop.reason });
        if (stop.report) stops.push({ handler, stop });
      }
    }
  }
  await db().transaction(async (trx) => {
    const queued = await eventRunRepository.jobsOf(trx, eventId);
    const added: { handlerId: number; jobId: string }[] = [];
    for (const handler of chosen) {
      const existing = queued.get(handler.id);
      const jobId =
        existing ??
        (await addToOutbox(trx, event.accountId, 'event.run', {
          accountId: event.accountId,
          handlerId: handler.id,
          section: event.section,
          type: event.type,
          recordId: event.recordId,
          eventId,
          occurredAt: occurredAt.toISOString(),
          ...(event.data ? { data: event.data } : {}),
          ...(chain.length ? { cause: { chain } } : {}),
        }));
      if (!existing) added.push({ handlerId: handler.id, jobId });
      result.runs.push({ handler_id: handler.id, job_id: jobId });
    }
    await eventRunRepository.insert(trx, eventId, added);
  });
  for (const { handler, stop } of stops) await reportChainStop(event.accountId, handler, stop, chain, event);
  return result;
}
