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

/** What document 1's duplicate rule compares. */
export interface DuplicateColumns { transfer_date: Date; sender: string; subject: string; amount: string }

export const duplicateKey = (r: DuplicateColumns): string => `${new Date(r.transfer_date).toISOString()}|${r.sender}|${r.subject}|${Number(r.amount).toFixed(2)}`;

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

  /**
   * Locks the account's bank counter row (every write of its bank records takes it first, so
   * imports and POST bank/transfer/ of one account never race) and answers its value.
   */
  async lockCounter(trx: Knex.Transaction, accountId: number): Promise<number> {
    const result = await trx.raw(
      `INSERT INTO bank_counter (account_id, last_value) VALUES (?, 0)
       ON CONFLICT (account_id) DO UPDATE SET last_value = bank_counter.last_value
       RETURNING last_value`,
      [accountId],
    );
    return Number((result.rows as { last_value: string }[])[0]!.last_value);
  },

  async setCounter(trx: Knex.Transaction, accountId: number, value: number): Promise<void> {
    await trx('bank_counter').where({ account_id: accountId }).update({ last_value: value });
  },

  /** The entry references among those given that the account has stored already. */
  async storedReferences(trx: Knex.Transaction, accountId: number, type: BankKind, refs: string[]): Promise<Set<string>> {
    if (!refs.length) return new Set();
    const rows = await trx('bank').select('entry_ref').where({ account_id: accountId, type })
      .whereRaw('entry_ref = ANY(?::text[])', [refs]) as { entry_ref: string }[];
    return new Set(rows.map((r) => r.entry_ref));
  },

  /** Keys (duplicateKey) of stored records equal to the given ones by document 1's duplicate rule. */
  async storedDuplicates(trx: Knex.Transaction, accountId: number, type: BankKind, rows: DuplicateColumns[]): Promise<Set<string>> {
    if (!rows.length) return new Set();
    const { rows: found } = await trx.raw(
      `SELECT b.transfer_date, b.sender, b.subject, b.amount::text AS amount FROM bank b
       JOIN unnest(?::timestamptz[], ?::text[], ?::text[], ?::numeric[]) AS t(transfer_date, sender, subject, amount)
         ON b.transfer_date = t.transfer_date AND b.sender = t.sender AND b.subject = t.subject AND b.amount = t.amount
       WHERE b.account_id = ? AND b.type = ?`,
      [rows.map((r) => r.transfer_date), rows.map((r) => r.sender), rows.map((r) => r.subject), rows.map((r) => r.amount), accountId, type],
    ) as { rows: DuplicateColumns[] };
    return new Set(found.map(duplicateKey));
  },

  /** One INSERT for many records (numbers and ids given); answers nothing, the caller knows the numbers. */
  async insertMany(trx: Knex.Transaction, accountId: number, rows: (DuplicateColumns & { number: number; id: string; type: BankKind; entry_ref: string | null; order_no: string | null; status: string | null })[]): Promise<void> {
    if (!rows.length) return;
    const col = <K extends keyof (typeof rows)[number]>(key: K) => rows.map((r) => r[key]);
    await trx.raw(
      `INSERT INTO bank (account_id, number, id, type, transfer_date, sender, subject, amount, entry_ref, order_no, status)
       SELECT ?, t.* FROM unnest(?::bigint[], ?::text[], ?::text[], ?::timestamptz[], ?::text[], ?::text[], ?::numeric[], ?::text[], ?::text[], ?::text[])
         AS t(number, id, type, transfer_date, sender, subject, amount, entry_ref, order_no, status)`,
      [accountId, col('number'), col('id'), col('type'), col('transfer_date'), col('sender'), col('subject'), col('amount'), col('entry_ref') as string[], col('order_no') as string[], col('status') as string[]],
    );
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
