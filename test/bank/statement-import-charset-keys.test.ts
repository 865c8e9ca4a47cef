/**
 * A Polish statement without bank references imported by an earlier version of Kontor, which read
 * its letters in another code page (ISO-8859-15 before 1732b4e, ISO-8859-2 before bb3ac39), and
 * imported again now: its bookings are keyed by their text (lib/bank/statement/entry-key.ts), and
 * the text read otherwise gave them new keys, so each payment was stored and paid a second time and
 * a reversal taken back again. The earlier import is played by posting the file as that version
 * read it (the same text in UTF-8, which gives the keys it stored). Statements written for Kontor,
 * made-up data, encoded here with iconv; posted through POST bank/statement/ and matched by the
 * bank worker: the answer's counts, the transfers, the orders and the tasks afterwards.
 */
import { expect } from 'chai';
import iconv from 'iconv-lite';
import { call, newSeller, query, Seller } from '../support/api';
import { createOrder, readOrder } from '../order/helpers';
import { bankTransfers, importStatement, bankWorkerForSuite } from './bank-worker';

interface BankView {
  sender: string;
  amount: string;
  order_id?: string;
  status: string | null;
}

/** mBank's layout (statement-import-free-text.test.ts), without the :61: bank reference (`//...`). */
function statement(payer: string, order: string, lines: { mark: 'C' | 'RC'; amount: string; text: string }[]): string {
  const entries = lines.flatMap(({ mark, amount, text }) => [
    `:61:2611231123${mark}N${amount}NTRFNONREF`,
    `:86:911 TRANSAKCJA IPH; Z RACH.: 27114020040000300201355387; OD: ${payer}  UL. KĄTOWA 3; TYT.: ${text.replace('ORDER', order)}`,
  ]);
  return [':20:ST261123CYC/1', ':25:PL61109010140000071219812874', ':28C:15/1', ':60F:C261122PLN100,00', ...entries, ':62F:C261123PLN174,40', '-', ''].join(
    '\r\n',
  );
}

const plnOrder = (s: Seller, price: string, name: string) =>
  createOrder(s, { currency_id: 'PLN', customer: { email: 'buyer@example.com', address: { name } }, line: [{ id: 1, price, quantity: 1 }] });

async function taskTitles(s: Seller): Promise<string[]> {
  const res = await call(`task/?${query({ pagination: { limit: 100 } })}`, { token: s.token });
  expect(res.status, res.text).to.equal(200);
  return ((res.body.task ?? []) as { title: string }[]).map((t) => t.title);
}

describe('bank: a statement imported by an earlier version that read its letters otherwise is stored once', () => {
  bankWorkerForSuite('bank-charset-keys');

  const cases = [
    // Windows-1250 without ś ź Ś Ź (no byte in 0x80-0x9F): ISO-8859-2 before bb3ac39 (Ą read Ľ).
    { written: 'windows-1250', readBefore: 'iso-8859-2', payer: 'SKLEP WĄCHOCK', title: 'ZAMÓWIENIE ORDER Z GÓRĄ DZIĘKUJĘ' },
    // ISO-8859-2: ISO-8859-15 before 1732b4e (Ś read ¦, Ł £).
    { written: 'iso-8859-2', readBefore: 'iso-8859-15', payer: 'SPÓŁDZIELNIA ŚWIT', title: 'ZAMÓWIENIE ORDER ZAPŁATA' },
  ];

  for (const { written, readBefore, payer, title } of cases) {
    it(`when a statement written in ${written}, imported while Kontor read it as ${readBefore}, comes again, then it stores nothing, pays no order twice and takes no reversal back again`, async () => {
      const s = await newSeller();
      const named = await plnOrder(s, '24.50', 'Joanna Kowalska');
      const other = await plnOrder(s, '49.90', 'Piotr Nowak');
      const file = (lines: Parameters<typeof statement>[2]) => iconv.encode(statement(payer, named, lines), written);
      const asReadBefore = (bytes: Buffer) => Buffer.from(iconv.decode(bytes, readBefore), 'utf8');
      const credits = file([
        { mark: 'C', amount: '24,50', text: title },
        { mark: 'C', amount: '49,90', text: 'PRZELEW SRODKOW' },
      ]);

      expect(await importStatement(s, asReadBefore(credits))).to.include({ entries: 2, stored: 2, duplicates: 0 });
      const before = await bankTransfers<BankView>(s);
      expect(before.map((r) => [r.amount, r.order_id ?? null])).to.deep.equal([
        ['24.50', named],
        ['49.90', null],
      ]);
      expect((await readOrder(s, named)).paid_amount).to.equal('24.50');

      expect(await importStatement(s, credits)).to.include({ entries: 2, stored: 0, duplicates: 2 });
      expect(await bankTransfers<BankView>(s)).to.deep.equal(before);
      expect((await readOrder(s, named)).paid_amount).to.equal('24.50');
      expect((await readOrder(s, other)).paid_amount).to.equal(null);

      // The bank takes the order's payment back; that statement, too, comes again.
      const reversal = file([{ mark: 'RC', amount: '24,50', text: title }]);
      expect(await importStatement(s, asReadBefore(reversal))).to.include({ entries: 0, debits: 1 });
      expect((await readOrder(s, named)).paid_amount).to.equal('0.00');
      const reversed = await bankTransfers<BankView>(s);
      expect(reversed.map((r) => [r.amount, r.status])).to.deep.equal([
        ['24.50', 'reversed'],
        ['49.90', null],
      ]);
      const tasks = await taskTitles(s);

      expect(await importStatement(s, reversal)).to.include({ entries: 0, debits: 1 });
      expect(await bankTransfers<BankView>(s)).to.deep.equal(reversed);
      expect((await readOrder(s, named)).paid_amount).to.equal('0.00');
      expect(await taskTitles(s)).to.deep.equal(tasks);
    });
  }
});
