import { endpoint, ok, Joi } from '../../lib/http';
import { jobStatus } from '../../lib/queue';

/** Job status of async requests (202 and 207 parts answer a job_id). */
export const jobEndpoints = [
  endpoint<{ job_id: string }>({
    method: 'GET',
    path: 'job/{job_id}/',
    summary:
      "State of one of the account's jobs (a client bound to one portal account: the jobs started under it): queued, active, completed (with result) or failed (with error). Needs the read scope of the job's data: stock_r for CIA and portal_upload jobs, order_r for send_mit, invoice and order import jobs, bank_r for statement jobs, admin_r for event handler jobs.",
    params: Joi.object({
      job_id: Joi.string()
        .guid({ version: ['uuidv4', 'uuidv7'] })
        .lowercase(),
    }),
    response: ['job'],
    handle: async ({ caller, params }) => ok({ job: await jobStatus(caller, params.job_id) }),
  }),
];
