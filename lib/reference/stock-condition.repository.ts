import { db } from '../db/knex';

/** Stock_condition_type (document 2): 100 new, 200-500 used, 600-900 collectible, 1000 refurbished. */
export const stockConditionRepository = {
  /** Every condition, by id. */
  async list(): Promise<{ id: number; description: string }[]> {
    return db()('stock_condition').select('id', 'description').orderBy('id');
  },
};
