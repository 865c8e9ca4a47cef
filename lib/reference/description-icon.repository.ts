import { db } from '../db/knex';

/** The valid values of Stock_description_type.icon_id. */
export const descriptionIconRepository = {
  /** Every icon id, portal markers first, then the country flags. */
  async listIds(): Promise<string[]> {
    return (await db()('description_icon').select('id').orderBy('sort')).map((r: { id: string }) => r.id);
  },

  /** Whether an icon id is valid (for the stock description check). */
  async exists(id: string): Promise<boolean> {
    return Boolean(await db()('description_icon').where({ id }).first('id'));
  },
};
