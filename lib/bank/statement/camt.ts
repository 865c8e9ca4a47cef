/**
 * CAMT as banks deliver it: camt.053 (BankToCustomerStatement, Document/BkToCstmrStmt/Stmt) and
 * camt.054 (BankToCustomerDebitCreditNotification, Document/BkToCstmrDbtCdtNtfctn/Ntfctn, where
 * Swiss banks deliver the payments of a batch credit), versions .001.02 to .001.13 (CBPR+ moved to
 * .13 in November 2026; the namespace's version is not checked): the elements read here (Acct,
 * Ntry, NtryDtls/TxDtls) keep their names across them; where they differ (Sts as text or Sts/Cd,
 * Dbtr/Nm or Dbtr/Pty/Nm, TxDtls/Amt or AmtDtls/TxAmt/Amt) both are read. An entry
 * is read by camt-entry.ts, its payer's text and references by camt-remittance.ts.
 */
import { invalidInput } from '../../errors';
import { list, node, Node, refuse, textOf } from './camt-node';
import { CamtFile, CamtMessage, readEntry } from './camt-entry';
import { parseCamtXml } from './camt-xml';
import { ibanOfAccount } from './entry-key';
import type { ParsedStatement, StatementEntry } from './statement.type';

/** The two messages read: their root element and the element of one statement or notification. */
const kinds = [
  { format: 'camt.053', root: 'BkToCstmrStmt', message: 'Stmt' },
  { format: 'camt.054', root: 'BkToCstmrDbtCdtNtfctn', message: 'Ntfctn' },
] as const;

/**
 * Where the message is looked for: the first 64 KB, not the first few: a business application
 * header before the Document (see documentOf) may carry an XML signature with its certificate,
 * kilobytes of base64.
 */
const head = (text: string): string => text.slice(0, 64 * 1024);

export const isCamt = (text: string): boolean =>
  /urn:iso:std:iso:20022:tech:xsd:camt\.05[34]\.\d{3}\.\d{2}/.test(head(text)) || /<(\w+:)?(BkToCstmrStmt|BkToCstmrDbtCdtNtfctn)[\s>]/.test(head(text));

export const isCamtReport = (text: string): boolean =>
  /urn:iso:std:iso:20022:tech:xsd:camt\.052\.\d{3}\.\d{2}/.test(head(text)) || /<(\w+:)?BkToCstmrAcctRpt[\s>]/.test(head(text));

/** Parses a camt.053 or camt.054 document; a malformed one is a 400 naming the element (or the XML line). */
export async function parseCamt(text: string): Promise<ParsedStatement> {
  const named = /camt\.054/.test(text.slice(0, 2000)) || /<(\w+:)?BkToCstmrDbtCdtNtfctn[\s>]/.test(head(text)) ? 'camt.054' : 'camt.053';
  if (/<!DOCTYPE|<!ENTITY/i.test(text))
    throw invalidInput('xml_doctype_refused', `${named}: XML with a DOCTYPE or entity declarations is not accepted`, 'body');
  let doc: unknown;
  try {
    doc = await parseCamtXml(text);
  } catch (err) {
    throw invalidInput('malformed_statement', `${named}: the XML is malformed: ${(err as Error).message.split('\n')[0]}`, 'body');
  }
  const document = documentOf(doc);
  const kind = kinds.find((k) => document[k.root] !== undefined);
  if (!kind) throw refuse(named, 'Document/BkToCstmrStmt', 'is missing: not a camt.053 statement or camt.054 notification (Document/BkToCstmrDbtCdtNtfctn)');
  const messages = list(node(document[kind.root])[kind.message]);
  const at = `Document/${kind.root}/${kind.message}`;
  if (!messages.length) throw refuse(kind.format, at, 'is missing');
  const result: ParsedStatement = { format: kind.format, statements: messages.length, entries: [], debits: 0, returns: 0, unbooked: 0, reversals: [] };
  const file: CamtFile = { seen: new Map(), reversals: new Map(), legacy: new Map(), days: new Map() };
  const msgId = textOf(node(node(document[kind.root]).GrpHdr).MsgId);
  const firstOf = new Map<string, StatementEntry[]>();
  messages.forEach((m, s) => {
    const message = node(m);
    const context = messageOf(kind.format, message, msgId && `${msgId}/${s + 1}`);
    // Only a file of several statements can repeat one (and a single one is not serialised).
    const identity = messages.length > 1 ? identityOf(message) : '';
    const first = firstOf.get(identity);
    const from = result.entries.length;
    // A repeat's keys are the first's: read apart so that it gives no `#2` to a later statement.
    const into: CamtFile = first ? { seen: new Map(), reversals: new Map(), legacy: new Map(), days: file.days } : file;
    list(message.Ntry).forEach((ntry, n) => readEntry(node(ntry), `${at}[${s + 1}]/Ntry[${n + 1}]`, n + 1, context, into, result));
    const added = result.entries.slice(from);
    if (first) {
      added.forEach((entry, i) => {
        entry.reference = first[i]!.reference;
        entry.legacyReference = first[i]!.legacyReference;
      });
    } else firstOf.set(identity, added);
  });
  return result;
}

/**
 * What a statement or notification says, but for when this copy was made (CreDtTm) and its copy
 * mark (CpyDplctInd): one that equals an earlier one of the file is that statement again (a
 * duplicate delivery joined to the original, overlapping downloads in one file), so its entries
 * take the first's keys and are stored once; a statement of other entries is never one.
 */
function identityOf(message: Node): string {
  const { CreDtTm: _created, CpyDplctInd: _copy, ...said } = message;
  return JSON.stringify(said);
}

/**
 * The Document: the root element, or a child of the root: ISO 20022 messages sent over SWIFT come
 * as the business application header (AppHdr) and the Document side by side in an envelope
 * (prowide-iso20022's camt.053.001.07 test message: `<message><AppHdr/><Document/></message>`).
 */
function documentOf(doc: unknown): Node {
  const top = node(doc);
  if (top.Document !== undefined) return node(top.Document);
  const inEnvelope = Object.values(top).find((root) => node(root).Document !== undefined);
  return node(node(inEnvelope).Document);
}

/**
 * `orElse`: the group header's MsgId and the statement's position in the file, the id of a
 * statement or notification without its own Id (libeufin's GLS camt.054 sample has none). The id
 * is read only for the key entries without a bank reference had before keys named the booking
 * (camt-entry.ts, `legacyReference`): a file imported then is still recognised.
 */
function messageOf(format: CamtMessage['format'], message: Node, orElse: string): CamtMessage {
  const acct = node(message.Acct);
  const id = node(acct.Id);
  const account = textOf(id.IBAN) || textOf(node(id.Othr).Id);
  return { format, account, iban: account ? ibanOfAccount(account) : null, currency: textOf(acct.Ccy), id: textOf(message.Id) || orElse };
}
