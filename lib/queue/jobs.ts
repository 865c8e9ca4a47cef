/**
 * Every job of the fleet: its queue, its name and its payload. Job names are contracts between
 * the writers of outbox rows and the workers: never rename one. Payloads are small JSON with
 * ids and the account, never secrets. Processors must be idempotent: a job may run again after
 * a worker is killed.
 */
import type { QueueName } from './queues';

export interface JobPayloads {
  /** Written by every change that can alter a stock item's available quantity; cia worker. */
  'cia.adjust': { accountId: number; stockId: number; reason: string };
  /** A domain event (order created, paid, ...); events worker runs the matching handlers. */
  'event.emit': { accountId: number; section: string; type: string; recordId: string; data?: Record<string, unknown> };
}

export type JobName = keyof JobPayloads;

/** Which queue carries each job. */
export const jobQueues: { [J in JobName]: QueueName } = {
  'cia.adjust': 'cia',
  'event.emit': 'events',
};
