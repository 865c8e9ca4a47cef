import { accepted, endpoint, Joi, revisionNotes } from '../../lib/http';
import { orderIdPattern, requestSendMit, sendMitType, SendMitInput } from '../../lib/order';

/** send_mit (document 1, Order; rule 5). */
export const sendMitEndpoints = [
  endpoint<{ order_id: string }, { send_mit?: SendMitInput }>({
    method: 'POST',
    path: 'order/{order_id}/send_mit/',
    changes: [revisionNotes.sendMitRating],
    creates: true,
    summary: "Mark shipped in the order's portal, set is_shipped and platform_status, rate (auction_a), send the in-transit mail; 202 with job_id.",
    scope: 'order_w',
    params: Joi.object({ order_id: Joi.string().pattern(orderIdPattern) }),
    body: Joi.object({ send_mit: sendMitType.default({ is_mail: true, mail_text: '' }) }),
    response: ['job_id'],
    async: true,
    async handle({ caller, params, body }) {
      const jobId = await requestSendMit(caller, params.order_id, body.send_mit ?? { is_mail: true, mail_text: '' });
      return accepted({ job_id: jobId });
    },
  }),
];
