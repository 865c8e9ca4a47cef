/** What a create or update of a stock item needs to know about its request, and its answer. */
import type { Knex } from 'knex';
import type { Warning } from '../errors';
import { notFound } from '../errors';
import { resolveStockRef } from './stock-ref';
import { stockRepository, StockRow } from './stock.repository';

export interface SaveContext {
  warnings: Warning[];
  /** The area written into history movements (document 2: title). */
  title: string;
  personId?: number | null;
  /** Prefix of field names in errors: 'stock' or 'stock[3]'. */
  field: string;
  /** A third-party client's own client_id: app[] writes its entry alone (stock-app.ts); undefined for the seller's tokens. */
  appClient?: string;
  /** The request's If-Match (POST stock/{stock_id}/): the write applies only to the state it names (README, conditional writes). */
  ifMatch?: string;
}

export interface SaveResult {
  stockId: number;
  listerIds: number[];
  created: boolean;
}

/** An item another one links (variant, set sub); 404 naming the field when absent. Locked unless `lock` is false. */
export async function resolveLinked(trx: Knex.Transaction, accountId: number, ref: string | number, field: string, lock = true): Promise<StockRow> {
  const id = await resolveStockRef(trx, accountId, ref, 'id', { field });
  const row = id === undefined ? undefined : lock ? await stockRepository.lock(trx, accountId, id) : await stockRepository.get(trx, accountId, id);
  if (!row) throw notFound(`stock ${String(ref)}`, field);
  return row;
}
