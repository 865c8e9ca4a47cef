/**
 * lib/queue, the one way in from other domains: jobs and the outbox.
 * scripts/check-cycles.ts refuses imports of this folder's other files from outside it;
 * README.md beside this file has the decisions.
 */
export { withEventCause } from './event-cause';
export type { EventCause } from './event-cause';
export { jobStatus, recordJobsAnswered } from './job-status.service';
export type { JobPayloads, MergedPart, ListingCheckJob, PortalUploadJob, PushAgainJob } from './jobs';
export type { MergedResult } from './merged-jobs';
export { addKeyedToOutbox, addManyToOutbox, addToOutbox } from './outbox';
export type { OutboxJob } from './outbox';
export { outboxRepository } from './outbox.repository';
export type { OutboxRow } from './outbox.repository';
export { PendingWrites } from './pending-writes';
export { defineProcessors } from './processors';
export type { Processors } from './processors';
export { closeQueues, QueueRegistry, queues } from './queue.registry';
export { queueNames } from './queues';
export type { QueueName } from './queues';
export { RedisWatch } from './redis-watch';
export { OutboxRelay } from './relay';
export type { RowSettler } from './relay';
export { schedules } from './schedules';
export { startWorker } from './worker';
