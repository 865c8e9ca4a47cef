/**
 * The VAT rate of stock items (Stock_type.tax, kept in data), for lib/invoice: an order line left
 * without tax (the channel mappers leave it empty on purpose: a wrong rate on an invoice is worse
 * than none) is invoiced at the rate of the item it is linked to. Scoped to the account.
 */
import type { Knex } from 'knex';
import { db } from '../db';

/** The tax of each item of the account among `ids` that has one ('19.00'); items without tax or gone are absent. */
export async function stockTaxes(accountId: number, ids: number[], knex: Knex | Knex.Transaction = db()): Promise<Map<number, string>> {
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return new Map();
  const rows = (await knex('stock')
    .select('id', knex.raw("data->>'tax' AS tax"))
    .where('account_id', accountId)
    .whereIn('id', wanted)
    .whereRaw("coalesce(data->>'tax', '') <> ''")) as { id: number; tax: string }[];
  return new Map(rows.map((r) => [r.id, r.tax]));
}
