/**
 * lib/event, the one way in from other domains: event handlers.
 * scripts/check-cycles.ts refuses imports of this folder's other files from outside it;
 * README.md beside this file has the decisions.
 */
export { eventActions, eventConditions, eventTypes } from './event-catalog';
export { eventHandlerRepository, eventHandlerSecretsRepository } from './event-handler.repository';
export { createEventHandler, deleteEventHandler, eventHandlerToApi, getEventHandler, provideClientAccessHandlers } from './event-handler.service';
export { eventHandlerInput } from './event-handler.type';
export type { EventHandlerInput } from './event-handler.type';
export { eventProcessors } from './event.processor';
export { settleUnhandledEvents } from './event-settle';
export { provideStockEventTargets } from './stock-event-targets';
export { webhookDeliverySearch } from './webhook-delivery.repository';
export { requestRedelivery, resumeEventHandler, searchDeliveries } from './webhook-delivery.service';
export { WebhookSweeper } from './webhook-sweeper';
