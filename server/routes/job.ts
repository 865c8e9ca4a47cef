import { endpoint, ok, Joi } from '../../lib/http';
import { jobStatus } from '../../lib/queue';

/** Job status of async requests (202 and 207 parts answer a job_id). */
export const jobEndpoints = [
  endpoint<{ job_id: string }>({
    method: 'GET',
    path: 'job/{job_id}/',
    summary:
      "State of one of the account's jobs (a client bound to one portal account: the jobs started under it): queued, active, completed (with result) or failed (with error).",
    params: Joi.object({
      job_id: Joi.string()
        .guid({ version: ['uuidv4', 'uuidv7'] })
        .lowercase(),
    }),
    response: ['job'],
    handle: async ({ caller, params }) => ok({ job: await jobStatus(caller, params.job_id) }),
  }),
];
