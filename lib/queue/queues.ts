import { config } from '../../config';

/**
 * The queues of the worker fleet, each run by a worker entry (workers/<queue>.ts, one Procfile
 * line each; order_import rides in portal_upload's process and invoice in mail's). Queue names
 * are contracts between web and workers: never rename one.
 */
export const queueNames = {
  /** Cross-channel quantity adjustment of a stock item. */
  cia: 'cia',
  /** One job per (stock item, portal): list, revise, end, set quantity through a portal adapter. */
  portal_upload: 'portal_upload',
  /** Matching imported bank and payment-provider payments to orders. */
  bank: 'bank',
  /** send_mit and other mails. */
  mail: 'mail',
  /** Event-handler execution. */
  events: 'events',
  /** Orders fetched from the real channels (lib/order-import); run by the portal_upload worker process. */
  order_import: 'order_import',
  /** Invoices and credit notes rendered and archived (lib/invoice); run by the mail worker process. */
  invoice: 'invoice',
} as const;

export type QueueName = keyof typeof queueNames;

/**
 * BullMQ's prefix of a queue: a hash tag of its own (`{<QUEUE_PREFIX>:<queue>}`, BullMQ's way on
 * a Redis Cluster), so each queue's keys share one slot, as its multi-key scripts need, and
 * different queues spread over the cluster's masters. On a single Redis the tag changes nothing.
 */
export function bullPrefix(queue: QueueName): string {
  return `{${config().queuePrefix}:${queueNames[queue]}}`;
}
