/**
 * The matching's rules (lib/bank/bank.match.ts) as a seller sees them through POST bank/transfer/
 * and GET bank/transfer/: references only as whole words in the shapes Kontor issues, a transfer
 * paying only an order it fits (currency, amount not above what is owed), the reason of every
 * transfer left unassigned, and name-and-amount whenever references decide nothing.
 */
import { expect } from 'chai';
import { payerReferencesOf } from '../../lib/bank/bank-reference';
import { call, newSeller, query, Seller } from '../support/api';
import { createOrder, readOrder } from '../order/helpers';

interface BankView {
  id: string;
  order_id?: string;
  order_no?: string | null;
  currency_id: string;
  match_rule: string | null;
  unassigned_reason: string | null;
}

const transfer = (fields: Record<string, unknown>) => ({ transfer_date: '2026-11-20T10:00:00Z', sender: 'Anna Berg', subject: '', amount: '10.00', ...fields });

async function post(s: Seller, fields: Record<string, unknown>): Promise<BankView> {
  const res = await call('bank/transfer/', { token: s.token, body: { bank: transfer(fields) } });
  expect(res.status, res.text).to.equal(201);
  const read = await call(`bank/transfer/?${query({ filter: { id: res.body.bank_id } })}`, { token: s.token });
  expect(read.status, read.text).to.equal(200);
  return (read.body.bank as BankView[])[0]!;
}

const order = (s: Seller, price: string, fields: Record<string, unknown> = {}) =>
  createOrder(s, { customer: { email: 'buyer@example.com', address: { name: 'Jürgen Müller' } }, line: [{ id: 1, price, quantity: 1 }], ...fields });

describe('bank: the matching rules', () => {
  describe('references as the payer writes them', () => {
    it('when digits stand inside a BIC, an IBAN, a booking code or a longer word, then they are no reference', () => {
      const refs = payerReferencesOf('Kd 4711 IBAN: DE02120300000000202051 BIC: HEISDE66 166?30 TO13 PmtInfId-CHDD-1 12,50 EUR 21.11.2026');
      expect(refs).to.deep.equal({ orderIds: [], invoiceNumbers: [], orderNumbers: [], bareNumbers: ['4711'] });
    });

    it('when one or two digits stand alone, then they are no reference; three or more are a weak one', () => {
      expect(payerReferencesOf('Musical inklusive 1 CD, AUSSENH. NR. 1, 2 Stueck, Kunde 4711')).to.deep.equal({
        orderIds: [],
        invoiceNumbers: [],
        orderNumbers: [],
        bareNumbers: ['4711'],
      });
    });

    it('when a seller prints a prefix, then it says which number it is; an order id is read whole', () => {
      expect(payerReferencesOf('RE-1234 Rechnung Nr. 77, Bestellung #15 Order:16 Auftrag 0042 und 12_2026_11.')).to.deep.equal({
        orderIds: ['12_2026_11'],
        invoiceNumbers: ['1234', '77'],
        orderNumbers: ['15', '16', '42'],
        bareNumbers: [],
      });
    });
  });

  describe('fitting an order', () => {
    let s: Seller;
    before(async () => {
      s = await newSeller();
    });

    it('when the digits of a BIC equal an order number, then that order is not paid', async () => {
      const id = await order(s, '66.00');
      const number = id.split('_')[0];
      const record = await post(s, { subject: `Danke IBAN: DE02120300000000202051 BIC: HEISDE${number}`, amount: '66.00', sender: 'Someone Else' });
      expect(record.order_id).to.equal(undefined);
      expect(record.unassigned_reason).to.equal('no_match');
      expect((await readOrder(s, id)).paid_amount).to.equal(null);
    });

    it('when a transfer names an order but is more than it owes, then it stays unassigned as an overpayment and the order is unchanged', async () => {
      const id = await order(s, '913.13');
      const record = await post(s, { subject: `Bestellung ${id}`, amount: '1330185.79' });
      expect(record).to.include({ order_no: id, unassigned_reason: 'overpayment', match_rule: null });
      const o = await readOrder(s, id);
      expect(o.paid_amount).to.equal(null);
      expect(o.status.is_paid).to.equal(false);
    });

    it('when one transfer names two orders and is their sum, then it stays unassigned as several_orders (not overpayment), both orders unchanged, and the filter finds it', async () => {
      const fresh = await newSeller();
      const first = await order(fresh, '10.00');
      const second = await order(fresh, '15.00');
      const record = await post(fresh, { subject: `Bestellungen ${first} und ${second}`, amount: '25.00', sender: 'Nobody Known' });
      expect(record).to.include({ order_no: first, unassigned_reason: 'several_orders', match_rule: null });
      for (const id of [first, second]) expect((await readOrder(fresh, id)).paid_amount).to.equal(null);
      const found = await call(`bank/transfer/?${query({ filter: { unassigned_reason: 'several_orders' } })}`, { token: fresh.token });
      expect(found.status, found.text).to.equal(200);
      expect((found.body.bank as BankView[]).map((b) => b.id)).to.deep.equal([record.id]);
    });

    it('when a transfer in CHF names a EUR order, then it stays unassigned as a currency mismatch', async () => {
      const id = await order(s, '20.00');
      const record = await post(s, { subject: id, amount: '20.00', currency_id: 'CHF' });
      expect(record).to.include({ currency_id: 'CHF', unassigned_reason: 'currency_mismatch' });
      expect((await readOrder(s, id)).paid_amount).to.equal(null);
    });

    it('when a CHF transfer names a CHF order, then it pays it; a EUR transfer keeps EUR', async () => {
      const id = await order(s, '20.00', { currency_id: 'CHF' });
      expect(await post(s, { subject: id, amount: '20.00', currency_id: 'CHF' })).to.include({ order_id: id, match_rule: 'order_id' });
      expect((await post(s, { subject: 'nothing', amount: '1.00' })).currency_id).to.equal('EUR');
    });

    it('when an order id is paid in two parts, then the first leaves it partly paid and the second pays it; a third is an overpayment', async () => {
      const id = await order(s, '100.00');
      expect(await post(s, { subject: `${id} Anzahlung`, amount: '40.00' })).to.include({ order_id: id, match_rule: 'order_id' });
      let o = await readOrder(s, id);
      expect([o.paid_amount, o.status.is_paid]).to.deep.equal(['40.00', true]);
      expect(await post(s, { subject: `${id} Rest`, amount: '60.00' })).to.include({ order_id: id });
      o = await readOrder(s, id);
      expect(o.paid_amount).to.equal('100.00');
      expect(await post(s, { subject: `${id} nochmal`, amount: '0.01' })).to.include({ unassigned_reason: 'overpayment' });
      expect((await readOrder(s, id)).paid_amount).to.equal('100.00');
    });

    it('when an invoice prefix stands before an order number, then it pays only the exact amount owed (amount_mismatch)', async () => {
      const id = await order(s, '50.00');
      const record = await post(s, { subject: `Rechnung ${id.split('_')[0]}`, amount: '5.00', sender: 'Nobody Known' });
      expect(record.unassigned_reason).to.equal('amount_mismatch');
      expect((await readOrder(s, id)).paid_amount).to.equal(null);
    });

    it('when a weak reference names the wrong order, then the name and amount still find the right one', async () => {
      const fresh = await newSeller();
      const wrong = await order(fresh, '913.13');
      const right = await order(fresh, '37.42', { customer: { email: 'c@example.com', address: { name: 'Zoë Brandstätter' } } });
      // An invoice prefix before an order number (no order has invoice numbers yet): weak, the amount differs.
      const record = await post(fresh, { subject: `Rechnung ${wrong.split('_')[0]}`, amount: '37.42', sender: 'BRANDSTAETTER ZOE' });
      expect(record).to.include({ order_id: right, match_rule: 'name_amount' });
      expect((await readOrder(fresh, wrong)).paid_amount).to.equal(null);
    });

    describe('names of every script (text-fold.ts)', () => {
      const buyer = (name: string) => ({ customer: { email: 'c@example.com', address: { name } } });

      it('when a payer writes a Cyrillic name in capitals and the billing name has its й, then name and amount pay that order', async () => {
        const fresh = await newSeller();
        const id = await order(fresh, '41.17', buyer('Кирилл Андрейченко'));
        const record = await post(fresh, { sender: 'АНДРЕЙЧЕНКО КИРИЛЛ', subject: 'оплата', amount: '41.17' });
        expect(record).to.include({ order_id: id, match_rule: 'name_amount' });
        expect((await readOrder(fresh, id)).paid_amount).to.equal('41.17');
      });

      it('when a payer writes a Greek name in capitals without tonos and the billing name has tonos and final sigma, then name and amount pay that order', async () => {
        const fresh = await newSeller();
        const id = await order(fresh, '52.30', buyer('Γιώργος Παπαδόπουλος'));
        const record = await post(fresh, { sender: 'ΠΑΠΑΔΟΠΟΥΛΟΣ ΓΙΩΡΓΟΣ', subject: 'πληρωμή', amount: '52.30' });
        expect(record).to.include({ order_id: id, match_rule: 'name_amount' });
        expect((await readOrder(fresh, id)).paid_amount).to.equal('52.30');
      });

      it("when a payer's name comes as an MT940 writes it in the SWIFT set (HUTA SZKLA TOPIC, as the Polish statement of the Deutsche Bank sample; SOREN KJAER) and the billing name has its ł or ø and æ, then name and amount pay that order", async () => {
        const fresh = await newSeller();
        const polish = await order(fresh, '18.50', buyer('Huta Szkła Topic'));
        const danish = await order(fresh, '27.40', buyer('Søren Kjær'));
        expect(await post(fresh, { sender: 'HUTA SZKLA TOPIC', subject: 'zaplata', amount: '18.50' })).to.include({
          order_id: polish,
          match_rule: 'name_amount',
        });
        expect(await post(fresh, { sender: 'KJAER SOREN', subject: 'betaling', amount: '27.40' })).to.include({ order_id: danish, match_rule: 'name_amount' });
        expect((await readOrder(fresh, polish)).paid_amount).to.equal('18.50');
        expect((await readOrder(fresh, danish)).paid_amount).to.equal('27.40');
      });

      it('when a payer of a CJK name pays what an order of that name owes, then it pays it; another CJK name of the same amount does not', async () => {
        const fresh = await newSeller();
        const id = await order(fresh, '63.00', buyer('王小明'));
        const other = await order(fresh, '63.00', buyer('李华'));
        expect(await post(fresh, { sender: '王小明', subject: '', amount: '63.00' })).to.include({ order_id: id, match_rule: 'name_amount' });
        expect((await readOrder(fresh, other)).paid_amount).to.equal(null);
      });

      it('when two orders of one name owe the amount, one billing name with marks beyond U+036F (ALA-LC ligature halves, a Cyrillic titlo), then the payment is ambiguous for both and pays neither', async () => {
        const fresh = await newSeller();
        for (const [amount, marked, plain] of [
          ['33.00', 'Ivan T\ufe20s\ufe21vetkov', 'Ivan Tsvetkov'],
          ['34.00', 'Иван Цве\u0483тков', 'Иван Цветков'],
        ] as const) {
          const ids = [await order(fresh, amount, buyer(marked)), await order(fresh, amount, buyer(plain))];
          const sender = plain.toUpperCase();
          expect(await post(fresh, { sender, subject: '', amount }), sender).to.include({ unassigned_reason: 'ambiguous', match_rule: null });
          for (const id of ids) expect((await readOrder(fresh, id)).paid_amount, sender).to.equal(null);
        }
      });

      it('when two different non-Latin names owe and pay the same amount, then neither pays the other (no_match), nothing is paid', async () => {
        const fresh = await newSeller();
        const cyrillic = await order(fresh, '74.00', buyer('Иван Петров'));
        const greek = await order(fresh, '74.00', buyer('Νίκος Οικονόμου'));
        expect(await post(fresh, { sender: 'Пётр Сидоров', subject: '', amount: '74.00' })).to.include({ unassigned_reason: 'no_match', match_rule: null });
        expect(await post(fresh, { sender: 'Δημήτρης Αλεξίου', subject: '', amount: '74.00' })).to.include({ unassigned_reason: 'no_match', match_rule: null });
        for (const id of [cyrillic, greek]) expect((await readOrder(fresh, id)).paid_amount).to.equal(null);
      });
    });

    it('when a prefixed invoice number names an order, then it pays part of it', async () => {
      const id = await order(s, '80.00');
      await post(s, { subject: id, amount: '10.00' });
      const invoice = (await readOrder(s, id)).invoice_number;
      expect(await post(s, { subject: `RE-${invoice}`, amount: '30.00' })).to.include({ order_id: id, match_rule: 'invoice_number' });
      expect((await readOrder(s, id)).paid_amount).to.equal('40.00');
    });

    it('when unassigned transfers are searched by reason, then the filter finds them', async () => {
      const res = await call(`bank/transfer/?${query({ filter: { unassigned_reason: 'currency_mismatch' } })}`, { token: s.token });
      expect(res.status, res.text).to.equal(200);
      expect((res.body.bank as BankView[]).map((b) => b.unassigned_reason)).to.deep.equal(['currency_mismatch']);
    });

    it('when a reason or rule is one no record can have (misspelt), then 400 names the filter field and lists the values, rather than an empty page read as "nothing left to assign"', async () => {
      for (const [field, value] of [
        ['unassigned_reason', 'no-match'],
        ['match_rule', 'Name_Amount'],
      ] as const) {
        const res = await call(`bank/transfer/?${query({ filter: { [field]: value } })}`, { token: s.token });
        expect(res.status, res.text).to.equal(400);
        expect(res.body.error![0]!.field).to.match(new RegExp(`${field}`));
        expect(res.text).to.match(field === 'match_rule' ? /name_amount/ : /no_match/);
      }
    });

    it('when the currency is not one of GET system/currency/, then 400 names bank.currency_id and nothing is stored', async () => {
      const before = await call(`bank/transfer/?${query({ pagination: { limit: 200 } })}`, { token: s.token });
      const res = await call('bank/transfer/', { token: s.token, body: { bank: transfer({ currency_id: 'XYZ' }) } });
      expect(res.status).to.equal(400);
      expect(res.body.error![0]).to.include({ field: 'bank.currency_id' });
      const after = await call(`bank/transfer/?${query({ pagination: { limit: 200 } })}`, { token: s.token });
      expect(after.body.bank).to.have.length((before.body.bank as unknown[]).length);
    });
  });
});
