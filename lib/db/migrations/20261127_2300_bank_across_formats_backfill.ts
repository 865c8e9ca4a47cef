import type { Knex } from 'knex';

/**
 * The statement records stored before 20261127_2100 (account_iban) and 20261127_2200
 * (reversed_on) get what those columns would hold, derived from their keys (lib/bank
 * statement/entry-key.ts): without it, the days an MT940 imported before the change covered were
 * stored and paid again by the account's camt.053 after it (or the other way round), and a
 * reversal the other format booked again took an earlier equal rate of the payer off its order.
 *
 * - `account_iban`: a key `mt940 <:25: account>|...` or `camt <Acct/Id>|...` names the
 *   statement's account as the reader gave it; its IBAN as ibanOfAccount reads it (a valid IBAN,
 *   a currency code after it aside; a German BLZ/Kontonummer turned into its IBAN; else none).
 * - `reversed_on`: a reversal's key (`reversed_by`, `reversal <key>`) ends in the amount and the
 *   booking day, then the content digest (`|~...`) where the bank gave no reference of its own,
 *   then the occurrence (`#n`); the day at 00:00 UTC, as the readers give a booking day.
 * - `end_to_end_id` is not derived: payer_ref holds it among the payer's other references with
 *   nothing to tell which it is; sameBookingAcrossFormats reads a record without one by its
 *   payer references instead.
 * Keys of before 1870e39 (their account first, no format) are left: no import ties them across
 * formats either way.
 *
 * The IBAN rule is written out here, not imported: lib/db sits below lib/bank (scripts/
 * check-cycles.ts), and a migration must do what it did when it ran, whatever the rule becomes.
 */
const keyAccount = String.raw`^(?:mt940|camt) ([^|]*)\|`;
const reversalDay = String.raw`^reversal (?:mt940|camt) .*\|[0-9.]+\|(\d{4}-\d{2}-\d{2})(?:\|~[A-Za-z0-9_-]*)?(?:#\d+)?$`;

function isIban(candidate: string): boolean {
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(candidate) || candidate.startsWith('RF')) return false;
  let rest = 0;
  for (const ch of candidate.slice(4) + candidate.slice(0, 4)) {
    const digits = ch <= '9' ? ch : String(ch.charCodeAt(0) - 55);
    for (const d of digits) rest = (rest * 10 + Number(d)) % 97;
  }
  return rest === 1;
}

export function ibanOfAccount(account: string): string | null {
  const compact = account.replace(/\s+/g, '').toUpperCase();
  for (const candidate of [compact, compact.replace(/[A-Z]{3}$/, '')]) if (isIban(candidate)) return candidate;
  const german = /^(\d{8})\/(\d{1,10})(?:[A-Z]{3})?$/.exec(compact);
  if (!german) return null;
  const bban = `${german[1]}${german[2]!.padStart(10, '0')}`;
  const check = 98n - (BigInt(`${bban}131400`) % 97n);
  return `DE${String(check).padStart(2, '0')}${bban}`;
}

/**
 * Fills account_iban and reversed_on where the keys tell them and the columns are empty, so
 * running it again changes nothing. Answers the records changed.
 */
export async function backfillBankAcrossFormats(knex: Knex | Knex.Transaction): Promise<{ accounts: number; reversals: number }> {
  const written = (await knex.raw(
    `SELECT DISTINCT substring(entry_ref from ?) AS account FROM bank
     WHERE type = 'bank' AND account_iban IS NULL AND entry_ref ~ ?`,
    [keyAccount, keyAccount],
  )) as { rows: { account: string }[] };
  const tied = written.rows.flatMap(({ account }) => {
    const iban = ibanOfAccount(account);
    return iban ? [{ account, iban }] : [];
  });
  let accounts = 0;
  if (tied.length) {
    const result = (await knex.raw(
      `UPDATE bank SET account_iban = t.iban FROM unnest(?::text[], ?::text[]) AS t(account, iban)
       WHERE bank.type = 'bank' AND bank.account_iban IS NULL AND bank.entry_ref ~ ? AND substring(bank.entry_ref from ?) = t.account`,
      [tied.map((t) => t.account), tied.map((t) => t.iban), keyAccount, keyAccount],
    )) as { rowCount: number };
    accounts = result.rowCount;
  }
  const reversed = (await knex.raw(
    `UPDATE bank SET reversed_on = (substring(reversed_by from ?) || 'T00:00:00Z')::timestamptz
     WHERE type = 'bank' AND reversed_on IS NULL AND reversed_by ~ ?`,
    [reversalDay, reversalDay],
  )) as { rowCount: number };
  return { accounts, reversals: reversed.rowCount };
}

export async function up(knex: Knex): Promise<void> {
  await backfillBankAcrossFormats(knex);
}

/** Nothing: the columns hold what the code after 20261127_2100 and 2200 writes, and those migrations' down drops them. */
export async function down(): Promise<void> {}
