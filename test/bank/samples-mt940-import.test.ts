/**
 * The 17 genuine MT940 files of shared/samples/bank/mt940 through POST bank/statement/: what the
 * answer counts, the transfers stored (amount, currency, booking date, payer, subject), and a
 * second import of the same file storing nothing.
 */
import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { call, newSeller, query, Seller } from '../support/api';
import { expected, sample } from './samples-mt940';

interface BankView {
  sender: string;
  subject: string;
  amount: string;
  currency_id: string;
  transfer_date: string;
}

const postFile = (who: Seller, body: Buffer) => call('bank/statement/', { token: who.token, body, headers: { 'Content-Type': 'application/octet-stream' } });

async function transfers(who: Seller): Promise<BankView[]> {
  const res = await call(`bank/transfer/?${query({ pagination: { limit: 100 } })}`, { token: who.token });
  expect(res.status, res.text).to.equal(200);
  return res.body.bank as BankView[];
}

describe('bank: the genuine MT940 files through POST bank/statement/', () => {
  for (const [name, want] of Object.entries(expected)) {
    it(`when ${name} is posted twice, then its credits are stored once with amount, currency, date and payer`, async () => {
      const s = await newSeller();
      const entries = want.amounts.length;
      const first = await postFile(s, sample(name));
      expect(first.status, first.text).to.equal(entries ? 202 : 200);
      expect(first.body.statement).to.deep.equal({
        format: 'mt940',
        statements: want.statements,
        entries,
        stored: entries,
        duplicates: 0,
        debits: want.debits,
        returns: want.returns,
        unbooked: 0,
      });

      const rows = await transfers(s);
      expect(rows.map((r) => `${r.amount} ${r.currency_id}`)).to.deep.equal(want.amounts);
      for (const [index, fields] of Object.entries(want.some)) {
        const row = rows[Number(index)]!;
        if (fields.date) expect(row.transfer_date, `transfer ${index}`).to.equal(`${fields.date}T00:00:00.000Z`);
        if (fields.sender !== undefined) expect(row.sender, `transfer ${index}`).to.equal(fields.sender);
        if (fields.subject !== undefined) expect(row.subject, `transfer ${index}`).to.equal(fields.subject);
      }
      const refs = await db()('bank').where({ account_id: s.id }).orderBy('number').select('payer_ref', 'entry_ref');
      expect(refs.every((r) => !!r.entry_ref)).to.equal(true);
      for (const [index, fields] of Object.entries(want.some)) {
        if (fields.payerReferences) expect(refs[Number(index)]!.payer_ref, `transfer ${index}`).to.equal(fields.payerReferences.join(' '));
      }

      const again = await postFile(s, sample(name));
      expect(again.status, again.text).to.equal(200);
      expect(again.body.statement).to.include({ entries, stored: 0, duplicates: entries });
      expect(await transfers(s)).to.have.length(entries);
    });
  }
});
