import { db } from '../db';
import { Joi, readOnly } from '../http';
import { cachedTable } from './reference-cache';

/** System_currency_type. EUR (internal id 0) is the default currency of orders. */
export const currencyType = Joi.object({
  internal_id: readOnly(Joi.number().integer()),
  id: readOnly(Joi.string().length(3)),
});

export const defaultCurrencyId = 'EUR';

interface CurrencyRow {
  internal_id: number;
  id: string;
}

const toApi = (row: CurrencyRow) => ({ internal_id: row.internal_id, id: row.id });

const allCurrencies = cachedTable('currency', async () => {
  const rows = (await db()('currency').select('internal_id', 'id').orderBy('internal_id')).map(toApi);
  return { rows, byId: new Map(rows.map((r) => [r.id, r])) };
});

/** Currencies are read from memory, kept current by change notices (reference-cache.ts). */
export const currencyRepository = {
  async list() {
    return (await allCurrencies()).rows;
  },

  async get(id: string) {
    return (await allCurrencies()).byId.get(id);
  },
};
