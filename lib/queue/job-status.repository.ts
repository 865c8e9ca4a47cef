import type { OrderScope } from '../access';
import { db } from '../db';

/** What the outbox knows of a job. */
export interface JobRow {
  job_id: string;
  queue: string;
  job_name: string;
  created_at: Date;
  relayed_at: Date | null;
  /** The merged job carrying this row (lib/queue/merged-jobs.ts), else null. */
  relayed_as: string | null;
  state: 'completed' | 'failed' | null;
  result: unknown;
  error: string | null;
  attempts_made: number | null;
  finished_at: Date | null;
}

/** Who started jobs: a client bound to one portal account (job_creator rows). */
export interface JobCreator {
  accountId: number;
  oauthClientId: number | null;
  portalAccountId: number;
}

/**
 * Jobs of an account (outbox rows); another account's job is never found. The scope's grant
 * narrows them further: a caller bound to one portal account finds only the jobs a caller bound
 * to that portal account started (job_creator), as absent as unknown ones otherwise.
 */
export const jobRepository = {
  async get(scope: OrderScope, jobId: string): Promise<JobRow | undefined> {
    const query = db()('outbox')
      .select('job_id', 'queue', 'job_name', 'created_at', 'relayed_at', 'relayed_as', 'state', 'result', 'error', 'attempts_made', 'finished_at')
      .where({ account_id: scope.accountId, job_id: jobId });
    if (scope.portalAccountGrant !== 'all') {
      const grant = scope.portalAccountGrant;
      query.whereExists((q) =>
        q
          .select(db().raw('1'))
          .from('job_creator AS c')
          .whereRaw('c.job_id = outbox.job_id')
          .where({ 'c.account_id': scope.accountId, 'c.portal_account_id': grant }),
      );
    }
    return query.first();
  },

  /** Records the creator of jobs just answered to it (ids of other accounts' jobs are skipped). */
  async recordCreator(creator: JobCreator, jobIds: string[]): Promise<void> {
    if (jobIds.length === 0) return;
    await db().raw(
      `INSERT INTO job_creator (job_id, account_id, oauth_client_id, portal_account_id)
       SELECT o.job_id, o.account_id, ?, ? FROM outbox o WHERE o.account_id = ? AND o.job_id = ANY(?::uuid[])
       ON CONFLICT (job_id) DO NOTHING`,
      [creator.oauthClientId, creator.portalAccountId, creator.accountId, jobIds],
    );
  },
};
