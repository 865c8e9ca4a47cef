/**
 * CAMT.053 (ISO 20022 BankToCustomerStatement) as banks deliver it: camt.053.001.02 and
 * camt.053.001.08 (and the versions between, which keep these elements). Follows the ISO 20022
 * message definitions BankToCustomerStatementV02/V08 (Document/BkToCstmrStmt/Stmt/Ntry/NtryDtls/
 * TxDtls) and the German banks' usage (DK "DFÜ-Abkommen", Anlage 3): a batch entry carries one
 * TxDtls per payment; V02 names the payer in RltdPties/Dbtr/Nm, V08 in RltdPties/Dbtr/Pty/Nm;
 * V02 has Sts as text, V08 as Sts/Cd; the amount of one payment of a batch is TxDtls/Amt (V08) or
 * TxDtls/AmtDtls/TxAmt/Amt (V02).
 */
import { XMLParser } from 'fast-xml-parser';
import { invalidInput } from '../../errors';
import { foldOrdered, parseInWorker } from '../../http/xml-worker';
import { clip, ParsedStatement, StatementEntry } from './statement.type';

type Node = Record<string, unknown>;

/**
 * The project's XML settings (lib/http/xml.ts), namespace prefixes dropped; parsed in document
 * order and folded into the usual shape (foldOrdered), which is cheaper on a large statement.
 */
const options = {
  ignoreAttributes: true,
  parseTagValue: false,
  processEntities: true,
  htmlEntities: true,
  trimValues: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  removeNSPrefix: true,
  preserveOrder: true,
};
const parser = new XMLParser(options);
const inPlaceBytes = 64 * 1024;

/** A 400 naming the element at fault. */
const refuse = (path: string, what: string) => invalidInput('malformed_statement', `camt.053: ${path} ${what}`, path);

const list = (value: unknown): unknown[] => (value === undefined || value === '' ? [] : Array.isArray(value) ? value : [value]);
const node = (value: unknown): Node => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Node) : {});
const textOf = (value: unknown): string =>
  typeof value === 'string' ? value : typeof value === 'object' && value !== null ? textOf((value as Node)['#text']) : '';

export const isCamt = (text: string): boolean =>
  /urn:iso:std:iso:20022:tech:xsd:camt\.053\.\d{3}\.\d{2}/.test(text.slice(0, 2000)) || /<(\w+:)?BkToCstmrStmt[\s>]/.test(text.slice(0, 4000));

/** Parses a CAMT.053 document; a malformed one is a 400 naming the element (or the XML line). */
export async function parseCamt(text: string): Promise<ParsedStatement> {
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw invalidInput('xml_doctype_refused', 'camt.053: XML with a DOCTYPE or entity declarations is not accepted');
  let doc: unknown;
  try {
    doc = text.length <= inPlaceBytes ? foldOrdered(parser.parse(text, true) as unknown[]) : await parseInWorker(text, options, true);
  } catch (err) {
    throw invalidInput('malformed_statement', `camt.053: the XML is malformed: ${(err as Error).message.split('\n')[0]}`);
  }
  const root = node(node(doc).Document).BkToCstmrStmt;
  if (root === undefined) throw refuse('Document/BkToCstmrStmt', 'is missing: not a camt.053 statement');
  const statements = list(node(root).Stmt);
  if (!statements.length) throw refuse('Document/BkToCstmrStmt/Stmt', 'is missing');
  const result: ParsedStatement = { format: 'camt.053', statements: statements.length, entries: [], debits: 0, returns: 0, unbooked: 0 };
  statements.forEach((stmt, s) => readStatement(node(stmt), `Document/BkToCstmrStmt/Stmt[${s + 1}]`, result));
  return result;
}

function readStatement(stmt: Node, path: string, result: ParsedStatement): void {
  const account = node(node(stmt.Acct).Id);
  const iban = textOf(account.IBAN) || textOf(node(account.Othr).Id);
  list(stmt.Ntry).forEach((ntry, n) => readEntry(node(ntry), `${path}/Ntry[${n + 1}]`, iban, result));
}

function readEntry(ntry: Node, path: string, iban: string, result: ParsedStatement): void {
  const amount = decimal(ntry.Amt, `${path}/Amt`);
  const side = textOf(ntry.CdtDbtInd);
  if (side !== 'CRDT' && side !== 'DBIT') throw refuse(`${path}/CdtDbtInd`, 'must be CRDT or DBIT');
  const status = textOf(ntry.Sts) || textOf(node(ntry.Sts).Cd);
  if (!status) throw refuse(`${path}/Sts`, 'is missing');
  const date = entryDate(ntry, path);
  const txs = list(node(list(ntry.NtryDtls)[0]).TxDtls).map(node);
  for (const extra of list(ntry.NtryDtls).slice(1)) txs.push(...list(node(extra).TxDtls).map(node));
  // A reversal (RvslInd) undoes an earlier entry: no payment of a buyer either way.
  if (side === 'DBIT' || textOf(ntry.RvslInd) === 'true') {
    result.debits++;
    return;
  }
  if (status !== 'BOOK') {
    result.unbooked++;
    return;
  }
  const entryRef = textOf(ntry.AcctSvcrRef) || textOf(ntry.NtryRef);
  if (txs.length <= 1) {
    result.entries.push(entryOf(txs[0] ?? {}, ntry, amount, date, refOf(iban, textOf(node(txs[0]?.Refs).AcctSvcrRef) || entryRef)));
    return;
  }
  txs.forEach((tx, i) => {
    const txPath = `${path}/NtryDtls/TxDtls[${i + 1}]`;
    const txAmount = decimal(tx.Amt ?? node(node(tx.AmtDtls).TxAmt).Amt, `${txPath}/Amt`);
    const own = textOf(node(tx.Refs).AcctSvcrRef);
    result.entries.push(entryOf(tx, ntry, txAmount, date, refOf(iban, own || (entryRef && `${entryRef}/${i + 1}`))));
  });
}

const refOf = (iban: string, ref: string): string | null => (ref ? `${iban}|${ref}` : null);

function entryOf(tx: Node, ntry: Node, amount: string, date: Date, reference: string | null): StatementEntry {
  const parties = node(tx.RltdPties);
  const party = (p: unknown) => textOf(node(p).Nm) || textOf(node(node(p).Pty).Nm);
  const sender = party(parties.Dbtr) || party(parties.UltmtDbtr);
  const rmt = node(tx.RmtInf);
  const structured = list(rmt.Strd)
    .map(node)
    .flatMap((s) => [textOf(node(s.CdtrRefInf).Ref), ...list(s.AddtlRmtInf).map(textOf)]);
  const parts = [...list(rmt.Ustrd).map(textOf), ...structured].filter(Boolean);
  const subject = parts.length ? parts.join(' ') : textOf(tx.AddtlTxInf) || textOf(ntry.AddtlNtryInf);
  return { reference, transferDate: date, sender: clip(sender, 255), subject: clip(subject, 1000), amount, currency: 'EUR', payerReferences: [] };
}

function decimal(value: unknown, path: string): string {
  const text = textOf(value).trim();
  if (!/^\d{1,12}(\.\d{1,5})?$/.test(text)) throw refuse(path, `must be an amount, not "${text.slice(0, 40)}"`);
  const [whole, fraction = ''] = text.split('.');
  if (fraction.length > 2 && /[1-9]/.test(fraction.slice(2))) throw refuse(path, 'has more than two decimal places');
  return `${BigInt(whole!)}.${fraction.slice(0, 2).padEnd(2, '0')}`;
}

function entryDate(ntry: Node, path: string): Date {
  const pick = (d: unknown) => textOf(node(d).Dt) || textOf(node(d).DtTm);
  const text = pick(ntry.BookgDt) || pick(ntry.ValDt);
  const isDay = /^\d{4}-\d{2}-\d{2}$/.test(text);
  const date = isDay ? new Date(`${text}T00:00:00Z`) : new Date(text);
  // JavaScript reads 2026-02-30 as 2 March: a day that does not exist is refused.
  const exists = Number.isFinite(date.getTime()) && (!isDay || date.toISOString().startsWith(text));
  if (!text || !exists) throw refuse(`${path}/BookgDt`, `must be a date, not "${text.slice(0, 40)}"`);
  return date;
}
