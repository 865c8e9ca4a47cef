/** What a statement parser hands on: the booked credit entries, and what it counted and skipped. */

/** One booked credit of a statement: becomes a Bank_type transfer of type bank. */
export interface StatementEntry {
  /**
   * The bank's own reference of the entry (CAMT AcctSvcrRef or NtryRef, MT940 :61: bank
   * reference), with the position inside a batch entry; null when the file has none, and then
   * document 1's duplicate rule (same transfer_date, sender, subject, amount) applies.
   */
  reference: string | null;
  transferDate: Date;
  sender: string;
  subject: string;
  /** Positive decimal with two places, as a string. */
  amount: string;
}

export interface ParsedStatement {
  format: 'camt.053' | 'mt940';
  statements: number;
  entries: StatementEntry[];
  /** Debit entries (and reversals of credits): not money received, skipped. */
  debits: number;
  /** Entries not booked (pending, information only): skipped until a statement books them. */
  unbooked: number;
}

/** Subject and sender are Bank_type text(1000) and text(255). */
export const clip = (text: string, max: number): string => text.replace(/\s+/g, ' ').trim().slice(0, max);
