import { UnrecoverableError } from 'bullmq';
import { sellerAsSender } from '../account';
import { invalidInput, noLongerExists, Warning } from '../errors';
import { log } from '../log';
import { mailAddress, messageIdOf, refusedForGood, sendMail } from '../mail';
import { updateOrder } from '../order';
import type { StatusFlag } from '../order';
import type { JobPayloads } from '../queue';
import { withEventCause } from '../queue';
import { createTaskOnce } from '../task';
import { causeAfter } from './event-chain';
import { eventHandlerRepository, EventHandlerRow } from './event-handler.repository';
import { EventRecord, handlerScope, loadEventRecord, recordIds } from './event-record';
import { loginDisabled, loginDisabledReason } from './login-disabled';
import { assertMailRecipient } from './mail-recipient';
import { fillTemplate } from './template';
import { startDelivery } from './webhook-delivery.service';

type Run = JobPayloads['event.run'];

/**
 * The record an action needs, as the handler's grant sees it; gone since the event (or outside
 * the grant of the client that made the handler) is a permanent failure of that run.
 */
async function recordOf(run: Run, handler: EventHandlerRow): Promise<EventRecord> {
  const record = await loadEventRecord(handlerScope(run.accountId, handler.portal_account_grant), run.section, run.recordId, run.data);
  if (!record) throw noLongerExists(`${run.section} ${run.recordId}`);
  return record;
}

/**
 * A notification: recorded as a webhook delivery under the run's job id and tried at once; its
 * retries are the sweep's (lib/event/webhook-sweeper.ts), so the run completes with the state of
 * the delivery. A first attempt that ends it for good (410 Gone, a blocked host) fails the run.
 */
async function notify(runId: string, run: Run, handler: EventHandlerRow) {
  // Nothing goes out about a record outside a bound handler's grant; others notify even of a record deleted since (the ids only).
  const record = handler.portal_account_grant !== null || run.section === 'stock' ? await recordOf(run, handler).catch(gone(handler)) : undefined;
  const payload = {
    event: { section: run.section, type: run.type },
    event_id: run.eventId,
    delivery_id: runId,
    handler_id: handler.id,
    target_name: handler.required.target_name,
    occurred_at: run.occurredAt,
    ...recordIds(run.section, run.recordId, record, run.accountId),
  };
  const outcome = await startDelivery(runId, run, handler, payload);
  if (outcome.state === 'failed') throw new UnrecoverableError(outcome.error ?? 'notification failed');
  return outcome;
}

/** A stock record gone since still notifies (quantity null) for an all-account handler; a bound handler's run fails. */
const gone = (handler: EventHandlerRow) => (err: unknown) => {
  if (handler.portal_account_grant !== null) throw err;
  return undefined;
};

async function mail(runId: string, run: Run, handler: EventHandlerRow, lastAttempt: boolean) {
  // Not an open relay (issue 31): the buyer of the record or the account's own address, checked again now.
  await assertMailRecipient(run.accountId, run.section, handler.required.to!);
  const record = await recordOf(run, handler);
  const to = fillTemplate(handler.required.to!, record).trim();
  if (!mailAddress.test(to)) throw invalidInput('invalid_field', `mail: ${handler.required.to} gives no e-mail address for ${run.section} ${run.recordId}`);
  const subject = fillTemplate(handler.required.subject!, record);
  // The seller's own mail (its template): under its name, answered to it, as send_mit's.
  const { sender } = await sellerAsSender(run.accountId);
  // The run's own Message-ID: a retry after a lost 250 (or a worker gone before the run completed) sends the same message again (lib/mail README).
  const messageId = await messageIdOf(`${runId}.event-mail`);
  const sent = await sendMail({ messageId, to, subject, text: fillTemplate(handler.required.template!, record), ...sender }).catch(async (err: unknown) => {
    // The server refused this recipient or message for good (a 5xx, lib/mail refusedForGood): the run fails at once with its
    // answer (GET job/{job_id}/), instead of asking again with every retry; anything else is retried with the queue's backoff.
    const refused = refusedForGood(err);
    if (refused || lastAttempt) await reportMailNotSent(runId, run, handler, { to, subject, refused, error: (err as Error).message });
    throw refused ? new UnrecoverableError(`mail to ${to} refused by the mail server: ${refused}`) : err;
  });
  return { to, message_id: sent.messageId };
}

/**
 * A mail that will not go out is the seller's news (decision; document 1 names no channel for a
 * failed action): the run's job is found only by its id, which no answer gives the seller, and a
 * notification has its delivery log and pause task, a mail nothing. One task per run (keyed by its
 * job id, so a retry makes none twice), high priority, on the record, of the handler's portal
 * account when it is bound (its client sees it): which mail, to whom, the server's answer, what to
 * do. Made when the server refused it for good or the last try failed (SMTP down through every
 * try); a task that cannot be written (the database down too) is logged, the run fails as it would.
 */
async function reportMailNotSent(
  runId: string,
  run: Run,
  handler: EventHandlerRow,
  mail: { to: string; subject: string; refused: string | undefined; error: string },
): Promise<void> {
  const where = `${run.section} ${run.recordId}`;
  const why = mail.refused
    ? `the mail server refused it for good: ${mail.refused}. Sending it again would get the same answer; check the address (${where}) with the buyer`
    : `the mail server could not take it on any of the run's tries (last: ${mail.error}). Check SMTP_URL's server, then write to the buyer yourself`;
  await createTaskOnce(
    run.accountId,
    {
      title: `Mail not sent: event handler ${handler.id} (${run.section} ${run.type}), ${where}`.slice(0, 255),
      text: `The mail of event handler ${handler.id} on the ${run.type} event of ${where} to ${mail.to} ("${mail.subject}") was not sent: ${why}.`,
      priority: 'high',
      ...(run.section === 'order' || run.section === 'customer' ? { reference: { section: run.section, id: run.recordId } } : {}),
      portalAccountId: handler.portal_account_grant,
    },
    `${runId}-mail-not-sent`,
  ).catch((err: unknown) =>
    log.warn({ account_id: run.accountId, handler_id: handler.id, job_id: runId, err: (err as Error).message }, 'mail not sent: the task could not be written'),
  );
}

async function orderFlag(run: Run, handler: EventHandlerRow) {
  const record = await recordOf(run, handler);
  const flag = handler.required.flag as StatusFlag;
  const value = handler.required.value === 'true';
  // Setting a flag that is set already would emit order changed again: a handler on changed would loop.
  if ((record.status as Record<string, unknown> | undefined)?.[flag] === value) return { order_id: run.recordId, flag, value, changed: false };
  const warnings: Warning[] = [];
  // An order that refuses the flag (a domain error) fails the run for good (lib/queue/processors.ts).
  await updateOrder(
    { ...handlerScope(run.accountId, handler.portal_account_grant), portalAccountId: null },
    run.recordId,
    { status: { [flag]: value } },
    warnings,
  );
  return { order_id: run.recordId, flag, value, changed: true };
}

async function task(runId: string, run: Run, handler: EventHandlerRow) {
  const record = await recordOf(run, handler);
  const taskId = await createTaskOnce(
    run.accountId,
    {
      title: fillTemplate(handler.required.title!, record).slice(0, 255),
      text: fillTemplate(handler.required.text!, record),
      priority: handler.required.priority!,
      reference: { section: run.section, id: run.recordId },
    },
    runId,
  );
  return { task_id: taskId ?? null };
}

/**
 * event.run: runs one handler's action for one event. A handler deleted or deactivated since, or
 * of an account whose login is disabled, is skipped; a paused notification handler's delivery is
 * held. Throwing retries with backoff; a permanent domain error (lib/errors) ends the run as failed.
 */
export async function runEventHandler(runId: string, run: Run, lastAttempt = false): Promise<Record<string, unknown>> {
  const handler = await eventHandlerRepository.get(handlerScope(run.accountId, null), run.handlerId);
  if (!handler || (!handler.is_active && !handler.paused_at)) return { handler_id: run.handlerId, skipped: 'handler deleted or inactive' };
  // Queued before the operator disabled the login: not run now (login-disabled.ts).
  if (await loginDisabled(run.accountId)) return { handler_id: run.handlerId, skipped: loginDisabledReason };
  // The events the action raises (an order_flag's order changed, ...) carry this handler in their chain (event-chain.ts).
  return withEventCause(causeAfter(run.cause, handler.id), () => act(runId, run, handler, lastAttempt));
}

async function act(runId: string, run: Run, handler: EventHandlerRow, lastAttempt: boolean): Promise<Record<string, unknown>> {
  const base = { handler_id: handler.id, action: handler.action };
  switch (handler.action) {
    case 'notification':
      return { ...base, ...(await notify(runId, run, handler)) };
    case 'mail':
      return { ...base, ...(await mail(runId, run, handler, lastAttempt)) };
    case 'order_flag':
      return { ...base, ...(await orderFlag(run, handler)) };
    case 'task':
      return { ...base, ...(await task(runId, run, handler)) };
    default:
      throw invalidInput('invalid_field', `unknown action ${handler.action}`);
  }
}
