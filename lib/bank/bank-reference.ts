/**
 * The order references a payer wrote: read from the remittance text and the payer's structured
 * references (creditor reference, end-to-end id) only, never from a name, an IBAN, a BIC or a
 * booking code, and only as whole words in the shapes this service issues:
 * - an order id `<number>_<YYYY>_<MM>`;
 * - an invoice or order number behind a prefix a seller prints (`RE-1234`, `Rechnung 1234`,
 *   `Rechnung Nr. 1234`, `Invoice #1234`, `Bestellung 1234`, `Order 1234`), the prefix naming
 *   which of the two it is;
 * - a bare number word of three digits or more (`1234`), which may be either and is weak
 *   evidence: the matching lets it pay only the exact amount owed (bank.match.ts). One or two
 *   digits alone are no reference: remittance texts are full of them ("inklusive 1 CD",
 *   "NR. 1", "2 Stück"), and a shop's first orders carry exactly such numbers.
 * A word is what stands between blanks and the separators ; : ( ) [ ] { } " ' / \ | + =, with a
 * closing full stop or comma and a leading '#' taken off (a comma inside a word is a decimal
 * comma: `12,50` is no number). So the digits inside `HEISDE66`,
 * `TO13`, `166?30`, `PmtInfId-CHDD-1` or an IBAN are no number, and neither is a number inside a
 * decimal or a date (`12.50`, `21.11.2026`): those words are not digits alone.
 * The prefixes are the ones German and English invoices carry; a seller's own invoice prefix is
 * not configurable in document 2, so none beyond these is read.
 */

export interface PayerReferences {
  /** Order ids (`<number>_<YYYY>_<MM>`). */
  orderIds: string[];
  /** Numbers written behind an invoice prefix. */
  invoiceNumbers: string[];
  /** Numbers written behind an order prefix. */
  orderNumbers: string[];
  /** Numbers written alone: an order or an invoice number. */
  bareNumbers: string[];
}

const invoicePrefixes = ['re', 'rg', 'rn', 'rech', 'rechnung', 'rechnungsnr', 'rechnungsnummer', 'inv', 'invoice', 'fa', 'faktura'];
const orderPrefixes = ['ord', 'order', 'best', 'bestellung', 'bestellnr', 'bestellnummer', 'auftrag', 'auftragsnr', 'auftragsnummer', 'ab'];
/** Words that may stand between a prefix and its number (`Rechnung Nr. 12`). */
const numberWords = ['nr', 'no', 'nummer', 'number', 'num'];

/** The fewest digits a number standing alone needs to be read as a reference. */
const minBareDigits = 3;
const orderIdShape = /^[1-9]\d{0,14}_\d{4}_(0[1-9]|1[0-2])$/;
const numberShape = /^0*([1-9]\d{0,14})$/;
/** A prefix glued to its number: `RE-1234`, `RE1234`, `INV#1234`, `Bestellung:1234` (the colon splits words already). */
const gluedShape = /^([a-zäöü]+)[-#.]?0*([1-9]\d{0,14})$/;

/** The words of a text: separators split, a closing full stop and a leading '#' taken off. */
export function wordsOf(text: string): string[] {
  return text
    .split(/[\s;:()[\]{}"'/\\|+=]+/)
    .map((w) => w.replace(/[.,]+$/, '').replace(/^#+/, ''))
    .filter(Boolean);
}

const kindOf = (prefix: string): 'invoice' | 'order' | null => (invoicePrefixes.includes(prefix) ? 'invoice' : orderPrefixes.includes(prefix) ? 'order' : null);

/** The references in the payer's texts (the subject and each structured reference), each once, in the order written. */
export function payerReferencesOf(...texts: string[]): PayerReferences {
  const found: PayerReferences = { orderIds: [], invoiceNumbers: [], orderNumbers: [], bareNumbers: [] };
  const add = (list: string[], value: string) => {
    if (!list.includes(value)) list.push(value);
  };
  const listOf = (kind: 'invoice' | 'order' | null) => (kind === 'invoice' ? found.invoiceNumbers : kind === 'order' ? found.orderNumbers : found.bareNumbers);
  for (const text of texts) {
    const words = wordsOf(text);
    let pending: 'invoice' | 'order' | null = null;
    for (const word of words) {
      const lower = word.toLowerCase();
      if (orderIdShape.test(word)) add(found.orderIds, word);
      const bare = numberShape.exec(word);
      const glued = bare ? null : gluedShape.exec(lower);
      if (bare && (pending || bare[1]!.length >= minBareDigits)) add(listOf(pending), bare[1]!);
      else if (glued && kindOf(glued[1]!)) add(listOf(kindOf(glued[1]!)), glued[2]!);
      else if (glued && numberWords.includes(glued[1]!) && (pending || glued[2]!.length >= minBareDigits)) add(listOf(pending), glued[2]!);
      // A prefix word carries over to the next number word, through "Nr." / "No.".
      if (kindOf(lower)) pending = kindOf(lower);
      else if (!numberWords.includes(lower)) pending = null;
    }
  }
  return found;
}

/** The first reference written, for order_no while a record is unassigned. */
export function firstReference(refs: PayerReferences): string | null {
  return refs.orderIds[0] ?? refs.invoiceNumbers[0] ?? refs.orderNumbers[0] ?? refs.bareNumbers[0] ?? null;
}
