import { accepted, created, endpoint, ok, okPage, Joi } from '../../lib/http';
import {
  eventHandlerRepository,
  createEventHandler,
  deleteEventHandler,
  eventHandlerToApi,
  getEventHandler,
  eventHandlerInput,
  EventHandlerInput,
  webhookDeliverySearch,
  requestRedelivery,
  resumeEventHandler,
  searchDeliveries,
} from '../../lib/event';

const handlerIdField = Joi.number().integer().min(1).max(2147483647);
const handlerId = Joi.object({ event_handler_id: handlerIdField });
const deliveryId = Joi.object({
  event_handler_id: handlerIdField,
  delivery_id: Joi.string()
    .guid({ version: ['uuidv4', 'uuidv7'] })
    .lowercase(),
});

/** Event handlers (document 1, Events and Admin). */
export const adminEventHandlerEndpoints = [
  endpoint({
    method: 'GET',
    path: 'admin/event/handler/',
    summary: 'All event handlers of the account.',
    scope: 'admin_r',
    response: ['event_handler'],
    handle: async ({ caller }) => ok({ event_handler: (await eventHandlerRepository.list(caller)).map((h) => eventHandlerToApi(h, caller)) }),
  }),

  endpoint<Record<string, never>, { event_handler: EventHandlerInput }>({
    method: 'POST',
    path: 'admin/event/handler/',
    creates: true,
    summary: 'Create a handler; a notification handler answers its signing_secret too (HMAC-SHA256 key of its deliveries).',
    scope: 'admin_w',
    body: Joi.object({ event_handler: eventHandlerInput.required() }),
    example: {
      event_handler: {
        type: { id: 'paid' },
        section: 'order',
        action: { id: 'notification', required: { url: 'https://erp.example.com/kontor/paid', format: 'post', target_name: 'ERP' } },
      },
    },
    response: ['event_handler_id', 'signing_secret'],
    async handle({ caller, body }) {
      const row = await createEventHandler(caller, body.event_handler);
      const { signing_secret: secret } = eventHandlerToApi(row, caller, true);
      return created({ event_handler_id: row.id, ...(secret ? { signing_secret: secret } : {}) });
    },
  }),

  endpoint<{ event_handler_id: number }>({
    method: 'GET',
    path: 'admin/event/handler/{event_handler_id}/',
    summary: "One event handler; a notification handler's signing_secret only to the seller's own tokens (a third-party client gets it once, at creation).",
    scope: 'admin_r',
    params: handlerId,
    response: ['event_handler'],
    // Issue 31, finding 7: the secret that makes deliveries believable is not for every client with admin_r.
    handle: async ({ caller, params }) =>
      ok({ event_handler: eventHandlerToApi(await getEventHandler(caller, params.event_handler_id), caller, caller.oauthClientId === null) }),
  }),

  endpoint<{ event_handler_id: number }>({
    method: 'DELETE',
    path: 'admin/event/handler/{event_handler_id}/',
    summary: 'Delete an event handler.',
    scope: 'admin_w',
    params: handlerId,
    response: [],
    async handle({ caller, params }) {
      await deleteEventHandler(caller, params.event_handler_id);
      return ok();
    },
  }),

  // Ours, beside document 1's: the webhook delivery log, redelivery and resumption (lib/event/README.md).
  endpoint<{ event_handler_id: number }>({
    method: 'GET',
    path: 'admin/event/handler/{event_handler_id}/delivery/',
    summary:
      "A notification handler's webhook deliveries, oldest first, each with its attempts (time, answer code or error class, duration, next try); filter state, event_id, created_date; pagination.",
    scope: 'admin_r',
    params: handlerId,
    search: webhookDeliverySearch,
    response: ['delivery', 'next_min_id'],
    async handle({ caller, params, search }) {
      return okPage('delivery', await searchDeliveries(caller, params.event_handler_id, search));
    },
  }),

  endpoint<{ event_handler_id: number; delivery_id: string }>({
    method: 'POST',
    path: 'admin/event/handler/{event_handler_id}/delivery/{delivery_id}/redeliver/',
    summary: 'Send a delivery again now (same body and X-Kontor-Delivery); if it fails, it is retried on the schedule with a fresh window.',
    scope: 'admin_w',
    params: deliveryId,
    response: ['job_id'],
    async: true,
    // A retried redelivery must not send the webhook twice.
    creates: true,
    async handle({ caller, params }) {
      return accepted({ job_id: await requestRedelivery(caller, params.event_handler_id, params.delivery_id) });
    },
  }),

  endpoint<{ event_handler_id: number }>({
    method: 'POST',
    path: 'admin/event/handler/{event_handler_id}/resume/',
    summary: 'Unpause a notification handler: it delivers again, and every held delivery is sent now (delivery_count: how many).',
    scope: 'admin_w',
    params: handlerId,
    response: ['event_handler', 'delivery_count'],
    async handle({ caller, params }) {
      const { handler, resumed } = await resumeEventHandler(caller, params.event_handler_id);
      return ok({ event_handler: eventHandlerToApi(handler, caller), delivery_count: resumed });
    },
  }),
];
