/**
 * Every job of the fleet: its queue, its name and its payload. Job names are contracts between
 * the writers of outbox rows and the workers: never rename one. Payloads are small JSON with
 * ids and the account, never secrets. Processors must be idempotent: a job may run again after
 * a worker is killed.
 */
import type { EventCause } from './event-cause';
import type { QueueName } from './queues';

export interface JobPayloads {
  /**
   * Written by every change that can alter a stock item's available quantity; cia worker.
   * portalAccountGrant: the portal account of the client bound to one that triggered it (POST
   * stock/{stock_id}/cia/); its result then names that portal account's offers alone (lib/cia).
   */
  'cia.adjust': { accountId: number; stockId: number; reason: string; portalAccountGrant?: number };
  /**
   * Several cia.adjust outbox rows of one account that one relay pass took, as one job (never
   * written to the outbox; lib/queue/merged-jobs.ts). Each part keeps its row's job id, which
   * gets the part's own final state. Idempotent as cia.adjust is.
   */
  'cia.adjust_many': { accountId: number; parts: MergedPart<JobPayloads['cia.adjust']>[] };
  /**
   * A domain event (order created, paid, ...); events worker runs the matching handlers. `cause`:
   * stamped by the outbox on an event an event handler's action raised (event-cause.ts).
   */
  'event.emit': { accountId: number; section: string; type: string; recordId: string; data?: Record<string, unknown>; cause?: EventCause };
  /**
   * Several event.emit outbox rows of one account that one relay pass took, as one job (never
   * written to the outbox; lib/queue/merged-jobs.ts): each part dispatched as its own event.emit,
   * under its row's job id as event id, and given its own final state.
   */
  'event.emit_many': { accountId: number; parts: MergedPart<JobPayloads['event.emit']>[] };
  /**
   * The same event for many records of a section (a bulk payment: one row per batch and type
   * instead of one per order); the events worker dispatches each record as an event.emit, with
   * the event id `${jobId}-${recordId}`. Only sections whose record is read back (no data).
   */
  'event.emit_batch': { accountId: number; section: string; type: string; recordIds: string[]; cause?: EventCause };
  /**
   * Push the quantities CIA wants to one portal account at one portal, for every item still
   * waiting, in bulk calls (added by the cia worker, coalesced per target, not the outbox).
   * Idempotent: reads the wanted quantities and their sequences when it runs; what the portal
   * acknowledged is not sent again. stockId: only in jobs queued before pushes were batched
   * (their target is pushed as a whole).
   */
  'portal.set_quantity': { accountId: number; portal: string; portalAccountId: number; stockId?: number };
  /** One part of POST stock/{stock_id}/portal_upload/ (list, revise, end); idempotency key = job id. */
  'portal.upload': PortalUploadJob;
  /**
   * A listing the portal accepted for processing only (Amazon's putListingsItem answers ACCEPTED
   * and processes afterwards), checked later: a keyed outbox row (addKeyedToOutbox) that the
   * portal.upload job that sent it writes with its outcome, due some minutes later, `check`
   * counting from 1. Idempotent: the seller's task carries the upload job's id, so a re-run or a
   * later check makes none twice (lib/portal-offer).
   */
  'portal.listing_check': ListingCheckJob;
  /**
   * The items of one portal account at one portal whose push had an unknown outcome (a timeout, a
   * reset, a 5xx) and whose late call can no longer land by `due` (ISO 8601): their latest
   * quantities are pushed once more. A keyed outbox row, delayed until `due`, that the failed push
   * writes (lib/portal-offer). Idempotent: it takes the items marked due by then, once.
   */
  'portal.push_again': PushAgainJob;
  /** Scheduler: full CIA reconcile of every active item (one cia.adjust per item; pushes only differences). */
  'cia.reconcile': { tick: string };
  /** Scheduler: removes finished outbox rows older than the job retention. */
  'outbox.cleanup': { tick: string };
  /** Scheduler: deletes expired access and refresh tokens, authorization codes and Idempotency-Keys. */
  'expired.cleanup': { tick: string };
  /**
   * One event handler's run for one event: an outbox row written by the event.emit processor per
   * matching handler (table event_run keeps a re-run of event.emit from adding one twice).
   * event.emit data the handlers read (lib/event/event-catalog.ts): section order/customer carry
   * only recordId (order id, customer number), the record is read back; stock/cia carries
   * data.target[] (handler ids or target names of cia.event) and data.quantity[].
   */
  'event.run': {
    accountId: number;
    handlerId: number;
    section: string;
    type: string;
    recordId: string;
    eventId: string;
    occurredAt: string;
    data?: Record<string, unknown>;
    /** The event's cause (none for an event no handler's action raised); the run's action adds its handler to it. */
    cause?: EventCause;
  };
  /**
   * POST admin/event/handler/{id}/delivery/{delivery_id}/redeliver/: one more attempt of a
   * webhook delivery now (lib/event/webhook-delivery.service.ts); the delivery's retries are
   * then the sweep's. Sending twice is within the deliveries' at-least-once promise.
   */
  'event.redeliver': { accountId: number; handlerId: number; deliveryId: string };
  /**
   * POST order/{order_id}/send_mit/ (lib/order/send-mit.*): report the shipment to the order's
   * portal, mark the order shipped, rate (auction_a), send the in-transit mail. Idempotent: each
   * step done is saved in the job's progress, and portal calls carry the job id as key.
   */
  'order.send_mit': { accountId: number; orderId: string; sendMit: SendMitJob; progress?: Record<string, unknown> };
  /**
   * A seller's cancellation of a channel order (POST order/{order_id}/, order/list/) told to its
   * channel: Shopify's orderCancel, Kaufland's order unit cancel (lib/order/order-channel-cancel.service.ts).
   * Idempotent: an order already cancelled at the channel is left as it is.
   */
  'order.channel_cancel': { accountId: number; orderId: string };
  /**
   * Assigns the account's bank records numbered fromNumber..toNumber (an import) to the orders
   * they pay (lib/bank/bank.match.ts). Idempotent: only records without order_id are looked at,
   * each assignment commits with its payment.
   */
  /** portalAccountGrant: the importing caller's (its task belongs to that portal account: lib/task); absent in jobs queued before it. */
  'bank.match': { accountId: number; fromNumber: number; toNumber: number; portalAccountGrant?: number | null };
  /** Scheduler: the unassigned bank records of the last BANK_REMATCH_DAYS, matched again (their order may exist now). */
  'bank.rematch': { tick: string };
  /**
   * Scheduler, per connected payment provider account: fetch new completed payments (lib/bank/
   * provider/provider-sync.service.ts); idempotent through the provider's transaction ids.
   */
  'bank.provider_sync': { accountId: number; providerAccountId: number; tick: string };
  /**
   * Scheduler: queues one bank.provider_sync per connected account, with ids from the account and
   * the tick (a re-run adds none twice; a lost one is derived again at the next tick).
   */
  'bank.provider_sync_all': { tick: string };
  /**
   * Imports the orders a channel changed since the portal account's watermark (lib/order-import):
   * queued per connected account by order.import_all, or on demand (POST
   * admin/portal_account/{id}/order_import/, kontor order import; since: a seller-chosen start).
   * Idempotent: a channel order is one Kontor order (table channel_order), whatever the fetches.
   */
  'order.import': { accountId: number; portalAccountId: number; tick?: string; since?: string };
  /** Scheduler: one order.import per connected portal account of auction_a and market_d, ids from the account and the tick. */
  'order.import_all': { tick: string };
  /**
   * Written by lib/order when orders become paid (one job per write, all its orders), and by POST
   * order/{order_id}/invoice/: render, archive and set bill_url of each order's invoice or credit
   * note (lib/invoice). Idempotent: an order with an issued invoice is skipped, never re-rendered.
   */
  'invoice.issue': { accountId: number; orderIds: string[] };
}

/** One outbox row inside a merged job: its job id (the row's), its payload with the request that queued it, and when it was written (ms). */
export interface MergedPart<P> {
  jobId: string;
  data: P & { request_id?: string };
  queuedAt?: number;
}

/** Payload of portal.upload (Stock_portal_upload_type, one portal entry). */
export interface PortalUploadJob {
  accountId: number;
  stockId: number;
  portal: string;
  portalAccountId: number;
  action: 'list' | 'revise' | 'delete';
  listerId?: string;
  start?: string;
  reviseValues?: string[];
  liveId?: string;
}

/** Payload of portal.listing_check: the listing of a portal.upload job (its id), and which check this is (from 1). */
export interface ListingCheckJob {
  accountId: number;
  stockId: number;
  portal: string;
  portalAccountId: number;
  listerId?: string;
  uploadJobId: string;
  check: number;
}

/** Payload of portal.push_again: the push target, and when the calls whose items it pushes again can no longer land. */
export interface PushAgainJob {
  accountId: number;
  portal: string;
  portalAccountId: number;
  due: string;
}

/** Payload of order.send_mit (Order_send_mit_type as validated, defaults applied). */
export interface SendMitJob {
  deliverer: string | null;
  code: string[];
  date: string;
  isMail: boolean;
  mailText: string;
}

export type JobName = keyof JobPayloads;

/** Which queue carries each job. */
export const jobQueues = {
  'cia.adjust': 'cia',
  'cia.adjust_many': 'cia',
  'event.emit': 'events',
  'event.emit_many': 'events',
  'event.emit_batch': 'events',
  'portal.set_quantity': 'portal_upload',
  'portal.upload': 'portal_upload',
  'portal.listing_check': 'portal_upload',
  'portal.push_again': 'portal_upload',
  'cia.reconcile': 'cia',
  'outbox.cleanup': 'cia',
  'expired.cleanup': 'cia',
  'event.run': 'events',
  'event.redeliver': 'events',
  'order.send_mit': 'mail',

  'bank.match': 'bank',
  'bank.rematch': 'bank',
  'bank.provider_sync': 'bank',
  'bank.provider_sync_all': 'bank',
  'order.import': 'order_import',
  'order.import_all': 'order_import',
  'order.channel_cancel': 'order_import',
  'invoice.issue': 'invoice',
} as const satisfies { [J in JobName]: QueueName };

/** The job names a queue carries. */
export type JobsOf<Q extends QueueName> = { [J in JobName]: (typeof jobQueues)[J] extends Q ? J : never }[JobName];
