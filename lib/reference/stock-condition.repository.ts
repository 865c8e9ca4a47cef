import { db } from '../db';
import { cachedTable } from './reference-cache';

const allConditions = cachedTable(
  'stock_condition',
  async () => (await db()('stock_condition').select('id', 'description').orderBy('id')) as { id: number; description: string }[],
);

/** Stock_condition_type (document 2): 100 new, 200-500 used, 600-900 collectible, 1000 refurbished. Held in memory (reference-cache.ts). */
export const stockConditionRepository = {
  /** Every condition, by id. */
  async list(): Promise<{ id: number; description: string }[]> {
    return allConditions();
  },
};
