import { created, endpoint, ok } from '../../lib/http/endpoint';
import { Joi } from '../../lib/http/schema';
import { eventHandlerRepository } from '../../lib/event/event-handler.repository';
import { createEventHandler, deleteEventHandler, eventHandlerToApi, getEventHandler } from '../../lib/event/event-handler.service';
import { eventHandlerInput, EventHandlerInput } from '../../lib/event/event-handler.type';

const handlerId = Joi.object({ event_handler_id: Joi.number().integer().min(1).max(2147483647) });

/** Event handlers (document 1, Events and Admin). */
export const adminEventHandlerEndpoints = [
  endpoint({
    method: 'GET',
    path: 'admin/event/handler/',
    summary: 'All event handlers of the account.',
    scope: 'admin_r',
    response: ['event_handler'],
    handle: async ({ caller }) => ok({ event_handler: (await eventHandlerRepository.list(caller.accountId)).map((h) => eventHandlerToApi(h)) }),
  }),

  endpoint<Record<string, never>, { event_handler: EventHandlerInput }>({
    method: 'POST',
    path: 'admin/event/handler/',
    creates: true,
    summary: 'Create a handler; a notification handler answers its signing_secret too (HMAC-SHA256 key of its deliveries).',
    scope: 'admin_w',
    body: Joi.object({ event_handler: eventHandlerInput.required() }),
    response: ['event_handler_id', 'signing_secret'],
    async handle({ caller, body }) {
      const row = await createEventHandler(caller.accountId, body.event_handler);
      const { signing_secret: secret } = eventHandlerToApi(row, true);
      return created({ event_handler_id: row.id, ...(secret ? { signing_secret: secret } : {}) });
    },
  }),

  endpoint<{ event_handler_id: number }>({
    method: 'GET',
    path: 'admin/event/handler/{event_handler_id}/',
    summary: 'One event handler, with the signing_secret of a notification handler.',
    scope: 'admin_r',
    params: handlerId,
    response: ['event_handler'],
    handle: async ({ caller, params }) => ok({ event_handler: eventHandlerToApi(await getEventHandler(caller.accountId, params.event_handler_id), true) }),
  }),

  endpoint<{ event_handler_id: number }>({
    method: 'DELETE',
    path: 'admin/event/handler/{event_handler_id}/',
    summary: 'Delete an event handler.',
    scope: 'admin_w',
    params: handlerId,
    response: [],
    async handle({ caller, params }) {
      await deleteEventHandler(caller.accountId, params.event_handler_id);
      return ok();
    },
  }),
];
