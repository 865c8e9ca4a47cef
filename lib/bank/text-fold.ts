/**
 * How a payer's name or text is compared wherever two spellings of it meet: name_amount (the
 * sender against the billing name, bank-name-amount.ts nameKey), a hand booking against a
 * statement credit, an MT940 against a camt.053 and a reversal against its credit
 * (statement/entry-key.ts foldedText).
 *
 * Decision (README "Matching a record to an order"): letters and digits of every script are kept,
 * compared by lower case and by their compatibility forms (NFKD: `ﬁ` is `fi`, a full-width letter
 * its plain one). Before, the fold kept only `a-z0-9`: a Cyrillic, Greek or CJK name folded to
 * nothing, so two payers of non-Latin names were one payer to the hand-booking and reversal ties
 * (a credit of one claimed the other's hand booking), and name_amount's word search never found
 * `Андрейченко` (its `й`) or `Παπαδόπουλος` (its tonos) in the billing name.
 * - German umlauts are spelled out first (`ü` = `ue`, `ß` = `ss`): German MT940 writes `Mueller`
 *   where the camt.053 and the buyer write `Müller`.
 * - The Latin letters Unicode does not decompose are written as the SWIFT character set of an
 *   MT940 writes them (found by a reviewer of f8f6e9e): `ø` `o`, `ł` `l`, `đ` and `ð` `d`, `ı`
 *   `i`, `æ` `ae`, `œ` `oe`, `þ` `th`. The Polish statement in the Deutsche Bank sample
 *   (samples/bank SOURCES.md) names `HUTA SZKLA ... WROCLAW` (Szkła, Wrocław); before, `Szkła`
 *   was not `SZKLA` and `Søren Kjær` not `SOREN KJAER`: the hand booking typed from the online
 *   banking and the MT940's credit were stored twice, both paying, and name_amount never found the
 *   billing name. Decision: `ø` as `o`, not the Danish `oe` (a converter to the SWIFT set drops
 *   the stroke; a bank writing `SOEREN` is not tied).
 * - Marks are dropped where they are diacritics of a letter: on Latin, Greek and Cyrillic letters
 *   (`é` is `e`, `й` is `и`, `ώ` is `ω`) and the vowel points of Hebrew and Arabic (optional in
 *   writing). Elsewhere a mark is part of the letter and kept: the kana voicing marks (`ご` is not
 *   `こ`), the vowel signs of Indic and Thai scripts; a name of those scripts compares as written
 *   (NFKC: half-width `ｶﾞ` is `ガ`).
 * - Greek final sigma `ς` is `σ` (JavaScript lowers a final `Σ` to `ς`, PostgreSQL to `σ`, and a
 *   payer typing capitals writes no final form).
 */

const SPELLED: Record<string, string> = { ä: 'ae', ö: 'oe', ü: 'ue', ß: 'ss', æ: 'ae', œ: 'oe', þ: 'th', ø: 'o', ł: 'l', đ: 'd', ð: 'd', ı: 'i' };
/** Scripts whose marks are diacritics or optional vowel points, dropped. */
const DIACRITIC_SCRIPTS = /^[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Hebrew}\p{Script=Arabic}]/u;

/** The text folded, its words (runs of letters, digits and the marks kept) separated by one blank. */
export function foldedWords(text: string): string {
  return text
    .normalize('NFC')
    .toLowerCase()
    .replace(/[äöüßæœþøłđðı]/g, (c) => SPELLED[c]!)
    .replace(/\P{M}\p{M}*/gu, (cluster) => {
      const parts = cluster.normalize('NFKD');
      return DIACRITIC_SCRIPTS.test(parts) ? parts.replace(/\p{M}/gu, '') : cluster.normalize('NFKC');
    })
    .normalize('NFC')
    .replace(/ς/g, 'σ')
    .replace(/[^\p{L}\p{N}\p{M}]+/gu, ' ')
    .trim();
}

/**
 * A folded word PostgreSQL's fold of a billing name (bank.repository.ts foldedName: lower case,
 * umlauts and the undecomposed Latin letters spelled as SPELLED, NFKD, the combining marks of Latin, Greek and Cyrillic dropped, `ς` as `σ`) is sure to hold where nameKey's
 * holds it: one of Latin, Greek or Cyrillic letters and digits only. Other scripts' marks are
 * not dropped there the same way, so their words narrow nothing (the caller then reads the
 * orders by amount and compares whole names).
 */
export const searchableWord = (word: string): boolean => /^[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{N}]+$/u.test(word);
