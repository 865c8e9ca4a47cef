import type { Knex } from 'knex';
import { db } from '../db';
import { runSearch, SearchRequest, SearchSpec } from '../http';
import type { AttemptError } from './notification';
import { webhookDeliveryType } from './webhook-delivery.type';

/**
 * pending: an attempt is due at next_attempt_at; held: its handler is paused; delivered and failed
 * are final, and superseded: a stock cia delivery a newer one overtook, not sent again.
 */
export const deliveryStates = ['pending', 'delivered', 'failed', 'held', 'superseded'] as const;
export type DeliveryState = (typeof deliveryStates)[number];

/** Why an attempt was made: the event itself, a retry, a redelivery asked for, the handler's resumption. */
export type AttemptTrigger = 'event' | 'retry' | 'redeliver' | 'resume';

export interface DeliveryRow {
  id: string;
  seq: string;
  account_id: number;
  handler_id: number;
  event_id: string;
  section: string;
  type: string;
  /** The event's record (order, customer or stock id); null on rows made before it was kept. */
  record_id: string | null;
  body: string;
  request_id: string | null;
  state: DeliveryState;
  attempts: number;
  next_attempt_at: Date | null;
  retry_until: Date | null;
  retry_delay_ms: number | null;
  next_trigger: AttemptTrigger;
  last_status: number | null;
  last_error: string | null;
  delivered_at: Date | null;
  created_at: Date;
}

/** One attempt as the log keeps it. */
export interface AttemptRow {
  attempt: number;
  trigger: AttemptTrigger;
  started_at: string;
  duration_ms: number;
  status: number | null;
  error: AttemptError | null;
  error_description: string | null;
  outcome: 'delivered' | 'retry' | 'failed' | 'held';
  next_attempt_at: string | null;
}

/** A delivery with its attempts, as the log reads it. */
export type LoggedDelivery = DeliveryRow & { attempt_log: AttemptRow[] };

/** The delivery's new state after an attempt. */
export interface DeliveryUpdate {
  /** An attempt never supersedes: that is decided before it (webhook-delivery.service.ts). */
  state: Exclude<DeliveryState, 'superseded'>;
  next_attempt_at: Date | null;
  retry_delay_ms?: number | null;
}

/** Filters of the delivery log: state, event_id, created_date. Key: the creation sequence. */
export const webhookDeliverySearch: SearchSpec<LoggedDelivery> = {
  filters: {
    // A misspelt state ('faild') answered an empty log, read as "nothing failed".
    state: { column: 'd.state', type: 'string', operators: ['=', '!='], values: deliveryStates },
    event_id: { column: 'd.event_id', type: 'string', operators: ['='] },
    created_date: { column: 'd.created_at', type: 'datetime' },
  },
  key: {
    column: 'd.seq',
    parse: (minId) => (/^\d{1,18}$/.test(minId) ? minId : undefined),
    idOf: (row) => String(row.seq),
  },
  type: webhookDeliveryType,
  alwaysSelected: ['id'],
};

/** The deliveries newerOf looks for, newest first (the partial index webhook_delivery_stock_record serves stock cia). */
const newer = (knex: Knex, d: Pick<DeliveryRow, 'handler_id' | 'record_id' | 'section' | 'type' | 'seq'>) =>
  knex('webhook_delivery')
    .where({ handler_id: d.handler_id, record_id: d.record_id, section: d.section, type: d.type })
    .where('seq', '>', d.seq)
    .whereIn('state', ['pending', 'held', 'delivered'])
    .orderBy('seq', 'desc');

const lease = (knex: Knex, seconds: number) => knex.raw('now() + make_interval(secs => ?)', [seconds]);

/** Webhook deliveries; tenant reads are scoped by the account, the sweep's claims are infrastructure. */
export const webhookDeliveryRepository = {
  /**
   * Records a delivery once (the event.run job id is its id): a re-run of the job adds nothing.
   * A pending delivery is recorded already claimed by the caller (leased), so the sweep cannot
   * take its first attempt away from the run that makes it; answers the row when it was new.
   */
  async insert(
    row: Pick<DeliveryRow, 'id' | 'account_id' | 'handler_id' | 'event_id' | 'section' | 'type' | 'record_id' | 'body' | 'request_id' | 'state'> & {
      windowMs: number;
      leaseSeconds: number;
    },
  ): Promise<DeliveryRow | undefined> {
    const { windowMs, leaseSeconds, ...fields } = row;
    const knex = db();
    const [inserted] = (await knex('webhook_delivery')
      .insert({
        ...fields,
        next_attempt_at: fields.state === 'pending' ? lease(knex, leaseSeconds) : null,
        retry_until: knex.raw('now() + make_interval(secs => ?)', [windowMs / 1000]),
      })
      .onConflict('id')
      .ignore()
      .returning('*')) as DeliveryRow[];
    return inserted;
  },

  async get(accountId: number, id: string): Promise<DeliveryRow | undefined> {
    return db()('webhook_delivery').where({ account_id: accountId, id }).first();
  },

  /**
   * Takes a delivery for an attempt if it is pending and due: its next attempt moves past the
   * lease, so no other worker takes it meanwhile, and a worker killed during the attempt hands
   * it back when the lease is over.
   */
  async claimIfDue(id: string, leaseSeconds: number): Promise<DeliveryRow | undefined> {
    const knex = db();
    const [row] = (await knex('webhook_delivery')
      .where({ id, state: 'pending' })
      .where('next_attempt_at', '<=', knex.fn.now())
      .update({ next_attempt_at: lease(knex, leaseSeconds) })
      .returning('*')) as DeliveryRow[];
    return row;
  },

  /** A claimed delivery handed back without an attempt (its account's attempt slots are in use): due again after ms. */
  async defer(id: string, ms: number): Promise<Date | undefined> {
    const knex = db();
    const [row] = (await knex('webhook_delivery')
      .where({ id, state: 'pending' })
      .update({ next_attempt_at: knex.raw('now() + make_interval(secs => ?)', [ms / 1000]) })
      .returning('next_attempt_at')) as { next_attempt_at: Date }[];
    return row?.next_attempt_at;
  },

  /** The pending deliveries due, oldest due first, taken as claimIfDue does; rows another sweep holds are skipped. */
  async claimDue(limit: number, leaseSeconds: number): Promise<DeliveryRow[]> {
    const knex = db();
    const { rows } = (await knex.raw(
      `UPDATE webhook_delivery d SET next_attempt_at = now() + make_interval(secs => ?)
       FROM (SELECT id FROM webhook_delivery WHERE state = 'pending' AND next_attempt_at <= now()
             ORDER BY next_attempt_at LIMIT ? FOR UPDATE SKIP LOCKED) due
       WHERE d.id = due.id
       RETURNING d.*`,
      [leaseSeconds, limit],
    )) as { rows: DeliveryRow[] };
    return rows;
  },

  /** Takes a delivery of the account for a redelivery now, whatever its state, with a fresh retry window. */
  async claimForRedelivery(accountId: number, id: string, leaseSeconds: number, windowMs: number): Promise<DeliveryRow | undefined> {
    const knex = db();
    const [row] = (await knex('webhook_delivery')
      .where({ account_id: accountId, id })
      .update({
        state: 'pending',
        next_attempt_at: lease(knex, leaseSeconds),
        retry_until: knex.raw('now() + make_interval(secs => ?)', [windowMs / 1000]),
        retry_delay_ms: null,
      })
      .returning('*')) as DeliveryRow[];
    return row;
  },

  /** Writes an attempt to the log and the delivery's new state, in the caller's transaction. */
  async recordAttempt(
    trx: Knex.Transaction,
    delivery: DeliveryRow,
    attempt: Omit<AttemptRow, 'attempt' | 'started_at' | 'next_attempt_at'> & { started_at: Date },
    update: DeliveryUpdate,
  ): Promise<void> {
    const number = delivery.attempts + 1;
    await trx('webhook_attempt').insert({ ...attempt, delivery_id: delivery.id, attempt: number, next_attempt_at: update.next_attempt_at });
    await trx('webhook_delivery')
      .where({ id: delivery.id })
      .update({
        state: update.state,
        attempts: trx.raw('attempts + 1'),
        next_attempt_at: update.next_attempt_at,
        next_trigger: 'retry',
        last_status: attempt.status,
        last_error: attempt.error_description,
        ...(update.retry_delay_ms !== undefined ? { retry_delay_ms: update.retry_delay_ms } : {}),
        ...(update.state === 'delivered' ? { delivered_at: trx.fn.now() } : {}),
      });
  },

  /**
   * The newest delivery to the same handler about the same record, of the same section and type,
   * made after this one and not given up (pending, held or delivered): it tells the receiver the
   * record as it is now. undefined when there is none.
   */
  async newerOf(delivery: Pick<DeliveryRow, 'handler_id' | 'record_id' | 'section' | 'type' | 'seq'>): Promise<string | undefined> {
    if (delivery.record_id === null) return undefined;
    const row = (await newer(db(), delivery).first('id')) as { id: string } | undefined;
    return row?.id;
  },

  /**
   * Marks a pending delivery superseded by the newest one newerOf finds, in one statement (no
   * attempt is made or logged; last_error names the newer delivery). Answers that delivery's id,
   * undefined when there is none and the delivery stays as it was.
   */
  async supersede(delivery: DeliveryRow): Promise<string | undefined> {
    if (delivery.record_id === null) return undefined;
    const knex = db();
    const by = newer(knex, delivery).select('id').limit(1).toSQL();
    const { rows } = (await knex.raw(
      `WITH newer AS (${by.sql})
       UPDATE webhook_delivery d SET state = 'superseded', next_attempt_at = NULL,
         last_error = 'superseded by delivery ' || newer.id || ', a newer notification of the same record: not sent again'
       FROM newer WHERE d.id = ? AND d.state = 'pending'
       RETURNING newer.id`,
      [...by.bindings, delivery.id],
    )) as { rows: { id: string }[] };
    return rows[0]?.id;
  },

  /** A delivery that finds its handler paused waits, without an attempt. */
  async hold(id: string): Promise<void> {
    await db()('webhook_delivery').where({ id, state: 'pending' }).update({ state: 'held', next_attempt_at: null });
  },

  /** Every pending delivery of a paused handler waits for its resumption; returns how many. */
  async holdPending(trx: Knex.Transaction, handlerId: number): Promise<number> {
    return trx('webhook_delivery').where({ handler_id: handlerId, state: 'pending' }).update({ state: 'held', next_attempt_at: null });
  },

  /** A resumed handler's held deliveries are due now, each with a fresh retry window; returns how many. */
  async resumeHeld(trx: Knex.Transaction, accountId: number, handlerId: number, windowMs: number): Promise<number> {
    return trx('webhook_delivery')
      .where({ account_id: accountId, handler_id: handlerId, state: 'held' })
      .update({
        state: 'pending',
        next_attempt_at: trx.fn.now(),
        next_trigger: 'resume',
        retry_until: trx.raw('now() + make_interval(secs => ?)', [windowMs / 1000]),
        retry_delay_ms: null,
      });
  },

  /** The log of one handler: deliveries in creation order with their attempts (one statement). */
  search<Item extends Record<string, unknown>>(accountId: number, handlerId: number, search: SearchRequest, toApi: (row: LoggedDelivery) => Item) {
    const knex = db();
    const base = knex('webhook_delivery as d')
      .where({ 'd.account_id': accountId, 'd.handler_id': handlerId })
      .select(
        'd.*',
        knex.raw(
          `(SELECT coalesce(json_agg(json_build_object('attempt', a.attempt, 'trigger', a.trigger, 'started_at', a.started_at,
              'duration_ms', a.duration_ms, 'status', a.status, 'error', a.error, 'error_description', a.error_description,
              'outcome', a.outcome, 'next_attempt_at', a.next_attempt_at) ORDER BY a.attempt), '[]'::json)
            FROM webhook_attempt a WHERE a.delivery_id = d.id) AS attempt_log`,
        ),
      );
    return runSearch(base, webhookDeliverySearch, search, toApi);
  },

  /**
   * The log's bounds: finished and held deliveries older than the retention go, and of each
   * handler only the newest maxPerHandler stay (pending ones are never removed). Returns how many went.
   */
  async prune(retentionDays: number, maxPerHandler: number): Promise<number> {
    const knex = db();
    const old = await knex('webhook_delivery')
      .whereIn('state', ['delivered', 'failed', 'held', 'superseded'])
      .where('created_at', '<', knex.raw('now() - make_interval(days => ?)', [retentionDays]))
      .delete();
    const { rowCount } = (await knex.raw(
      `DELETE FROM webhook_delivery d USING (
         SELECT id FROM (SELECT id, state, row_number() OVER (PARTITION BY handler_id ORDER BY seq DESC) AS n FROM webhook_delivery) r
         WHERE r.n > ? AND r.state <> 'pending') surplus
       WHERE d.id = surplus.id`,
      [maxPerHandler],
    )) as { rowCount: number | null };
    return old + (rowCount ?? 0);
  },
};
