/**
 * The amounts an issued invoice states, as a seller's client gets them (POST order/, the worker
 * issues, GET order/{order_id}/invoice/ hands out the XML and the PDF): found by a reviewer who
 * issued invoices through the API and ran the CEN EN 16931 XSLT and KoSIT's schematron over them
 * (both passed; the amounts were wrong for a reader). A credit order's paid_amount is the credit
 * refunded, line net = quantity x net price / base quantity, the PDF's money has the XML's two
 * decimals in every currency, and the payment terms of an amount owed to the buyer say it is refunded.
 */
import { expect } from 'chai';
import { XMLParser } from 'fast-xml-parser';
import { readFacturx } from '../../lib/invoice';
import { apiBase, call, newSeller, Seller } from '../support/api';
import { giveInvoiceDetails } from '../support/invoicing';
import { waitFor } from '../event/servers';
import { checkEn16931 } from './en16931-rules';
import { invoiceWorkerForSuite, pdfText, xmllint } from './support';

/** What a receiver reads off the XML: the summation, the payment terms and each line's quantity, price, base quantity and net. */
interface XmlFacts {
  sums: Record<string, string>;
  terms: string;
  lines: { quantity: string; price: string; basis: string; net: string }[];
  vat: { basis: string; tax: string }[];
}

const parser = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: true,
  parseTagValue: false,
  isArray: (n) => ['IncludedSupplyChainTradeLineItem', 'ApplicableTradeTax'].includes(n),
});

/** The text at a path of parsed XML ('' when absent). */
const textAt = (node: unknown, ...path: string[]): string => {
  const v = path.reduce<unknown>((n, k) => (n && typeof n === 'object' ? (n as Record<string, unknown>)[k] : undefined), node);
  return v === undefined ? '' : String(v);
};

function factsOf(xml: string): XmlFacts {
  const root = parser.parse(xml) as { CrossIndustryInvoice: { SupplyChainTradeTransaction: Record<string, unknown> } };
  const tx = root.CrossIndustryInvoice.SupplyChainTradeTransaction;
  const settlement = tx.ApplicableHeaderTradeSettlement as Record<string, unknown>;
  const sums: Record<string, string> = {};
  for (const [k, v] of Object.entries(settlement.SpecifiedTradeSettlementHeaderMonetarySummation as Record<string, unknown>)) sums[k] = String(v);
  return {
    sums,
    terms: textAt(settlement, 'SpecifiedTradePaymentTerms', 'Description'),
    lines: (tx.IncludedSupplyChainTradeLineItem as unknown[]).map((l) => ({
      quantity: textAt(l, 'SpecifiedLineTradeDelivery', 'BilledQuantity'),
      price: textAt(l, 'SpecifiedLineTradeAgreement', 'NetPriceProductTradePrice', 'ChargeAmount'),
      basis: textAt(l, 'SpecifiedLineTradeAgreement', 'NetPriceProductTradePrice', 'BasisQuantity') || '1',
      net: textAt(l, 'SpecifiedLineTradeSettlement', 'SpecifiedTradeSettlementLineMonetarySummation', 'LineTotalAmount'),
    })),
    vat: (settlement.ApplicableTradeTax as unknown[]).map((v) => ({ basis: textAt(v, 'BasisAmount'), tax: textAt(v, 'CalculatedAmount') })),
  };
}

/** A decimal string as a fraction n / 10^d, exactly. */
const exact = (s: string): { n: bigint; d: bigint } => {
  const [whole, fraction = ''] = s.replace('-', '').split('.');
  const n = BigInt(`${whole}${fraction}`) * (s.startsWith('-') ? -1n : 1n);
  return { n, d: 10n ** BigInt(fraction.length) };
};

/** quantity x price / base quantity, rounded to the cent half away from zero (as Mustang's LineCalculator, HALF_UP), as a two-decimal string. */
function lineNetOf(l: { quantity: string; price: string; basis: string }): string {
  const [q, p, b] = [exact(l.quantity), exact(l.price), exact(l.basis)];
  const num = q.n * p.n * b.d * 100n;
  const den = q.d * p.d * b.n;
  const negative = num < 0n !== den < 0n;
  const [an, ad] = [num < 0n ? -num : num, den < 0n ? -den : den];
  const c = (an * 2n + ad) / (ad * 2n);
  const text = `${c / 100n}.${(c % 100n).toString().padStart(2, '0')}`;
  return negative && c !== 0n ? `-${text}` : text;
}

/** pdftotext reads the no-break spaces Intl puts around currency signs and between digits as spaces. */
const asPdfText = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');

describe('invoices: the amounts they state (found by a reviewer issuing invoices through the API)', function () {
  this.timeout(60000);
  invoiceWorkerForSuite('invoice-money');

  const buyer = { email: 'erika@example.com', address: { name: 'Erika Mustermann', street: 'Weg 2', zip: '20095', city: 'Hamburg', country_iso2: 'DE' } };

  async function createOrder(seller: Seller, order: Record<string, unknown>): Promise<string> {
    const res = await call('order/', { token: seller.token, body: { order: { customer: buyer, ...order } } });
    expect(res.status, res.text).to.equal(201);
    return res.body.order_id as string;
  }

  /** The issued invoice of an order (waiting for the worker): GET's answer, its XML and the text of its PDF's first page. */
  async function invoiceOf(seller: Seller, id: string): Promise<{ answer: Record<string, unknown>; xml: string; facts: XmlFacts; text: string }> {
    await waitFor(async () => {
      const order = (await call(`order/${id}/`, { token: seller.token })).body.order as Record<string, unknown> | undefined;
      return order?.bill_url ? order : undefined;
    }, `the invoice of ${id}`);
    const get = async (query: string) => {
      const res = await fetch(`${await apiBase()}/v1.1/order/${id}/invoice/${query}`, {
        headers: { Authorization: `Bearer ${seller.token}` },
        redirect: 'manual',
      });
      expect(res.status).to.equal(302);
      const body = (await res.json()) as { invoice: Record<string, unknown> };
      return { answer: body.invoice, bytes: Buffer.from(await (await fetch(res.headers.get('location')!)).arrayBuffer()) };
    };
    const pdf = await get('');
    const xml = (await get('?format=xml')).bytes.toString('utf8');
    expect(xmllint(xml).code, xmllint(xml).output).to.equal(0);
    expect(checkEn16931(xml)).to.deep.equal([]);
    // The PDF carries the same XML.
    expect(Buffer.from((await readFacturx(pdf.bytes)).invoiceFile!.bytes).toString('utf8')).to.equal(xml);
    return { answer: pdf.answer, xml, facts: factsOf(xml), text: pdfText(pdf.bytes) };
  }

  it('when a credit order of 2 x -16.36 is paid with paid_amount 32.72 (the credit refunded, sent as its magnitude), then its credit note states 32.72 prepaid and nothing due, not 65.44', async () => {
    const seller = await giveInvoiceDetails(await newSeller());
    const main = await createOrder(seller, { status: { is_paid: true }, line: [{ id: 1, name: 'Lampe', quantity: 4, price: '16.36', tax: '19' }] });
    await invoiceOf(seller, main);
    const lamps = (quantity: number) => [{ id: 1, name: 'Lampe', quantity, price: '-16.36', tax: '19' }];

    // Refunded in full, sent as the magnitude (lib/order keeps it in the invoice's sign).
    const refunded = await createOrder(seller, { credit: { main_id: main }, paid_amount: '32.72', line: lamps(2) });
    const full = await invoiceOf(seller, refunded);
    // Before: TotalPrepaidAmount -32.72, DuePayableAmount 65.44 (the buyer owed twice the credit).
    expect(full.facts.sums).to.include({ GrandTotalAmount: '32.71', RoundingAmount: '0.01', TotalPrepaidAmount: '32.72', DuePayableAmount: '0.00' });
    expect(full.answer).to.include({ type_code: 381, grand_total: '32.71', due_amount: '0.00' });
    expect(full.facts.terms).to.equal('Bezahlt.');
    expect(full.text)
      .to.match(/Bezahlt\s+32,72 €/)
      .and.to.match(/Offener Betrag\s+0,00 €/);

    // Partly refunded: 10.00 of 16.36; the 6.36 left is owed to the buyer.
    const partly = await createOrder(seller, { credit: { main_id: main }, paid_amount: '10.00', line: lamps(1) });
    const part = await invoiceOf(seller, partly);
    expect(part.facts.sums).to.include({ GrandTotalAmount: '16.36', TotalPrepaidAmount: '10.00', DuePayableAmount: '6.36' });
    expect(part.answer).to.include({ due_amount: '6.36' });
    expect(part.facts.terms).to.equal('Der Betrag von 6.36 EUR wird erstattet.');
    expect(asPdfText(part.text)).to.contain('Der Betrag von 6,36 € wird erstattet.');

    // Marked paid at creation (paid_amount stored as the negative invoice_amount, -16.36): the same credit note.
    const marked = await createOrder(seller, { credit: { main_id: main }, status: { is_paid: true }, line: lamps(1) });
    expect(((await call(`order/${marked}/`, { token: seller.token })).body.order as { paid_amount: string }).paid_amount).to.equal('-16.36');
    expect((await invoiceOf(seller, marked)).facts.sums).to.include({ GrandTotalAmount: '16.36', TotalPrepaidAmount: '16.36', DuePayableAmount: '0.00' });
  });

  it('when lines of 1000, 250 and 5000 units have a net price of more than four decimals, then quantity x net price / base quantity is the line net amount (BT-131), and the PDF prints the price the XML states', async () => {
    const seller = await giveInvoiceDetails(await newSeller());
    const id = await createOrder(seller, {
      status: { is_paid: true },
      line: [
        { id: 1, name: 'Schraube', quantity: 1000, price: '0.99', tax: '19' },
        { id: 2, name: 'Mutter', quantity: 250, price: '0.07', tax: '19' },
        { id: 3, name: 'Scheibe', quantity: 5000, price: '0.03', tax: '19' },
        { id: 4, name: 'Kleber', quantity: 137, price: '2.49', tax: '7' },
        { id: 5, name: 'Tasse', quantity: 3, price: '9.99', tax: '19' },
      ],
    });
    const { facts, text } = await invoiceOf(seller, id);
    // Before: 1000 x 0.8319 = 831.90 against 831.93, 250 x 0.0588 = 14.70 against 14.71, 5000 x 0.0252 = 126.00 against 126.05.
    expect(facts.lines.map((l) => [l.quantity, l.price, l.basis, l.net, lineNetOf(l)])).to.deep.equal(
      facts.lines.map((l) => [l.quantity, l.price, l.basis, l.net, l.net]),
    );
    // A price that reproduces its line with four decimals stays a unit price (137 x 2.49 gross at 7 %, 3 x 9.99 at 19 %).
    expect(facts.lines.map((l) => l.basis)).to.deep.equal(['1000', '250', '5000', '1', '1']);
    const price = new Intl.NumberFormat('de-DE', { style: 'currency', currency: 'EUR', minimumFractionDigits: 2, maximumFractionDigits: 4 });
    for (const l of facts.lines) {
      const shown = asPdfText(`${price.format(Number(l.price))}${l.basis === '1' ? '' : ` je ${l.basis}`}`);
      expect(asPdfText(text), shown).to.contain(shown);
    }
  });

  for (const { currency, lines, fee, shown } of [
    {
      currency: 'HUF',
      lines: [
        { id: 1, name: 'Kaffeemaschine', quantity: 1, price: '45990.00', tax: '19' },
        { id: 2, name: 'Kochbuch', quantity: 1, price: '5999.00', tax: '7' },
      ],
      fee: '990.00',
      // Before: "38.647 HUF", "7.483 HUF", "45.096 HUF" (the column added to 45.097).
      shown: ['38.647,06 HUF', '7.482,77 HUF', '45.096,30 HUF'],
    },
    // Before: "479 ¥".
    { currency: 'JPY', lines: [{ id: 1, name: 'Teekanne', quantity: 3, price: '1000.00', tax: '19' }], fee: null, shown: ['478,99 ¥'] },
  ])
    it(`when an invoice is in ${currency}, a currency of 0 decimals, then its PDF shows every amount with the two decimals of its XML`, async () => {
      const seller = await giveInvoiceDetails(await newSeller());
      const id = await createOrder(seller, { status: { is_paid: true }, currency_id: currency, shipping: fee ? { fee } : undefined, line: lines });
      const { facts, text } = await invoiceOf(seller, id);
      const money = new Intl.NumberFormat('de-DE', { style: 'currency', currency, minimumFractionDigits: 2, maximumFractionDigits: 2 });
      const amounts = [
        ...facts.lines.map((l) => l.net),
        ...facts.vat.flatMap((v) => [v.basis, v.tax]),
        ...['TaxBasisTotalAmount', 'GrandTotalAmount', 'TotalPrepaidAmount', 'DuePayableAmount'].map((k) => facts.sums[k]!),
      ];
      for (const a of amounts) expect(asPdfText(text), a).to.contain(asPdfText(money.format(Number(a))));
      for (const s of shown) expect(asPdfText(text)).to.contain(asPdfText(s));
    });

  for (const { locale, terms, pdfTerms } of [
    { locale: 'de-DE', terms: 'Der Betrag von 10.02 EUR wird erstattet.', pdfTerms: 'Der Betrag von 10,02 € wird erstattet.' },
    { locale: 'en-GB', terms: 'The amount of 10.02 EUR will be refunded.', pdfTerms: 'The amount of €10.02 will be refunded.' },
  ])
    it(`when an invoice is overpaid (30.00 of 19.98) in ${locale}, then its payment terms say the 10.02 are refunded, not "payable immediately"`, async () => {
      const seller = await giveInvoiceDetails(await newSeller(), { locale });
      const id = await createOrder(seller, { paid_amount: '30.00', line: [{ id: 1, name: 'Tasse', quantity: 2, price: '9.99', tax: '19' }] });
      const { facts, text } = await invoiceOf(seller, id);
      expect(facts.sums).to.include({ TotalPrepaidAmount: '30.00', DuePayableAmount: '-10.02' });
      // Before: "Zahlbar sofort ohne Abzug." / "Payable immediately without deduction." beside -10.02.
      expect(facts.terms).to.equal(terms);
      expect(asPdfText(text)).to.contain(pdfTerms);
    });
});
