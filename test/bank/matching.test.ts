import { expect } from 'chai';
import { config, setConfig } from '../../config';
import { matchRange, rematchAll } from '../../lib/bank/bank-match.service';
import { db } from '../../lib/db/knex';
import { queues } from '../../lib/queue/queue.registry';
import { schedules } from '../../lib/queue/schedules';
import { call, newSeller, query, Seller } from '../support/api';
import { orderEvents, readOrder } from '../order/helpers';
import { importStatement, orderPaidBy, bankWorkerForSuite } from './bank-worker';
import { fixture } from './fixtures';

interface BankView {
  id: string;
  sender: string;
  subject: string;
  amount: string;
  order_id?: string;
  order_no?: string | null;
  match_rule?: string | null;
  unassigned_reason?: string | null;
}

describe('bank: matching imported transfers to orders (bank worker)', () => {
  bankWorkerForSuite('bank-match');

  async function transfers(s: Seller, filter: Record<string, unknown> = {}): Promise<BankView[]> {
    const res = await call(`bank/transfer/?${query({ filter, pagination: { limit: 100 } })}`, { token: s.token });
    expect(res.status, res.text).to.equal(200);
    return res.body.bank as BankView[];
  }

  it('when a CAMT.053 statement names two orders (unstructured and structured), then both are paid, fully and partly, with history and events', async () => {
    const s = await newSeller();
    const first = await orderPaidBy(s, '49.90');
    const second = await orderPaidBy(s, '30.00', 'Zoë Brandstätter');
    await importStatement(s, fixture('camt053.001.08.xml', { ORDER_1: first, ORDER_2: second }));
    const a = await readOrder(s, first);
    expect(a.paid_amount).to.equal('49.90');
    expect(a.status.is_paid).to.equal(true);
    expect(a.invoice_number).to.not.equal(null);
    expect(a.history.some((h) => /payment 49\.90 received: bank transfer \d+_\d{4}_\d{2} from Jürgen Müller/.test(h))).to.equal(true);
    const b = await readOrder(s, second);
    expect(b.paid_amount).to.equal('24.50');
    expect(b.status.is_paid).to.equal(true);
    const rows = await transfers(s);
    expect(rows.map((r) => r.order_id ?? null)).to.deep.equal([first, second, null]);
    expect(rows[2]!.order_no).to.equal(null);
    const events = await orderEvents(s);
    expect(events.filter((e) => e.startsWith('paid:')).sort()).to.deep.equal([`paid:${first}`, `paid:${second}`].sort());
    expect(events.filter((e) => e.startsWith('changed:'))).to.include.members([`changed:${first}`, `changed:${second}`]);
  });

  it('when the bank delivers camt.053.001.13 (the version CBPR+ moved to in November 2026), then its payments pay the orders they name as .08 did', async () => {
    const s = await newSeller();
    const first = await orderPaidBy(s, '49.90');
    const second = await orderPaidBy(s, '24.50', 'Zoë Brandstätter');
    await importStatement(s, fixture('camt053.001.13.xml', { ORDER_1: first, ORDER_2: second }));
    const rows = await transfers(s);
    expect(rows.map((r) => [r.order_id ?? null, r.sender, r.amount])).to.deep.equal([
      [first, 'Jürgen Müller', '49.90'],
      [second, 'Zoë Brandstätter', '24.50'],
    ]);
    expect((await readOrder(s, first)).paid_amount).to.equal('49.90');
    expect((await readOrder(s, second)).paid_amount).to.equal('24.50');
  });

  it('when subjects name an order number, an invoice number, or nothing but the amount from the customer, then each goes to its one order', async () => {
    const s = await newSeller();
    const byNumber = await orderPaidBy(s, '10.00', 'Anna Berg');
    // Order 2 is fully paid (invoice 1): no longer open, so "2" can only be the next invoice number.
    const filler = await orderPaidBy(s, '8.00', 'Ida Jahn');
    expect((await call(`order/${filler}/`, { token: s.token, body: { order: { paid_amount: '8.00' } } })).status).to.equal(200);
    const byInvoice = await orderPaidBy(s, '20.00', 'Carl Dorn');
    expect((await call(`order/${byInvoice}/`, { token: s.token, body: { order: { paid_amount: '1.00' } } })).status).to.equal(200);
    // That 1.00 booked by hand before the bank booked the rest (20 November): a credit of the hand
    // booking's day or before would be the money booked by hand (hand-booked-day.test.ts).
    await db()('sales_order')
      .where({ account_id: s.id, id: byInvoice })
      .update({ paid_by_hand_at: new Date('2026-11-18T08:00:00Z') });
    const byName = await orderPaidBy(s, '5.00');
    const invoice = (await readOrder(s, byInvoice)).invoice_number;
    expect(String(invoice)).to.equal('2');
    const mt940 = [
      ':20:STARTUMS',
      ':25:12030000/0000202051',
      ':28C:1/1',
      ':60F:C261119EUR0,00',
      ':61:2611201120CR10,00NTRFNONREF//R1',
      `:86:166?20Bestellnummer ${byNumber.split('_')[0]}?32Anna Berg`,
      ':61:2611201120CR19,00NTRFNONREF//R2',
      `:86:166?20Rechnung ${invoice}`,
      ':61:2611201120CR5,00NTRFNONREF//R3',
      ':86:166?20Danke?32MUELLER, JUERGEN',
      ':62F:C261120EUR34,00',
      '-',
    ].join('\r\n');
    await importStatement(s, Buffer.from(mt940));
    const rows = await transfers(s);
    expect(rows.map((r) => r.order_id ?? null)).to.deep.equal([byNumber, byInvoice, byName]);
    expect((await readOrder(s, byInvoice)).paid_amount).to.equal('20.00');
    expect((await readOrder(s, byName)).paid_amount).to.equal('5.00');
  });

  it('when two orders fit a transfer, or none, then it stays unassigned with its reference and is_assigned=0 finds it', async () => {
    const s = await newSeller();
    const one = await orderPaidBy(s, '15.00', 'Eva Fink');
    await orderPaidBy(s, '15.00', 'Eva Fink');
    const mt940 = [
      ':20:X',
      ':25:ACC',
      ':28C:1/1',
      ':60F:C261119EUR0,00',
      ':61:2611201120CR15,00NTRFNONREF//A1',
      ':86:166?20Danke?32Eva Fink',
      ':61:2611201120CR7,00NTRFNONREF//A2',
      ':86:166?20Bestellung 999999?32Gustav Holm',
      ':62F:C261120EUR22,00',
      '-',
    ].join('\n');
    await importStatement(s, Buffer.from(mt940));
    const open = await transfers(s, { is_assigned: 0 });
    expect(open.map((r) => [r.amount, r.order_no ?? null])).to.deep.equal([
      ['15.00', null],
      ['7.00', '999999'],
    ]);
    expect(await transfers(s, { is_assigned: 1 })).to.have.length(0);
    expect((await readOrder(s, one)).paid_amount).to.equal(null);
  });

  it('when a payer of a name without letters or digits (./.) and one of a CJK name pay an amount an order of such a name (-) owes, then neither pays it: no name is no name_amount', async () => {
    const s = await newSeller();
    const dash = await orderPaidBy(s, '12.00', '-');
    const mt940 = [
      ':20:X',
      ':25:ACC',
      ':28C:1/1',
      ':60F:C261119EUR0,00',
      ':61:2611201120CR12,00NTRFNONREF//N1',
      ':86:166?20Danke?32王小明',
      ':61:2611201120CR12,00NTRFNONREF//N2',
      ':86:166?20Danke?32./.',
      ':62F:C261120EUR24,00',
      '-',
    ].join('\n');
    await importStatement(s, Buffer.from(mt940));
    const rows = await transfers(s);
    expect(rows.map((r) => [r.sender, r.order_id ?? null])).to.deep.equal([
      ['王小明', null],
      ['./.', null],
    ]);
    expect((await readOrder(s, dash)).paid_amount).to.equal(null);
  });

  it('when the match of an import runs again, also at the same time, then every order is paid once', async () => {
    const s = await newSeller();
    const first = await orderPaidBy(s, '49.90');
    const second = await orderPaidBy(s, '24.50', 'Zoë Brandstätter');
    await importStatement(s, fixture('camt053.001.02.xml', { ORDER_1: first, ORDER_2: second }));
    const runs = await Promise.all([matchRange(s.id, 1, 100), matchRange(s.id, 1, 100)]);
    expect(runs.map((r) => r.assigned)).to.deep.equal([0, 0]);
    expect((await readOrder(s, first)).paid_amount).to.equal('49.90');
    expect((await readOrder(s, second)).paid_amount).to.equal('24.50');
    const history = (await readOrder(s, first)).history.filter((h) => h.startsWith('payment'));
    expect(history).to.have.length(1);
  });

  it('when an import is matched in several batches (beyond 10 records), then every record is looked at once and assigned', async () => {
    const s = await newSeller();
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(await orderPaidBy(s, `${i + 1}.00`, `Buyer ${i}`));
    const lines = ids.flatMap((id, i) => [`:61:2611201120CR${i + 1},00NTRFNONREF//B${i}`, `:86:166?20Order ${id}`]);
    const total = (12 * 13) / 2;
    const mt940 = [':20:X', ':25:ACC', ':28C:1/1', ':60F:C261119EUR0,00', ...lines, `:62F:C261120EUR${total},00`, '-'].join('\n');
    const saved = config();
    setConfig({ ...saved, bankMatchBatch: 3 });
    try {
      await importStatement(s, Buffer.from(mt940));
    } finally {
      setConfig(saved);
    }
    expect((await transfers(s)).map((r) => r.order_id)).to.deep.equal(ids);
  });

  it('when payers who name no order are spread over several batches of one import, then each pays by name and amount, and a second payment of a paid order pays nothing', async () => {
    const s = await newSeller();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push(await orderPaidBy(s, `${i + 1}.00`, `Erika Muster${'x'.repeat(i)}`));
    const payers = [...ids.map((_, i) => i), 0].map((i, k) => [
      `:61:2611201120CR${i + 1},00NTRFNONREF//N${k}`,
      `:86:166?20Vielen Dank?32Erika Muster${'x'.repeat(i)}`,
    ]);
    const mt940 = [':20:X', ':25:ACC', ':28C:1/1', ':60F:C261119EUR0,00', ...payers.flat(), ':62F:C261120EUR29,00', '-'].join('\n');
    const saved = config();
    setConfig({ ...saved, bankMatchBatch: 3 });
    try {
      await importStatement(s, Buffer.from(mt940));
    } finally {
      setConfig(saved);
    }
    const records = await transfers(s);
    expect(records.map((r) => [r.order_id ?? null, r.match_rule ?? null, r.unassigned_reason ?? null])).to.deep.equal([
      ...ids.map((id) => [id, 'name_amount', null]),
      [null, null, 'no_match'],
    ]);
    for (const [i, id] of ids.entries()) expect((await readOrder(s, id)).paid_amount).to.equal(`${i + 1}.00`);
  });

  it('when a transfer arrives before its order, then the re-match assigns it once the order exists', async () => {
    const s = await newSeller();
    const now = new Date();
    const expected = `1_${now.getUTCFullYear()}_${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
    const today = now.toISOString().slice(2, 10).replace(/-/g, '');
    const mt940 = [
      ':20:X',
      ':25:ACC',
      ':28C:1/1',
      ':60F:C261119EUR0,00',
      `:61:${today}CR12,00NTRFNONREF//E1`,
      `:86:166?20Order ${expected}`,
      ':62F:C261120EUR12,00',
      '-',
    ].join('\n');
    await importStatement(s, Buffer.from(mt940));
    expect((await transfers(s))[0]!.order_no).to.equal(expected);
    expect(await orderPaidBy(s, '12.00')).to.equal(expected);
    await rematchAll();
    expect((await transfers(s))[0]!.order_id).to.equal(expected);
    expect((await readOrder(s, expected)).paid_amount).to.equal('12.00');
  });

  it('when the scheduler ticks twice in one minute, then one re-match job is queued', async () => {
    const rematch = schedules().find((x) => x.name === 'bank-rematch')!;
    const tick = new Date('2026-11-23T20:30:10Z');
    await rematch.enqueue(tick);
    await rematch.enqueue(new Date('2026-11-23T20:30:50Z'));
    const job = await queues().get('bank').getJob('bank-rematch-202611232030');
    expect(job?.name).to.equal('bank.rematch');
  });

  it("when a statement names another account's order or a cancelled one, then neither is paid", async () => {
    const s = await newSeller();
    const other = await newSeller();
    const foreign = await orderPaidBy(other, '49.90');
    const cancelled = await orderPaidBy(s, '24.50');
    const cancel = await call(`order/${cancelled}/`, { token: s.token, body: { order: { status: { is_cancelled: true } } } });
    expect(cancel.status, cancel.text).to.equal(200);
    await importStatement(s, fixture('camt053.001.02.xml', { ORDER_1: foreign, ORDER_2: cancelled }));
    expect((await readOrder(other, foreign)).paid_amount).to.equal(null);
    expect((await readOrder(s, cancelled)).paid_amount).to.equal(null);
    expect((await transfers(s, { is_assigned: 0 })).map((r) => r.order_no)).to.deep.equal([foreign, cancelled, null]);
  });
});
