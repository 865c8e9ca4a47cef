import { db } from '../db';
import { cachedTable } from './reference-cache';

const allIcons = cachedTable('description_icon', async () => {
  const ids = ((await db()('description_icon').select('id').orderBy('sort')) as { id: string }[]).map((r) => r.id);
  return { ids, known: new Set(ids) };
});

/** The valid values of Stock_description_type.icon_id, held in memory (reference-cache.ts). */
export const descriptionIconRepository = {
  /** Every icon id, portal markers first, then the country flags. */
  async listIds(): Promise<string[]> {
    return (await allIcons()).ids;
  },

  /** Whether an icon id is valid (for the stock description check). */
  async exists(id: string): Promise<boolean> {
    return (await allIcons()).known.has(id);
  },
};
