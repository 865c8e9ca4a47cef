/**
 * One German bank account imported as MT940 and, after its bank's switch to ISO 20022, as
 * camt.053, the switch-over download overlapping the last MT940 day (fixtures
 * mt940-format-switch.sta and camt053-format-switch.xml: BLZ 37040044 / account 0532013000 is
 * DE89370400440532013000). A booking of a day an import of the other format covered is the booking
 * stored then (lib/bank/statement/entry-key.ts, sameBookingAcrossFormats): posted through POST
 * bank/statement/ and matched by the bank worker; what a client then reads is GET bank/transfer/
 * and the orders' paid_amount.
 */
import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { backfillBankAcrossFormats } from '../../lib/db/migrations/20261127_2300_bank_across_formats_backfill';
import { call, newSeller, Seller } from '../support/api';
import { readOrder } from '../order/helpers';
import { bankTransfers, importStatement, orderPaidBy, bankWorkerForSuite } from './bank-worker';
import { fixture } from './fixtures';

interface BankView {
  sender: string;
  subject: string;
  amount: string;
  transfer_date: string;
  order_id?: string;
}

/** The orders the fixtures' payments name, and what each is paid when every booking counts once. */
interface Shop {
  orders: Record<'EARLY' | 'PART' | 'EREF_ORDER' | 'NOREF' | 'TWICE' | 'LATE', string>;
}

async function shop(s: Seller): Promise<Shop> {
  return {
    orders: {
      EARLY: await orderPaidBy(s, '15.00', 'Zoe Brand'),
      // A part payment of 50.00: counted twice, the order looked paid in full.
      PART: await orderPaidBy(s, '100.00', 'Erika Muster'),
      EREF_ORDER: await orderPaidBy(s, '24.50', 'Paul Klee'),
      NOREF: await orderPaidBy(s, '30.00', 'Jürgen Müller'),
      // Paid in two equal rates of 10.00 on one day: both are payments.
      TWICE: await orderPaidBy(s, '20.00', 'Anna Ode'),
      LATE: await orderPaidBy(s, '12.00', 'Max Mustermann'),
    },
  };
}

const mt940 = (shop: Shop) => fixture('mt940-format-switch.sta', shop.orders);
const camt = (shop: Shop, iban = 'DE89370400440532013000') =>
  Buffer.from(fixture('camt053-format-switch.xml', shop.orders).toString('utf8').replaceAll('<IBAN>DE89370400440532013000</IBAN>', `<IBAN>${iban}</IBAN>`));

/** The MT940 file as downloaded before the 25th ended: Anna Ode's second rate not booked yet. */
function mt940Intraday(shop: Shop): Buffer {
  const lines = mt940(shop).toString('latin1').split('\r\n');
  const last = lines.lastIndexOf(':61:2611251125C10,00NTRFNONREF');
  lines.splice(last, 2);
  return Buffer.from(lines.join('\r\n').replace(':62F:C261125EUR1063,90', ':62M:C261125EUR1053,90'), 'latin1');
}

const counts = (format: string, statements: number, entries: number, stored: number) => ({
  format,
  statements,
  entries,
  stored,
  duplicates: entries - stored,
  debits: 1,
  returns: 0,
  unbooked: 0,
});

describe('bank: one account imported as MT940 and as camt.053 pays each booking once', () => {
  bankWorkerForSuite('bank-formats');

  const transfers = async (s: Seller) =>
    (await bankTransfers<BankView>(s))
      .map((r) => [r.transfer_date.slice(0, 10), r.sender, r.amount, r.order_id])
      .sort((a, b) => String(a).localeCompare(String(b)));

  async function paid(s: Seller, { orders }: Shop): Promise<Record<string, string | null>> {
    const amounts: Record<string, string | null> = {};
    for (const [name, id] of Object.entries(orders)) amounts[name] = (await readOrder(s, id)).paid_amount;
    return amounts;
  }

  const everyBookingOnce = { EARLY: '15.00', PART: '50.00', EREF_ORDER: '24.50', NOREF: '30.00', TWICE: '20.00', LATE: '12.00' };
  const transfersOnce = ({ orders: o }: Shop) =>
    [
      ['2026-11-23', 'Zoe Brand', '15.00', o.EARLY],
      ['2026-11-25', 'Erika Muster', '50.00', o.PART],
      ['2026-11-25', 'Paul Klee Kunsthandel Gesellschaft mbH Berlin Charlott', '24.50', o.EREF_ORDER],
      ['2026-11-25', 'Juergen Mueller', '30.00', o.NOREF],
      ['2026-11-25', 'Anna Ode', '10.00', o.TWICE],
      ['2026-11-25', 'Anna Ode', '10.00', o.TWICE],
      ['2026-11-26', 'Max Mustermann', '12.00', o.LATE],
    ].sort((a, b) => String(a).localeCompare(String(b)));

  it('when a seller imports the last MT940 days and then the camt.053 that books the last of them again, then each booking of that day is stored once, and the part payment leaves its order partly paid', async () => {
    const s = await newSeller();
    const orders = await shop(s);
    expect(await importStatement(s, mt940(orders))).to.deep.equal(counts('mt940', 2, 6, 6));
    // The 25th again (five payments: a part payment, one with an end-to-end id, one without, two
    // equal rates) and the 26th: only the 26th's payment is new.
    expect(await importStatement(s, camt(orders))).to.deep.equal(counts('camt.053', 2, 6, 1));
    expect(await transfers(s)).to.deep.equal(transfersOnce(orders));
    expect(await paid(s, orders)).to.deep.equal(everyBookingOnce);

    // Each file again, as before the rule: nothing new.
    expect(await importStatement(s, camt(orders))).to.deep.equal(counts('camt.053', 2, 6, 0));
    expect(await importStatement(s, mt940(orders))).to.deep.equal(counts('mt940', 2, 6, 0));
    expect(await transfers(s)).to.have.length(7);
    expect(await paid(s, orders)).to.deep.equal(everyBookingOnce);
  });

  it('when the camt.053 is imported first and the MT940 of the days it covered after it, then the MT940 stores only the day the camt.053 did not cover', async () => {
    const s = await newSeller();
    const orders = await shop(s);
    expect(await importStatement(s, camt(orders))).to.deep.equal(counts('camt.053', 2, 6, 6));
    expect(await importStatement(s, mt940(orders))).to.deep.equal(counts('mt940', 2, 6, 1));
    const stored = await transfers(s);
    expect(stored.map(([day, , amount, order]) => [day, amount, order])).to.deep.equal(
      transfersOnce(orders).map(([day, , amount, order]) => [day, amount, order]),
    );
    expect(await paid(s, orders)).to.deep.equal(everyBookingOnce);
  });

  it('when two equal payments of one payer and day stand once in an MT940 downloaded during the day and twice in the camt.053 and in the day’s MT940, then the n-th is the n-th in each file and both are kept', async () => {
    const s = await newSeller();
    const orders = await shop(s);
    expect(await importStatement(s, mt940Intraday(orders))).to.deep.equal(counts('mt940', 2, 5, 5));
    // The second rate, booked after the download, is the camt.053's second: new.
    expect(await importStatement(s, camt(orders))).to.deep.equal(counts('camt.053', 2, 6, 2));
    // The day's MT940: its first rate is the first stored, its second the camt.053's second.
    expect(await importStatement(s, mt940(orders))).to.deep.equal(counts('mt940', 2, 6, 0));
    expect((await transfers(s)).filter((r) => r[1] === 'Anna Ode')).to.have.length(2);
    expect(await transfers(s)).to.have.length(7);
    expect(await paid(s, orders)).to.deep.equal(everyBookingOnce);
  });

  it('when a payment of the same payer, text, amount and day carries another end-to-end id in the camt.053, or the MT940 names its account by no BLZ, then it is another payment and is stored', async () => {
    const s = await newSeller();
    const orders = await shop(s);
    expect(await importStatement(s, mt940(orders))).to.deep.equal(counts('mt940', 2, 6, 6));
    // The payer's name as the MT940 cut it, so that only the end-to-end ids tell the two apart.
    const otherId = Buffer.from(
      camt(orders)
        .toString('utf8')
        .replace('<EndToEndId>KL-2026-4711</EndToEndId>', '<EndToEndId>KL-2026-4712</EndToEndId>')
        .replace('Berlin Charlottenburg</Nm>', 'Berlin Charlott</Nm>'),
    );
    expect(await importStatement(s, otherId)).to.deep.equal(counts('camt.053', 2, 6, 2));
    expect((await transfers(s)).filter((r) => r[2] === '24.50')).to.have.length(2);

    // An account the MT940 names without its bank code is not tied: its days are stored as before.
    const t = await newSeller();
    const untied = await shop(t);
    const bare = Buffer.from(mt940(untied).toString('latin1').replaceAll(':25:37040044/0532013000', ':25:0532013000'), 'latin1');
    expect(await importStatement(t, bare)).to.deep.equal(counts('mt940', 2, 6, 6));
    expect(await importStatement(t, camt(untied))).to.deep.equal(counts('camt.053', 2, 6, 6));
  });

  /** The MT940 with the bank's RC of Erika Muster's rate of the 25th, taken back the same day. */
  function mt940Reversed(shop: Shop): Buffer {
    const erika = '?22Bestellung {{PART}}?30BYLADEMMXXX?31DE02120300000000202051?32Erika Muster'.replace('{{PART}}', shop.orders.PART);
    const reversed = mt940(shop)
      .toString('latin1')
      .replace(
        ':62F:C261125EUR1063,90',
        `:61:2611251125RC50,00NTRFNONREF//2611250000299\r\n:86:166?00GUTSCHR. UEBERWEISUNG?109310?20EREF+NOTPROVIDED?21SVWZ+Anzahlung zu\r\n${erika}\r\n:62F:C261125EUR1013,90`,
      );
    return Buffer.from(reversed, 'latin1');
  }

  /** The camt.053 with her first rate of 50.00 on the 24th (a day the MT940 did not cover), and the reversal of the 25th's again (DBIT RvslInd). */
  function camtReversed(shop: Shop): Buffer {
    const file = camt(shop).toString('utf8');
    const [head, tail] = [file.slice(0, file.indexOf('<Ntry>')), file.slice(file.indexOf('<Ntry>'))];
    const ntry = (side: string, day: string, ref: string, reversal: string) =>
      `<Ntry><Amt Ccy="EUR">50.00</Amt><CdtDbtInd>${side}</CdtDbtInd>${reversal}<Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>${day}</Dt></BookgDt><AcctSvcrRef>${ref}</AcctSvcrRef>` +
      `<NtryDtls><TxDtls><Refs><EndToEndId>NOTPROVIDED</EndToEndId></Refs><RltdPties><Dbtr><Pty><Nm>Erika Muster</Nm></Pty></Dbtr></RltdPties>` +
      `<RmtInf><Ustrd>Anzahlung zu Bestellung ${shop.orders.PART}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>`;
    return Buffer.from(
      `${head}${ntry('CRDT', '2026-11-24', '2026112405310009', '')}${ntry('DBIT', '2026-11-25', '2026112505310099', '<RvslInd>true</RvslInd>')}${tail}`,
    );
  }

  async function reversalTasks(s: Seller): Promise<string[]> {
    const tasks = await call('task/', { token: s.token });
    expect(tasks.status, tasks.text).to.equal(200);
    return (tasks.body.task as { title: string }[]).map((t) => t.title).filter((t) => t.startsWith('Bank reversal'));
  }

  it('when the MT940 reverses (RC) a part payment and the camt.053 books that reversal again (DBIT RvslInd) with an earlier equal rate of the payer on a day the MT940 did not cover, then the earlier rate still pays its order', async () => {
    const s = await newSeller();
    const orders = await shop(s);
    expect(await importStatement(s, mt940Reversed(orders))).to.deep.equal({ ...counts('mt940', 2, 6, 6), debits: 2 });
    expect((await readOrder(s, orders.orders.PART)).paid_amount).to.equal(null);
    expect(await importStatement(s, camtReversed(orders))).to.deep.equal({ ...counts('camt.053', 2, 7, 2), debits: 2 });
    // Her rate of the 24th is a payment: it pays half of its order; the 25th's stays reversed once.
    expect((await readOrder(s, orders.orders.PART)).paid_amount).to.equal('50.00');
    expect(await reversalTasks(s)).to.deep.equal([]);
  });

  it("when the payer's name has an umlaut the MT940 spells out (Moeller, the camt.053's Möller) and the camt.053 books the MT940's reversal again beside an earlier equal rate, then that rate still pays its order", async () => {
    const s = await newSeller();
    const orders = await shop(s);
    const named = (file: Buffer, name: string, encoding: BufferEncoding) => Buffer.from(file.toString(encoding).replaceAll('Erika Muster', name), encoding);
    expect(await importStatement(s, named(mt940Reversed(orders), 'Erika Moeller', 'latin1'))).to.deep.equal({ ...counts('mt940', 2, 6, 6), debits: 2 });
    expect((await readOrder(s, orders.orders.PART)).paid_amount).to.equal(null);
    expect(await importStatement(s, named(camtReversed(orders), 'Erika Möller', 'utf8'))).to.deep.equal({ ...counts('camt.053', 2, 7, 2), debits: 2 });
    expect((await readOrder(s, orders.orders.PART)).paid_amount).to.equal('50.00');
    expect(await reversalTasks(s)).to.deep.equal([]);
  });

  it('when the MT940 was imported before its records kept their account, end-to-end id and reversal day (migration 20261127_2100, 2200), then after the backfill the camt.053 stores only what the MT940 did not book and applies its reversal no second time', async () => {
    const s = await newSeller();
    const orders = await shop(s);
    expect(await importStatement(s, mt940Reversed(orders))).to.deep.equal({ ...counts('mt940', 2, 6, 6), debits: 2 });
    // The records as an import before those migrations left them.
    await db()('bank').where({ account_id: s.id }).update({ account_iban: null, end_to_end_id: null, reversed_on: null });
    await backfillBankAcrossFormats(db());
    // The 24th's rate and the 26th's payment are new; Paul Klee's (the name the MT940 cut) is tied by his end-to-end id.
    expect(await importStatement(s, camtReversed(orders))).to.deep.equal({ ...counts('camt.053', 2, 7, 2), debits: 2 });
    expect(await paid(s, orders)).to.deep.equal(everyBookingOnce);
    expect(await transfers(s)).to.have.length(8);
    expect(await reversalTasks(s)).to.deep.equal([]);
    expect(await backfillBankAcrossFormats(db())).to.deep.equal({ accounts: 0, reversals: 0 });
  });

  it("when the MT940 was imported before its records kept their end-to-end id and the camt.053 lists the payer's equal payment of another id before the one the MT940 booked, then the record keeps its payment, and the bank's reversal of that payment by its id takes it back", async () => {
    const s = await newSeller();
    const orders = await shop(s);
    expect(await importStatement(s, mt940(orders))).to.deep.equal(counts('mt940', 2, 6, 6));
    await db()('bank').where({ account_id: s.id }).update({ account_iban: null, end_to_end_id: null, reversed_on: null });
    await backfillBankAcrossFormats(db());
    // Paul Klee pays 24.50 twice on the 25th, the same text (his name as the MT940 cut it, so only the ids tell them apart): the camt.053 lists KL-2026-4712 first.
    const file = camt(orders).toString('utf8').replace('Berlin Charlottenburg</Nm>', 'Berlin Charlott</Nm>');
    const start = file.lastIndexOf('<Ntry>', file.indexOf('KL-2026-4711'));
    const paul = file.slice(start, file.indexOf('</Ntry>', start) + '</Ntry>'.length);
    const other = paul.replace('KL-2026-4711', 'KL-2026-4712').replace('2026112505310002', '2026112505310012');
    // And the bank's reversal of KL-2026-4711 on the 26th (DBIT, RvslInd).
    const reversal = paul
      .replace('<CdtDbtInd>CRDT</CdtDbtInd>', '<CdtDbtInd>DBIT</CdtDbtInd><RvslInd>true</RvslInd>')
      .replaceAll('2026-11-25', '2026-11-26')
      .replace('2026112505310002', '2026112605310099');
    const last = file.lastIndexOf('</Ntry>') + '</Ntry>'.length;
    const both = `${file.slice(0, start)}${other}${file.slice(start, last)}${reversal}${file.slice(last)}`;
    expect(await importStatement(s, Buffer.from(both))).to.deep.include({ format: 'camt.053', entries: 7, stored: 2, debits: 2 });
    // The MT940's record was KL-2026-4711's: the reversal ties it alone (no task), takes its payment
    // back, and KL-2026-4712, stored now, pays the order.
    expect(await reversalTasks(s)).to.deep.equal([]);
    const pauls = (await bankTransfers<BankView & { status: string | null }>(s)).filter((r) => r.sender.startsWith('Paul Klee'));
    expect(pauls.map((r) => [r.order_id, r.status]).sort()).to.deep.equal([
      [orders.orders.EREF_ORDER, null],
      [orders.orders.EREF_ORDER, 'reversed'],
    ]);
    const order = await readOrder(s, orders.orders.EREF_ORDER);
    expect(order.paid_amount).to.equal('24.50');
    expect(order.history.filter((h) => /reversed by the bank/.test(h))).to.have.length(1);
  });

  it('when the same reversal is kept from the MT940 and from the camt.053 (both imported before its credit), then the credit ties one of them and the other is dropped with it, so an earlier equal payment of the payer imported later still pays', async () => {
    const s = await newSeller();
    const anna = await orderPaidBy(s, '49.90', 'Anna Schmidt');
    // Bernd pays in two rates of 24.50 with the same text: the second is reversed by the bank.
    const bernd = await orderPaidBy(s, '49.00', 'Bernd Bauer');
    const names = { ORDER_1: anna, ORDER_2: bernd };
    await importStatement(s, fixture('mt940-reversal.sta', names));
    expect(await importStatement(s, fixture('camt053-reversal-again.xml', names))).to.deep.include({ format: 'camt.053', entries: 0, debits: 1 });
    expect(await importStatement(s, fixture('mt940-reversal-credits.sta', names))).to.deep.include({ entries: 2, stored: 2 });
    expect((await readOrder(s, bernd)).paid_amount).to.equal(null);
    // His first rate, of the 10th, in a statement imported late.
    const earlier = fixture('mt940-reversal-credits.sta', names)
      .toString('latin1')
      .replaceAll('2611201120', '2611101110')
      .replace(':28C:00100/001', ':28C:00099/001')
      .replace(':60F:C261119', ':60F:C261109')
      .replace(':62F:C261120', ':62F:C261110');
    expect(await importStatement(s, Buffer.from(earlier, 'latin1'))).to.deep.include({ entries: 2, stored: 2 });
    expect((await readOrder(s, bernd)).paid_amount).to.equal('24.50');
    expect((await readOrder(s, anna)).paid_amount).to.equal('49.90');
    const bernds = (await bankTransfers<BankView & { status: string | null }>(s)).filter((r) => r.sender === 'Bernd Bauer');
    expect(bernds.map((r) => [r.transfer_date.slice(0, 10), r.status]).sort()).to.deep.equal([
      ['2026-11-10', null],
      ['2026-11-20', 'reversed'],
    ]);
  });

  it("when the camt.053 is of another of the seller's accounts, then none of its payments is taken for the MT940's", async () => {
    const s = await newSeller();
    const orders = await shop(s);
    expect(await importStatement(s, mt940(orders))).to.deep.equal(counts('mt940', 2, 6, 6));
    expect(await importStatement(s, camt(orders, 'DE75512108001245126199'))).to.deep.equal(counts('camt.053', 2, 6, 6));
    expect(await transfers(s)).to.have.length(12);
  });
});
