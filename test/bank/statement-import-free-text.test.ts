/**
 * Free-text field 86 layouts of banks found in public parsers' test suites, each in a file written
 * for Kontor with made-up data, posted through POST bank/statement/ and matched by the bank worker:
 * what the seller sees in the answer, the transfers and the orders afterwards.
 */
import { expect } from 'chai';
import { newSeller, Seller } from '../support/api';
import { createOrder, readOrder } from '../order/helpers';
import { bankTransfers, importStatement, bankWorkerForSuite } from './bank-worker';
import { fixture } from './fixtures';

interface BankView {
  sender: string;
  subject: string;
  amount: string;
  currency_id: string;
  order_id?: string;
}

const plnOrder = (s: Seller, price: string, name: string) =>
  createOrder(s, { currency_id: 'PLN', customer: { email: 'buyer@example.com', address: { name } }, line: [{ id: 1, price, quantity: 1 }] });

describe('bank: free-text field 86 layouts, imported and matched', () => {
  bankWorkerForSuite('bank-free-text');

  // mBank's MT940 (svenstaro/mt940-rs and wolph/mt940 carry its files): "911 TRANSAKCJA COLLECT;
  // ID IPH: ...; Z RACH.: <payer's account>; OD: <name>  <address>; TYT.: <title>; TNR: ...".
  it("when an mBank text labels the payer (OD:) and the payer's title (TYT.:), then the sender is the name without the address and the subject the title, and both pay their orders", async () => {
    const s = await newSeller();
    const named = await plnOrder(s, '49.90', 'Ewa Zielinska');
    const byName = await plnOrder(s, '24.50', 'Piotr Nowak');
    const statement = await importStatement(s, fixture('mt940-mbank-collect.sta', { ORDER_1: named }));
    expect(statement).to.deep.equal({ format: 'mt940', statements: 1, entries: 2, stored: 2, duplicates: 0, debits: 0, returns: 0, unbooked: 0 });
    const rows = await bankTransfers<BankView>(s);
    expect(rows.map((r) => [r.sender, r.subject, r.amount, r.currency_id, r.order_id])).to.deep.equal([
      ['ANNA KOWALSKA', `ZAMOWIENIE ${named}`, '49.90', 'PLN', named],
      ['PIOTR NOWAK', 'PRZELEW SRODKOW', '24.50', 'PLN', byName],
    ]);
    expect((await readOrder(s, named)).paid_amount).to.equal('49.90');
    expect((await readOrder(s, byName)).paid_amount).to.equal('24.50');
  });

  // mBank writes its MT940 in ISO-8859-2 (ksdev-pl/mbank-mt940-parser @ a1c6082, tests/MT940_IPH.txt:
  // its test expects "OD: GWARANT-CYNKOWANIE SPÓŁKA Z O.O. UL.CIEPŁOWNICZA 27 98-300 WIELUŃ"): Ł, Ś,
  // Ą, Ż at 0xA1-0xBF, no byte in 0x80-0x9F, so the file was read as ISO-8859-15 (SPÓ£KA, WIELUÑ).
  it('when an mBank statement is written in ISO-8859-2, then Polish names read as written and the payer named ZAKŁAD pays its order by name and amount', async () => {
    const s = await newSeller();
    const byName = await plnOrder(s, '49.90', 'Zakład Usług Komunalnych');
    const named = await plnOrder(s, '24.50', 'Ewa Nowak');
    const statement = await importStatement(s, fixture('mt940-mbank-iso8859-2.sta', { ORDER_1: named }));
    expect(statement).to.include({ format: 'mt940', statements: 1, entries: 2, stored: 2, duplicates: 0 });
    const rows = await bankTransfers<BankView>(s);
    expect(rows.map((r) => [r.sender, r.subject, r.amount, r.currency_id, r.order_id])).to.deep.equal([
      ['ZAKŁAD USŁUG KOMUNALNYCH', 'ZAPŁATA ZA FAKTURĘ', '49.90', 'PLN', byName],
      ['SPÓŁDZIELNIA ŚWIT', `ZAMÓWIENIE ${named} DZIĘKUJĘ`, '24.50', 'PLN', named],
    ]);
    expect((await readOrder(s, byName)).paid_amount).to.equal('49.90');
  });

  // A Windows-1250 MT940 in PLN without ś ź Ś Ź (its only bytes in 0x80-0x9F) has no byte there
  // either, so it was read as ISO-8859-2: its Ą (0xA5) read as Ľ and ą (0xB9) as š, and a payer
  // SKLEP WĽCHOCK never paid the order of "Sklep Wąchock" by name and amount (file written for Kontor).
  it('when an mBank-style statement in PLN is written in Windows-1250 without ś or ź, then its Ą reads as Ą and the payer pays its order by name and amount', async () => {
    const s = await newSeller();
    const byName = await plnOrder(s, '49.90', 'Sklep Wąchock');
    const named = await plnOrder(s, '24.50', 'Joanna Mączka');
    const statement = await importStatement(s, fixture('mt940-mbank-windows-1250.sta', { ORDER_1: named }));
    expect(statement).to.include({ format: 'mt940', statements: 1, entries: 2, stored: 2, duplicates: 0 });
    const rows = await bankTransfers<BankView>(s);
    expect(rows.map((r) => [r.sender, r.subject, r.amount, r.currency_id, r.order_id])).to.deep.equal([
      ['SKLEP WĄCHOCK', 'ZAPŁATA ZA TOWAR', '49.90', 'PLN', byName],
      ['JOANNA MĄCZKA', `ZAMÓWIENIE ${named} Z GÓRĄ DZIĘKUJĘ`, '24.50', 'PLN', named],
    ]);
    expect((await readOrder(s, byName)).paid_amount).to.equal('49.90');
    expect((await readOrder(s, named)).paid_amount).to.equal('24.50');
  });

  // Komercijalna banka Skopje (fruitl00p/php-mt940's Kbs files): /ORDP/ (or /BENM/) with the
  // account, then lines of its own, `/name`, `/ref//ref`, `/text`, and no /NAME/ or /REMI/.
  it('when a /TAG/ text has no /REMI/ or /NAME/ but lines of its own after /ORDP/, then its text is the subject and the order it names is paid', async () => {
    const s = await newSeller();
    const named = await createOrder(s, {
      customer: { email: 'buyer@example.com', address: { name: 'Marko Petrovski' } },
      line: [{ id: 1, price: '49.90', quantity: 1 }],
    });
    const statement = await importStatement(s, fixture('mt940-ordp-lines.sta', { ORDER_1: named }));
    expect(statement).to.deep.equal({ format: 'mt940', statements: 1, entries: 1, stored: 1, duplicates: 0, debits: 1, returns: 0, unbooked: 0 });
    const rows = await bankTransfers<BankView>(s);
    expect(rows.map((r) => [r.subject, r.amount, r.currency_id, r.order_id])).to.deep.equal([
      [`300000000123456 MARKO PETROVSKI 4711//4711 Uplata po naracka ${named}`, '49.90', 'EUR', named],
    ]);
    expect((await readOrder(s, named)).paid_amount).to.equal('49.90');
  });
});
