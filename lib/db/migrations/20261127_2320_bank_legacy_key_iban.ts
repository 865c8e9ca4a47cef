import type { Knex } from 'knex';
import { ibanOfAccount } from './20261127_2300_bank_across_formats_backfill';

/**
 * The statement records stored before 1870e39 (keys of before: the statement's account first, no
 * format; `<account>|<statement>|<bank reference>|<position>|<amount>|<day>` in MT940,
 * `<account>|<reference>|<position>|<amount>|<day>` in CAMT, `<account>|<reference>` before
 * those) get their account_iban from that account, as 20261127_2300 gave it to the records of the
 * keys after. 2300 left them without one, and a reversal ties a transfer of no known account
 * whatever its bank account (bank.repository.ts reversalCandidates, 08cf823): a seller's second
 * bank account's reversal of a credit not imported yet took a credit of the first account, stored
 * before that change, of the same payer, text and amount (or end-to-end id), off its order.
 *
 * Not for tying across formats: storing reads only records whose key names its format
 * (lib/bank bank-store.service.ts), so these stay out of it as before. The IBAN rule is 2300's
 * (a migration that never changes); a key whose account ties no IBAN is left without one.
 */
const legacyAccount = String.raw`^([^|]*)\|`;
const newKey = String.raw`^(mt940|camt) `;

/** Fills account_iban where a key of before names a tied account and the column is empty; answers the records changed (0 when run again). */
export async function backfillBankLegacyKeyIban(knex: Knex | Knex.Transaction): Promise<number> {
  const written = (await knex.raw(
    `SELECT DISTINCT substring(entry_ref from ?) AS account FROM bank
     WHERE type = 'bank' AND account_iban IS NULL AND entry_ref ~ ? AND entry_ref !~ ?`,
    [legacyAccount, legacyAccount, newKey],
  )) as { rows: { account: string }[] };
  const tied = written.rows.flatMap(({ account }) => {
    const iban = ibanOfAccount(account);
    return iban ? [{ account, iban }] : [];
  });
  if (!tied.length) return 0;
  const result = (await knex.raw(
    `UPDATE bank SET account_iban = t.iban FROM unnest(?::text[], ?::text[]) AS t(account, iban)
     WHERE bank.type = 'bank' AND bank.account_iban IS NULL AND bank.entry_ref ~ ? AND bank.entry_ref !~ ?
       AND substring(bank.entry_ref from ?) = t.account`,
    [tied.map((t) => t.account), tied.map((t) => t.iban), legacyAccount, newKey, legacyAccount],
  )) as { rowCount: number };
  return result.rowCount;
}

export async function up(knex: Knex): Promise<void> {
  await backfillBankLegacyKeyIban(knex);
}

/** Nothing: 20261127_2100's down drops the column. */
export async function down(): Promise<void> {}
