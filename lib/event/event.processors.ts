import type { Job } from 'bullmq';
import type { JobPayloads } from '../queue/jobs';
import type { Processor } from '../queue/worker';
import { dispatchEvent } from './event-dispatch.service';
import { runEventHandler } from './event-run.service';

/** The processors of the events queue by job name (workers/events.ts). */
export const eventProcessors: Record<string, Processor> = {
  'event.emit': (job: Job) => dispatchEvent(String(job.id), job.data as JobPayloads['event.emit'], new Date(job.timestamp)),
  'event.run': (job: Job) => runEventHandler(String(job.id), job.data as JobPayloads['event.run']),
};
