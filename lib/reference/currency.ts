import { db } from '../db/knex';
import { Joi, readOnly } from '../http/schema';

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

export const currencyRepository = {
  async list() {
    return (await db()('currency').select('internal_id', 'id').orderBy('internal_id')).map(toApi);
  },

  async get(id: string) {
    const row = await db()('currency').select('internal_id', 'id').where({ id }).first();
    return row ? toApi(row) : undefined;
  },
};
