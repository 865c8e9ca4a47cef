/**
 * An MT940 whose `:86:` repeats a SEPA identifier on every remittance line of its part, as
 * Hibiscus's MT940 export writes it (willuhn/hibiscus MT940UmsatzExporter: the purpose cut every
 * 27 characters, mid-word, and `SVWZ+` written in front of each piece: `?20SVWZ+<27>?21SVWZ+<rest>`).
 * The repeated identifier continues its part (lib/bank README, ":86: German structure"). Posted
 * through POST bank/statement/ and matched by the bank worker: the transfer's subject and the
 * orders' paid_amount afterwards. Files written by hand for these tests, in that shape.
 */
import { expect } from 'chai';
import { createOrder, readOrder } from '../order/helpers';
import { newSeller, Seller } from '../support/api';
import { bankTransfers, bankWorkerForSuite, importStatement, orderPaidBy } from './bank-worker';

interface BankView {
  sender: string;
  subject: string;
  amount: string;
  order_id?: string;
  match_rule?: string | null;
}

/** One statement of one credit of `amount`, its `:86:` as given, in Hibiscus's layout (CRLF, one statement per booking). */
const statement = (amount: string, details: string) =>
  Buffer.from(
    [
      ':20:STARTUMS',
      ':25:37040044/532013000',
      ':28C:1',
      ':60F:C261127EUR1000,00',
      `:61:2611271127CR${amount.replace('.', ',')}NTRFNONREF`,
      `:86:${details}`,
      ':62F:C261127EUR1049,90',
      '-',
    ].join('\r\n') + '\r\n',
    'latin1',
  );

describe('bank: an MT940 that repeats a SEPA identifier on each remittance line (Hibiscus export)', () => {
  bankWorkerForSuite('bank-sepa-repeated');

  const seen = async (s: Seller) => (await bankTransfers<BankView>(s)).map((b) => ({ subject: b.subject, order_id: b.order_id ?? null }));

  it('when the purpose is cut at 27 characters inside an order number and each piece starts with SVWZ+, then the whole number pays its order and not the order of the number cut off', async () => {
    const s = await newSeller();
    // Order 1: another buyer's, 100.00 open; orders 2 to 11 besides; order 12: Anna's 49.90.
    const first = await orderPaidBy(s, '100.00', 'Max Muster');
    for (let i = 2; i <= 11; i++) await createOrder(s, { customer: { email: `buyer${i}@example.com` } });
    const annas = await orderPaidBy(s, '49.90', 'Anna Meier');
    expect(annas).to.match(/^12_/);
    // "Danke, Zahlung Bestellung 12_2026_11": 27 characters, then the rest.
    const purpose = `Danke, Zahlung Bestellung ${annas}`;
    const [head, tail] = [purpose.slice(0, 27), purpose.slice(27)];
    expect(head).to.equal('Danke, Zahlung Bestellung 1');
    await importStatement(
      s,
      statement(
        '49.90',
        `166?00GUTSCHR. UEBERWEISUNG?10931?20SVWZ+${head}?21SVWZ+${tail}?22EREF+NOTPROVIDED?30COBADEFFXXX?31DE89370400440532013000?32Anna Meier`,
      ),
    );
    expect(await seen(s)).to.deep.equal([{ subject: purpose, order_id: annas }]);
    expect((await readOrder(s, annas)).paid_amount).to.equal('49.90');
    expect((await readOrder(s, first)).paid_amount).to.equal(null);
  });

  it('when each of its lines is shorter than 27 characters after SVWZ+ (a purpose Hibiscus keeps as the bank gave it), then the lines are joined with a space and the order named on the second pays', async () => {
    const s = await newSeller();
    const order = await orderPaidBy(s, '49.90', 'Anna Meier');
    await importStatement(s, statement('49.90', `166?00GUTSCHR. UEBERWEISUNG?20SVWZ+Danke fuer den Einkauf?21SVWZ+Bestellung ${order}?32Max Muster`));
    expect(await seen(s)).to.deep.equal([{ subject: `Danke fuer den Einkauf Bestellung ${order}`, order_id: order }]);
    expect((await readOrder(s, order)).paid_amount).to.equal('49.90');
  });

  it('when the end-to-end id is cut at 27 characters inside the order id and each piece starts with EREF+, then the whole id is the payer reference and pays its order', async () => {
    const s = await newSeller();
    const order = await orderPaidBy(s, '49.90', 'Anna Meier');
    // The payer (Max Muster) is not the billing name: only the reference can pay the order.
    const id = `KONTOR/CHECKOUT/ABCDEFGH/${order}`;
    const [head, tail] = [id.slice(0, 27), id.slice(27)];
    expect(head).to.equal(`KONTOR/CHECKOUT/ABCDEFGH/${order.slice(0, 2)}`);
    await importStatement(s, statement('49.90', `166?00GUTSCHR. UEBERWEISUNG?20SVWZ+Danke?21EREF+${head}?22EREF+${tail}?32Max Muster`));
    expect(await seen(s)).to.deep.equal([{ subject: 'Danke', order_id: order }]);
    expect((await readOrder(s, order)).paid_amount).to.equal('49.90');
  });
});
