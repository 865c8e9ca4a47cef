/**
 * Who paid and what they wrote, from one CAMT payment (TxDtls): the sender, the subject (the
 * payer's remittance text) and the payer's references. ISO 20022 camt.053/054 TxDtls: V02 names
 * the payer in RltdPties/Dbtr/Nm, V08 in RltdPties/Dbtr/Pty/Nm; RmtInf/Ustrd is free text (several
 * lines in older German files), RmtInf/Strd the structured part (CdtrRefInf/Ref: Swiss QR/ESR 27
 * digits, ISO 11649 RF, or another creditor reference; RfrdDocInf/Nb: the invoice the payer names).
 */
import { clip } from './statement.type';
import { list, node, Node, textOf } from './camt-node';

/** The payer: Dbtr (V02 Nm, V08 Pty/Nm), else the ultimate debtor on whose behalf it paid. */
export function senderOf(tx: Node): string {
  const parties = node(tx.RltdPties);
  const name = (party: unknown) => textOf(node(party).Nm) || textOf(node(node(party).Pty).Nm);
  return clip(name(parties.Dbtr) || name(parties.UltmtDbtr), 255);
}

/**
 * The payer's remittance text: RmtInf/Ustrd lines joined, then Strd/AddtlRmtInf (without the
 * Swiss ESR processing marks `?REJECT?0`, `?ERROR?000`); else AddtlTxInf; else `entryText` (the entry's
 * AddtlNtryInf, which camt.ts passes only for an entry of one payment: in a batch it describes the
 * batch, "CRÉDIT GROUPÉ BVR ... PAQUET ID", not any payer's payment). IBANs and labelled BICs the
 * bank writes into these texts are removed (plainText).
 */
export function subjectOf(tx: Node, entryText: string): string {
  const rmt = node(tx.RmtInf);
  const strd = list(rmt.Strd).map(node);
  const parts = [
    ...list(rmt.Ustrd).map(textOf),
    ...strd.flatMap((s) =>
      list(s.AddtlRmtInf)
        .map(textOf)
        .filter((t) => !esrMark.test(t.trim())),
    ),
  ];
  const text = parts.filter(Boolean).join(' ') || textOf(tx.AddtlTxInf) || entryText;
  return clip(plainText(text), 1000);
}

/**
 * ESR/BVR processing marks PostFinance writes as AddtlRmtInf: the reject flag (`?REJECT?0`,
 * `?REJECT?1`) and the error code of the reading (`?ERROR?000`, `?ERROR?008`, beside the reject
 * flag in camt_parser's PostFinance v4 sample): not the payer's words.
 */
const esrMark = /^\?(?:REJECT|ERROR)\?\d*$/i;

/**
 * The references the payer gave beside the text, as whole tokens for the matching: every
 * Strd/CdtrRefInf/Ref (spaces removed: QR and RF references are printed in groups), every
 * Strd/RfrdDocInf/Nb, and Refs/EndToEndId unless it says none (NOTPROVIDED, NONREF). Never an
 * IBAN. Each once, in that order.
 */
export function payerReferencesOf(tx: Node): string[] {
  const strd = list(node(tx.RmtInf).Strd).map(node);
  const creditorRefs = strd.flatMap((s) => list(s.CdtrRefInf).map((r) => textOf(node(r).Ref).replace(/\s+/g, '')));
  const documents = strd.flatMap((s) => list(s.RfrdDocInf).map((d) => textOf(node(d).Nb).trim()));
  const given = [...creditorRefs, ...documents, endToEndIdOf(tx)];
  return [...new Set(given.filter((ref) => ref && !isIban(ref.replace(/\s+/g, ''))))];
}

const noReference = /^(NOT ?PROVIDED|NONREF)$/i;

/** Refs/EndToEndId, '' when the payer gave none (NOTPROVIDED, NONREF). */
export function endToEndIdOf(tx: Node): string {
  const endToEnd = textOf(node(tx.Refs).EndToEndId).trim();
  return noReference.test(endToEnd) ? '' : endToEnd;
}

/**
 * An IBAN (ISO 13616): country, two check digits, 11-30 letters and digits, mod 97 = 1. An ISO
 * 11649 creditor reference (RF...) has the same shape and check: RF is no country, so never one.
 */
export function isIban(candidate: string): boolean {
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(candidate) || candidate.startsWith('RF')) return false;
  let rest = 0;
  for (const ch of candidate.slice(4) + candidate.slice(0, 4)) {
    const digits = ch <= '9' ? ch : String(ch.charCodeAt(0) - 55);
    for (const d of digits) rest = (rest * 10 + Number(d)) % 97;
  }
  return rest === 1;
}

/** An IBAN as one word. */
const compactIban = /\b[A-Z]{2}\d{2}[A-Z0-9]{11,30}\b/g;
/** An IBAN printed in groups of four ("DE89 3704 0044 0532 0130 00"); may run into a next word. */
const groupedIban = /\b[A-Z]{2}\d{2}(?: [A-Z0-9]{4}){2,7}(?: [A-Z0-9]{1,4})?\b/g;
/** A BIC only where the text labels it: an 8-letter word alone may be "RECHNUNG". */
const labelledBic = /\bBIC\s*:?\s*[A-Z]{6}[A-Z0-9]{2}(?:[A-Z0-9]{3})?\b/g;
/** An IBAN or BIC label left without its value. */
const emptyLabel = /\b(?:IBAN|BIC)\s*:?\s*(?=$|\s)/g;

/** A grouped match without its longest leading IBAN (the groups after it are other words). */
function withoutGroupedIban(found: string): string {
  const groups = found.split(' ');
  for (let k = groups.length; k >= 3; k--) if (isIban(groups.slice(0, k).join(''))) return ` ${groups.slice(k).join(' ')} `;
  return found;
}

/** The text without IBANs (checked, so an order number shaped like one stays) and labelled BICs. */
export function plainText(text: string): string {
  return text
    .replace(compactIban, (found) => (isIban(found) ? ' ' : found))
    .replace(groupedIban, withoutGroupedIban)
    .replace(labelledBic, ' ')
    .replace(emptyLabel, ' ');
}
