/**
 * Money the seller booked on the order by hand (document 1, order rule 1: "To mark an existing
 * order as paid, set paid_amount") as seen in online banking or at PayPal, whose record Kontor
 * stores only later: a statement imported afterwards, a client's POST bank/transfer/, a payment
 * fetched by the provider sync. A record its bank booked on or before the hand booking's day
 * pays that order by no rule (unassigned, booked_by_hand, the seller told); one booked on a
 * later day pays as before (lib/bank/README.md, "A payment booked by hand on the order").
 */
import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { call, newSeller, query, Seller } from '../support/api';
import { waitFor } from '../event/servers';
import { readOrder } from '../order/helpers';
import { importStatement, orderPaidBy } from './bank-worker';
import { connect, pay, ProviderWorld, startProviderWorld, sync } from './provider-support';

interface BankView {
  id: string;
  transfer_date: string;
  amount: string;
  order_id?: string;
  order_no?: string | null;
  match_rule?: string | null;
  unassigned_reason?: string | null;
}

interface Credit {
  day: string;
  amount: string;
  text: string;
  ref: string;
}

/** A camt.053 of one account with the buyer's credits (made-up data). */
function camt(credits: Credit[]): Buffer {
  const entries = credits.map(
    (c) => `<Ntry>
        <Amt Ccy="EUR">${c.amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>
        <BookgDt><Dt>${c.day}</Dt></BookgDt>
        <AcctSvcrRef>${c.ref}</AcctSvcrRef>
        <NtryDtls><TxDtls>
          <Refs><EndToEndId>NOTPROVIDED</EndToEndId></Refs>
          <RltdPties><Dbtr><Pty><Nm>Petra Part</Nm></Pty></Dbtr></RltdPties>
          <RmtInf><Ustrd>${c.text}</Ustrd></RmtInf>
        </TxDtls></NtryDtls>
      </Ntry>`,
  );
  return Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">
  <BkToCstmrStmt>
    <GrpHdr><MsgId>DAY-${credits.map((c) => c.ref).join('-')}</MsgId><CreDtTm>2026-11-29T06:00:00</CreDtTm></GrpHdr>
    <Stmt>
      <Id>DAY-1</Id>
      <CreDtTm>2026-11-29T06:00:00</CreDtTm>
      <Acct><Id><IBAN>DE89370400440532013000</IBAN></Id><Ccy>EUR</Ccy></Acct>
      ${entries.join('\n      ')}
    </Stmt>
  </BkToCstmrStmt>
</Document>`);
}

const DAY = 86_400_000;
const dayOf = (at: number) => new Date(at).toISOString().slice(0, 10);
/** Yesterday at an hour of the UTC day. */
const yesterdayAt = (hour: number) => new Date(Date.parse(`${dayOf(Date.now() - DAY)}T00:00:00Z`) + hour * 3_600_000);

describe('bank: money booked by hand on the order whose record comes later (a statement, a transfer, the provider)', () => {
  let world: ProviderWorld;
  before(async () => {
    world = await startProviderWorld('bank-hand-day');
  });
  after(async () => {
    await world.stop();
  });

  async function setPaid(s: Seller, orderId: string, paidAmount: string) {
    const res = await call(`order/${orderId}/`, { token: s.token, body: { order: { paid_amount: paidAmount } } });
    expect(res.status, res.text).to.equal(200);
  }
  /** The hand booking made at another time (the API stamps its own): the seller booked it then. */
  const handBookedAt = (s: Seller, orderId: string, at: Date) => db()('sales_order').where({ account_id: s.id, id: orderId }).update({ paid_by_hand_at: at });
  async function records(s: Seller, kind = 'transfer'): Promise<BankView[]> {
    const res = await call(`bank/${kind}/?${query({ pagination: { limit: 100 } })}`, { token: s.token });
    expect(res.status, res.text).to.equal(200);
    return res.body.bank as BankView[];
  }
  const outcome = (r: BankView | undefined) => [r?.order_id ?? null, r?.match_rule ?? null, r?.unassigned_reason ?? null];
  async function taskTexts(s: Seller): Promise<string[]> {
    const res = await call(`task/?${query({ pagination: { limit: 100 } })}`, { token: s.token });
    expect(res.status, res.text).to.equal(200);
    return (res.body.task as { text: string }[]).map((t) => t.text);
  }

  it('when the seller books 10.00 of a 20.00 order by hand and then imports the statement of that day with the credit naming the order, then the order is not paid a second time: the credit stays unassigned as booked_by_hand and the seller is told', async () => {
    const s = await newSeller();
    const order = await orderPaidBy(s, '20.00', 'Petra Part');
    await setPaid(s, order, '10.00');

    await importStatement(s, camt([{ day: dayOf(Date.now()), amount: '10.00', text: `Bestellung ${order} Anzahlung`, ref: 'HD-1' }]));

    const read = await readOrder(s, order);
    expect(read.paid_amount).to.equal('10.00');
    expect(read.status.is_paid).to.equal(true);
    const [credit, ...rest] = await records(s);
    expect(rest).to.deep.equal([]);
    expect(outcome(credit)).to.deep.equal([null, null, 'booked_by_hand']);
    // The reference the payer wrote stays on the record: the seller sees which order it names.
    expect(credit!.order_no).to.equal(order);
    expect(await taskTexts(s)).to.satisfy((texts: string[]) => texts.some((t) => t.includes('1 booked_by_hand')));
  });

  it('when the seller books 5.50 taken in cash on a 30.00 order and then imports a statement with the 24.50 its bank booked the day before naming the order, then the credit pays the order in full: more than was booked by hand, it is not that money', async () => {
    const s = await newSeller();
    const order = await orderPaidBy(s, '30.00', 'Petra Part');
    await setPaid(s, order, '5.50');

    await importStatement(s, camt([{ day: dayOf(Date.now() - DAY), amount: '24.50', text: `Bestellung ${order} Rest`, ref: 'HD-5' }]));

    const read = await readOrder(s, order);
    expect(read.paid_amount).to.equal('30.00');
    const [credit, ...rest] = await records(s);
    expect(rest).to.deep.equal([]);
    expect(outcome(credit)).to.deep.equal([order, 'order_id', null]);
  });

  it("when the hand booking was yesterday, then a credit the bank booked yesterday is held and one booked today (the next instalment) pays; a hand booking yesterday after 10:00 UTC holds today's too (today on a clock ahead of UTC)", async () => {
    const s = await newSeller();
    const morning = await orderPaidBy(s, '30.00', 'Petra Part');
    const noon = await orderPaidBy(s, '30.00', 'Petra Part');
    await setPaid(s, morning, '10.00');
    await setPaid(s, noon, '10.00');
    await handBookedAt(s, morning, yesterdayAt(9));
    await handBookedAt(s, noon, yesterdayAt(11));
    const today = dayOf(Date.now());

    await importStatement(
      s,
      camt([
        { day: dayOf(Date.now() - DAY), amount: '10.00', text: `Bestellung ${morning} Rate 1`, ref: 'HD-2' },
        { day: today, amount: '10.00', text: `Bestellung ${morning} Rate 2`, ref: 'HD-3' },
        { day: today, amount: '10.00', text: `Bestellung ${noon} Rate 2`, ref: 'HD-4' },
      ]),
    );

    // In the statement's order (the records' numbers).
    const all = await records(s);
    const numbered = (await db()('bank').where({ account_id: s.id }).orderBy('number').select('id')) as { id: string }[];
    const [rate1, rate2, noonRate] = numbered.map((row) => all.find((r) => r.id === row.id));
    expect(outcome(rate1)).to.deep.equal([null, null, 'booked_by_hand']);
    expect(outcome(rate2)).to.deep.equal([morning, 'order_id', null]);
    expect(outcome(noonRate)).to.deep.equal([null, null, 'booked_by_hand']);
    expect((await readOrder(s, morning)).paid_amount).to.equal('20.00');
    expect((await readOrder(s, noon)).paid_amount).to.equal('10.00');
  });

  it('when a client books by hand a transfer dated on the day the seller set paid_amount (POST bank/transfer/, after it), then it pays nothing (is_order_paid 0, booked_by_hand); dated a day after the hand booking, it pays', async () => {
    const s = await newSeller();
    const order = await orderPaidBy(s, '30.00', 'Petra Part');
    await setPaid(s, order, '10.00');
    await handBookedAt(s, order, yesterdayAt(9));
    const post = async (transferDate: string, subject: string) => {
      const res = await call('bank/transfer/', {
        token: s.token,
        body: { bank: { transfer_date: transferDate, sender: 'Petra Part', subject, amount: '10.00' } },
      });
      expect(res.status, res.text).to.equal(201);
      return res.body as { bank_id: string; is_order_paid: string };
    };

    const same = await post(dayOf(Date.now() - DAY), `Order ${order} Anzahlung`);
    expect(same.is_order_paid).to.equal('0');
    const next = await post(dayOf(Date.now()), `Order ${order} Rest`);
    expect(next.is_order_paid).to.equal('1');

    const all = await records(s);
    expect(outcome(all.find((r) => r.id === same.bank_id))).to.deep.equal([null, null, 'booked_by_hand']);
    expect(outcome(all.find((r) => r.id === next.bank_id))).to.deep.equal([order, 'order_id', null]);
    expect((await readOrder(s, order)).paid_amount).to.equal('20.00');
  });

  it('when the seller books by hand a PayPal payment the provider sync fetches only afterwards, then it is stored and pays nothing: unassigned as booked_by_hand', async () => {
    const s = await newSeller();
    const { id, clientId } = await connect(world, s);
    const order = await orderPaidBy(s, '20.00', 'Petra Part');
    await pay(world, {
      client_id: clientId,
      amount: '10.00',
      payer_name: 'Petra Part',
      invoice_id: order,
      date: new Date(Date.now() - 3_600_000).toISOString(),
    });
    await setPaid(s, order, '10.00');

    const job = await sync(s, id);
    expect(await job.getState(), job.failedReason).to.equal('completed');
    const [payment, ...rest] = await waitFor(async () => {
      const rows = await records(s, 'payment_provider');
      return rows.length && rows.every((r) => r.order_id || r.unassigned_reason) ? rows : undefined;
    }, 'the match');
    expect(rest).to.deep.equal([]);
    expect(outcome(payment)).to.deep.equal([null, null, 'booked_by_hand']);
    expect((await readOrder(s, order)).paid_amount).to.equal('10.00');
  });
});
