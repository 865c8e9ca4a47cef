/**
 * One CAMT entry (Ntry, the same structure in camt.053 Stmt and camt.054 Ntfctn) into the
 * payments it holds, or counted as skipped. ISO 20022 BankToCustomerStatement/
 * DebitCreditNotification V02-V08 with the Swiss (SPS) and German (DK Anlage 3) usage:
 * - A DBIT entry is a debit; a booked DBIT entry with RvslInd reverses a credit booked before and
 *   is read into `reversals` too (each payment as a credit is read); an entry not booked (Sts, V02-V06 as text, V07+ as Sts/Cd) is
 *   unbooked; both counted whole, whatever they hold.
 * - An entry without Amt whose every TxDtls has its own amount is read as a batch, its side
 *   (CdtDbtInd) from its payments when it names none: PostFinance's test platform writes a batch
 *   credit so (libeufin's nexus sample postfinance_camt054.xml, whose test expects its two
 *   payments, 10.00 and 2.53 CHF). The schema requires Ntry/Amt; an entry without it and
 *   without the payments' own amounts is still refused, naming Ntry/Amt.
 * - A booked CRDT entry is one payment per TxDtls (of every NtryDtls); without TxDtls, or with one,
 *   the entry is one payment of the entry's Amt (the amount booked: a lone TxDtls/Amt may be in
 *   another currency, genkgo's v8 sample has 0 SEK under an 8.85 EUR entry). In a batch each
 *   payment has its own amount: TxDtls/Amt (V04+), TxDtls/AmtDtls/TxAmt/Amt (V02), or
 *   AmtDtls/InstdAmt/Amt in the entry's currency (ownAmountOf); a payment whose only amount is an
 *   InstdAmt in another currency is not read, counted with the debits and named in
 *   ParsedStatement.unread (a task), the rest of the file read; one with no amount is refused.
 * - A payment that is a return or reversal is counted in `returns`, never an entry: the entry's
 *   RvslInd (a CRDT reversal undoes a debit of the holder's), TxDtls/RtrInf, or a bank
 *   transaction code of the ISO 20022 list (ExternalBankTransactionSubFamily1Code) meaning money
 *   coming back (RETURN_SUB_FAMILIES), on the entry or the payment; or a German DK code in
 *   BkTxCd/Prtry/Cd whose business code (GVC) or SWIFT type the MT940 reader takes for a return
 *   (./return-codes: 159 "SEPA-Überweisung Retoure", 181 "Wiedergutschrift", 109, 899 "Storno",
 *   NRTI ...), so that one booking is a return in both formats.
 * - A DBIT payment inside a credit batch (charges netted into the batch) counts as a debit, and
 *   so does a credit of 0.00 (no money received; the MT940 reader's rule): an entry, or a
 *   payment of a batch, of 0.00 is no transfer. A batch whose total is 0.00 is still read
 *   payment by payment.
 */
import { attributeOf, list, node, Node, refuse, textOf } from './camt-node';
import { endToEndIdOf, payerReferencesOf, senderOf, subjectOf } from './camt-remittance';
import { acrossFormatsOf, contentDigest, keyOf, occurrenceOf, tiedAcrossFormats } from './entry-key';
import { isDkReturn } from './return-codes';
import type { ParsedStatement, StatementEntry, UnreadPayments } from './statement.type';

/** What an entry needs of its statement or notification. */
export interface CamtMessage {
  format: 'camt.053' | 'camt.054';
  /** Acct/Id/IBAN, else Acct/Id/Othr/Id ('' when the file has no Acct). */
  account: string;
  /** Acct/Ccy ('' when absent). */
  currency: string;
  /** The account's IBAN (./entry-key.ts ibanOfAccount), null when the file has none. */
  iban: string | null;
  /**
   * Stmt/Id or Ntfctn/Id, else GrpHdr/MsgId and the message's position (`<MsgId>/2`); '' when
   * neither. Only for the key of before (`legacyReference`).
   */
  id: string;
}

/**
 * What one file's entries share: the keys given so far and the keys of before given so far (see
 * paymentOf), the dates read (text to day).
 */
export interface CamtFile {
  seen: Map<string, number>;
  /** The keys of reversals given so far (apart from the credits': their own `#2`). */
  reversals: Map<string, number>;
  legacy: Map<string, number>;
  days: Map<string, Day>;
}

/** A booking day: YYYY-MM-DD and its 00:00 UTC in ms. */
interface Day {
  day: string;
  ms: number;
}

/**
 * ISO 20022 bank transaction sub-families that, on a credit, bring the holder's own money back:
 * RRTN reversal due to payment return (a credit transfer of the holder's returned), RPCR reversal
 * due to payment cancellation request, RCDD the same for a direct debit, PRDD reversal due to
 * payment reversal, UPDD reversal due to return/unpaid direct debit, ARET ACH return, AREV ACH
 * reversal, CQRV cheque reversal, UPCQ/XPCQ unpaid (foreign) cheque, UPCT unpaid card
 * transaction, UDFT dishonoured/unpaid draft.
 */
const RETURN_SUB_FAMILIES = new Set(['RRTN', 'RPCR', 'RCDD', 'PRDD', 'UPDD', 'ARET', 'AREV', 'CQRV', 'UPCQ', 'XPCQ', 'UPCT', 'UDFT']);

function isReturnCode(bkTxCd: unknown): boolean {
  const code = node(bkTxCd);
  const subFamily = textOf(node(node(code.Domn).Fmly).SubFmlyCd);
  return RETURN_SUB_FAMILIES.has(subFamily) || list(code.Prtry).some((p) => isDkReturn(textOf(node(p).Cd)));
}

/** A 400 naming the element at `at`. */
type Fail = (at: string, what: string) => Error;

const isReturnPayment = (tx: Node) => list(tx.RtrInf).length > 0 || isReturnCode(tx.BkTxCd);

export function readEntry(ntry: Node, path: string, n: number, message: CamtMessage, file: CamtFile, result: ParsedStatement): void {
  const fail: Fail = (at, what) => refuse(message.format, at, what);
  const details = list(ntry.NtryDtls);
  const txs: { tx: Node; path: string }[] = [];
  details.forEach((d, k) =>
    list(node(d).TxDtls).forEach((tx, i) => txs.push({ tx: node(tx), path: `${path}/NtryDtls${details.length > 1 ? `[${k + 1}]` : ''}/TxDtls[${i + 1}]` })),
  );
  // Amt@Ccy, else Acct/Ccy: the currency of the amounts booked ('' when neither).
  const currency = attributeOf(ntry.Amt, 'Ccy') || message.currency;
  // Without Ntry/Amt no instructed amount can be told booked (instructedBooked): each payment needs its own.
  const perPayment = ntry.Amt === undefined && txs.length > 0 && txs.every(({ tx, path: txPath }) => ownAmountOf(tx, txPath, currency, false) !== undefined);
  const amount = perPayment ? '' : decimal(ntry.Amt, `${path}/Amt`, fail);
  const side = textOf(ntry.CdtDbtInd) || (perPayment ? sideOfPayments(txs) : '');
  if (side !== 'CRDT' && side !== 'DBIT') throw fail(`${path}/CdtDbtInd`, 'must be CRDT or DBIT');
  const status = textOf(ntry.Sts) || textOf(node(ntry.Sts).Cd) || textOf(node(ntry.Sts).Prtry);
  if (!status) throw fail(`${path}/Sts`, 'is missing');
  const reversal = /^(true|1)$/.test(textOf(ntry.RvslInd));
  if (side === 'DBIT' && !(reversal && status === 'BOOK')) {
    result.debits++;
    return;
  }
  if (status !== 'BOOK') {
    result.unbooked++;
    return;
  }
  // Read only for what is imported: a pending or debit entry may come without dates.
  const booked: BookedEntry = {
    ntry,
    path,
    n,
    date: entryDate(ntry, path, file.days, fail),
    amount,
    currency,
    bankRef: bankReferenceOf(ntry.AcctSvcrRef) || bankReferenceOf(ntry.NtryRef),
    writtenRef: textOf(ntry.AcctSvcrRef) || textOf(ntry.NtryRef),
    batch: txs.length > 1 || perPayment,
    instructedBooked: instructedBooked(ntry, txs, currency),
  };
  const payments = booked.batch ? txs : [{ tx: txs[0]?.tx ?? {}, path }];
  // The payments of a batch that give only an instructed amount not known booked (ownAmountOf:
  // in another currency, or instructedBooked false): not read, a task for the seller
  // (UnreadPayments). One that gives no amount at all is refused.
  const unread: UnreadPayments['payments'] = [];
  const readable = ({ tx, path: txPath }: { tx: Node; path: string }) => {
    if (!booked.batch || ownAmountOf(tx, txPath, currency, booked.instructedBooked)) return true;
    const instructed = instructedOf(tx);
    if (!instructed)
      throw fail(
        `${txPath}/Amt`,
        "is missing: a payment of a batch entry needs its own amount (Amt, AmtDtls/TxAmt/Amt, or AmtDtls/InstdAmt/Amt in the entry's currency)",
      );
    unread.push({ payer: senderOf(tx), instructed, why: unreadWhy(ntry, txs, tx, currency) });
    return false;
  };
  const tellUnread = () => {
    if (unread.length) result.unread = [...(result.unread ?? []), unreadOf(booked, side === 'DBIT', unread, message)];
  };
  if (side === 'DBIT') {
    // A DBIT reversal takes back a credit booked before: each payment read like a credit, under a
    // key of its own (`reversal ...`, never a credit's), and counted with the debits as before
    // (one debit per entry, as every DBIT entry).
    result.debits++;
    payments.forEach(({ tx, path: txPath }, i) => {
      if (!readable({ tx, path: txPath })) return;
      const payment = paymentOf(booked, tx, txPath, i + 1, message, { ...file, seen: file.reversals, legacy: new Map() }, fail);
      // The account's IBAN kept on the reversal too (bank-reversal.service.ts, the other format's record of a reversal applied already).
      const facts = acrossFormatsOf(payment);
      if (payment.amount !== '0.00')
        result.reversals.push(
          tiedAcrossFormats(
            {
              ...payment,
              reference: `reversal ${payment.reference!}`,
              legacyReference: null,
              ...(payment.nonrefKey ? { nonrefKey: `reversal ${payment.nonrefKey}` } : {}),
            },
            facts?.iban ?? null,
            facts?.endToEndId ?? '',
          ),
        );
    });
    tellUnread();
    return;
  }
  // A CRDT reversal, or a return code on the entry: every payment in it comes back.
  const entryReturns = reversal || isReturnCode(ntry.BkTxCd);
  payments.forEach(({ tx, path: txPath }, i) => {
    if (entryReturns || isReturnPayment(tx)) result.returns++;
    else if (booked.batch && textOf(tx.CdtDbtInd) === 'DBIT') result.debits++;
    // Counted with the debits: no transfer is stored for it (its task says so).
    else if (!readable({ tx, path: txPath })) result.debits++;
    else {
      // A credit of 0.00 brings no money (a closing entry, a bank's information line): counted
      // with the debits, as the MT940 reader counts it, never a transfer an order could take.
      const payment = paymentOf(booked, tx, txPath, i + 1, message, file, fail);
      if (payment.amount === '0.00') result.debits++;
      else result.entries.push(payment);
    }
  });
  tellUnread();
}

/** A booked credit entry as its payments need it. */
interface BookedEntry {
  ntry: Node;
  path: string;
  /** Its position in the statement (1-based). */
  n: number;
  date: Day;
  amount: string;
  /** Amt@Ccy, else Acct/Ccy ('' when neither). */
  currency: string;
  /** AcctSvcrRef, else NtryRef ('' when neither; NONREF is none: bankReferenceOf). */
  bankRef: string;
  /** AcctSvcrRef, else NtryRef as written, NONREF too: the reference the keys of before read. */
  writtenRef: string;
  /** Several TxDtls: each is a payment with its own amount. */
  batch: boolean;
  /** The batch's instructed amounts in its currency are the amounts booked (instructedBooked). */
  instructedBooked: boolean;
}

/** The transfer of one payment (the `position`th of its entry). */
function paymentOf(entry: BookedEntry, tx: Node, txPath: string, position: number, message: CamtMessage, file: CamtFile, fail: Fail): StatementEntry {
  const own = entry.batch
    ? paymentAmount(ownAmountOf(tx, txPath, entry.currency, entry.instructedBooked)!, fail)
    : { amount: entry.amount, currency: '', path: `${entry.path}/Amt` };
  const currency = own.currency || entry.currency;
  if (!currency) throw fail(own.path, 'has no currency: neither the amount (Ccy) nor the account (Acct/Ccy) names one');
  if (!/^[A-Z]{3}$/.test(currency)) throw fail(own.path, `must name an ISO 4217 currency (Ccy), not "${currency.slice(0, 10)}"`);
  const bankRef = entry.bankRef || bankReferenceOf(node(tx.Refs).AcctSvcrRef);
  // As the keys before read it: NONREF taken for the bank's reference.
  const writtenRef = entry.writtenRef || textOf(node(tx.Refs).AcctSvcrRef);
  // The key before (./entry-key.ts): without a bank reference the statement's Id and the entry's
  // number stood for one, and the position in the entry told a batch's payments apart.
  const legacyRef = writtenRef || (message.id && `${message.id}/${entry.n}`);
  const payment: StatementEntry = {
    reference: occurrenceOf(keyOf('camt', keyParts(entry, tx, bankRef, own.amount, message.account)), file.seen),
    legacyReference: legacyRef ? occurrenceOf(`${message.account}|${legacyRef}|${position}|${own.amount}|${entry.date.day}`, file.legacy) : null,
    transferDate: new Date(entry.date.ms),
    sender: senderOf(tx),
    subject: subjectOf(tx, entry.batch ? '' : textOf(entry.ntry.AddtlNtryInf)),
    amount: own.amount,
    currency,
    payerReferences: payerReferencesOf(tx),
  };
  // The key while NONREF was read as the bank's reference (StatementEntry.nonrefKey).
  if (writtenRef !== bankRef && isNonref(writtenRef)) payment.nonrefKey = keyOf('camt', keyParts(entry, tx, writtenRef, own.amount, message.account));
  return tiedAcrossFormats(payment, message.iban, endToEndIdOf(tx));
}

/**
 * The parts of a payment's key (./entry-key.ts): the account and the bank's reference
 * (AcctSvcrRef, else NtryRef, else the TxDtls Refs/AcctSvcrRef; NONREF is none) with the amount and booking day;
 * without a reference, a digest of the entry as the bank writes it (dates, amount, sign, codes,
 * parties, remittance, the payer's references). A payment of a batch shares the entry's reference
 * with the others (an ESR package id on every TxDtls, PostFinance's batches): its own TxDtls, with
 * what the entry says beside it, tells it from them, not its place in the batch. The same key
 * again in the file is `#2`, `#3`: the occurrence among identical payments. Neither the
 * statement's Id nor its page is in the key: a statement split over several files (MsgPgntn)
 * keys each booking as one file would, and the same booking in a camt.054 and a camt.053 has one
 * key where the bank gives its reference.
 */
function keyParts(entry: BookedEntry, tx: Node, bankRef: string, amount: string, account: string): string[] {
  if (!entry.batch) return bankRef ? [account, bankRef, amount, entry.date.day] : [account, amount, entry.date.day, contentDigest(entry.ntry)];
  const { NtryDtls: _payments, ...booking } = entry.ntry;
  return [account, bankRef, amount, entry.date.day, contentDigest([booking, tx])];
}

/**
 * `NONREF`: the German usage (DK) for "no reference", written where the schema or the bank's
 * system wants a reference and there is none (Atruvia's and the Sparkassen's camt reports write
 * it as AcctSvcrRef). It names no booking: read as the bank's reference, every credit of one
 * amount and day had one key, so two payers' credits of 49.90 collided (the second export's first
 * one taken for the first export's, never stored; the one after it stored again as `#2`). The
 * MT940 reader drops it from :61: as well (./mt940.ts entryOf).
 */
const isNonref = (text: string) => text.trim().toUpperCase() === 'NONREF';

/** A bank reference element's text, '' where it says NONREF (isNonref). */
const bankReferenceOf = (value: unknown): string => {
  const text = textOf(value);
  return isNonref(text) ? '' : text;
};

/**
 * A payment's own amount in a batch: TxDtls/Amt (V04+), else TxDtls/AmtDtls/TxAmt/Amt (V02: the
 * amount booked), else TxDtls/AmtDtls/InstdAmt/Amt (the amount the payer instructed) when it is in
 * `currency`, the entry's (Amt@Ccy, else Acct/Ccy), and `instructed` (the batch's instructed
 * amounts are the amounts booked: instructedBooked): German banks' camt reports give a payment's
 * amount so, InstdAmt alone. Undefined when none: an instructed amount in another currency says
 * nothing of what was booked (the rate and charges are not given), and one the bank may have
 * booked less its charges is not what the account received; neither is taken for it.
 */
function ownAmountOf(tx: Node, path: string, currency: string, instructed: boolean): { element: unknown; path: string } | undefined {
  if (tx.Amt !== undefined) return { element: tx.Amt, path: `${path}/Amt` };
  const amounts = node(tx.AmtDtls);
  const booked = node(amounts.TxAmt).Amt;
  if (booked !== undefined) return { element: booked, path: `${path}/AmtDtls/TxAmt/Amt` };
  const given = node(amounts.InstdAmt).Amt;
  if (instructed && given !== undefined && currency !== '' && attributeOf(given, 'Ccy') === currency)
    return { element: given, path: `${path}/AmtDtls/InstdAmt/Amt` };
  return undefined;
}

/** An amount as whole 1/100,000 (decimal's five places at most), undefined when it is none. */
function hundredThousandths(value: unknown): bigint | undefined {
  const found = /^(\d{1,12})(?:\.(\d{1,5}))?$/.exec(textOf(value).trim());
  return found ? BigInt(found[1]!) * 100000n + BigInt((found[2] ?? '').padEnd(5, '0')) : undefined;
}

/**
 * Whether a batch's instructed amounts (AmtDtls/InstdAmt, in the entry's currency) are what the
 * account received, so a payment that gives only one is read at it (ownAmountOf). ISO 20022 gives
 * InstdAmt "before deduction of charges": a bank that deducted charges booked less, and a 98.00
 * batch of two payments instructed at 50.00 with 1.00 charges each was booked as 100.00 (two
 * orders paid 50.00 in full with money never received). Decision (lib/bank README, CAMT
 * "Payments"): only when no payment carries charges (TxDtls/Chrgs) and the batch's amounts, each
 * payment's own (Amt, TxAmt) else its instructed one, add up to the entry's booked Ntry/Amt;
 * otherwise such payments are not read, as one instructed in another currency.
 */
function instructedBooked(ntry: Node, txs: { tx: Node; path: string }[], currency: string): boolean {
  const booked = hundredThousandths(ntry.Amt);
  if (booked === undefined || txs.some(({ tx }) => tx.Chrgs !== undefined)) return false;
  let total = 0n;
  for (const { tx, path } of txs) {
    const own = ownAmountOf(tx, path, currency, true);
    const amount = own && hundredThousandths(own.element);
    if (amount === undefined) return false;
    total += amount;
  }
  return total === booked;
}

/** Why a payment's instructed amount is not read (UnreadPayments, the seller's task). */
function unreadWhy(ntry: Node, txs: { tx: Node; path: string }[], tx: Node, currency: string): string {
  const given = node(node(tx.AmtDtls).InstdAmt).Amt;
  if (currency === '' || attributeOf(given, 'Ccy') !== currency) return `in another currency than ${currency || "the entry's"}`;
  if (txs.some(({ tx: other }) => other.Chrgs !== undefined)) return 'the batch carries charges (TxDtls/Chrgs), which the bank may have deducted';
  const total = txs.reduce<bigint | undefined>((sum, { tx: other, path }) => {
    const own = ownAmountOf(other, path, currency, true);
    const amount = own && hundredThousandths(own.element);
    return sum === undefined || amount === undefined ? undefined : sum + amount;
  }, 0n);
  const booked = textOf(ntry.Amt).trim() || 'none';
  return total === undefined
    ? `the batch's amounts do not add up to what the entry booked (${booked} ${currency})`
    : `the batch's amounts add up to ${(Number(total) / 100000).toFixed(2)} ${currency}, not the ${booked} ${currency} the entry booked`;
}

/** The instructed amount as the task names it (`25.00 CHF`), '' when none. */
function instructedOf(tx: Node): string {
  const instructed = node(node(tx.AmtDtls).InstdAmt).Amt;
  return instructed === undefined ? '' : `${textOf(instructed).trim()} ${attributeOf(instructed, 'Ccy')}`.trim();
}

/**
 * What the seller is told of a batch entry's payments not read (ParsedStatement.unread): the
 * entry's amount and day, whether it credits or reverses, the payers. Given once per entry: its key
 * is the entry's (its bank reference, amount, day and a digest of the Ntry).
 */
function unreadOf(entry: BookedEntry, reversal: boolean, payments: UnreadPayments['payments'], message: CamtMessage): UnreadPayments {
  return {
    key: keyOf('camt', [message.account, entry.bankRef, entry.amount, entry.date.day, contentDigest(entry.ntry)]),
    reversal,
    amount: entry.amount,
    currency: entry.currency,
    day: entry.date.day,
    path: entry.path,
    payments,
  };
}

/**
 * The side of an entry that names none, from its payments: DBIT when every one is a debit, else
 * CRDT (a credit batch, its debits counted as such), '' when none names a side.
 */
function sideOfPayments(txs: { tx: Node }[]): string {
  const sides = txs.map(({ tx }) => textOf(tx.CdtDbtInd));
  if (sides.every((s) => s === 'DBIT')) return 'DBIT';
  return sides.includes('CRDT') ? 'CRDT' : '';
}

/** One payment's amount in a batch (ownAmountOf), read. */
function paymentAmount({ element, path }: { element: unknown; path: string }, fail: Fail) {
  return { amount: decimal(element, path, fail), currency: attributeOf(element, 'Ccy'), path };
}

function decimal(value: unknown, path: string, fail: Fail): string {
  const text = textOf(value).trim();
  if (!/^\d{1,12}(\.\d{1,5})?$/.test(text)) throw fail(path, `must be an amount, not "${text.slice(0, 40)}"`);
  const [whole, fraction = ''] = text.split('.');
  if (fraction.length > 2 && /[1-9]/.test(fraction.slice(2))) throw fail(path, 'has more than two decimal places');
  return `${whole!.replace(/^0+(?=\d)/, '')}.${fraction.slice(0, 2).padEnd(2, '0')}`;
}

/**
 * The booking date at 00:00 UTC: BookgDt/Dt, or the calendar day written in BookgDt/DtTm
 * (2014-12-31T13:15:00+01:00 is 31 December, not shifted by its offset); ValDt the same way when
 * there is no BookgDt. A Dt may carry a zone too (`2017-04-11+02:00`, `2017-04-11Z`): ISODate is
 * xs:date, whose lexical form allows one, and Raiffeisen (CH) writes it on every date of its
 * camt.053 (ofxstatement-iso20022's davider80.xml); the day written is the day, as for DtTm.
 */
function entryDate(ntry: Node, path: string, days: CamtFile['days'], fail: Fail): Day {
  const booked = ntry.BookgDt !== undefined;
  const element = node(booked ? ntry.BookgDt : ntry.ValDt);
  const text = textOf(element.Dt) || textOf(element.DtTm);
  const known = days.get(text);
  if (known) return known;
  const day = /^(\d{4}-\d{2}-\d{2})(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:\d{2})?$/.exec(text)?.[1];
  const ms = day ? Date.parse(`${day}T00:00:00Z`) : NaN;
  // JavaScript reads 2026-02-30 as 2 March: a day that does not exist is refused.
  if (!day || !Number.isFinite(ms) || !new Date(ms).toISOString().startsWith(day)) {
    throw fail(`${path}/${booked || ntry.ValDt === undefined ? 'BookgDt' : 'ValDt'}`, `must be a date, not "${text.slice(0, 40)}"`);
  }
  days.set(text, { day, ms });
  return { day, ms };
}
