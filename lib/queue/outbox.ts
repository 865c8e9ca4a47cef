import type { Knex } from 'knex';
import { JobName, JobPayloads, jobQueues } from './jobs';

/** The channel the relay LISTENs on; NOTIFY is delivered only when the transaction commits. */
export const outboxChannel = 'kontor_outbox';

/**
 * Records a side effect in the caller's transaction: it becomes a job only if the transaction
 * commits, and it is not lost if Redis is down at that moment. Returns the job id (a UUID),
 * which async endpoints answer as job_id and the relay uses as the BullMQ job id.
 */
export async function addToOutbox<J extends JobName>(trx: Knex.Transaction, accountId: number, job: J, payload: JobPayloads[J]): Promise<string> {
  const [row] = await trx('outbox')
    .insert({ account_id: accountId, queue: jobQueues[job], job_name: job, payload: JSON.stringify(payload) })
    .returning('job_id');
  await trx.raw('SELECT pg_notify(?, ?)', [outboxChannel, jobQueues[job]]);
  return (row as { job_id: string }).job_id;
}
