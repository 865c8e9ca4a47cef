/**
 * SQL of bank records: the per-account counter, inserts, the duplicate lookup, the order
 * candidates named in a subject and the search base. Every query is scoped by the account id.
 */
import type { Knex } from 'knex';
import type { BankKind, BankRow } from './bank.type';

/** An order of the account a subject may name. */
export interface OrderCandidate {
  id: string;
  number: string;
  is_cancelled: boolean;
}

export type BankColumns = Pick<BankRow, 'type' | 'transfer_date' | 'sender' | 'subject' | 'amount' | 'order_id' | 'order_no' | 'status'>;

export const bankRepository = {
  /** The next bank number of the account; the UPSERT locks the counter row until the transaction ends. */
  async nextNumber(trx: Knex.Transaction, accountId: number): Promise<number> {
    const result = await trx.raw(
      `INSERT INTO bank_counter (account_id, last_value) VALUES (?, 1)
       ON CONFLICT (account_id) DO UPDATE SET last_value = bank_counter.last_value + 1
       RETURNING last_value`,
      [accountId],
    );
    return Number((result.rows as { last_value: string }[])[0]!.last_value);
  },

  /** The record with the same transfer_date, sender, subject and amount, if any. */
  async findDuplicate(trx: Knex.Transaction, accountId: number, columns: BankColumns): Promise<BankRow | undefined> {
    return trx('bank').where({
      account_id: accountId, type: columns.type, transfer_date: columns.transfer_date,
      sender: columns.sender, subject: columns.subject, amount: columns.amount,
    }).orderBy('number').first();
  },

  async insert(trx: Knex.Transaction, accountId: number, number: number, id: string, columns: BankColumns): Promise<void> {
    await trx('bank').insert({ ...columns, account_id: accountId, number, id });
  },

  /** The account's orders whose id or number is among those given. */
  async orderCandidates(trx: Knex.Transaction, accountId: number, ids: string[], numbers: string[]): Promise<OrderCandidate[]> {
    if (!ids.length && !numbers.length) return [];
    const rows = await trx('sales_order').select('id', 'number', 'is_cancelled').where('account_id', accountId)
      .andWhere((q) => { q.whereRaw('id = ANY(?::text[])', [ids]).orWhereRaw('number = ANY(?::bigint[])', [numbers]); });
    return (rows as OrderCandidate[]).map((r) => ({ ...r, number: String(r.number) }));
  },

  /** The search base: the account's records of one type, read in within the range when one is given. */
  searchBase(knex: Knex, accountId: number, type: BankKind, range?: { from: Date; to: Date }): Knex.QueryBuilder {
    const base = knex('bank').where({ 'bank.account_id': accountId, 'bank.type': type });
    if (range) base.where('bank.created_at', '>=', range.from).andWhere('bank.created_at', '<=', range.to);
    return base;
  },
};
