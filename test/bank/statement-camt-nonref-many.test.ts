/**
 * A day of many credits of one amount whose camt.053 carried NONREF as the bank's reference,
 * stored by the version that read NONREF as a reference (keys `camt <IBAN>|NONREF|<amount>|<day>`,
 * `#2`, `#3` ... in file order), then the day's export again, newest first (as some online banks
 * list it), with a few payments not seen before among them. Posted through POST bank/statement/:
 * the answer's counts and the transfers stored afterwards. Each credit is stored once, none is
 * lost (lib/bank README, NONREF). The export is large, as a busy seller's day is: every entry
 * looks for its booking among all those of the one amount and day.
 */
import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { call, newSeller, Seller } from '../support/api';
import { camtStatement, STATEMENT_IBAN } from './camt-statement';

const IBAN = STATEMENT_IBAN;
const DAY = '2026-11-27';
/** Credits stored before: enough that an entry-by-booking comparison of them all is felt. */
const N = 3000;

interface Payment {
  payer: string;
  text: string;
}

const entry = ({ payer, text }: Payment) => `
      <Ntry>
        <Amt Ccy="EUR">19.99</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts>
        <BookgDt><Dt>${DAY}</Dt></BookgDt><ValDt><Dt>${DAY}</Dt></ValDt>
        <AcctSvcrRef>NONREF</AcctSvcrRef>
        <BkTxCd><Prtry><Cd>NTRF+166+9249+888</Cd><Issr>DK</Issr></Prtry></BkTxCd>
        <NtryDtls><TxDtls>
          <Refs><EndToEndId>NOTPROVIDED</EndToEndId></Refs>
          <RltdPties><Dbtr><Nm>${payer}</Nm></Dbtr></RltdPties>
          <RmtInf><Ustrd>${text}</Ustrd></RmtInf>
        </TxDtls></NtryDtls>
      </Ntry>`;

const camt = (id: string, payments: Payment[]) => camtStatement(id, payments.map(entry));

async function post(s: Seller, body: Buffer): Promise<{ entries: unknown; stored: unknown; duplicates: unknown }> {
  const res = await call('bank/statement/', { token: s.token, body, headers: { 'Content-Type': 'application/octet-stream' } });
  expect(res.status, res.text).to.be.oneOf([200, 202]);
  const { entries, stored, duplicates } = res.body.statement as Record<string, unknown>;
  return { entries, stored, duplicates };
}

/** The seller's statement credits by payer and text, and how many of each. */
async function storedPayments(s: Seller): Promise<Map<string, number>> {
  const rows: { sender: string; subject: string }[] = await db()('bank').where({ account_id: s.id, type: 'bank' }).select('sender', 'subject');
  const found = new Map<string, number>();
  for (const r of rows) found.set(`${r.sender} / ${r.subject}`, (found.get(`${r.sender} / ${r.subject}`) ?? 0) + 1);
  return found;
}

describe('bank: many credits of one amount stored before under keys that held NONREF', () => {
  it(`when ${N} such credits come again newest first among payments not seen before, then each credit is stored once and none is lost`, async () => {
    const s = await newSeller();
    // Payer 7 paid two orders of the one price that day: two payments, equal in payer and text.
    const before: Payment[] = Array.from({ length: N }, (_, i) => ({
      payer: `Kunde Nummer ${i === 8 ? 7 : i}`,
      text: `Bestellung ${100000 + (i === 8 ? 7 : i)}`,
    }));
    expect(await post(s, camt('NOON', before))).to.deep.equal({ entries: N, stored: N, duplicates: 0 });
    // As the version before stored them: NONREF as the bank's reference, `#n` the n-th in the file.
    const rows: { internal_id: string; number: string }[] = await db()('bank')
      .where({ account_id: s.id, type: 'bank' })
      .orderBy('number')
      .select('internal_id', 'number');
    expect(rows).to.have.length(N);
    await db().raw('UPDATE bank SET entry_ref = u.key FROM (SELECT unnest(?::bigint[]) AS id, unnest(?::text[]) AS key) u WHERE bank.internal_id = u.id', [
      rows.map((r) => r.internal_id),
      rows.map((_, i) => `camt ${IBAN}|NONREF|19.99|${DAY}${i === 0 ? '' : `#${i + 1}`}`),
    ]);

    // The evening's export, newest first, with a payment not seen before every 500 entries, and a
    // third payment of payer 7 (one more than stored).
    const fresh = (i: number): Payment => ({ payer: `Neuer Kunde ${i}`, text: `Auftrag ${i}` });
    const evening: Payment[] = [];
    [...before].reverse().forEach((p, i) => {
      if (i % 500 === 0) evening.push(fresh(i));
      evening.push(p);
    });
    evening.push(before[7]!);
    const added = evening.length - N;
    expect(await post(s, camt('EVENING', evening))).to.deep.equal({ entries: evening.length, stored: added, duplicates: N });
    // The same export again: nothing new.
    expect(await post(s, camt('EVENING', evening))).to.deep.equal({ entries: evening.length, stored: 0, duplicates: evening.length });

    const stored = await storedPayments(s);
    const expected = new Map<string, number>();
    for (const p of evening) expected.set(`${p.payer} / ${p.text}`, (expected.get(`${p.payer} / ${p.text}`) ?? 0) + 1);
    expect(stored.size).to.equal(expected.size);
    expect([...stored].filter(([k, n]) => expected.get(k) !== n)).to.deep.equal([]);
    expect(stored.get('Kunde Nummer 7 / Bestellung 100007')).to.equal(3);
  });
});
