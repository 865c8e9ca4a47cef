/** What a statement parser hands on: the booked credit entries, and what it counted and skipped. */

/** One booked credit of a statement: becomes a Bank_type transfer of type bank. */
export interface StatementEntry {
  /**
   * What identifies the entry in its format, so a re-import stores nothing and no two distinct
   * payments are ever merged (./entry-key.ts): the account and the bank's reference (CAMT
   * AcctSvcrRef/NtryRef, MT940 :61: bank reference) with the amount and booking date, else a
   * digest of the booking's content; `#2`, `#3` for the same key again in one file. Null only
   * where a format gives nothing to identify an entry by; then document 1's duplicate rule (same
   * transfer_date, sender, subject, amount) applies.
   */
  reference: string | null;
  /**
   * The key the entry had before keys named the booking rather than its position (statement
   * readers only): a record stored under it is this entry imported before, so a file imported
   * then is still recognised (bank-store.service.ts). Never stored.
   */
  legacyReference?: string | null;
  /**
   * The keys the entry had when an earlier version of Kontor read its file's letters otherwise
   * (statement.parse.ts codePagesBefore): a booking stored, or a reversal applied or kept, under
   * one is this entry imported then, and takes that key again (bank-store.service.ts
   * takeKeysAsStoredIn). Never stored.
   */
  earlierKeys?: string[];
  /**
   * CAMT: the key the entry had while `NONREF` was read as the bank's reference (before it named
   * no booking: ./camt-entry.ts isNonref), without its occurrence in the file. A booking stored,
   * or a reversal applied or kept, under it or under it with `#n` is this entry imported then when
   * it has the entry's payer and text, and the entry takes that key again
   * (bank-store.service.ts takeKeysAsStoredIn). Never stored.
   */
  nonrefKey?: string;
  /** The booking date, as a date (00:00 UTC). */
  transferDate: Date;
  /** The payer's name ('' when the file names none). */
  sender: string;
  /** The payer's remittance text, as the payer wrote it (no IBAN/BIC or booking codes the bank adds). */
  subject: string;
  /** Positive decimal with two places, as a string. */
  amount: string;
  /** ISO 4217 code of the amount (CAMT Amt@Ccy; MT940 the currency of :60F:/:62F:). */
  currency: string;
  /**
   * References the payer gave beside the free text, which the matching reads as whole tokens:
   * structured creditor references (ISO 11649 RF..., Swiss QR/ESR 27 digits) and the end-to-end
   * id (not NOTPROVIDED). Empty when none.
   */
  payerReferences: string[];
}

export interface ParsedStatement {
  format: 'camt.053' | 'camt.054' | 'mt940';
  statements: number;
  entries: StatementEntry[];
  /** Debit entries, and credits of 0.00: not money received, skipped (reversals of credits among them). */
  debits: number;
  /**
   * Booked reversals of credits (MT940 mark RC, CAMT DBIT with RvslInd): the bank takes back a
   * credit it booked before (a booking error, a recalled or returned transfer). Counted in
   * `debits` too; each is read like a credit (payer, text, references, amount) under a key of its
   * own (`reversal ...`, so never a credit's key), and ../bank-reversal.service.ts ties it to the
   * transfer it reverses.
   */
  reversals: StatementEntry[];
  /**
   * Credits that are returns or reversals of the holder's own payments (MT940 GV 159 and RC/RD
   * marks, CAMT RvslInd and RRTN/return reasons): money coming back, never a customer payment.
   */
  returns: number;
  /** Entries not booked (pending, information only): skipped until a statement books them. */
  unbooked: number;
  /**
   * CAMT batch entries with payments whose booked amount the file does not give, only an
   * instructed amount in another currency (./camt-entry.ts ownAmountOf): those payments are not read (a credit's counted in `debits`, as the reversal
   * entry is), and the seller gets a task for each such entry (./statement.service.ts). Absent
   * when none.
   */
  unread?: UnreadPayments[];
}

/** The payments of one batch entry not read (ParsedStatement.unread). */
export interface UnreadPayments {
  /** The entry's key: its task is given once (a re-import gives none). */
  key: string;
  /** A reversal of credits (DBIT with RvslInd), else a credit. */
  reversal: boolean;
  /** The entry's Amt ('' when it has none) and currency. */
  amount: string;
  currency: string;
  /** The booking day, YYYY-MM-DD. */
  day: string;
  /** Where the entry stands in the file (`Document/.../Ntry[2]`). */
  path: string;
  /**
   * Each payment not read: its payer ('' when none), the instructed amount given (`25.00 CHF`) and
   * why it is not the amount booked (`in another currency than EUR`, charges, a sum not the entry's).
   */
  payments: { payer: string; instructed: string; why: string }[];
}

/** Subject and sender are Bank_type text(1000) and text(255). */
export const clip = (text: string, max: number): string => text.replace(/\s+/g, ' ').trim().slice(0, max);
