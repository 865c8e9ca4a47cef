/**
 * SQL of bank records: the per-account counter, inserts, the duplicate lookup, the order
 * candidates named in a subject and the search base. Every query is scoped by the account id.
 */
import type { Knex } from 'knex';
import type { OrderScope } from '../access';
import { hasInvoiceNumberIn, orderScopeRepository, OtherHandBookingsHolding, owedSql } from '../order';
import type { BankKind, BankRow } from './bank.type';
import { accountUseRepository } from '../account';
import { instantsOfDays, VALUE_DAY_WINDOW } from './statement/entry-key';

/** Every kind of record (the CHECK of bank.type). */
const bankKinds: BankKind[] = ['bank', 'payment_provider'];

/** An order as the matching sees it. */
export interface MatchOrder {
  id: string;
  number: string;
  invoice_number: string | null;
  payment_provider_transaction_id: string | null;
  currency_id: string;
  is_cancelled: boolean;
  /** What the buyer still owes: invoice_amount - paid_amount; 0.00 on a credit order (lib/order owedSql). */
  owing: string;
  /** The billing address name of the order's customer. */
  name: string | null;
  /** When the seller last changed paid_amount by hand: a record stored before pays it by no rule. */
  paid_by_hand_at: Date | null;
  /** The money the seller booked by hand (null: not kept then): a larger record is not that money. */
  paid_by_hand_amount: string | null;
}

/** A bank record as the matching sees it. */
export interface MatchRecord {
  number: string;
  id: string;
  type: BankKind;
  subject: string;
  sender: string;
  amount: string;
  currency_id: string;
  /** The payer's structured references (creditor reference, end-to-end id), space-separated. */
  payer_ref: string;
  entry_ref: string | null;
  /** The portal account whose orders the record may pay (the grant of whoever stored it); null for all. */
  portal_account_grant: number | null;
  /** When it was stored; absent for a record stored by this very call (POST bank/transfer/). */
  created_at?: Date;
  /** When its bank booked it (a statement's booking day, a provider's or a client's instant): read against a hand booking. */
  transfer_date: Date;
}

/**
 * A name (the column `name`) folded as nameKey (bank-name-amount.ts, text-fold.ts) folds the words
 * it searches (searchableWord: Latin, Greek and Cyrillic): lower case, ä/ö/ü/ß spelled out, and
 * æ/œ/þ/ø/ł/đ/ð/ı as text-fold.ts SPELLED writes them (Unicode does not decompose them),
 * compatibility forms (NFKD) with their combining marks dropped, `ς` as `σ`. Before,
 * a translate of 52 Western and Central European accented letters: `Андрейченко`'s `й`,
 * `Παπαδόπουλος`'s tonos and Vietnamese stacked accents stayed, and a payer of such a name was
 * never found. An ASCII name (one byte a character) needs lower case only.
 * The marks dropped are every block of combining marks that Latin, Greek and Cyrillic letters
 * take (`combiningMarks`), as nameKey drops every mark of such a letter: with U+0300-U+036F
 * alone, a billing name holding the ligature halves of ALA-LC romanisation (`T︠s︡vetkov`, U+FE20)
 * or a Cyrillic titlo (U+0483) was not found by its word, while nameKey made it the payer's
 * name, so of two orders of one name and amount only the other was read and paid instead of
 * both being ambiguous (found by a reviewer of f8f6e9e). Dropping a mark nameKey keeps (one on a
 * letter of another script) narrows nothing wrongly: such words never narrow (searchableWord).
 */
const combiningMarks =
  '[\\u0300-\\u036f\\u0483-\\u0489\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\u2de0-\\u2dff\\ua66f-\\ua672\\ua674-\\ua67d\\ua69e-\\ua69f\\ufe20-\\ufe2f]';
const spelled = `translate(replace(replace(replace(replace(replace(replace(replace(lower(normalize(name, NFC)),
  'ä', 'ae'), 'ö', 'oe'), 'ü', 'ue'), 'ß', 'ss'), 'æ', 'ae'), 'œ', 'oe'), 'þ', 'th'), 'øłđðı', 'olddi')`;
const foldedName = `CASE WHEN octet_length(name) = char_length(name) THEN lower(name) ELSE
  translate(regexp_replace(normalize(${spelled}, NFKD), '${combiningMarks}', '', 'g'), 'ς', 'σ') END`;

/**
 * Records whose transfer_date lies in [from, to), or hand bookings a statement claimed on a day in
 * it (claimed_on) whatever their transfer_date (a client's instant, or the value day up to
 * VALUE_DAY_WINDOW days off the claiming credit's): both ranges on transfer_date, so
 * (account_id, type, transfer_date) reads them.
 */
const onDaysOrClaimed =
  (from: Date, to: Date) =>
  (w: Knex.QueryBuilder): void => {
    const margin = (VALUE_DAY_WINDOW + 2) * 86_400_000;
    w.where((d) => d.where('transfer_date', '>=', from).andWhere('transfer_date', '<', to)).orWhere((c) =>
      c
        .where('transfer_date', '>=', new Date(from.getTime() - margin))
        .andWhere('transfer_date', '<', new Date(to.getTime() + margin))
        .andWhere('claimed_on', '>=', from)
        .andWhere('claimed_on', '<', to),
    );
  };

/** Records a matching job works through: an import's (a number range) or the re-match's (since a date). */
export interface UnassignedRange {
  accountId: number;
  from: number;
  to: number;
  since?: Date;
}

function unassigned(trx: Knex.Transaction, range: UnassignedRange): Knex.QueryBuilder {
  // A transfer the bank reversed (reversed_by) brought no money: it pays no order.
  const q = trx('bank')
    .where('account_id', range.accountId)
    .whereNull('order_id')
    .whereNull('reversed_by')
    .andWhere('amount', '>', 0)
    .whereBetween('number', [range.from, range.to]);
  // Both kinds named, so (account_id, type, transfer_date) reads only the days asked for: no
  // index names order_id (assigning a record is a HOT update, migration 20261124_0100).
  if (range.since) q.whereIn('type', bankKinds).andWhere('transfer_date', '>=', range.since);
  return q;
}

/**
 * The records a client bound to a portal account sees (the rule of its searches): stored under
 * its grant, or assigned to orders of its portal account. For a `where` callback on `bank`.
 */
function seenByBound(knex: Knex, scope: OrderScope, grant: number) {
  return (w: Knex.QueryBuilder) => {
    w.where('bank.portal_account_grant', grant).orWhereIn('bank.order_id', orderScopeRepository.idsInScope(knex, scope));
  };
}

/** The outcome of the matching for one record. */
export interface Assigned {
  number: string;
  order_id: string | null;
  order_no: string | null;
  match_rule: string | null;
  unassigned_reason: string | null;
}

/** What document 1's duplicate rule compares. */
export interface DuplicateColumns {
  transfer_date: Date;
  sender: string;
  subject: string;
  amount: string;
}

export const duplicateKey = (r: DuplicateColumns): string =>
  `${new Date(r.transfer_date).toISOString()}|${r.sender}|${r.subject}|${Number(r.amount).toFixed(2)}`;

export type BankColumns = Pick<
  BankRow,
  'type' | 'transfer_date' | 'sender' | 'subject' | 'amount' | 'order_id' | 'order_no' | 'status' | 'currency_id' | 'portal_account_grant'
>;

/** A row of bank_counter: the last bank number given in the account (bigint, read as text). */
interface BankCounterRow {
  account_id: number;
  last_value: string;
}

// The row types of bank and bank_counter for Knex (declared once here, lib/bank owns the tables).
// The bigints are read as text and written as numbers too; a record is inserted without its
// internal id, and what has a default (created_at, sender, subject, currency_id, payer_ref) may be left out.
type BankDefaults = 'created_at' | 'sender' | 'subject' | 'currency_id' | 'payer_ref';
type BankNullable =
  | 'order_id'
  | 'order_no'
  | 'status'
  | 'entry_ref'
  | 'match_rule'
  | 'unassigned_reason'
  | 'portal_account_grant'
  | 'reversed_by'
  | 'reversed_on'
  | 'account_iban'
  | 'end_to_end_id'
  | 'entry_alias'
  | 'claimed_on';
type BankInsert = Omit<BankRow, 'internal_id' | 'number' | BankDefaults | BankNullable> &
  Partial<Pick<BankRow, BankDefaults | BankNullable>> & { number: string | number };
declare module 'knex/types/tables' {
  interface Tables {
    bank: Knex.CompositeTableType<BankRow, BankInsert, Partial<BankInsert>>;
    bank_counter: Knex.CompositeTableType<BankCounterRow, { account_id: number; last_value: string | number }, { last_value?: string | number }>;
    bank_reversal_pending: Knex.CompositeTableType<PendingReversalRow, Omit<PendingReversalRow, 'created_at'>, never>;
  }
}

/**
 * A reversal of a credit no transfer fitted when it was imported (migration
 * 20261127_1900_bank_reversal_pending): tied when the credit it reverses is imported later.
 */
export interface PendingReversalRow {
  account_id: number;
  key: string;
  transfer_date: Date;
  /** numeric(14,2), read as text. */
  amount: string;
  currency_id: string;
  sender: string;
  subject: string;
  /** The payer's references, blank-separated (as bank.payer_ref). */
  payer_ref: string;
  created_at: Date;
}

/** What is known under a key (bankRepository.bookingsUnderKeys): a payment's payer, text and references. */
export interface KeyedBooking {
  key: string;
  sender: string;
  subject: string;
  /** Blank-separated, '' when none (bank.payer_ref). */
  payerRef: string;
}

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

  /** The record with the same transfer_date, sender, subject and amount (in the same currency), if any. */
  async findDuplicate(trx: Knex.Transaction, accountId: number, columns: BankColumns): Promise<BankRow | undefined> {
    return trx('bank')
      .where({
        account_id: accountId,
        type: columns.type,
        transfer_date: columns.transfer_date,
        sender: columns.sender,
        subject: columns.subject,
        amount: columns.amount,
        currency_id: columns.currency_id,
      })
      .orderBy('number')
      .first();
  },

  /**
   * Whether the record paid an order the scope sees: what POST bank/transfer/'s 302 answers a
   * caller as is_order_paid. A client bound to a portal account is not told of an order beyond
   * its grant (bank.service.ts).
   */
  async paidOrderIn(trx: Knex.Transaction, scope: OrderScope, row: Pick<BankRow, 'order_id'>): Promise<boolean> {
    if (row.order_id === null) return false;
    if (scope.portalAccountGrant === 'all') return true;
    return (await orderScopeRepository.idsInScope(trx, scope).andWhere('sales_order.id', row.order_id).first()) !== undefined;
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
  /**
   * The given keys that are stored: a record's key, or the other format's key of a record an
   * import of that format found to be its booking (entry_alias, bank-store.service.ts).
   */
  async storedReferences(trx: Knex.Transaction, accountId: number, type: BankKind, refs: string[]): Promise<Set<string>> {
    if (!refs.length) return new Set();
    const rows = await trx('bank')
      .select('entry_ref', 'entry_alias')
      .where({ account_id: accountId, type })
      .andWhere((q) => q.whereRaw('entry_ref = ANY(?::text[])', [refs]).orWhereRaw('entry_alias = ANY(?::text[])', [refs]));
    const asked = new Set(refs);
    return new Set(rows.flatMap((r) => [r.entry_ref, r.entry_alias].filter((ref): ref is string => ref !== null && asked.has(ref))));
  },

  /**
   * Which of the keys a statement's booking is known by here: a bank record's (entry_ref,
   * entry_alias), a reversal's applied (reversed_by) or kept (bank_reversal_pending).
   */
  async knownStatementKeys(trx: Knex.Transaction, accountId: number, keys: string[]): Promise<Set<string>> {
    if (!keys.length) return new Set();
    const records = await trx('bank')
      .select('entry_ref', 'entry_alias', 'reversed_by')
      .where({ account_id: accountId, type: 'bank' })
      .andWhere((q) =>
        q.whereRaw('entry_ref = ANY(?::text[])', [keys]).orWhereRaw('entry_alias = ANY(?::text[])', [keys]).orWhereRaw('reversed_by = ANY(?::text[])', [keys]),
      );
    const kept = await trx('bank_reversal_pending').select('key').where('account_id', accountId).whereRaw('key = ANY(?::text[])', [keys]);
    const asked = new Set(keys);
    const found = [...records.flatMap((r) => [r.entry_ref, r.entry_alias, r.reversed_by]), ...kept.map((r) => r.key)];
    return new Set(found.filter((key): key is string => key !== null && asked.has(key)));
  },

  /**
   * What is known here under any of the keys given, with what it says of its payment (for a key of
   * before that named no booking: bank-store.service.ts takeNonrefKeysAsStored): a statement
   * credit stored under it (entry_ref, entry_alias: its payer, text and references), a transfer a
   * reversal of that key took back (reversed_by: the transfer's), a reversal of that key kept
   * (bank_reversal_pending: the reversal's own). In the order stored.
   */
  async bookingsUnderKeys(trx: Knex.Transaction, accountId: number, keys: string[]): Promise<KeyedBooking[]> {
    if (!keys.length) return [];
    const records: { entry_ref: string | null; entry_alias: string | null; reversed_by: string | null; sender: string; subject: string; payer_ref: string }[] =
      await trx('bank')
        .select('entry_ref', 'entry_alias', 'reversed_by', 'sender', 'subject', 'payer_ref')
        .where({ account_id: accountId, type: 'bank' })
        .andWhere((q) =>
          q
            .whereRaw('entry_ref = ANY(?::text[])', [keys])
            .orWhereRaw('entry_alias = ANY(?::text[])', [keys])
            .orWhereRaw('reversed_by = ANY(?::text[])', [keys]),
        )
        .orderBy('number');
    const kept: Pick<PendingReversalRow, 'key' | 'sender' | 'subject' | 'payer_ref'>[] = await trx('bank_reversal_pending')
      .select('key', 'sender', 'subject', 'payer_ref')
      .where('account_id', accountId)
      .whereRaw('key = ANY(?::text[])', [keys])
      .orderBy('created_at');
    const asked = new Set(keys);
    const said = (r: { sender: string; subject: string; payer_ref: string }) => ({ sender: r.sender, subject: r.subject, payerRef: r.payer_ref });
    return [
      ...records.flatMap((r) => [r.entry_ref, r.entry_alias, r.reversed_by].flatMap((key) => (key !== null && asked.has(key) ? [{ key, ...said(r) }] : []))),
      ...kept.map((r) => ({ key: r.key, ...said(r) })),
    ];
  },

  /**
   * Statement credits of the account's bank accounts (IBANs) on the given booking days that no
   * import of a second format has claimed yet (entry_alias null), in the order they were stored:
   * the candidates sameBookingAcrossFormats compares a new entry with (bank-store.service.ts).
   */
  async acrossFormatCandidates(
    trx: Knex.Transaction,
    accountId: number,
    type: BankKind,
    ibans: string[],
    days: string[],
  ): Promise<
    Pick<
      BankRow,
      | 'internal_id'
      | 'entry_ref'
      | 'account_iban'
      | 'transfer_date'
      | 'claimed_on'
      | 'amount'
      | 'currency_id'
      | 'end_to_end_id'
      | 'payer_ref'
      | 'sender'
      | 'subject'
    >[]
  > {
    if (!ibans.length || !days.length) return [];
    const { from, to } = instantsOfDays(days);
    return (
      trx('bank')
        .select(
          'internal_id',
          'entry_ref',
          'account_iban',
          'transfer_date',
          'claimed_on',
          'amount',
          'currency_id',
          'end_to_end_id',
          'payer_ref',
          'sender',
          'subject',
        )
        .where({ account_id: accountId, type })
        .whereRaw('account_iban = ANY(?::text[])', [ibans])
        // The days from the first to the last asked, as a client's clock may give them (the
        // caller compares the day): a transfer booked by hand and claimed by a statement keeps
        // the time of day its client gave, or the value day it was dated by (claimed_on).
        .andWhere(onDaysOrClaimed(from, to))
        .whereNull('entry_alias')
        .whereNotNull('entry_ref')
        .orderBy('number')
    );
  },

  /**
   * Transfers booked by hand (POST bank/transfer/: no key, entry_ref null) of the amounts given,
   * on the booking days given or between them (in UTC or on a client's clock: entry-key.ts
   * instantsOfDays), in the order they were booked: the
   * candidates a statement credit may be (entry-key.ts sameBookingByHand, bank-store.service.ts).
   * A client bound to a portal account claims only those it sees (seenByBound): its file, which
   * it may write itself, would otherwise give the seller's transfers an account, references and a
   * key that decide which reversals take them back.
   */
  async handBookedCandidates(
    trx: Knex.Transaction,
    scope: OrderScope,
    days: string[],
    amounts: string[],
  ): Promise<Pick<BankRow, 'internal_id' | 'transfer_date' | 'amount' | 'currency_id' | 'sender' | 'subject'>[]> {
    if (!days.length || !amounts.length) return [];
    const { from, to } = instantsOfDays(days);
    const q = trx('bank')
      .select('internal_id', 'transfer_date', 'amount', 'currency_id', 'sender', 'subject')
      .where({ account_id: scope.accountId, type: 'bank' })
      .whereNull('entry_ref')
      .whereRaw('amount = ANY(?::numeric[])', [amounts])
      .andWhere('transfer_date', '>=', from)
      .andWhere('transfer_date', '<', to);
    if (scope.portalAccountGrant !== 'all') q.andWhere(seenByBound(trx, scope, scope.portalAccountGrant));
    return q.orderBy('number');
  },

  /**
   * Transfers booked by hand that a statement's credit is: each takes the credit's key and what
   * the statement tells of it (account IBAN, end-to-end id, payer references), so the same file
   * again, the other format's copy (across formats) and a reversal naming the payer's reference
   * find it as they find a credit stored from a statement, and the credit's booking day
   * (claimed_on), the day every later tie reads (entry-key.ts tiedDayOf). Payer, text, date and
   * its order stay as the client booked them.
   */
  async claimHandBooked(
    trx: Knex.Transaction,
    accountId: number,
    claims: { internalId: string; key: string; iban: string | null; endToEndId: string | null; payerRef: string; day: Date }[],
  ): Promise<void> {
    if (!claims.length) return;
    const col = <K extends keyof (typeof claims)[number]>(key: K) => claims.map((c) => c[key]);
    await trx.raw(
      `UPDATE bank SET entry_ref = t.key, account_iban = t.iban, end_to_end_id = t.end_to_end_id, payer_ref = t.payer_ref, claimed_on = t.day
       FROM unnest(?::bigint[], ?::text[], ?::text[], ?::text[], ?::text[], ?::timestamptz[]) AS t(internal_id, key, iban, end_to_end_id, payer_ref, day)
       WHERE bank.account_id = ? AND bank.internal_id = t.internal_id AND bank.entry_ref IS NULL`,
      [col('internalId'), col('key'), col('iban') as string[], col('endToEndId') as string[], col('payerRef'), col('day'), accountId],
    );
  },

  /**
   * Statement credits (a key) of the amount and currency booked on one of the days given (in UTC
   * or on a client's clock: entry-key.ts instantsOfDays), in the order stored: those a transfer
   * booked by hand may be (entry-key.ts sameBookingByHand, bank.service.ts answers 302 with the
   * first it is).
   */
  async statementCreditsOn(trx: Knex.Transaction, accountId: number, credit: { days: string[]; amount: string; currency: string }): Promise<BankRow[]> {
    const { from, to } = instantsOfDays(credit.days);
    return trx('bank')
      .select('*')
      .where({ account_id: accountId, type: 'bank', currency_id: credit.currency })
      .whereNotNull('entry_ref')
      .andWhere('amount', credit.amount)
      .andWhere(onDaysOrClaimed(from, to))
      .orderBy('number');
  },

  /** Records claimed by an import of the other format: its key of each booking (acrossFormatCandidates). */
  async setEntryAliases(trx: Knex.Transaction, accountId: number, aliases: { internalId: string; alias: string }[]): Promise<void> {
    if (!aliases.length) return;
    await trx.raw(
      `UPDATE bank SET entry_alias = t.alias FROM unnest(?::bigint[], ?::text[]) AS t(internal_id, alias)
       WHERE bank.account_id = ? AND bank.internal_id = t.internal_id`,
      [aliases.map((a) => a.internalId), aliases.map((a) => a.alias), accountId],
    );
  },

  /**
   * Records stored under the given keys, with the payer and text they were stored with: a key
   * of before the keys named the booking held its position, so it is this booking only when the
   * record says what the entry says (bank-store.service.ts).
   */
  async storedByReference(trx: Knex.Transaction, accountId: number, type: BankKind, refs: string[]): Promise<Map<string, { sender: string; subject: string }>> {
    if (!refs.length) return new Map();
    const rows = await trx('bank')
      .select('entry_ref', 'sender', 'subject')
      .where({ account_id: accountId, type })
      .whereRaw('entry_ref = ANY(?::text[])', [refs]);
    return new Map(rows.flatMap((r) => (r.entry_ref === null ? [] : [[r.entry_ref, { sender: r.sender, subject: r.subject }] as const])));
  },

  /** Keys (duplicateKey) of stored records equal to the given ones by document 1's duplicate rule. */
  async storedDuplicates(trx: Knex.Transaction, accountId: number, type: BankKind, rows: DuplicateColumns[]): Promise<Set<string>> {
    if (!rows.length) return new Set();
    const { rows: found } = (await trx.raw(
      `SELECT b.transfer_date, b.sender, b.subject, b.amount::text AS amount FROM bank b
       JOIN unnest(?::timestamptz[], ?::text[], ?::text[], ?::numeric[]) AS t(transfer_date, sender, subject, amount)
         ON b.transfer_date = t.transfer_date AND b.sender = t.sender AND b.subject = t.subject AND b.amount = t.amount
       WHERE b.account_id = ? AND b.type = ?`,
      [rows.map((r) => r.transfer_date), rows.map((r) => r.sender), rows.map((r) => r.subject), rows.map((r) => r.amount), accountId, type],
    )) as { rows: DuplicateColumns[] };
    return new Set(found.map(duplicateKey));
  },

  /** One INSERT for many records (numbers and ids given); answers nothing, the caller knows the numbers. */
  async insertMany(
    trx: Knex.Transaction,
    accountId: number,
    rows: (DuplicateColumns & {
      number: number;
      id: string;
      type: BankKind;
      entry_ref: string | null;
      order_no: string | null;
      status: string | null;
      currency_id: string;
      payer_ref: string;
      portal_account_grant: number | null;
      account_iban: string | null;
      end_to_end_id: string | null;
    })[],
  ): Promise<void> {
    if (!rows.length) return;
    const col = <K extends keyof (typeof rows)[number]>(key: K) => rows.map((r) => r[key]);
    await trx.raw(
      `INSERT INTO bank (account_id, number, id, type, transfer_date, sender, subject, amount, entry_ref, order_no, status, currency_id, payer_ref,
         portal_account_grant, account_iban, end_to_end_id)
       SELECT ?, t.* FROM unnest(?::bigint[], ?::text[], ?::text[], ?::timestamptz[], ?::text[], ?::text[], ?::numeric[], ?::text[], ?::text[], ?::text[],
         ?::text[], ?::text[], ?::integer[], ?::text[], ?::text[])
         AS t(number, id, type, transfer_date, sender, subject, amount, entry_ref, order_no, status, currency_id, payer_ref, portal_account_grant,
           account_iban, end_to_end_id)`,
      [
        accountId,
        col('number'),
        col('id'),
        col('type'),
        col('transfer_date'),
        col('sender'),
        col('subject'),
        col('amount'),
        col('entry_ref') as string[],
        col('order_no') as string[],
        col('status') as string[],
        col('currency_id'),
        col('payer_ref'),
        col('portal_account_grant') as number[],
        col('account_iban') as string[],
        col('end_to_end_id') as string[],
      ],
    );
  },

  /**
   * The orders in scope that a reference names, open or not (a named order that is paid or
   * cancelled is the reason a record stays unassigned): by order id, a number as order or
   * invoice number, or payment_provider_transaction_id. One query for a whole batch of records.
   */
  async referencedOrders(trx: Knex.Transaction, scope: OrderScope, refs: { ids: string[]; numbers: string[]; providerIds: string[] }): Promise<MatchOrder[]> {
    if (!refs.ids.length && !refs.numbers.length && !refs.providerIds.length) return [];
    return (await orderScopeRepository.toMatch(trx, scope).andWhere((q) => {
      q.whereRaw('id = ANY(?::text[])', [refs.ids])
        .orWhereRaw('number = ANY(?::bigint[])', [refs.numbers])
        .orWhere(hasInvoiceNumberIn(trx, scope.accountId, refs.numbers))
        .orWhereRaw('payment_provider_transaction_id = ANY(?::text[])', [refs.providerIds]);
    })) as MatchOrder[];
  },

  /**
   * The open orders in scope (not cancelled) that owe one of the amounts given (invoice_amount -
   * paid_amount; a credit order owes nothing: lib/order owedSql) and whose billing name holds
   * that amount's word; with `hand`, also the orders the seller booked by hand whose hand booking
   * may hold one of the records (lib/order otherHandBookingsHolding: its time and amount),
   * whatever they owe, cancelled or not, whose billing name holds one of the words: a payer's
   * money booked by hand on one order pays no other (bank.match.ts). The orders are read once,
   * each name folded once (foldedName, as nameKey folds the words it searches; the word '' finds
   * every name), then joined with the (amount, word) pairs: folding per joined row cost a
   * best-selling amount's orders once per payer of that amount. The caller compares whole names.
   */
  async ordersOwing(
    trx: Knex.Transaction,
    scope: OrderScope,
    pairs: { amount: string; word: string }[],
    hand: OtherHandBookingsHolding | null = null,
  ): Promise<MatchOrder[]> {
    if (!pairs.length) return [];
    const payers = trx.raw('SELECT * FROM unnest(?::numeric[], ?::text[]) AS p(amount, word)', [pairs.map((p) => p.amount), pairs.map((p) => p.word)]);
    // A semi-join (hashed) with the payers' amounts: = ANY of an array compares each order with every amount in turn.
    const owesOne = `NOT is_cancelled AND ${owedSql} IN (SELECT amount FROM payer)`;
    // The hand bookings that may hold a record (lib/order otherHandBookingsHolding): of a record's
    // amount (joined by amount below, as the orders owing one), or of an unknown amount or after
    // a record was stored (joined by word).
    const sameAmount = hand
      ? trx.raw('paid_by_hand_at >= ? AND paid_by_hand_amount IN (SELECT unnest(?::numeric[]))', [hand.since, hand.amounts])
      : trx.raw('false');
    const byWord = hand
      ? trx.raw(`paid_by_hand_at >= ? AND paid_by_hand_amount IS NULL${hand.storedAfter ? ' OR paid_by_hand_at > ? AND paid_by_hand_amount >= ?' : ''}`, [
          hand.since,
          ...(hand.storedAfter ? [hand.storedAfter, hand.least] : []),
        ])
      : trx.raw('false');
    const read = orderScopeRepository
      .toMatch(trx, scope)
      .select(
        trx.raw(`${owedSql} AS owed`),
        trx.raw(`COALESCE(${owesOne}, false) AS owes_one`),
        trx.raw('COALESCE(?, false) AS hand_same', [sameAmount]),
        trx.raw('COALESCE(?, false) AS hand_by_word', [byWord]),
      );
    const folded = trx
      .select('*', trx.raw(`${foldedName} AS folded`))
      .from(read.as('m'))
      .where((w) => void w.where('m.owes_one', true).orWhere('m.hand_same', true).orWhere('m.hand_by_word', true));
    const columns = [
      'o.id',
      'o.number',
      'o.invoice_number',
      'o.payment_provider_transaction_id',
      'o.currency_id',
      'o.is_cancelled',
      'o.owing',
      'o.name',
      'o.paid_by_hand_at',
      'o.paid_by_hand_amount',
    ];
    // By amount (a hash semi-join, each order once), then the amount's word.
    const ofAmount = (amount: string) => (e: Knex.QueryBuilder) =>
      void e.select(trx.raw('1')).from('payer').whereRaw(`payer.amount = ${amount} AND strpos(o.folded, payer.word) > 0`);
    const q = trx.with('payer', payers).withMaterialized('o', folded).select(columns).from('o').where('o.owes_one', true).whereExists(ofAmount('o.owed'));
    if (!hand) return (await q) as MatchOrder[];
    // The orders the seller booked by hand that may hold a record, whatever they owe, cancelled
    // or not, by a payer's word (the caller compares the whole name and asks
    // bookedByHandOnAnother), in branches of their own: an OR in the amounts' join makes it a
    // nested loop. Before, every hand booking since the bound was joined with every (amount,
    // word) pair by strpos: 50,000 orders booked by hand and 4,000 records took 4.3 s (found by
    // a reviewer of a969e8e). Of a record's amount: by amount as the orders owing one. The others
    // (of an unknown amount, or booked after a record was stored) by the payers' words, each word
    // once: a name folded to ASCII is hash-joined by its words (there nameKey's words are exactly
    // the runs of ASCII letters and digits: whatever else nameKey keeps, a letter of another
    // script or a kept mark, is not ASCII; so the payer's longest word is one of them); other
    // names by strpos, the words read as one array (as a join the planner costed it past
    // jit_above_cost, ~100 ms of JIT compiling); a payer without a searchable word ('') reads
    // them all.
    q.with('word', (w) => void w.distinct('word').from('payer'))
      .union((u) => void u.select(columns).from('o').where('o.hand_same', true).whereExists(ofAmount('o.paid_by_hand_amount')), true)
      .union((u) => {
        void u
          .select(columns)
          .from('o')
          .joinRaw("CROSS JOIN LATERAL unnest(regexp_split_to_array(o.folded, '[^a-zA-Z0-9]+')) AS t(token)")
          .join('word', 'word.word', 't.token')
          .where('o.hand_by_word', true)
          .whereRaw("o.folded !~ '[^[:ascii:]]'");
      }, true)
      .union((u) => {
        void u
          .select(columns)
          .from('o')
          .where('o.hand_by_word', true)
          .whereRaw("o.folded ~ '[^[:ascii:]]'")
          .whereExists(
            (e) => void e.select(trx.raw('1')).fromRaw('unnest((SELECT array_agg(word) FROM word)) AS w(word)').whereRaw('strpos(o.folded, w.word) > 0'),
          );
      }, true);
    if (pairs.some((p) => p.word === '')) q.union((u) => void u.select(columns).from('o').where('o.hand_by_word', true), true);
    return (await q) as MatchOrder[];
  },

  /** Records of the account without an order: an import's (by number range) or those since a date (re-match). */
  async unassignedForUpdate(trx: Knex.Transaction, range: UnassignedRange, limit: number): Promise<MatchRecord[]> {
    const q = unassigned(trx, range).select(
      trx.raw('number::text AS number'),
      'id',
      'type',
      'subject',
      'sender',
      trx.raw('amount::text AS amount'),
      'currency_id',
      'payer_ref',
      'entry_ref',
      'portal_account_grant',
      'bank.created_at',
      'transfer_date',
    );
    // bank.number, not the text alias (text order would skip records between batches). FOR UPDATE
    // waits for a run of the same job still in hand (a stalled worker), then sees its assignments.
    return q.orderByRaw('bank.number').limit(limit).forUpdate();
  },

  /**
   * The payers of the range's records still without an order, stored under the scope's grant
   * (name_amount's candidates for a whole job), with when each was stored and booked (the hand
   * bookings that may hold it).
   */
  async unassignedPayers(
    trx: Knex.Transaction,
    scope: OrderScope,
    range: UnassignedRange,
  ): Promise<Pick<MatchRecord, 'amount' | 'currency_id' | 'sender' | 'created_at' | 'transfer_date'>[]> {
    const q = unassigned(trx, range).select(trx.raw('amount::text AS amount'), 'currency_id', 'sender', 'created_at', 'transfer_date').whereNotNull('sender');
    return scope.portalAccountGrant === 'all' ? q.whereNull('portal_account_grant') : q.where('portal_account_grant', scope.portalAccountGrant);
  },

  /** Orders in scope by id, as the matching reads them (name_amount's candidates, read afresh in the batch that may pay them). */
  async ordersWithIds(trx: Knex.Transaction, scope: OrderScope, ids: string[]): Promise<MatchOrder[]> {
    if (!ids.length) return [];
    return (await orderScopeRepository.toMatch(trx, scope).whereRaw('id = ANY(?::text[])', [ids])) as MatchOrder[];
  },

  /**
   * Sets the outcome of the matching on many records in one UPDATE: order_id and the rule that
   * assigned it, or order_no (the reference while unassigned) and the reason it stayed so.
   */
  async setAssignments(trx: Knex.Transaction, accountId: number, rows: Assigned[]): Promise<void> {
    if (!rows.length) return;
    const col = <K extends keyof Assigned>(key: K) => rows.map((r) => r[key]) as string[];
    await trx.raw(
      `UPDATE bank b SET order_id = t.order_id, order_no = CASE WHEN t.order_id IS NULL THEN t.order_no END,
         match_rule = t.match_rule, unassigned_reason = t.unassigned_reason
       FROM unnest(?::bigint[], ?::text[], ?::text[], ?::text[], ?::text[]) AS t(number, order_id, order_no, match_rule, unassigned_reason)
       WHERE b.account_id = ? AND b.number = t.number`,
      [col('number'), col('order_id'), col('order_no'), col('match_rule'), col('unassigned_reason'), accountId],
    );
  },

  /**
   * Locks the account's records assigned to the order (DELETE order/{order_id}/, before the
   * order's row: bank records, then orders). No index names order_id (assigning is a HOT update,
   * migration 20261124_0100): this reads the account's records, once per delete.
   */
  async lockAssignedTo(trx: Knex.Transaction, accountId: number, orderId: string): Promise<void> {
    await trx('bank').select('number').where({ account_id: accountId, order_id: orderId }).forUpdate();
  },

  /** The account's records assigned to the order, locked, with what the payer wrote (the order's delete gives them back). */
  async assignedToForUpdate(
    trx: Knex.Transaction,
    accountId: number,
    orderId: string,
  ): Promise<Pick<BankRow, 'number' | 'id' | 'amount' | 'currency_id' | 'subject' | 'payer_ref' | 'reversed_by'>[]> {
    return trx('bank')
      .select('number', 'id', 'amount', 'currency_id', 'subject', 'payer_ref', 'reversed_by')
      .where({ account_id: accountId, order_id: orderId })
      .orderBy('number')
      .forUpdate();
  },

  /** The reversal keys among those given that reversed a transfer of the account already. */
  async appliedReversals(trx: Knex.Transaction, accountId: number, keys: string[]): Promise<Set<string>> {
    if (!keys.length) return new Set();
    const rows = await trx('bank').select('reversed_by').where({ account_id: accountId, type: 'bank' }).whereRaw('reversed_by = ANY(?::text[])', [keys]);
    return new Set(rows.flatMap((r) => (r.reversed_by === null ? [] : [r.reversed_by])));
  },

  /**
   * The transfers a reversal may take back (bank-reversal.service.ts decides): the account's bank
   * transfers not reversed yet, of the amount and currency, booked on the reversal's day or in the
   * REVERSAL_DAYS before it, and either sharing one of the payer's references given (end-to-end
   * id, creditor reference; or the transfer booked by hand now, `handBooked`, by payer and text)
   * or, when none is given, with the same payer and text. At most three
   * (two already make it ambiguous); of the reversal's bank account (IBAN) where both are known.
   * Of every portal account whatever the scope; each `seen` when the scope sees it (searchBase's
   * rule): a client bound to a portal account reverses only those stored under its grant or
   * assigned to its orders, never another portal account's or the seller's own unassigned ones
   * (marked reversed, they would never pay).
   */
  async reversalCandidates(
    trx: Knex.Transaction,
    scope: OrderScope,
    reversal: {
      amount: string;
      currency: string;
      day: Date;
      since: Date;
      references: string[];
      sender: string;
      subject: string;
      iban: string | null;
      /** The reversal's format and statement account as its key names them (entry-key.ts accountOfKey), null when it names none. */
      keyAccount: { format: string; account: string } | null;
      /** The number of the transfer a client books by hand now (POST bank/transfer/), else null. */
      handBooked: string | null;
    },
  ): Promise<{ number: string; seen: boolean }[]> {
    const q = trx('bank')
      .select<{ number: string }[]>(trx.raw('number::text AS number'))
      .where({ account_id: scope.accountId, type: 'bank', currency_id: reversal.currency })
      .whereNull('reversed_by')
      .andWhere('amount', reversal.amount)
      .andWhere('transfer_date', '>=', reversal.since)
      // Booked on the reversal's day or before: a hand booking a statement claimed by the day of
      // that statement's credit (claimed_on; its transfer_date is its client's instant or the
      // value day, up to VALUE_DAY_WINDOW days later), any other record by its transfer_date.
      .andWhere('transfer_date', '<=', new Date(reversal.day.getTime() + (VALUE_DAY_WINDOW + 2) * 86_400_000))
      .andWhere((w) => w.where('claimed_on', '<=', reversal.day).orWhere((n) => n.whereNull('claimed_on').andWhere('transfer_date', '<=', reversal.day)));
    // A reversal of one of the seller's bank accounts takes back no credit of another: one whose
    // account is known (account_iban) must be of the reversal's; one of no known account (booked
    // by hand, a :25: that ties nothing) may be.
    if (reversal.iban) q.andWhere((w) => w.whereNull('account_iban').orWhere('account_iban', reversal.iban));
    // Nor one whose key, of the reversal's format, names another statement account: the same
    // account in one format is the same :25: / Acct/Id, written alike. Where an account ties no
    // IBAN (a :25: of a bare or dotted number, a sub-account, 1700.59.308EUR) the IBAN rule above
    // says nothing, and such an account's reversal took a credit of the seller's other account.
    const keyAccount = reversal.keyAccount;
    if (keyAccount) {
      q.andWhere((w) =>
        w
          .whereNull('entry_ref')
          .orWhereRaw('NOT starts_with(entry_ref, ?)', [`${keyAccount.format} `])
          .orWhereRaw('starts_with(entry_ref, ?)', [`${keyAccount.format} ${keyAccount.account}|`]),
      );
    }
    if (reversal.references.length) {
      q.andWhere((w) => {
        w.whereRaw("string_to_array(payer_ref, ' ') && ?::text[]", [reversal.references]);
        // The transfer a client books by hand now (POST bank/transfer/) carries no payer's reference
        // (Bank_type has no field for one), so a kept reversal naming one ties it by its payer and
        // text (decision: else it never ties). That one only: a rate of the payer booked by hand
        // before, of the same text and amount, is no candidate of a reversal naming its reference
        // (at an import it made the credit with that reference ambiguous, nothing came off its
        // order, or it was taken back itself while that credit, imported later, paid).
        const handBooked = reversal.handBooked;
        if (handBooked !== null && reversal.sender !== '')
          w.orWhere((h) => h.where({ number: handBooked, payer_ref: '', sender: reversal.sender, subject: reversal.subject }).whereNull('entry_ref'));
      });
    } else q.where({ sender: reversal.sender, subject: reversal.subject });
    // Read in the seller's whole view whoever asks, so that "exactly one fits" means one of all the
    // seller's transfers: read in a bound client's view, a reversal two transfers fit (one beyond
    // its grant) had one, and the client's was taken back on a guess. `seen`: the caller may take
    // that one back (a bound client: stored under its grant or assigned to its orders, the rule
    // of its searches).
    const candidates = (await q.clone().orderBy('number').limit(3)).map((c) => ({ ...c, seen: true }));
    if (scope.portalAccountGrant === 'all' || !candidates.length) return candidates;
    const grant = scope.portalAccountGrant;
    const seen = await q
      .whereIn(
        'number',
        candidates.map((c) => c.number),
      )
      .andWhere(seenByBound(trx, scope, grant));
    const seenNumbers = new Set(seen.map((c) => c.number));
    return candidates.map((c) => ({ ...c, seen: seenNumbers.has(c.number) }));
  },

  /** Keeps reversals no transfer fitted yet (a reversal kept already stays as it is). */
  async keepPendingReversals(trx: Knex.Transaction, rows: Omit<PendingReversalRow, 'created_at'>[]): Promise<void> {
    if (rows.length) await trx('bank_reversal_pending').insert(rows).onConflict(['account_id', 'key']).ignore();
  },

  /** The account's kept reversals of the amounts given (those a credit of this import may fit), oldest first. */
  async pendingReversals(trx: Knex.Transaction, accountId: number, amounts: string[]): Promise<PendingReversalRow[]> {
    if (!amounts.length) return [];
    return trx('bank_reversal_pending')
      .select('*')
      .where('account_id', accountId)
      .whereRaw('amount = ANY(?::numeric[])', [amounts])
      .orderBy(['transfer_date', 'key']);
  },

  /** Forgets kept reversals once tied. */
  async dropPendingReversals(trx: Knex.Transaction, accountId: number, keys: string[]): Promise<void> {
    if (keys.length) await trx('bank_reversal_pending').where('account_id', accountId).whereRaw('key = ANY(?::text[])', [keys]).delete();
  },

  /** Whether the account's record of this number is reversed (bankRepository.markReversed). */
  async isReversed(trx: Knex.Transaction, accountId: number, number: number): Promise<boolean> {
    return !!(await trx('bank')
      .select('number')
      .where({ account_id: accountId, number: String(number) })
      .whereNotNull('reversed_by')
      .first());
  },

  /** A transfer locked for its reversal (after a matching run that holds it), as it is now. */
  async lockForReversal(trx: Knex.Transaction, accountId: number, number: string): Promise<Pick<BankRow, 'id' | 'order_id' | 'reversed_by'> | undefined> {
    return trx('bank').select('id', 'order_id', 'reversed_by').where({ account_id: accountId, number }).forUpdate().first();
  },

  /** Marks a transfer reversed: its reversal's key, and status `reversed` (Bank_type.status). */
  async markReversed(trx: Knex.Transaction, accountId: number, number: string, key: string, day: Date): Promise<void> {
    await trx('bank').where({ account_id: accountId, number }).update({ reversed_by: key, reversed_on: day, status: 'reversed' });
  },

  /**
   * The account's transfers of the amount and currency reversed by a reversal of the other
   * statement format booked on the reversal's day, of the reversal's account (IBAN) or of no
   * known account (a transfer booked by hand: bank-reversal.service.ts reads the account from the
   * key of the reversal that took it back), with their payer, text and references: one of them
   * is this reversal as the other format wrote it (compared there). Not limited to the scope: the
   * transfer is reversed already, nothing is taken off any order again.
   */
  async reversedAcrossFormats(
    trx: Knex.Transaction,
    accountId: number,
    reversal: { iban: string; otherFormat: string; amount: string; currency: string; day: Date },
  ): Promise<Pick<BankRow, 'sender' | 'subject' | 'payer_ref' | 'account_iban' | 'reversed_by'>[]> {
    return trx('bank')
      .select('sender', 'subject', 'payer_ref', 'account_iban', 'reversed_by')
      .where({ account_id: accountId, type: 'bank', currency_id: reversal.currency, reversed_on: reversal.day })
      .andWhere((w) => w.where('account_iban', reversal.iban).orWhereNull('account_iban'))
      .andWhere('amount', reversal.amount)
      .andWhere('reversed_by', 'like', `reversal ${reversal.otherFormat} %`);
  },

  /**
   * Accounts with records without an order since the date (for the re-match): a probe of each
   * account's recent days in (account_id, type, transfer_date); as a plain EXISTS the planner
   * takes a sequential scan of all accounts' records when there are few accounts.
   */
  async accountsWithUnassigned(knex: Knex, since: Date): Promise<number[]> {
    // The accounts are lib/account's: its statement, as the outer side of the probe.
    const accounts = accountUseRepository.allIdsStatement();
    const { rows } = (await knex.raw(
      `SELECT a.id FROM (${accounts.sql}) a CROSS JOIN LATERAL (
         SELECT 1 FROM bank b WHERE b.account_id = a.id AND b.type = ANY(?::text[]) AND b.transfer_date >= ? AND b.order_id IS NULL AND b.reversed_by IS NULL AND b.amount > 0
         LIMIT 1) unassigned
       ORDER BY a.id`,
      [...accounts.bindings, bankKinds, since],
    )) as { rows: { id: number }[] };
    return rows.map((r) => r.id);
  },

  /**
   * The search base: the records of one type the scope may see, read in within the range when
   * one is given. A client bound to a portal account sees the records stored under its grant and
   * those assigned to orders of its portal account, never another portal account's payments.
   */
  searchBase(knex: Knex, scope: OrderScope, type: BankKind, range?: { from: Date; to: Date }): Knex.QueryBuilder {
    const base = knex('bank').where('bank.account_id', scope.accountId).andWhere('bank.type', type);
    if (scope.portalAccountGrant !== 'all') {
      const grant = scope.portalAccountGrant;
      base.andWhere(seenByBound(knex, scope, grant));
    }
    if (range) base.where('bank.created_at', '>=', range.from).andWhere('bank.created_at', '<=', range.to);
    return base;
  },
};
