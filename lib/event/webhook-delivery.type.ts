import { Joi } from '../http';

const any = () => Joi.any();

/**
 * A delivery as the seller's log answers it (ours, beside document 1's handler routes): the
 * notification, its state and every attempt. For validating select.
 */
export const webhookDeliveryType = Joi.object({
  id: any(),
  event_id: any(),
  event: Joi.object({ section: any(), type: any() }),
  state: any(),
  attempt_count: any(),
  created_date: any(),
  delivered_date: any(),
  next_attempt_date: any(),
  retry_until_date: any(),
  last_status: any(),
  last_error: any(),
  request_id: any(),
  // A list: every attempt of the delivery (select addresses its fields as attempt.status).
  attempt: Joi.array().items(
    Joi.object({
      attempt: any(),
      date: any(),
      trigger: any(),
      status: any(),
      error: any(),
      description: any(),
      duration_ms: any(),
      outcome: any(),
      next_attempt_date: any(),
    }),
  ),
});
