/**
 * Statement shapes found in a fourth round of public parsers' test suites (viafintech/camt_parser,
 * kedder/ofxstatement-iso20022, svapnil/iso20022.js, hbci4java, phwes/camt053 ...), each
 * reproduced in a file written for Kontor with made-up data: the shape of the bank's file, none
 * of its content.
 */
import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { backfillDutchTags } from '../../lib/db/migrations/20261128_1200_bank_dutch_tags_backfill';
import { readOrder } from '../order/helpers';
import { call, newSeller } from '../support/api';
import { bankTransfers, bankWorkerForSuite, importStatement, orderPaidBy } from './bank-worker';
import { fixture } from './fixtures';

const octets = { 'Content-Type': 'application/octet-stream' };

describe('bank statement parsing: shapes of a fourth round of public suites', () => {
  bankWorkerForSuite('bank-more-suites');

  // Raiffeisen (CH) writes every camt.053 date as an xs:date with its zone (`2017-04-11+02:00`,
  // ofxstatement-iso20022's davider80.xml): valid ISODate, refused whole as "must be a date".
  it('when a camt.053 writes its dates with a zone (2026-11-20+01:00), then the statement is stored with the day written', async () => {
    const s = await newSeller();
    const res = await call('bank/statement/', { token: s.token, body: fixture('camt053-zoned-dates.xml'), headers: octets });
    expect(res.status, res.text).to.equal(202);
    expect(res.body.statement).to.include({ format: 'camt.053', statements: 1, entries: 1, stored: 1, debits: 1 });
    const list = await call('bank/transfer/', { token: s.token });
    expect(list.status, list.text).to.equal(200);
    const rows = list.body.bank as { transfer_date: string; subject: string; amount: string; currency_id: string }[];
    expect(rows.map((b) => [b.transfer_date.slice(0, 10), b.subject, b.amount, b.currency_id])).to.deep.equal([
      ['2026-11-20', 'Gutschrift Bestellung 131_2026_11 Anna Meier', '129.00', 'CHF'],
    ]);
  });

  // ASN Bank and SNS (de Volksbank) name the counterparty as the :61: supplementary details and
  // again after its account on the first line of field 86, the text on the lines after
  // (gpaulissen/ofxstatement-mt940's ASN export expects payee `paulissen g j l m`, memo `INTERNE
  // OVERBOEKING VIA MOBIEL`; zilverline/mt940's sns.txt the owner `f. spark bedrijf n.v.`).
  it("when an ASN/SNS credit names the payer in :61: and on :86:'s first line after the account, then the payer is the sender, the text the subject, and the buyer's order is paid by name and amount", async () => {
    const s = await newSeller();
    const order = await orderPaidBy(s, '58.30', 'Femke de Vries');
    const counts = await importStatement(s, fixture('mt940-asn-counterparty.sta'));
    expect(counts).to.include({ format: 'mt940', statements: 1, entries: 1, stored: 1, debits: 1 });
    const rows = await bankTransfers<{ sender: string; subject: string; amount: string; order_id: string | null; match_rule: string | null }>(s);
    expect(rows.map((b) => [b.sender, b.subject, b.amount, b.order_id, b.match_rule])).to.deep.equal([
      ['femke de vries', 'Bedankt voor de snelle levering', '58.30', order, 'name_amount'],
    ]);
    expect((await readOrder(s, order)).paid_amount).to.equal('58.30');
  });

  // hbci4java's TestBrokenMT940: some German banks glue the '-' that ends a page to the next
  // line (`-:61:`, `-:20:`), "Einige Banken senden sowas aber".
  it("when a '-' is glued before a :61: or the next page's :20:, then every credit is stored and the pages stay two statements", async () => {
    const s = await newSeller();
    const res = await call('bank/statement/', { token: s.token, body: fixture('mt940-dash-glued.sta'), headers: octets });
    expect(res.status, res.text).to.equal(202);
    expect(res.body.statement).to.include({ format: 'mt940', statements: 2, entries: 2, stored: 2, debits: 0 });
    const rows = await bankTransfers<{ sender: string; subject: string; amount: string }>(s);
    expect(rows.map((b) => [b.sender, b.subject, b.amount])).to.deep.equal([
      ['Lena Schmidt', 'Bestellung 136_2026_11', '49.90'],
      ['Jonas Becker', 'Bestellung 137_2026_11', '20.00'],
    ]);
  });

  // ecampostrini/mt940-ts's test statement: a field 86 whose lines start with '-' and two lines
  // of a '-' alone before the :62F: (its test expects the record and the closing balance).
  it("when a :86: text ends in two lines of a '-' alone before the :62F:, then the statement is read, not refused", async () => {
    const s = await newSeller();
    const res = await call('bank/statement/', { token: s.token, body: fixture('mt940-dash-lines.sta'), headers: octets });
    expect(res.status, res.text).to.equal(202);
    expect(res.body.statement).to.include({ format: 'mt940', statements: 1, entries: 1, stored: 1 });
    const rows = await bankTransfers<{ subject: string; amount: string }>(s);
    expect(rows.map((b) => [b.subject, b.amount])).to.deep.equal([['Bestellung 138_2026_11 Paul -Weber - -', '42.00']]);
  });

  // Rabobank's MT940 (an export of 2025 uploaded in elmariamikhalil/mt940) follows the end-to-end
  // id with the transaction code: `/EREF/<id>/TRCD/541/ORDP//NAME/...`.
  it('when a Rabobank MT940 writes /TRCD/ after the end-to-end id, then the id is read without it and the camt.053 of the same booking is a duplicate', async () => {
    const s = await newSeller();
    expect(await importStatement(s, fixture('mt940-rabo-trcd.sta'))).to.include({ format: 'mt940', entries: 1, stored: 1 });
    expect(await importStatement(s, fixture('camt053-rabo-trcd.xml'))).to.include({ format: 'camt.053', entries: 1, stored: 0, duplicates: 1 });
    const rows = await bankTransfers<{ sender: string; subject: string; amount: string }>(s);
    expect(rows.map((b) => [b.sender, b.subject, b.amount])).to.deep.equal([['Sanne Visser', 'Bestelling 139_2026_11', '64.90']]);
  });

  it('when the Rabobank MT940 was imported before the tags were known, then the migration cuts /TRCD/ from its records and the camt.053 of the same booking is a duplicate (found by a reviewer of a7bf4ba)', async () => {
    const s = await newSeller();
    expect(await importStatement(s, fixture('mt940-rabo-trcd.sta'))).to.include({ stored: 1 });
    // The record as an import before a7bf4ba left it.
    const id = 'PAY-20261120-0731-4411';
    await db()('bank')
      .where({ account_id: s.id })
      .update({ end_to_end_id: `${id}/TRCD/541`, payer_ref: `${id}/TRCD/541` });
    expect(await backfillDutchTags(db())).to.be.at.least(1);
    expect(await db()('bank').where({ account_id: s.id }).select('end_to_end_id', 'payer_ref')).to.deep.equal([{ end_to_end_id: id, payer_ref: id }]);
    expect(await importStatement(s, fixture('camt053-rabo-trcd.xml'))).to.include({ stored: 0, duplicates: 1 });
    expect(await bankTransfers(s)).to.have.length(1);
    expect(await backfillDutchTags(db())).to.equal(0);
  });
});
