import { endpoint, ok, okPage, Joi } from '../../lib/http';
import { notFound } from '../../lib/errors';
import { eventActions, eventConditions, eventTypes } from '../../lib/event';
import {
  globalCategoryRepository,
  categorySearch,
  descriptionIconRepository,
  findGender,
  listPaymentMethods,
  listScopes,
  stockConditionRepository,
} from '../../lib/reference';

/** Reference data of issue 6 (document 1, System): read only, any valid token. */
export const referenceEndpoints = [
  endpoint({
    method: 'GET',
    path: 'system/payment_method/',
    summary: 'Payment methods: the own ids of document 2 with name, is_prepaid and template placeholder.',
    response: ['payment_method'],
    handle: async () => ok({ payment_method: await listPaymentMethods() }),
  }),

  endpoint({
    method: 'GET',
    path: 'system/stock/condition/',
    summary: 'Stock conditions (100 new, 200-500 used, 600-900 collectible, 1000 refurbished).',
    response: ['condition'],
    handle: async () => ok({ condition: await stockConditionRepository.list() }),
  }),

  endpoint({
    method: 'GET',
    path: 'system/stock/description/icon/',
    summary: 'Valid values of the description icon_id.',
    response: ['icon_id'],
    handle: async () => ok({ icon_id: await descriptionIconRepository.listIds() }),
  }),

  endpoint({
    method: 'GET',
    path: 'system/stock/category/',
    summary: 'Global categories of one platform (filter[platform] required) with Category_filter_type and pagination.',
    search: categorySearch,
    response: ['category', 'next_min_id'],
    async handle({ search }) {
      const page = await globalCategoryRepository.search(search);
      return okPage('category', page);
    },
  }),

  endpoint({
    method: 'GET',
    path: 'system/scope/',
    summary: 'Every scope the service checks, with title and description.',
    response: ['scope'],
    handle: async () => ok({ scope: listScopes() }),
  }),

  endpoint<{ gender_id: string }>({
    method: 'GET',
    path: 'system/gender/{gender_id}/',
    summary: 'Most probable gender of a first name; Name_XX for a country, Name alone worldwide.',
    params: Joi.object({ gender_id: Joi.string().min(1).max(100) }),
    response: ['gender'],
    async handle({ params, request }) {
      const gender = await findGender(params.gender_id, request.warnings);
      if (!gender) throw notFound(`first name ${params.gender_id}`, 'gender_id');
      return ok({ gender });
    },
  }),

  endpoint({
    method: 'GET',
    path: 'system/event/type/',
    summary: 'Event types a handler can react to.',
    response: ['event_type'],
    handle: async () => ok({ event_type: eventTypes }),
  }),

  endpoint({
    method: 'GET',
    path: 'system/event/action/',
    summary: 'Actions of event handlers, the event types each responds to and its required fields.',
    response: ['event_action'],
    handle: async () => ok({ event_action: eventActions }),
  }),

  endpoint({
    method: 'GET',
    path: 'system/event/condition/',
    summary: 'Fields and operators a handler condition may use.',
    response: ['event_condition'],
    handle: async () => ok({ event_condition: eventConditions }),
  }),
];
