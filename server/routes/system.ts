import { ok, endpoint, okPage, Joi } from '../../lib/http';
import { notFound } from '../../lib/errors';
import { countryRepository, countrySearch, countryType, currencyRepository } from '../../lib/reference';

/** Reference data (document 1, System): read only, any valid token. */
export const systemEndpoints = [
  endpoint({
    method: 'GET',
    path: 'system/currency/',
    summary: 'All currencies; EUR (internal id 0) is the default currency of orders.',
    response: ['currency'],
    handle: async () => ok({ currency: await currencyRepository.list() }),
  }),

  endpoint<{ currency_id: string }>({
    method: 'GET',
    path: 'system/currency/{currency_id}/',
    summary: 'One currency by its ISO code.',
    params: Joi.object({ currency_id: Joi.string().uppercase().length(3) }),
    response: ['currency'],
    async handle({ params }) {
      const currency = await currencyRepository.get(params.currency_id);
      if (!currency) throw notFound(`currency ${params.currency_id}`, 'currency_id');
      return ok({ currency });
    },
  }),

  endpoint({
    method: 'GET',
    path: 'system/country/',
    summary: 'ISO 3166-1 countries with select, Country_filter_type and pagination.',
    search: countrySearch,
    response: ['country', 'next_min_id'],
    async handle({ search }) {
      const page = await countryRepository.search(search);
      return okPage('country', page);
    },
  }),

  endpoint<{ country_id: string }>({
    method: 'GET',
    path: 'system/country/{country_id}/',
    summary: 'One country by its ISO 3166-1 alpha-2 code.',
    params: Joi.object({ country_id: Joi.string().pattern(/^[A-Za-z]{2}$/) }),
    select: { type: countryType, alwaysSelected: ['id'] },
    response: ['country'],
    async handle({ params }) {
      const country = await countryRepository.get(params.country_id);
      if (!country) throw notFound(`country ${params.country_id}`, 'country_id');
      return ok({ country });
    },
  }),
];
