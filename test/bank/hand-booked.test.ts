/**
 * A payment a client books by hand (POST bank/transfer/) that a statement of the seller's account
 * brings too (MT940 and camt.053, before or after the hand booking), and the bank's reversal of a
 * hand booking booked in both formats: each payment is one transfer and pays its order once, each
 * reversal is applied once. Posted as a client posts them and matched by the bank worker; the
 * MT940 fixtures are test/bank/fixtures/mt940-reversal*.sta (account 37040044/0532013000, whose
 * IBAN DE89370400440532013000 the camt.053 files written here name).
 */
import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { backfillBankClaimedOn } from '../../lib/db/migrations/20261128_0510_bank_claimed_on_backfill';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { call, newSeller, query, Seller } from '../support/api';
import { clientToken } from '../support/bound-client';
import { readOrder } from '../order/helpers';
import { bankTransfers, importStatement, orderPaidBy, bankWorkerForSuite } from './bank-worker';
import { fixture } from './fixtures';

interface BankView {
  id: string;
  transfer_date: string;
  sender: string;
  amount: string;
  status: string | null;
  order_id?: string;
}

/** A booking of the camt.053 below: a credit, or the bank's reversal of one (DBIT, RvslInd). */
interface CamtBooking {
  day: string;
  amount: string;
  name: string;
  text: string;
  ref: string;
  reversal?: boolean;
  endToEndId?: string;
}

/** A camt.053 of the account of mt940-reversal*.sta, written for these tests (made-up data). */
function camt(bookings: CamtBooking[]): Buffer {
  const entries = bookings.map(
    (b) => `<Ntry>
        <Amt Ccy="EUR">${b.amount}</Amt><CdtDbtInd>${b.reversal ? 'DBIT' : 'CRDT'}</CdtDbtInd>${b.reversal ? '<RvslInd>true</RvslInd>' : ''}<Sts><Cd>BOOK</Cd></Sts>
        <BookgDt><Dt>${b.day}</Dt></BookgDt>
        <AcctSvcrRef>${b.ref}</AcctSvcrRef>
        <NtryDtls><TxDtls>
          <Refs><EndToEndId>${b.endToEndId ?? 'NOTPROVIDED'}</EndToEndId></Refs>
          <RltdPties><Dbtr><Pty><Nm>${b.name}</Nm></Pty></Dbtr></RltdPties>
          <RmtInf><Ustrd>${b.text}</Ustrd></RmtInf>
        </TxDtls></NtryDtls>
      </Ntry>`,
  );
  return Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">
  <BkToCstmrStmt>
    <GrpHdr><MsgId>HAND-${bookings.map((b) => b.ref).join('-')}</MsgId><CreDtTm>2026-11-24T06:00:00</CreDtTm></GrpHdr>
    <Stmt>
      <Id>HAND-1</Id>
      <CreDtTm>2026-11-24T06:00:00</CreDtTm>
      <Acct><Id><IBAN>DE89370400440532013000</IBAN></Id><Ccy>EUR</Ccy></Acct>
      ${entries.join('\n      ')}
    </Stmt>
  </BkToCstmrStmt>
</Document>`);
}

/** mt940-reversal-credits.sta with Bernd Bauer's credit of the 20th booked twice (two genuine equal payments). */
const creditsWithBerndTwice = (names: Record<string, string>) => {
  const file = fixture('mt940-reversal-credits.sta', names).toString('latin1');
  const own = `:61:2611201120C24,50NTRFNONREF\n:86:166?00GUTSCHRIFT?20SVWZ+Bestellung ${names.ORDER_2!}?32Bernd Bauer\n`;
  expect(file).to.include(own);
  return Buffer.from(file.replace(own, own + own).replace(':62F:C261120EUR174,40', ':62F:C261120EUR198,90'), 'latin1');
};

describe('bank: a payment booked by hand and brought by a statement too', () => {
  bankWorkerForSuite('bank-hand');

  const transfers = (s: Seller) => bankTransfers<BankView>(s);

  async function post(token: string, bank: Record<string, string>, status = 201) {
    const res = await call('bank/transfer/', { token, body: { bank } });
    expect(res.status, res.text).to.equal(status);
    return res.body as { bank_id: string; is_order_paid: string };
  }

  async function taskTitles(token: string): Promise<string[]> {
    const res = await call(`task/?${query({ pagination: { limit: 100 } })}`, { token });
    expect(res.status, res.text).to.equal(200);
    return ((res.body.task ?? []) as { title: string }[]).map((t) => t.title);
  }

  /** Anna's order of 49.90 and Bernd's of 49.00 (paid in two rates of 24.50 of one text), the fixtures' ORDER_1 and ORDER_2. */
  async function annaAndBernd(s: Seller) {
    const anna = await orderPaidBy(s, '49.90', 'Anna Schmidt');
    const bernd = await orderPaidBy(s, '49.00', 'Bernd Bauer');
    return { anna, bernd, names: { ORDER_1: anna, ORDER_2: bernd } };
  }
  const paid = async (s: Seller, id: string) => (await readOrder(s, id)).paid_amount;
  const bernds = async (s: Seller) => (await transfers(s)).filter((r) => /^bernd bauer$/i.test(r.sender));

  it("when a client books a payment by hand and the seller's MT940 and camt.053 bring it later, then it stays one transfer that paid its order once, and a second equal payment of the statements is stored and pays", async () => {
    const s = await newSeller();
    const { anna, bernd, names } = await annaAndBernd(s);
    // Typed from the online banking: the payer in capitals, a time of day, two blanks in the text.
    const hand = await post(s.token, { transfer_date: '2026-11-20T09:30:00Z', sender: 'BERND BAUER', subject: `Bestellung  ${bernd}`, amount: '24.50' });
    expect(hand.is_order_paid).to.equal('1');

    expect(await importStatement(s, fixture('mt940-reversal-credits.sta', names))).to.deep.include({ entries: 2, stored: 1, duplicates: 1 });
    expect(await paid(s, bernd)).to.equal('24.50');
    expect(await paid(s, anna)).to.equal('49.90');
    expect((await bernds(s)).map((r) => [r.id, r.transfer_date, r.order_id])).to.deep.equal([[hand.bank_id, '2026-11-20T09:30:00.000Z', bernd]]);
    expect(await importStatement(s, fixture('mt940-reversal-credits.sta', names))).to.deep.include({ stored: 0, duplicates: 2 });

    // The camt.053 of the day: Bernd's payment (the one booked by hand) and his second rate of the same text.
    const berndCredit = { day: '2026-11-20', amount: '24.50', name: 'Bernd Bauer', text: `Bestellung ${bernd}` };
    const both = camt([
      { ...berndCredit, ref: 'B-1' },
      { ...berndCredit, ref: 'B-2' },
    ]);
    expect(await importStatement(s, both)).to.deep.include({ format: 'camt.053', entries: 2, stored: 1, duplicates: 1 });
    expect(await paid(s, bernd)).to.equal('49.00');
    expect((await bernds(s)).map((r) => r.order_id)).to.deep.equal([bernd, bernd]);
    expect(await importStatement(s, both)).to.deep.include({ stored: 0, duplicates: 2 });
    expect(await paid(s, bernd)).to.equal('49.00');
  });

  it("when a statement brings two equal payments of a payer and the client booked one of them by hand before, then the other is stored and pays, none lost and none twice; a client bound to the portal account claims its own hand booking, not the seller's", async () => {
    for (const who of ['seller', 'bound client'] as const) {
      const s = await newSeller();
      const token = who === 'seller' ? s.token : await clientToken(s, 'bank-hand-own', s.portalAccountId, 'bank_r bank_w order_r');
      const { bernd, names } = await annaAndBernd(s);
      const hand = { transfer_date: '2026-11-20', sender: 'Bernd Bauer', subject: `Bestellung ${bernd}`, amount: '24.50' };
      expect((await post(token, hand)).is_order_paid, who).to.equal('1');
      expect(await importStatement(s, creditsWithBerndTwice(names), token), who).to.deep.include({ entries: 3, stored: 2, duplicates: 1 });
      expect(await paid(s, bernd), who).to.equal('49.00');
      expect(await bernds(s), who).to.have.length(2);
    }
    // The seller's own hand booking (unassigned: it named no order and no payer owed its amount) is not the bound client's to claim.
    const s = await newSeller();
    const bound = await clientToken(s, 'bank-hand-other', s.portalAccountId, 'bank_r bank_w order_r');
    expect((await post(s.token, { transfer_date: '2026-11-20', sender: 'Bernd Bauer', subject: 'Bestellung keine', amount: '24.50' })).is_order_paid).to.equal(
      '0',
    );
    expect(await importStatement(s, fixture('mt940-reversal-credits.sta', { ORDER_1: 'keine', ORDER_2: 'keine' }), bound)).to.deep.include({
      entries: 2,
      stored: 2,
    });
  });

  it("when the seller's statement brought a payment and a client then books it by hand, spelt its own way, then the answer is 302 with the statement's transfer, and its order is paid once", async () => {
    const s = await newSeller();
    const { bernd, names } = await annaAndBernd(s);
    await importStatement(s, fixture('mt940-reversal-credits.sta', names));
    expect(await paid(s, bernd)).to.equal('24.50');
    const [stored] = await bernds(s);
    const again = await post(s.token, { transfer_date: '2026-11-20T15:00:00Z', sender: 'bernd bauer', subject: `Bestellung ${bernd}.`, amount: '24.50' }, 302);
    expect(again).to.deep.include({ bank_id: stored!.id, is_order_paid: '1' });
    expect(await paid(s, bernd)).to.equal('24.50');
    expect(await bernds(s)).to.have.length(1);
    // A day beyond the value-day window (3 days, entry-key.ts VALUE_DAY_WINDOW) is another payment.
    expect(
      (await post(s.token, { transfer_date: '2026-11-24', sender: 'Bernd Bauer', subject: `Bestellung ${bernd}`, amount: '24.50' })).is_order_paid,
    ).to.equal('1');
    expect(await paid(s, bernd)).to.equal('49.00');
  });

  it("when a client books a payment by hand at a time of day its clock gives (the 20th in Berlin, the 19th in UTC), then the seller's MT940 and camt.053 of the 20th bring it as the same transfer, and a client booking the statement's payment so answers 302", async () => {
    const s = await newSeller();
    const { anna, bernd, names } = await annaAndBernd(s);
    // 00:30 on the 20th in Berlin, as the client wrote it: 23:30 on the 19th in UTC.
    const hand = await post(s.token, { transfer_date: '2026-11-20T00:30:00+01:00', sender: 'Bernd Bauer', subject: `Bestellung ${bernd}`, amount: '24.50' });
    expect(hand.is_order_paid).to.equal('1');
    expect(await importStatement(s, fixture('mt940-reversal-credits.sta', names))).to.deep.include({ entries: 2, stored: 1, duplicates: 1 });
    const camtOfTheDay = camt([{ day: '2026-11-20', amount: '24.50', name: 'Bernd Bauer', text: `Bestellung ${bernd}`, ref: 'B-1' }]);
    expect(await importStatement(s, camtOfTheDay)).to.deep.include({ entries: 1, stored: 0, duplicates: 1 });
    expect(await paid(s, bernd)).to.equal('24.50');
    expect((await bernds(s)).map((r) => [r.id, r.transfer_date])).to.deep.equal([[hand.bank_id, '2026-11-19T23:30:00.000Z']]);

    // Anna's credit of the 20th booked by hand after the statement: Berlin's midnight as
    // JavaScript's toISOString writes it, and 20:15 in New York (01:15 on the 21st in UTC).
    const [annas] = (await transfers(s)).filter((r) => r.sender === 'Anna Schmidt');
    for (const transfer_date of ['2026-11-19T23:00:00.000Z', '2026-11-20T20:15:00-05:00']) {
      const again = await post(s.token, { transfer_date, sender: 'Anna Schmidt', subject: `Bestellung ${anna}`, amount: '49.90' }, 302);
      expect(again, transfer_date).to.deep.include({ bank_id: annas!.id, is_order_paid: '1' });
    }
    expect(await paid(s, anna)).to.equal('49.90');
    // A time no clock reads as the 20th is another payment.
    expect(
      (await post(s.token, { transfer_date: '2026-11-21T12:00:00Z', sender: 'Bernd Bauer', subject: `Bestellung ${bernd}`, amount: '24.50' })).is_order_paid,
    ).to.equal('1');
    expect(await paid(s, bernd)).to.equal('49.00');
  });

  it("when the MT940 of the 20th claimed a payment booked by hand at 00:30 in Berlin and the 19th's brought an equal rate, then the camt.053 of both days ties each to its own, and nothing is stored twice", async () => {
    const s = await newSeller();
    const { bernd, names } = await annaAndBernd(s);
    await post(s.token, { transfer_date: '2026-11-20T00:30:00+01:00', sender: 'Bernd Bauer', subject: `Bestellung ${bernd}`, amount: '24.50' });
    const ofThe20th = fixture('mt940-reversal-credits.sta', names).toString('latin1');
    // The same file a day earlier (imported after the 20th's): Anna's and Bernd's equal payments of the 19th.
    const ofThe19th = ofThe20th
      .replace(/261120/g, '261119')
      .replace(/1120C/g, '1119C')
      .replace(':60F:C261119', ':60F:C261118');
    expect(await importStatement(s, Buffer.from(ofThe20th, 'latin1'))).to.deep.include({ stored: 1, duplicates: 1 });
    expect(await importStatement(s, Buffer.from(ofThe19th, 'latin1'))).to.deep.include({ stored: 2 });
    expect(await paid(s, bernd)).to.equal('49.00');
    const rate = { amount: '24.50', name: 'Bernd Bauer', text: `Bestellung ${bernd}` };
    const both = camt([
      { ...rate, day: '2026-11-19', ref: 'B-19' },
      { ...rate, day: '2026-11-20', ref: 'B-20' },
    ]);
    expect(await importStatement(s, both)).to.deep.include({ entries: 2, stored: 0, duplicates: 2 });
    expect(await bernds(s)).to.have.length(2);
    expect(await paid(s, bernd)).to.equal('49.00');
  });

  /** The MT940 fixture of the 20th, and the same file a day earlier: Anna's and Bernd's equal payments of the 19th. */
  const mt940Days = (names: Record<string, string>) => {
    const ofThe20th = fixture('mt940-reversal-credits.sta', names).toString('latin1');
    const ofThe19th = ofThe20th
      .replace(/261120/g, '261119')
      .replace(/1120C/g, '1119C')
      .replace(':60F:C261119', ':60F:C261118');
    return { ofThe20th: Buffer.from(ofThe20th, 'latin1'), ofThe19th: Buffer.from(ofThe19th, 'latin1') };
  };

  it("when the MT940 of the 20th claimed a payment booked by hand at 00:30 in Berlin (the 19th in UTC), then the camt.053's equal rate of the 19th is stored as its own and the 20th's is the hand booking, and the MT940 of the 19th imported after finds its rate", async () => {
    const s = await newSeller();
    const { bernd, names } = await annaAndBernd(s);
    const hand = await post(s.token, { transfer_date: '2026-11-20T00:30:00+01:00', sender: 'Bernd Bauer', subject: `Bestellung ${bernd}`, amount: '24.50' });
    const { ofThe20th, ofThe19th } = mt940Days(names);
    expect(await importStatement(s, ofThe20th)).to.deep.include({ stored: 1, duplicates: 1 });
    const rate = { amount: '24.50', name: 'Bernd Bauer', text: `Bestellung ${bernd}` };
    const both = camt([
      { ...rate, day: '2026-11-19', ref: 'B-19' },
      { ...rate, day: '2026-11-20', ref: 'B-20' },
    ]);
    expect(await importStatement(s, both)).to.deep.include({ entries: 2, stored: 1, duplicates: 1 });
    expect((await bernds(s)).map((r) => [r.id === hand.bank_id, r.transfer_date])).to.deep.equal([
      [true, '2026-11-19T23:30:00.000Z'],
      [false, '2026-11-19T00:00:00.000Z'],
    ]);
    expect(await paid(s, bernd)).to.equal('49.00');
    // Anna's payment of the 19th is new; Bernd's is the camt.053's rate of the 19th.
    expect(await importStatement(s, ofThe19th)).to.deep.include({ entries: 2, stored: 1, duplicates: 1 });
    expect(await bernds(s)).to.have.length(2);
    expect(await paid(s, bernd)).to.equal('49.00');
  });

  it("when the MT940 of the 20th claimed a payment booked by hand at 00:30 in Berlin before claimed_on was kept, then the backfill gives it the 20th (and no other record a day), and the camt.053's equal rate of the 19th is stored as its own", async () => {
    const s = await newSeller();
    const { bernd, names } = await annaAndBernd(s);
    const hand = await post(s.token, { transfer_date: '2026-11-20T00:30:00+01:00', sender: 'Bernd Bauer', subject: `Bestellung ${bernd}`, amount: '24.50' });
    // Sent as a date and claimed by its day's credit: nothing to tell.
    await post(s.token, { transfer_date: '2026-11-20', sender: 'Anna Schmidt', subject: `Bestellung ${names.ORDER_1!}`, amount: '49.90' });
    const { ofThe20th } = mt940Days(names);
    expect(await importStatement(s, ofThe20th)).to.deep.include({ stored: 0, duplicates: 2 });
    // The records as an import before 20261128_0500 left them.
    await db()('bank').where({ account_id: s.id }).update({ claimed_on: null });
    await backfillBankClaimedOn(db());
    const claimedOn = async () =>
      ((await db()('bank').where({ account_id: s.id }).orderBy('number').select('claimed_on')) as { claimed_on: Date | null }[]).map(
        (r) => r.claimed_on?.toISOString() ?? null,
      );
    expect(await claimedOn()).to.deep.equal(['2026-11-20T00:00:00.000Z', null]);
    const rate = { amount: '24.50', name: 'Bernd Bauer', text: `Bestellung ${bernd}` };
    expect(await importStatement(s, camt([{ ...rate, day: '2026-11-19', ref: 'B-19' }]))).to.deep.include({ entries: 1, stored: 1, duplicates: 0 });
    expect((await bernds(s)).map((r) => [r.id === hand.bank_id, r.transfer_date])).to.deep.equal([
      [true, '2026-11-19T23:30:00.000Z'],
      [false, '2026-11-19T00:00:00.000Z'],
    ]);
    expect(await paid(s, bernd)).to.equal('49.00');
  });

  it("when the MT940 of the 20th claimed a payment booked by hand at 00:30 in Berlin, then the payer's equal rate of the 19th booked by hand (09:00 UTC, the 19th on every clock) is stored and pays, not answered 302 with the 20th's", async () => {
    const s = await newSeller();
    const { bernd, names } = await annaAndBernd(s);
    await post(s.token, { transfer_date: '2026-11-20T00:30:00+01:00', sender: 'Bernd Bauer', subject: `Bestellung ${bernd}`, amount: '24.50' });
    expect(await importStatement(s, mt940Days(names).ofThe20th)).to.deep.include({ stored: 1, duplicates: 1 });
    const rate = await post(s.token, { transfer_date: '2026-11-19T09:00:00Z', sender: 'Bernd Bauer', subject: `Bestellung ${bernd}`, amount: '24.50' });
    expect(rate.is_order_paid).to.equal('1');
    expect(await paid(s, bernd)).to.equal('49.00');
    expect(await bernds(s)).to.have.length(2);
  });

  it("when a client dates a payment booked by hand by its value day, up to 3 days from the statement's booking day with only a weekend between, then the statement's credit (MT940, then the camt.053's copy) is that transfer, and one 4 days off is another payment", async () => {
    const s = await newSeller();
    const { anna, bernd, names } = await annaAndBernd(s);
    // Bernd's value day 3 days after the booking day of Friday the 20th (Monday, a weekend between); Anna's 4 days before.
    expect(
      (await post(s.token, { transfer_date: '2026-11-23', sender: 'Bernd Bauer', subject: `Bestellung ${bernd}`, amount: '24.50' })).is_order_paid,
    ).to.equal('1');
    expect(
      (await post(s.token, { transfer_date: '2026-11-16', sender: 'Anna Schmidt', subject: `Bestellung ${anna}`, amount: '49.90' })).is_order_paid,
    ).to.equal('1');
    expect(await importStatement(s, mt940Days(names).ofThe20th)).to.deep.include({ entries: 2, stored: 1, duplicates: 1 });
    expect((await bernds(s)).map((r) => [r.transfer_date, r.order_id])).to.deep.equal([['2026-11-23T00:00:00.000Z', bernd]]);
    expect(await paid(s, bernd)).to.equal('24.50');
    const annas = (await transfers(s)).filter((r) => r.sender === 'Anna Schmidt');
    expect(annas.map((r) => r.transfer_date)).to.deep.equal(['2026-11-16T00:00:00.000Z', '2026-11-20T00:00:00.000Z']);
    // The claimed hand booking is the 20th's credit for the other format too.
    const camtOfThe20th = camt([{ day: '2026-11-20', amount: '24.50', name: 'Bernd Bauer', text: `Bestellung ${bernd}`, ref: 'B-20' }]);
    expect(await importStatement(s, camtOfThe20th)).to.deep.include({ entries: 1, stored: 0, duplicates: 1 });
    expect(await paid(s, bernd)).to.equal('24.50');
    // Statement first: Anna's credit of the 20th booked by hand by a value day of the 21st is that credit (302).
    const again = await post(s.token, { transfer_date: '2026-11-21', sender: 'Anna Schmidt', subject: `Bestellung ${anna}`, amount: '49.90' }, 302);
    expect(again.bank_id).to.equal(annas[1]!.id);
    expect((await transfers(s)).filter((r) => r.sender === 'Anna Schmidt')).to.have.length(2);
  });

  /**
   * A buyer's two orders of 19.90, each paid with the same text (her name, no order number: paid
   * by name and amount owed): the first on Monday the 16th, the second, ordered after (secondOrder),
   * on Thursday the 19th.
   */
  async function carlasTwoOrders(s: Seller) {
    const orders = [await orderPaidBy(s, '19.90', 'Carla Nowak')];
    const secondOrder = async () => orders.push(await orderPaidBy(s, '19.90', 'Carla Nowak'));
    const payment = { amount: '19.90', name: 'Carla Nowak', text: 'Carla Nowak Kauf' };
    const hand = (day: string) => ({ transfer_date: day, sender: 'Carla Nowak', subject: 'Carla Nowak Kauf', amount: '19.90' });
    const carlas = async () => (await transfers(s)).filter((r) => r.sender === 'Carla Nowak').map((r) => r.transfer_date.slice(0, 10));
    const paidOfBoth = async () => {
      let sum = 0;
      for (const o of orders) sum += Number(await paid(s, o));
      return sum;
    };
    return { payment, hand, carlas, paidOfBoth, secondOrder };
  }

  it("when a buyer pays two orders of one price with one text on Monday and Thursday and the seller books Thursday's by hand after Monday's statement, then it is stored and pays (no 302 with Monday's credit), and Thursday's statement is that transfer", async () => {
    const s = await newSeller();
    const { payment, hand, carlas, paidOfBoth, secondOrder } = await carlasTwoOrders(s);
    expect(await importStatement(s, camt([{ ...payment, day: '2026-11-16', ref: 'C-16' }]))).to.deep.include({ stored: 1 });
    await secondOrder();
    expect((await post(s.token, hand('2026-11-19'))).is_order_paid).to.equal('1');
    expect(await carlas()).to.deep.equal(['2026-11-16', '2026-11-19']);
    expect(await paidOfBoth()).to.equal(39.8);
    expect(await importStatement(s, camt([{ ...payment, day: '2026-11-19', ref: 'C-19' }]))).to.deep.include({ stored: 0, duplicates: 1 });
    expect(await carlas()).to.deep.equal(['2026-11-16', '2026-11-19']);
    expect(await paidOfBoth()).to.equal(39.8);
  });

  it("when a buyer pays two orders of one price with one text on Monday and Thursday and the seller booked Monday's by hand, then Thursday's statement is stored and pays (it does not claim Monday's hand booking), and Monday's statement is that hand booking", async () => {
    const s = await newSeller();
    const { payment, hand, carlas, paidOfBoth, secondOrder } = await carlasTwoOrders(s);
    expect((await post(s.token, hand('2026-11-16'))).is_order_paid).to.equal('1');
    await secondOrder();
    expect(await importStatement(s, camt([{ ...payment, day: '2026-11-19', ref: 'C-19' }]))).to.deep.include({ stored: 1, duplicates: 0 });
    expect(await carlas()).to.deep.equal(['2026-11-16', '2026-11-19']);
    expect(await paidOfBoth()).to.equal(39.8);
    expect(await importStatement(s, camt([{ ...payment, day: '2026-11-16', ref: 'C-16' }]))).to.deep.include({ stored: 0, duplicates: 1 });
    expect(await carlas()).to.deep.equal(['2026-11-16', '2026-11-19']);
    expect(await paidOfBoth()).to.equal(39.8);
  });

  it("when a client dates a euro payment booked by hand by its value day of New Year's Eve and the statement books it on the 2nd (TARGET closed on the 1st, a Thursday), then the statement's credit is that transfer and its order is paid once", async () => {
    const s = await newSeller();
    const { payment, hand, carlas, paidOfBoth } = await carlasTwoOrders(s);
    expect((await post(s.token, hand('2025-12-31'))).is_order_paid).to.equal('1');
    expect(await importStatement(s, camt([{ ...payment, day: '2026-01-02', ref: 'C-0102' }]))).to.deep.include({ stored: 0, duplicates: 1 });
    expect(await carlas()).to.deep.equal(['2025-12-31']);
    expect(await paidOfBoth()).to.equal(19.9);
  });

  it("when a client dated a payment booked by hand by its value day after the statement's booking day and the bank reverses that credit on its booking day, then the reversal takes it back from its order (the hand booking is of the day its statement claimed it)", async () => {
    const s = await newSeller();
    const order = await orderPaidBy(s, '30.00', 'Dora Klein');
    const credit = { amount: '30.00', name: 'Dora Klein', text: `Bestellung ${order}` };
    // Booked by the bank on Friday the 20th, dated by the client by the value day Monday the 23rd.
    const hand = await post(s.token, { transfer_date: '2026-11-23', sender: 'Dora Klein', subject: `Bestellung ${order}`, amount: '30.00' });
    expect(hand.is_order_paid).to.equal('1');
    expect(await importStatement(s, camt([{ ...credit, day: '2026-11-20', ref: 'D-20' }]))).to.deep.include({ stored: 0, duplicates: 1 });
    expect(await paid(s, order)).to.equal('30.00');
    // The bank takes the credit back the day it booked it: before the hand booking's transfer_date, on its claimed day.
    expect(await importStatement(s, camt([{ ...credit, day: '2026-11-20', ref: 'D-R', reversal: true }]))).to.deep.include({ entries: 0, debits: 1 });
    expect(await paid(s, order)).to.equal('0.00');
    expect((await transfers(s)).map((r) => [r.id, r.transfer_date, r.status])).to.deep.equal([[hand.bank_id, '2026-11-23T00:00:00.000Z', 'reversed']]);
    // Nothing kept for a later import: the same reversal again changes nothing.
    expect(await importStatement(s, camt([{ ...credit, day: '2026-11-20', ref: 'D-R', reversal: true }]))).to.deep.include({ debits: 1 });
    expect(await paid(s, order)).to.equal('0.00');
  });

  it("when a client books a Cyrillic payer's payment by hand and the statement brings another Cyrillic payer's payment of the amount and day too, then they are two payments, and the booked one is tied to its credit spelt in capitals", async () => {
    const s = await newSeller();
    await post(s.token, { transfer_date: '2026-11-20', sender: 'Иван Петров', subject: 'Оплата заказа', amount: '24.50' });
    const file = camt([
      { day: '2026-11-20', amount: '24.50', name: 'Пётр Сидоров', text: 'Счёт за май', ref: 'C-1' },
      { day: '2026-11-20', amount: '24.50', name: 'ИВАН ПЕТРОВ', text: 'ОПЛАТА ЗАКАЗА', ref: 'C-2' },
    ]);
    expect(await importStatement(s, file)).to.deep.include({ entries: 2, stored: 1, duplicates: 1 });
    expect((await transfers(s)).map((r) => r.sender)).to.deep.equal(['Иван Петров', 'Пётр Сидоров']);
  });

  it("when a client books a Polish payer's payment by hand as the online banking shows it (Szkła, Wrocław) and the statement writes it in the SWIFT set (SZKLA, WROCLAW), then it is one payment", async () => {
    const s = await newSeller();
    await post(s.token, { transfer_date: '2026-11-20', sender: 'Huta Szkła Topic', subject: 'Faktura 7 Przemysłowa 67 Wrocław', amount: '18.50' });
    const file = camt([{ day: '2026-11-20', amount: '18.50', name: 'HUTA SZKLA TOPIC', text: 'FAKTURA 7 PRZEMYSLOWA 67 WROCLAW', ref: 'P-1' }]);
    expect(await importStatement(s, file)).to.deep.include({ entries: 1, stored: 0, duplicates: 1 });
    expect((await transfers(s)).map((r) => r.sender)).to.deep.equal(['Huta Szkła Topic']);
  });

  it("when a client books the statement's payment by hand with its umlauts decomposed (u and a combining diaeresis, as macOS copies them), then the answer is 302 with the statement's transfer", async () => {
    const s = await newSeller();
    const order = await orderPaidBy(s, '30.00');
    const credit = { day: '2026-11-20', amount: '30.00', name: 'Jürgen Müller', text: `Bestellung ${order} Größe M`, ref: 'J-1' };
    expect(await importStatement(s, camt([credit]))).to.deep.include({ stored: 1 });
    const [stored] = await transfers(s);
    const decomposed = { sender: 'Jürgen Müller'.normalize('NFD'), subject: credit.text.normalize('NFD') };
    expect(decomposed.sender).to.not.equal('Jürgen Müller');
    const again = await post(s.token, { transfer_date: '2026-11-20T10:00:00Z', ...decomposed, amount: '30.00' }, 302);
    expect(again).to.deep.include({ bank_id: stored!.id, is_order_paid: '1' });
    expect(await transfers(s)).to.have.length(1);
  });

  it("when a client bound to another portal account books a payment the seller's statement brought and paid an order of the first with, then the answer is 302 saying no order of its own was paid, and that order is paid once", async () => {
    const s = await newSeller();
    const { bernd, names } = await annaAndBernd(s);
    await importStatement(s, fixture('mt940-reversal-credits.sta', names));
    const [stored] = await bernds(s);
    const other = (await createPortalAccount(s.id, { name: 'Shop 2', platform: 'shop_g' })).id;
    const bound = await clientToken(s, 'bank-hand-302', other, 'bank_r bank_w order_r');
    const hand = { transfer_date: '2026-11-20', sender: 'Bernd Bauer', subject: `Bestellung ${bernd}`, amount: '24.50' };
    // The seller's own booking is told its order is paid; the bound client's is not told of an order it may not see.
    expect(await post(s.token, hand, 302)).to.deep.include({ bank_id: stored!.id, is_order_paid: '1' });
    expect(await post(bound, hand, 302)).to.deep.include({ bank_id: stored!.id, is_order_paid: '0' });
    expect(await paid(s, bernd)).to.equal('24.50');
    expect(await bernds(s)).to.have.length(1);
  });

  it("when the MT940 reversed a transfer booked by hand and the camt.053 books that reversal again beside the payer's earlier equal rate, then the rate still pays and no second task is given", async () => {
    const s = await newSeller();
    const { anna, bernd, names } = await annaAndBernd(s);
    await importStatement(s, fixture('mt940-reversal.sta', names));
    const before = await taskTitles(s.token);
    // The credits the MT940's reversals took back, booked by hand: each tied at once, paying nothing.
    for (const [sender, id, amount] of [
      ['Anna Schmidt', anna, '49.90'],
      ['Bernd Bauer', bernd, '24.50'],
    ] as const) {
      expect((await post(s.token, { transfer_date: '2026-11-20', sender, subject: `Bestellung ${id}`, amount })).is_order_paid, sender).to.equal('0');
    }
    // The camt.053: Bernd's first rate of the 10th (a day no MT940 covered), and the reversals of both again (Anna's by her end-to-end id).
    const file = camt([
      { day: '2026-11-10', amount: '24.50', name: 'Bernd Bauer', text: `Bestellung ${bernd}`, ref: 'B-10' },
      { day: '2026-11-23', amount: '49.90', name: 'Anna Schmidt', text: `Bestellung ${anna}`, ref: 'A-R', reversal: true, endToEndId: 'E2E-ANNA-1' },
      { day: '2026-11-23', amount: '24.50', name: 'Bernd Bauer', text: `Bestellung ${bernd}`, ref: 'B-R', reversal: true },
    ]);
    expect(await importStatement(s, file)).to.deep.include({ entries: 1, stored: 1, debits: 2 });
    expect(await paid(s, bernd)).to.equal('24.50');
    expect(await paid(s, anna)).to.equal(null);
    expect((await bernds(s)).map((r) => [r.transfer_date.slice(0, 10), r.status]).sort()).to.deep.equal([
      ['2026-11-10', null],
      ['2026-11-20', 'reversed'],
    ]);
    expect(await taskTitles(s.token)).to.deep.equal(before);
  });

  it('when the MT940 and the camt.053 both booked the reversal before the client booked its credit by hand, then the credit ties one of them, the other is dropped with it, and an earlier equal rate imported later still pays', async () => {
    const s = await newSeller();
    const { bernd, names } = await annaAndBernd(s);
    const berndBooking = { amount: '24.50', name: 'Bernd Bauer', text: `Bestellung ${bernd}` };
    await importStatement(s, fixture('mt940-reversal.sta', names));
    await importStatement(s, camt([{ ...berndBooking, day: '2026-11-23', ref: 'B-R', reversal: true }]));
    expect(
      (await post(s.token, { transfer_date: '2026-11-20', sender: 'Bernd Bauer', subject: `Bestellung ${bernd}`, amount: '24.50' })).is_order_paid,
    ).to.equal('0');
    expect(await importStatement(s, camt([{ ...berndBooking, day: '2026-11-10', ref: 'B-10' }]))).to.deep.include({ entries: 1, stored: 1 });
    expect(await paid(s, bernd)).to.equal('24.50');
    expect((await bernds(s)).map((r) => [r.transfer_date.slice(0, 10), r.status]).sort()).to.deep.equal([
      ['2026-11-10', null],
      ['2026-11-20', 'reversed'],
    ]);
  });

  it("when a bound client's statement reverses its transfer that paid an order now of another portal account, then the client's task names the transfer and not that order, and the seller's names the order", async () => {
    const s = await newSeller();
    const bound = await clientToken(s, 'bank-hand-bound', s.portalAccountId, 'bank_r bank_w order_r task_r');
    const order = await orderPaidBy(s, '24.50', 'Bernd Bauer');
    // Paid by his name and the amount owed: no text names the order.
    const hand = await post(bound, { transfer_date: '2026-11-20', sender: 'Bernd Bauer', subject: 'Bestellung keine', amount: '24.50' });
    expect(hand.is_order_paid).to.equal('1');
    // No request moves an order between portal accounts: the order is set to be the other one's.
    const other = (await createPortalAccount(s.id, { name: 'Shop 2', platform: 'shop_g' })).id;
    await db()('sales_order').where({ account_id: s.id, id: order }).update({ portal_account_id: other });

    await importStatement(s, fixture('mt940-reversal.sta', { ORDER_1: 'keine', ORDER_2: 'keine' }), bound);
    expect(await paid(s, order)).to.equal('24.50');
    const res = await call(`task/?${query({ pagination: { limit: 100 } })}`, { token: bound });
    expect(res.status, res.text).to.equal(200);
    const clients = (res.body.task ?? []) as { title: string; text: string; reference: { section: string } }[];
    expect(clients.filter((t) => t.title.includes(hand.bank_id)).map((t) => [t.title, t.reference.section])).to.deep.equal([
      [`Bank reversal of transfer ${hand.bank_id} not applied`, 'bank'],
    ]);
    // Bank and order ids share a shape: what must not stand is the order named as an order.
    expect(clients.filter((t) => t.reference.section === 'order' || JSON.stringify(t).includes(`order ${order}`))).to.deep.equal([]);
    expect(await taskTitles(s.token)).to.include(`Bank reversal of transfer ${hand.bank_id} not applied to order ${order}`);
  });
});
