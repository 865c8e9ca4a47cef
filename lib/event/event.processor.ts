import { defineProcessors } from '../queue';
import { dispatchEvent, dispatchEventBatch, dispatchEventParts } from './event-dispatch.service';
import { runEventHandler } from './event-run.service';
import { redeliver } from './webhook-delivery.service';

/** The processors of the events queue by job name (workers/events.ts). */
export const eventProcessors = defineProcessors('events', {
  'event.emit': (data, job) => dispatchEvent(String(job.id), data, new Date(job.timestamp)),
  'event.emit_many': (data, job) => dispatchEventParts(data.parts, new Date(job.timestamp)),
  'event.emit_batch': (data, job) => dispatchEventBatch(String(job.id), data, new Date(job.timestamp)),
  // lastAttempt: a mail whose last try fails tells the seller (event-run.service.ts reportMailNotSent).
  'event.run': (data, job) => runEventHandler(String(job.id), data, (job.attemptsMade ?? 0) + 1 >= (job.opts?.attempts ?? 1)),
  'event.redeliver': (data) => redeliver(data),
});
