import type { Knex } from 'knex';
import type { OutboxRow } from '../queue';
import type { DispatchResult } from './event-dispatch.service';
import { eventHandlerRepository, handledKey } from './event-handler.repository';

/** What event.emit answers when no handler takes the event (dispatchEvent). */
const nothingToRun: DispatchResult = { runs: [], skipped: [] };

/**
 * The relay's settler (lib/queue RowSettler, given by workers/run.ts): the event.emit rows of a
 * pass whose account has no handler of the event's section and type are finished with the
 * result their job would have given, without a job. Most sellers have no handler for most
 * events, and every sale writes two or three (order and customer created, the stock's cia):
 * their jobs were most of the events queue's work, each costing Redis commands, a pass of the
 * events worker and a query of its own. One query per pass decides them.
 *
 * Decision: the handlers are read when the row is relayed, not when a job would have run (a
 * few ms later under load). A handler created in between is not run for that event; one
 * created a moment after the relay was not either. event.emit_batch rows (bank payments) are
 * rare and keep their jobs.
 */
export async function settleUnhandledEvents(trx: Knex.Transaction, rows: readonly OutboxRow[]): Promise<Map<string, unknown>> {
  const events = rows.filter((row) => row.job_name === 'event.emit');
  const settled = new Map<string, unknown>();
  if (events.length === 0) return settled;
  const handled = await eventHandlerRepository.typesHandled(trx, [...new Set(events.map((row) => row.account_id))]);
  for (const row of events)
    if (!handled.has(handledKey(row.account_id, String(row.payload.section), String(row.payload.type)))) settled.set(row.job_id, nothingToRun);
  return settled;
}
