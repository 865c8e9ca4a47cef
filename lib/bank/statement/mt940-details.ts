/**
 * Field 86 (information to account owner) of an MT940 statement line: who paid, the payer's
 * remittance text, and the references the matching reads. The layouts, tried in this order:
 *
 * 1. German structure (DK "DFÜ-Abkommen", Anlage 3, MT940 field 86): a 3-digit business code
 *    (GVC), then subfields `?NN` (Triodos writes `>NN` after its code `000`). ?00 booking text and ?10 primanota are the bank's and never the subject; ?20-?29 and
 *    ?60-?63 the remittance lines; ?30 bank code, ?31 account (never used); ?32/?33 the payer's
 *    name, also when there are no remittance lines (Kontist). The physical lines of field 86 mean
 *    nothing here (a subfield runs on across them) and are joined without a space.
 * 2. SWIFT /TAG/ layout (ABN AMRO, ING, Rabobank, bunq): /REMI/ the subject (ING's and
 *    Rabobank's `USTD//` prefix dropped; `STRD/CUR/ref` is a structured reference, no subject),
 *    /NAME/ after /ORDP/ (or a /NAME/ not after /BENM/) the payer, else the name in /CNTP/
 *    (IBAN/BIC/name/city); /EREF/ and /CDTRREF/ values are payer references; a /RTRN/ reason
 *    makes the entry a return.
 * 3. Free text: ASN/SNS "account name" as :86:'s first line where :61: names that payer too;
 *    "REK: ... /NAAM: name" (Knab), "NAAM: name ... OMSCHRIJVING: text" (ABN AMRO) and "AUFTRAGGEBER: name ... MITTEILUNGEN: text"
 *    (PostFinance) and "OD: name  address; TYT.: title" (mBank) name the payer; otherwise the whole text, less IBANs and labelled BICs, is
 *    the subject.
 *
 * Line joining: the /TAG/ layout's lines are joined as they are (the bank cut one string into
 * lines anywhere, even inside a tag). Otherwise a line that fills its field's width was cut wherever the
 * width ran out, often mid-word, and continues the next line without a space; a shorter line
 * ended where its writer ended it and is followed by a space. The width is 27 for a ?2x/?6x
 * remittance line and a ?32/?33 name line, 65 for a physical line of field 86 (SWIFT 6*65x; the
 * first line counted without its `:86:`).
 *
 * SEPA in the remittance lines (DK Anlage 3, "SEPA-Verwendungszweck"): an identifier `EREF+`,
 * `KREF+`, `MREF+`, `CRED+`, `DEBT+`, `SVWZ+`, `ABWA+`, `ABWE+`, `IBAN+`, `BIC+`, `PURP+` ...
 * starts a part, at the start of a remittance line (or, where a bank glues them, after a space).
 * A line that repeats the identifier of the part it follows continues that part (Hibiscus writes
 * `SVWZ+` before every 27-character piece of the purpose): joined by the width rule, measured
 * without the identifier. The subject is the SVWZ+ part; without one, the text before the first identifier. The EREF+
 * value, unless NOTPROVIDED, is a payer reference (the end-to-end id); KREF+, MREF+ and the
 * others are dropped. Some banks (Atruvia: Volksbanken) append "EREF: ... IBAN: ... BIC: ..." to
 * the purpose: from the first such label to the end is dropped.
 */

export interface Details {
  sender: string;
  subject: string;
  payerReferences: string[];
  /** The German business code (GVC) of a structured field 86, '' when there is none. */
  businessCode: string;
  /** A /RTRN/ return reason (SWIFT /TAG/ layout): the entry is a return. */
  returned: boolean;
  /** The end-to-end id (EREF+, /EREF/; not NOTPROVIDED), also among payerReferences; absent when none. */
  endToEndId?: string;
}

const none: Details = { sender: '', subject: '', payerReferences: [], businessCode: '', returned: false };

/** Joins lines by the width rule above. */
export function joinLines(lines: string[], width: number): string {
  return lines.reduce((text, line, i) => (i === 0 ? line : text + (lines[i - 1]!.length >= width ? '' : ' ') + line), '');
}

const squash = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** The countries of the IBAN registry (ISO 13616, SWIFT's registry, 2025). */
const ibanCountries =
  'AD AE AL AT AZ BA BE BG BH BI BR BY CH CR CY CZ DE DJ DK DO EE EG ES FI FK FO FR GB GE GI GL GR GT HN HR HU IE IL IQ IS IT JO KW KZ LB LC LI LT LU LV LY MC MD ME MK MN MR MT MU NI NL NO OM PK PL PS PT QA RO RS RU SA SC SD SE SI SK SM SO ST SV TL TN TR UA VA VG XK YE'.replace(
    / /g,
    '|',
  );
/** An IBAN, compact or printed in groups of four: a registry country, two check digits, the account. */
const iban = new RegExp(`\\b(?:${ibanCountries})\\d{2}(?:[A-Z0-9]{11,30}|(?: [A-Z0-9]{4}){3,7}(?: [A-Z0-9]{1,3})?)\\b`, 'g');
const labelledBic = /\bBIC:?\s*[A-Z]{6}[A-Z0-9]{2}(?:[A-Z0-9]{3})?\b/g;
const labelledIban = /\bIBAN:?\s*/g;

/** Text without IBANs and labelled BICs. */
export const withoutAccounts = (text: string): string => squash(text.replace(labelledBic, ' ').replace(iban, ' ').replace(labelledIban, ' '));

/** ISO 11649 creditor references (RF, two check digits, up to 21 characters) whose check digits hold. */
export function creditorReferences(text: string): string[] {
  return [...text.matchAll(/\bRF\d{2}[A-Z0-9]{1,21}\b/g)].map((m) => m[0]).filter(mod97);
}

function mod97(reference: string): boolean {
  const digits = (reference.slice(4) + reference.slice(0, 4)).replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  return BigInt(digits) % 97n === 1n;
}

/**
 * `named`: the :61: field's supplementary details (its lines after the first), where ASN Bank
 * names the counterparty (below).
 */
export function detailsOf(lines: string[], named = ''): Details {
  const flat = lines.join('').trimStart();
  const german = /^(\d{3})?([?>])\d{2}/.exec(flat);
  if (german && (german[1] !== undefined || german[2] === '?')) return structured(flat, german[1] ?? '', german[2]!);
  // The /TAG/ layout is one string the bank cut into lines wherever it chose: Triodos cuts at 33,
  // 32 or 2 characters, inside a word and inside a tag (`/RE` + `MI/`), ING at 65 counting the
  // `:86:`; its words carry their own spaces (a line may start with one). So its lines are joined
  // as they are, never with a space.
  const glued = squash(lines.join(''));
  if (glued.startsWith('/') && tagPattern.test(glued)) return tagged(glued) ?? untagged(lines);
  // GVC 999 is the German code for "unstructured": the text follows it.
  const written = joinLines(lines, 65);
  const free = squash(written).replace(/^999(?=\D)/, '');
  if (free.startsWith('/') && tagPattern.test(free)) return tagged(free) ?? freeText(free);
  return accountAndName(lines, named) ?? mBankLabelled(written) ?? freeText(free);
}

/**
 * ASN Bank and SNS (NL, both de Volksbank) write the counterparty twice: its name as the :61: supplementary details, and
 * its account and name as the first line of field 86, the text on the lines after (ASN's MT940
 * description; its export in gpaulissen/ofxstatement-mt940, whose test expects the payee
 * `paulissen g j l m` and the memo `INTERNE OVERBOEKING VIA MOBIEL`; zilverline/mt940's sns.txt the
 * owner `f. spark bedrijf n.v.`). Before, the name stood in
 * the subject and the sender was empty, so no ASN payment was matched by the buyer's name. Read
 * only where the first line is an account (an IBAN or digits) and then the name the :61: gives
 * (its 34 characters may cut a longer name, which the line writes whole): no other bank's text
 * repeats its :61: details so, and a text that does not is read as before.
 */
function accountAndName(lines: string[], named: string): Details | null {
  const name = squash(named);
  if (name.length < 2 || lines.length < 2) return null;
  const first = /^([A-Z]{2}\d{2}[A-Z0-9]{8,30}|\d{5,}) (.+)$/.exec(squash(lines[0]!));
  if (!first || !first[2]!.startsWith(name)) return null;
  const rest = freeText(squash(joinLines(lines.slice(1), 65)));
  return { ...rest, sender: rest.sender || first[2]! };
}

// --- 1. German structure -------------------------------------------------------------------

const remittanceCodes = /^(2\d|6[0-3])$/;
const sepaIdentifier = /^(EREF|KREF|MREF|CRED|DEBT|SVWZ|ABWA|ABWE|IBAN|BIC|PURP|COAM|OAMT|SQTP|RTRN)\+/;
const gluedIdentifier = /\s(?=(?:EREF|KREF|MREF|CRED|DEBT|SVWZ|ABWA|ABWE|IBAN|BIC|PURP)\+)/;
const bankTrailer = /\s(?:EREF|MREF|CRED|KREF|IBAN|BIC|ABWA|ABWE):\s.*$/;

function structured(flat: string, businessCode: string, separator: string): Details {
  const body = flat.slice(businessCode.length);
  const fields: { code: string; value: string }[] = [];
  const split = new RegExp(`\\${separator}(\\d{2})`, 'g');
  const marks = [...body.matchAll(split)];
  marks.forEach((m, i) => fields.push({ code: m[1]!, value: body.slice(m.index + 3, marks[i + 1]?.index ?? body.length) }));
  let remittance = fields.filter((f) => remittanceCodes.test(f.code)).map((f) => f.value);
  if (separator === '>') remittance = withoutBankCodes(remittance);
  const name = fields.filter((f) => f.code === '32' || f.code === '33').map((f) => f.value);
  const { subject, endToEnd } = sepaParts(remittance);
  const payerReferences = [endToEnd, ...creditorReferences(subject)].filter((r): r is string => !!r);
  return { sender: squash(joinLines(name, 27)), subject, payerReferences, businessCode, returned: false, endToEndId: endToEnd ?? '' };
}

/** Triodos writes the counter account's BIC and IBAN as the first description lines. */
function withoutBankCodes(lines: string[]): string[] {
  const bic = /^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$/;
  const account = /^[A-Z]{2}\d{2}[A-Z0-9]{8,30}$/;
  return lines[0] !== undefined && bic.test(lines[0].trim()) && account.test(lines[1]?.trim() ?? '') ? lines.slice(2) : lines;
}

/** A remittance line of a SEPA part and the length of the identifier it starts with (`SVWZ+`: 5; none: 0). */
interface PartLine {
  line: string;
  prefix: number;
}

/**
 * A part's lines joined: each less its identifier, by the width rule (joinLines). A line that
 * repeats the part's identifier (Hibiscus) follows the line before it without a space where that
 * line filled 27 characters without its identifier; a line without one, where the line as written
 * (its identifier too, as the bank counts the subfield) filled 27.
 */
function joinPart(lines: PartLine[]): string {
  return lines.reduce((text, { line, prefix }, i) => {
    const piece = line.slice(prefix);
    if (i === 0) return piece;
    const before = lines[i - 1]!;
    const width = prefix ? before.line.length - before.prefix : before.line.length;
    return text + (width >= 27 ? '' : ' ') + piece;
  }, '');
}

/**
 * The remittance lines cut into their SEPA parts: the subject (SVWZ+) and the end-to-end id (EREF+).
 * A line that starts with the identifier of the part it follows continues that part: Hibiscus's
 * MT940 export (willuhn/hibiscus MT940UmsatzExporter) cuts the purpose every 27 characters,
 * mid-word, and writes `SVWZ+` in front of every piece; read as a new part, only the first piece
 * was the subject (`Bestellung 1` of `Bestellung 12_2026_11` paid order 1), and an EREF+ cut so
 * lost the rest of the end-to-end id.
 */
function sepaParts(lines: string[]): { subject: string; endToEnd: string | null } {
  const parts: { id: string; lines: PartLine[] }[] = [{ id: '', lines: [] }];
  for (const line of lines) {
    const id = sepaIdentifier.exec(line);
    const current = parts[parts.length - 1]!;
    if (id && id[1] === current.id) current.lines.push({ line, prefix: id[0].length });
    else if (id) parts.push({ id: id[1]!, lines: [{ line, prefix: id[0].length }] });
    else current.lines.push({ line, prefix: 0 });
  }
  const texts = parts.flatMap((p) => {
    const text = joinPart(p.lines);
    // Identifiers glued after a space inside one part (not at a line start) start parts too.
    return text.split(gluedIdentifier).map((t, i) => {
      const glued = i > 0 ? sepaIdentifier.exec(t) : null;
      return glued ? { id: glued[1]!, text: t.slice(glued[0].length) } : { id: i === 0 ? p.id : '', text: t };
    });
  });
  const found = (id: string) => texts.find((t) => t.id === id)?.text;
  const svwz = found('SVWZ');
  const free = texts.filter((t) => t.id === '').map((t) => t.text);
  const hasSepa = texts.some((t) => t.id !== '');
  const subject = svwz ?? (hasSepa ? (free[0] ?? '') : free.join(' '));
  const eref = squash(found('EREF') ?? '');
  return {
    subject: withoutAccounts(squash(subject).replace(bankTrailer, '')),
    endToEnd: eref && eref.toUpperCase() !== 'NOTPROVIDED' ? eref : null,
  };
}

// --- 2. SWIFT /TAG/ layout -----------------------------------------------------------------

/**
 * The tags of the Dutch banks' structured field 86 (SWIFT-style codes), longest first. A tag not
 * listed runs into the value before it: Rabobank's `/EREF/<id>/TRCD/541/` (its transaction code,
 * every credit of its 2025 export) gave the end-to-end id `<id>/TRCD/541`, so the camt.053's copy
 * (EndToEndId `<id>`) was another payment and stored again, and `541` stood among the payer's
 * references as an order number. Knab writes /BBAN/, ABN AMRO /NRTX/, /PIND/ and /RTYP/.
 */
const tags = [
  'CDTRREFTP',
  'CDTRREF',
  'TRTP',
  'IBAN',
  'NAME',
  'REMI',
  'EREF',
  'ORDP',
  'BENM',
  'ADDR',
  'ISDT',
  'CSID',
  'MARF',
  'ACCW',
  'CNTP',
  'RTRN',
  'PREF',
  'ULTC',
  'ULTD',
  'ULTB',
  'PURP',
  'SCOR',
  'ISSR',
  'BUSP',
  'CHGS',
  'EXCH',
  'OCMT',
  'TRCD',
  'BBAN',
  'NRTX',
  'PIND',
  'RTYP',
  'BIC',
  'CUR',
  'CD',
];
const tagPattern = new RegExp(`/(${tags.join('|')})/`);

function tagged(text: string): Details | null {
  const marks = [...text.matchAll(new RegExp(tagPattern.source, 'g'))];
  // A value ends at the next tag; ING and Rabobank close values with a '/' of their own.
  const fields = marks.map((m, i) => ({
    tag: m[1]!,
    value: text
      .slice(m.index + m[0].length, marks[i + 1]?.index ?? text.length)
      .trim()
      .replace(/\/+$/, ''),
  }));
  const value = (tag: string) => fields.find((f) => f.tag === tag)?.value ?? '';
  const nameAfter = (party: string) => fields.find((f, i) => f.tag === 'NAME' && fields[i - 1]?.tag === party)?.value;
  const named = fields.find((f, i) => f.tag === 'NAME' && !/^(BENM|ULTC|ULTD|ULTB)$/.test(fields[i - 1]?.tag ?? ''))?.value;
  const counterparty = value('CNTP').split('/')[2] ?? '';
  // ING and Rabobank: /REMI/USTD//text/ (unstructured) or /REMI/STRD/CUR/reference/ (structured).
  const remi = value('REMI').replace(/^USTD\/\//, '');
  const structured = remi === 'STRD' ? value('CUR') : '';
  // No tag the payer writes or is named by: another layout that only starts with a tag (below).
  if (!fields.some((f) => /^(REMI|NAME|CNTP|EREF|CDTRREF|RTRN)$/.test(f.tag))) return null;
  const eref = value('EREF');
  const subject = structured ? '' : withoutAccounts(remi);
  const references = [eref.toUpperCase() === 'NOTPROVIDED' ? '' : eref, value('CDTRREF'), structured, ...creditorReferences(subject)];
  return {
    sender: squash(nameAfter('ORDP') ?? named ?? counterparty),
    subject,
    payerReferences: [...new Set(references.filter(Boolean))],
    businessCode: '',
    returned: fields.some((f) => f.tag === 'RTRN' && f.value !== ''),
    endToEndId: eref.toUpperCase() === 'NOTPROVIDED' ? '' : eref,
  };
}

/**
 * Komercijalna banka Skopje (fruitl00p/php-mt940's Kbs files) starts with `/ORDP/account` (or
 * `/BENM/`) and goes on in lines of its own: `/name`, `/ref//ref`, `/text`, with no tag the
 * /TAG/ reading takes a payer or a text from. Before, such a payment was stored with no sender
 * and no subject ("Uplata po faktura 747" lost), so it never paid the order it named. Our choice,
 * no reference describes the layout: its lines, each less its leading tag or `/`, are the subject
 * (the name among them; the matching reads no name from a subject), joined by a space.
 */
function untagged(lines: string[]): Details {
  const leading = new RegExp(`^\\s*(?:${tagPattern.source}|/)`);
  return withReferences('', lines.map((l) => l.replace(leading, '')).join(' '));
}

// --- 3. Free text ----------------------------------------------------------------------------

/**
 * SEPA return reasons (ISO 20022 ExternalReturnReason1Code, those of a letter pair and digits, as
 * the EPC rulebooks use them). ING's unstructured IBP layout starts the text of a returned
 * payment of the holder's own with its reason (`AC04 NL20INGB... Creditor Name ...`: ING's
 * provided example in gingerpayments/python-libmt94x).
 */
const returnReason = /^(?:AC01|AC03|AC04|AC06|AC13|AG01|AG02|AM04|AM05|AM09|BE05|ED05|FF01|MD01|MD02|MD06|MD07|MS02|MS03|RC01|RR01|RR02|RR03|RR04|SL01|TM01)\s/;

function freeText(text: string): Details {
  if (!text) return none;
  // A return names the holder's own payment: its text (often an order number the holder wrote
  // on a refund) must never read as a customer's payment.
  if (returnReason.test(text)) return { ...withReferences('', text), returned: true };
  const knab = /^(.*?)\s*(?:REK:\s*\S*?\s*\/\s*)?NAAM:\s*(.*)$/.exec(text);
  if (knab) {
    // ABN AMRO's SEPA layout goes on after the name: "NAAM: name MACHTIGING: ... OMSCHRIJVING:
    // text KENMERK: ref" (zilverline/mt940's ABN AMRO files). The name ends at the next label;
    // the payer's text is OMSCHRIJVING (with its KENMERK), else what follows the name (an
    // acceptgiro's BETALINGSKENM.); Knab's text stands before REK:/NAAM:. A label may follow the
    // name without a space where the name filled its 65-character line.
    const [name = '', rest = ''] = knab[2]!.split(abnLabel);
    const description = /\bOMSCHRIJVING:\s*(.*?)\s*(?:(?<![A-Z0-9])(?:NAAM|MACHTIGING|BETALINGSKENM\.|IBAN|BIC|INCASSANT):|$)/.exec(rest)?.[1];
    return withReferences(name, description ?? (rest.trim() ? rest : knab[1]!));
  }
  const postFinance = /\bAUFTRAGGEBER:\s*(.*?)(?:\s+MITTEILUNGEN:\s*(.*))?$/.exec(text);
  if (postFinance) return withReferences(withoutTrailingAccounts(postFinance[1]!), postFinance[2] ?? '');
  return withReferences('', text);
}

/**
 * mBank (PL) labels its text: "911 TRANSAKCJA COLLECT; ID IPH: XX..; Z RACH.: <payer's account>;
 * OD: <name>  <address>; TYT.: <title>; TNR: <id>" (its files in svenstaro/mt940-rs and
 * wolph/mt940). The payer is OD's name, which ends at the two blanks before the address (the
 * whole OD value where there are none); the subject is the title. Before, the whole text was the
 * subject and the sender empty: the payer's house number (`120/4`) and account stood in the text
 * the matching reads, and no payment was matched by name. Both labels, each after a `;`, or this
 * is not read.
 */
const mBankLabel = /(?:^|;)\s*(ID IPH|Z RACH\.|OD|TYT\.|TNR):/g;

function mBankLabelled(text: string): Details | null {
  const marks = [...text.matchAll(mBankLabel)];
  const value = (label: string) => {
    const i = marks.findIndex((m) => m[1] === label && m[0].startsWith(';'));
    return i < 0 ? undefined : text.slice(marks[i]!.index + marks[i]![0].length, marks[i + 1]?.index ?? text.length);
  };
  const from = value('OD');
  const title = value('TYT.');
  if (from === undefined || title === undefined) return null;
  return withReferences(from.trim().split(/\s{2,}/)[0]!, title);
}

/** The first of ABN AMRO's labels after NAAM: (the rest of the text is kept whole, hence the limit). */
const abnLabel = /\s*(?=(?:OMSCHRIJVING|KENMERK|MACHTIGING|BETALINGSKENM\.|IBAN|BIC|INCASSANT|ID DEBITEUR):)(.*)/;

function withReferences(sender: string, subject: string): Details {
  const clean = withoutAccounts(subject);
  return { sender: squash(sender), subject: clean, payerReferences: creditorReferences(clean), businessCode: '', returned: false };
}

/** PostFinance ends the payer's address with the booking date and the payer's account ("131209CH98765432"). */
function withoutTrailingAccounts(text: string): string {
  return text.replace(/(\s+(?=\S*\d{6})\S{10,})+$/, '');
}
