import type { Knex } from 'knex';
import { config } from '../../config';
import { allOrdersOf, OrderScope } from '../access';
import { db, transaction } from '../db';
import { notFound } from '../errors';
import type { SearchRequest } from '../http';
import { currentRequestId, log, withRequestId } from '../log';
import { addToOutbox } from '../queue';
import type { JobPayloads } from '../queue';
import { insertTask } from '../task';
import { eventHandlerRepository, EventHandlerRow } from './event-handler.repository';
import { getEventHandler } from './event-handler.service';
import { AttemptResult, postNotification } from './notification';
import { signingSecretOf } from './signing-secret';
import { AttemptTrigger, DeliveryRow, DeliveryUpdate, LoggedDelivery, webhookDeliveryRepository as deliveries } from './webhook-delivery.repository';
import { nextAttemptAt, retryPolicy } from './webhook-retry';
import { takeWebhookSlot } from './webhook-slots';

/** What an attempt (or a look at a delivery) tells the job that made it. */
export interface DeliveryOutcome {
  delivery_id: string;
  state: DeliveryRow['state'];
  status?: number | null;
  error?: string;
  next_attempt_date?: string;
  /** A superseded delivery: the newer delivery to the same handler about the same item that tells the receiver instead. */
  superseded_by?: string;
}

/** A worker killed during an attempt hands the delivery back after this (the request's timeout and a margin). */
const leaseSeconds = () => Math.ceil(config().webhookTimeoutMs / 1000) + 60;

const iso = (date: Date | string | null | undefined) => (date ? new Date(date).toISOString() : '');

/**
 * Deliveries a newer one to the same handler about the same record makes stale (decision, README
 * "Superseded stock notifications"): stock cia, whose body is the item's quantity as it was read
 * (a state to set, not a change to apply), so an older one sent after a newer one sets the
 * receiver back. Such a delivery, overtaken by a newer one delivered, pending or held, is not
 * sent again (no attempt, state superseded). Every other event is a fact that happened (an order
 * created, paid, changed): its retries send the same bytes, however many came after it.
 */
const supersedable = (d: Pick<DeliveryRow, 'section' | 'type'>) => d.section === 'stock' && d.type === 'cia';

/**
 * The notification of an event.run: recorded once under the run's job id (its delivery id),
 * then tried at once. A paused handler's delivery is held. A job run again finds the delivery
 * and answers its state without a second attempt (unless one is due).
 */
export async function startDelivery(deliveryId: string, run: JobPayloads['event.run'], handler: EventHandlerRow, payload: object): Promise<DeliveryOutcome> {
  const inserted = await deliveries.insert({
    id: deliveryId,
    account_id: run.accountId,
    handler_id: handler.id,
    event_id: run.eventId,
    section: run.section,
    type: run.type,
    record_id: run.recordId,
    body: JSON.stringify(payload),
    request_id: currentRequestId() ?? null,
    state: handler.paused_at ? 'held' : 'pending',
    windowMs: retryPolicy().windowMs,
    leaseSeconds: leaseSeconds(),
  });
  const claimed = inserted?.state === 'pending' ? inserted : await deliveries.claimIfDue(deliveryId, leaseSeconds());
  if (claimed) return attemptDelivery(claimed, 'event');
  const row = await deliveries.get(run.accountId, deliveryId);
  return { delivery_id: deliveryId, state: row?.state ?? 'failed', ...(row?.next_attempt_at ? { next_attempt_date: iso(row.next_attempt_at) } : {}) };
}

/**
 * One attempt of a claimed delivery, and what follows from its answer (the delivery's new state,
 * the log entry, the handler's failure clock and pause) in one transaction. A paused handler's
 * delivery is held without an attempt, unless the seller asked for this redelivery.
 */
export async function attemptDelivery(delivery: DeliveryRow, trigger: AttemptTrigger): Promise<DeliveryOutcome> {
  const handler = await eventHandlerRepository.get(allOrdersOf(delivery.account_id), delivery.handler_id);
  if (!handler) return { delivery_id: delivery.id, state: 'failed', error: 'event handler deleted' };
  // Checked before every attempt (the first too: its run may have been late), before the pause and a slot: nothing to send.
  const supersededBy = supersedable(delivery) ? await deliveries.supersede(delivery) : undefined;
  if (supersededBy) return { delivery_id: delivery.id, state: 'superseded', superseded_by: supersededBy };
  if (handler.paused_at && trigger !== 'redeliver') {
    await deliveries.hold(delivery.id);
    return { delivery_id: delivery.id, state: 'held' };
  }
  // Opened before a slot is taken: a secret that does not open (CredentialsError) fails the job and holds no slot.
  const secret = signingSecretOf(handler);
  // One seller's slow receivers must not hold every worker: past its slots, the attempt waits its turn in the sweep.
  const slot = await takeWebhookSlot(delivery.account_id);
  if (!slot) {
    const next = await deliveries.defer(delivery.id, config().webhookSweepMs);
    return { delivery_id: delivery.id, state: 'pending', ...(next ? { next_attempt_date: next.toISOString() } : {}) };
  }
  const startedAt = new Date();
  const result = await withRequestId(delivery.request_id ?? undefined, () =>
    postNotification({
      url: handler.required.url!,
      secret,
      body: delivery.body,
      deliveryId: delivery.id,
      requestId: delivery.request_id,
    }),
  ).finally(() => slot.release());
  const update = await db().transaction((trx) => settle(trx, delivery, handler, result, { startedAt, trigger }));
  return {
    delivery_id: delivery.id,
    state: update.state,
    status: result.status,
    ...(result.outcome !== 'delivered' ? { error: result.description } : {}),
    ...(update.next_attempt_at ? { next_attempt_date: update.next_attempt_at.toISOString() } : {}),
  };
}

/** The delivery's next state after a failed attempt, before any pause. */
async function afterFailure(trx: Knex.Transaction, delivery: DeliveryRow, handler: EventHandlerRow, result: AttemptResult): Promise<DeliveryUpdate> {
  const now = new Date();
  const clock = await eventHandlerRepository.markFailing(trx, handler.id, now);
  if (result.outcome === 'gone' || result.outcome === 'blocked') return { state: 'failed', next_attempt_at: null };
  if (clock?.paused_at) return { state: 'held', next_attempt_at: null };
  const failingMs = now.getTime() - (clock?.failing_since ?? now).getTime();
  if (failingMs >= config().webhookPauseAfterHours * 3600 * 1000) return { state: 'held', next_attempt_at: null };
  const next = nextAttemptAt(retryPolicy(), now, delivery.retry_until ?? now, delivery.retry_delay_ms, result.retryAfterMs);
  return next ? { state: 'pending', next_attempt_at: next.at, retry_delay_ms: next.delayMs } : { state: 'failed', next_attempt_at: null };
}

async function settle(
  trx: Knex.Transaction,
  delivery: DeliveryRow,
  handler: EventHandlerRow,
  result: AttemptResult,
  { startedAt, trigger }: { startedAt: Date; trigger: AttemptTrigger },
): Promise<DeliveryUpdate> {
  let update: DeliveryUpdate;
  if (result.outcome === 'delivered') {
    await eventHandlerRepository.clearFailing(trx, handler.id);
    update = { state: 'delivered', next_attempt_at: null };
  } else update = await afterFailure(trx, delivery, handler, result);
  await deliveries.recordAttempt(
    trx,
    delivery,
    {
      trigger,
      started_at: startedAt,
      duration_ms: result.durationMs,
      status: result.status,
      error: result.error,
      error_description: result.outcome === 'delivered' ? null : result.description,
      outcome: update.state === 'pending' ? 'retry' : update.state,
    },
    update,
  );
  if (result.outcome === 'gone') await pauseHandler(trx, handler, `the receiver answered HTTP 410 Gone to delivery ${delivery.id}`);
  else if (update.state === 'held' && !handler.paused_at) {
    const hours = config().webhookPauseAfterHours;
    await pauseHandler(trx, handler, `no delivery succeeded for ${hours} h; the last attempt: ${result.description}`);
  }
  return update;
}

/**
 * Pauses a notification handler: it stops delivering, its pending deliveries (and new events)
 * are held, and a task tells the seller what happened and how to resume. Once per pause.
 */
async function pauseHandler(trx: Knex.Transaction, handler: EventHandlerRow, reason: string): Promise<void> {
  if (!(await eventHandlerRepository.pause(trx, handler.id, reason))) return;
  const held = await deliveries.holdPending(trx, handler.id);
  const url = new URL(handler.required.url!);
  await insertTask(trx, handler.account_id, {
    title: `Webhook paused: event handler ${handler.id} (${handler.required.target_name ?? url.host})`,
    text:
      `Notifications of event handler ${handler.id} to ${url.origin}${url.pathname} are paused: ${reason}. ` +
      `${held} more deliveries are held and new events are kept. Fix the receiver, then resume the handler ` +
      `(POST admin/event/handler/${handler.id}/resume/): everything held is sent again. ` +
      `The attempts are listed at GET admin/event/handler/${handler.id}/delivery/.`,
    priority: 'high',
  });
  log.warn({ handler_id: handler.id, account_id: handler.account_id, held, reason }, 'webhook handler paused');
}

/** POST .../delivery/{delivery_id}/redeliver/: queues one attempt now (event.redeliver); 404 for another handler's or account's delivery. */
export async function requestRedelivery(scope: OrderScope, handlerId: number, deliveryId: string): Promise<string> {
  await getEventHandler(scope, handlerId);
  const { accountId } = scope;
  const delivery = await deliveries.get(accountId, deliveryId);
  if (!delivery || delivery.handler_id !== handlerId) throw notFound(`delivery ${deliveryId}`, 'delivery_id');
  return transaction((trx) => addToOutbox(trx, accountId, 'event.redeliver', { accountId, handlerId, deliveryId }), scope.requestId);
}

/**
 * event.redeliver: the same body once more now, with a fresh retry window if it fails. A stock cia
 * delivery a newer one overtook is not sent (it would set the receiver back; the newer one is the
 * one to redeliver): the job answers why, and a pending one is marked superseded.
 */
export async function redeliver(
  job: JobPayloads['event.redeliver'],
): Promise<DeliveryOutcome | { delivery_id: string; skipped: string; superseded_by?: string }> {
  const row = await deliveries.get(job.accountId, job.deliveryId);
  const supersededBy = row && supersedable(row) ? ((await deliveries.supersede(row)) ?? (await deliveries.newerOf(row))) : undefined;
  if (supersededBy)
    return {
      delivery_id: job.deliveryId,
      skipped: `superseded by delivery ${supersededBy}, a newer notification of the same item: sending this one would set the receiver back`,
      superseded_by: supersededBy,
    };
  const claimed = await deliveries.claimForRedelivery(job.accountId, job.deliveryId, leaseSeconds(), retryPolicy().windowMs);
  if (!claimed) return { delivery_id: job.deliveryId, skipped: 'delivery deleted' };
  return attemptDelivery(claimed, 'redeliver');
}

/** POST admin/event/handler/{id}/resume/: the handler delivers again and its held deliveries are due now. */
export async function resumeEventHandler(scope: OrderScope, handlerId: number): Promise<{ handler: EventHandlerRow; resumed: number }> {
  await getEventHandler(scope, handlerId);
  const resumed = await transaction(async (trx) => {
    await eventHandlerRepository.resume(trx, scope, handlerId);
    return deliveries.resumeHeld(trx, scope.accountId, handlerId, retryPolicy().windowMs);
  }, scope.requestId);
  return { handler: await getEventHandler(scope, handlerId), resumed };
}

/** A delivery and its attempts as the log answers them. */
export function deliveryToApi(row: LoggedDelivery) {
  return {
    id: row.id,
    event_id: row.event_id,
    event: { section: row.section, type: row.type },
    state: row.state,
    attempt_count: row.attempts,
    created_date: iso(row.created_at),
    delivered_date: iso(row.delivered_at),
    next_attempt_date: row.state === 'pending' ? iso(row.next_attempt_at) : '',
    retry_until_date: row.state === 'pending' ? iso(row.retry_until) : '',
    last_status: row.last_status,
    last_error: row.last_error ?? '',
    request_id: row.request_id ?? '',
    attempt: row.attempt_log.map((a) => ({
      attempt: a.attempt,
      date: iso(a.started_at),
      trigger: a.trigger,
      status: a.status,
      error: a.error ?? '',
      description: a.error_description ?? '',
      duration_ms: a.duration_ms,
      outcome: a.outcome,
      next_attempt_date: iso(a.next_attempt_at),
    })),
  };
}

/** GET admin/event/handler/{id}/delivery/: the handler's log; 404 for another account's handler. */
export async function searchDeliveries(scope: OrderScope, handlerId: number, search: SearchRequest) {
  await getEventHandler(scope, handlerId);
  return deliveries.search(scope.accountId, handlerId, search, deliveryToApi);
}
