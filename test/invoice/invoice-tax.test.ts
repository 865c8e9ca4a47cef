/**
 * The VAT an invoice states, as a seller's client sees it (found by a reviewer who issued
 * invoices through the API and ran the official CEN EN 16931 XSLT 1.3.16 and KoSIT on them):
 * a line without tax takes its stock item's rate and is refused without one, a credit note
 * mirrors the tax treatment of the invoice it credits, goods to an EU business are an
 * intra-Community supply (K) and exports with no VAT are G, and countries and currencies outside
 * EN 16931's code lists are refused before an invoice that every validator refuses is issued.
 * Each case issues through the API, downloads the XML and checks it with the suite's validators
 * (xmllint against the CII D16B schema, en16931-rules.ts).
 */
import { expect } from 'chai';
import { setAccountAddress } from '../../lib/account';
import { db } from '../../lib/db/knex';
import { importOrders } from '../../lib/order-import/order-import.service';
import { apiBase, call, newSeller, Seller } from '../support/api';
import { giveInvoiceDetails, sellerAddress } from '../support/invoicing';
import { waitFor } from '../event/servers';
import { channelLoopForSuite, Sandbox } from '../fleet/support';
import { ebaySandboxOrder, kontorOrder } from '../portals/channel-support';
import { checkEn16931 } from './en16931-rules';
import { invoiceWorkerForSuite, xmllint } from './support';

const german = { email: 'erika@example.com', address: { name: 'Erika Mustermann', street: 'Weg 2', zip: '50667', city: 'Köln', country_iso2: 'DE' } };
const french = {
  email: 'achats@example.fr',
  vat_id: 'FR40303265045',
  address: { name: 'Société Exemple SARL', street: 'Rue 1', zip: '75001', city: 'Paris', country_iso2: 'FR' },
};
const american = { email: 'buyer@example.com', address: { name: 'Jane Doe', street: '1 Main St', zip: '10001', city: 'New York', country_iso2: 'US' } };

/** The breakdowns of an XML: [category, rate, basis, VAT, exemption code]. */
const breakdownOf = (xml: string) =>
  [
    ...xml.matchAll(
      /<ram:ApplicableTradeTax><ram:CalculatedAmount>([^<]*)<\/ram:CalculatedAmount><ram:TypeCode>VAT<\/ram:TypeCode>(?:<ram:ExemptionReason>[^<]*<\/ram:ExemptionReason>)?<ram:BasisAmount>([^<]*)<\/ram:BasisAmount><ram:CategoryCode>([^<]*)<\/ram:CategoryCode>(?:<ram:ExemptionReasonCode>([^<]*)<\/ram:ExemptionReasonCode>)?<ram:RateApplicablePercent>([^<]*)</g,
    ),
  ].map((m) => [m[3], m[5], m[2], m[1], m[4] ?? '']);

/** What the suite's validators say of an XML: xmllint's exit code and the EN 16931 rules it breaks. */
const verdict = (xml: string) => ({ xmllint: xmllint(xml).code, rules: checkEn16931(xml).map((v) => `${v.rule}: ${v.message}`) });
const valid = { xmllint: 0, rules: [] };

describe('invoices: the VAT they state (found by a reviewer with the CEN validator 1.3.16)', function () {
  this.timeout(60000);
  invoiceWorkerForSuite('invoice-tax');

  const invoicingSeller = async (): Promise<Seller> => giveInvoiceDetails(await newSeller());

  async function createOrder(seller: Seller, order: Record<string, unknown>): Promise<string> {
    const res = await call('order/', { token: seller.token, body: { order: { customer: german, ...order } } });
    expect(res.status, res.text).to.equal(201);
    return res.body.order_id as string;
  }

  const readOrder = async (seller: Seller, id: string) => (await call(`order/${id}/`, { token: seller.token })).body.order as Record<string, unknown>;

  async function finished(seller: Seller, jobId: string): Promise<Record<string, unknown>> {
    return waitFor(async () => {
      const job = (await call(`job/${jobId}/`, { token: seller.token })).body.job as Record<string, unknown> | undefined;
      return job && (job.state === 'completed' || job.state === 'failed') && job.finished_date ? job : undefined;
    }, `job ${jobId}`);
  }

  /** The outcome for a paid order of the invoice.issue job its payment queued (the outbox row naming it). */
  async function autoIssued(seller: Seller, id: string): Promise<{ status: string; reason?: string }> {
    const jobId = await waitFor(
      async () =>
        (
          (await db()('outbox')
            .where({ account_id: seller.id, job_name: 'invoice.issue' })
            .whereRaw('payload @> ?::jsonb', [JSON.stringify({ orderIds: [id] })])
            .first('job_id')) as { job_id: string } | undefined
        )?.job_id,
      `the invoice.issue row of ${id}`,
    );
    return ((await finished(seller, jobId)).result as { order_id: string; status: string; reason?: string }[]).find((o) => o.order_id === id)!;
  }

  /** POST order/{id}/invoice/ and the job's outcome for the order. */
  async function ask(seller: Seller, id: string): Promise<{ status: string; reason?: string }> {
    const res = await call(`order/${id}/invoice/`, { token: seller.token, body: {} });
    expect(res.status, res.text).to.equal(202);
    return ((await finished(seller, res.body.job_id as string)).result as { status: string; reason?: string }[])[0]!;
  }

  /** The issued invoice's Factur-X XML (GET order/{id}/invoice/?format=xml, then its link). */
  async function xmlOf(seller: Seller, id: string): Promise<string> {
    const res = await fetch(`${await apiBase()}/v1.1/order/${id}/invoice/?format=xml`, {
      headers: { Authorization: `Bearer ${seller.token}` },
      redirect: 'manual',
    });
    expect(res.status, await res.clone().text()).to.equal(302);
    return Buffer.from(await (await fetch(res.headers.get('location')!)).arrayBuffer()).toString('utf8');
  }

  /** A paid order's invoice XML once the worker has issued it. */
  async function issuedXml(seller: Seller, id: string): Promise<string> {
    await waitFor(async () => (await readOrder(seller, id)).bill_url || undefined, `the invoice of ${id}`);
    return xmlOf(seller, id);
  }

  async function stockItem(seller: Seller, sku: string, tax: string | null): Promise<string> {
    const res = await call('stock/', { token: seller.token, body: { stock: { name: `item ${sku}`, sku, quantity: 10, ...(tax === null ? {} : { tax }) } } });
    expect(res.status, res.text).to.equal(201);
    return String(res.body.stock_id);
  }

  describe('a line without tax', () => {
    it("when a paid order's line has no tax and is linked to a stock item with tax 19.00, then its invoice states 19 %: 11.90 is 10.00 and 1.90 VAT (was Z 0 %: 11.90 and 0.00)", async () => {
      const seller = await invoicingSeller();
      const item = await stockItem(seller, 'MUG-19', '19.00');
      const id = await createOrder(seller, {
        status: { is_paid: true },
        line: [
          { id: 1, name: 'Tasse', quantity: 1, price: '11.90', stock_align_id: `ID_${item}` },
          // Sent with tax 0 on purpose: stays 0 % (Z).
          { id: 2, name: 'Gutschein-Karte', quantity: 1, price: '5.00', tax: '0' },
        ],
      });
      expect(((await readOrder(seller, id)).line as { tax: unknown }[])[0]!.tax, 'the order keeps its line as sent').to.equal(null);
      const xml = await issuedXml(seller, id);
      expect(breakdownOf(xml)).to.deep.equal([
        ['S', '19.00', '10.00', '1.90', ''],
        ['Z', '0.00', '5.00', '0.00', ''],
      ]);
      expect(xml).to.contain('<ram:TaxTotalAmount currencyID="EUR">1.90</ram:TaxTotalAmount>');
      expect(verdict(xml)).to.deep.equal(valid);
    });

    it('when a line has no tax and no stock item with one, then no invoice is issued: the job and GET name the line, POST is a 400 naming it and changes nothing, and once the tax is set POST issues it', async () => {
      const seller = await invoicingSeller();
      const untaxed = await stockItem(seller, 'MUG-NONE', null);
      const paid = await createOrder(seller, {
        status: { is_paid: true },
        line: [
          { id: 1, name: 'Tasse', quantity: 1, price: '11.90', tax: '19' },
          { id: 2, name: 'Teller', quantity: 1, price: '8.00' },
          { id: 3, name: 'Schale', quantity: 1, price: '6.00', stock_align_id: `ID_${untaxed}` },
        ],
      });
      const outcome = await autoIssued(seller, paid);
      expect(outcome.status).to.equal('refused');
      expect(outcome.reason).to.contain('order.line[1].tax').and.to.contain('order.line[2].tax').and.not.to.contain('order.line[0]');
      const again = await call(`order/${paid}/invoice/`, { token: seller.token, body: {} });
      expect(again.status, again.text).to.equal(400);
      expect(again.body.error?.map(({ error, field }) => ({ error, field }))).to.deep.equal([
        { error: 'invalid_field', field: 'order.line[1].tax' },
        { error: 'invalid_field', field: 'order.line[2].tax' },
      ]);
      const before = await readOrder(seller, paid);
      expect(before.invoice_number, 'the paid order keeps its number').to.be.a('number');
      expect(before.bill_url).to.equal(null);
      const absent = await call(`order/${paid}/invoice/`, { token: seller.token });
      expect(absent.status).to.equal(404);
      expect(JSON.stringify(absent.body.error)).to.contain('order.line[1].tax');

      const unpaid = await createOrder(seller, { line: [{ id: 1, name: 'Teller', quantity: 1, price: '8.00' }] });
      const res = await call(`order/${unpaid}/invoice/`, { token: seller.token, body: {} });
      expect(res.status, res.text).to.equal(400);
      expect(res.body.error?.map(({ error, field, code }) => ({ error, field, code }))).to.deep.equal([
        { error: 'invalid_field', field: 'order.line[0].tax', code: 400 },
      ]);
      expect((await readOrder(seller, unpaid)).invoice_number, 'a refused POST gives no number').to.equal(null);

      // The stock item gets its rate and the line its own: the invoice is issued with the number the order has.
      expect((await call(`stock/${untaxed}/`, { token: seller.token, body: { stock: { tax: '7' } } })).status).to.equal(200);
      const set = await call(`order/${paid}/`, {
        token: seller.token,
        body: {
          order: {
            line: [
              { id: 1, name: 'Tasse', quantity: 1, price: '11.90', tax: '19' },
              { id: 2, name: 'Teller', quantity: 1, price: '8.00', tax: '19' },
              { id: 3, name: 'Schale', quantity: 1, price: '6.00', stock_align_id: `ID_${untaxed}` },
            ],
          },
        },
      });
      expect(set.status, set.text).to.equal(200);
      expect((await ask(seller, paid)).status).to.equal('issued');
      const xml = await xmlOf(seller, paid);
      expect(xml).to.contain(`<ram:ID>${String(before.invoice_number)}</ram:ID>`);
      expect(breakdownOf(xml)).to.deep.equal([
        ['S', '19.00', '16.72', '3.18', ''],
        ['S', '7.00', '5.61', '0.39', ''],
      ]);
      expect(verdict(xml)).to.deep.equal(valid);
    });
  });

  describe('a credit note', () => {
    it("when the credit order of an intra-Community invoice names only the customer's email, then the credit note mirrors the invoice's buyer: K, no VAT, the buyer's VAT id (was S 19 %: 84.03 and 15.97)", async () => {
      const seller = await invoicingSeller();
      const main = await createOrder(seller, {
        customer: french,
        status: { is_paid: true },
        line: [{ id: 1, name: 'Lampe', quantity: 2, price: '50.00', tax: '19' }],
      });
      const mainXml = await issuedXml(seller, main);
      expect(breakdownOf(mainXml)).to.deep.equal([['K', '0.00', '100.00', '0.00', 'VATEX-EU-IC']]);
      const credit = await createOrder(seller, {
        customer: { email: french.email },
        credit: { main_id: main },
        line: [{ id: 1, name: 'Lampe', quantity: 2, price: '-50.00', tax: '19' }],
      });
      expect((await ask(seller, credit)).status).to.equal('issued');
      const xml = await xmlOf(seller, credit);
      expect(xml).to.contain('<ram:TypeCode>381</ram:TypeCode>');
      expect(breakdownOf(xml)).to.deep.equal([['K', '0.00', '100.00', '0.00', 'VATEX-EU-IC']]);
      expect(xml).to.match(
        /<ram:BuyerTradeParty>.*<ram:Name>Société Exemple SARL<\/ram:Name>.*<ram:ID schemeID="VA">FR40303265045<\/ram:ID>.*<\/ram:BuyerTradeParty>/,
      );
      expect(verdict(xml)).to.deep.equal(valid);
    });

    it("when the credit order of a domestic invoice names a foreign business, or the credited order's buyer changed after its invoice, then the credit note still states the invoice's buyer and VAT (S 19 %)", async () => {
      const seller = await invoicingSeller();
      const main = await createOrder(seller, { status: { is_paid: true }, line: [{ id: 1, name: 'Lampe', quantity: 1, price: '119.00', tax: '19' }] });
      await issuedXml(seller, main);
      const moved = await call(`order/${main}/`, {
        token: seller.token,
        body: { order: { customer: { vat_id: 'ATU12345678', address: { country_iso2: 'AT', city: 'Wien' } } } },
      });
      expect(moved.status, moved.text).to.equal(200);
      const credit = await createOrder(seller, {
        customer: french,
        credit: { main_id: main },
        line: [{ id: 1, name: 'Lampe', quantity: 1, price: '-119.00', tax: '19' }],
      });
      expect((await ask(seller, credit)).status).to.equal('issued');
      const xml = await xmlOf(seller, credit);
      expect(breakdownOf(xml)).to.deep.equal([['S', '19.00', '100.00', '19.00', '']]);
      expect(xml).to.match(
        /<ram:BuyerTradeParty>.*<ram:Name>Erika Mustermann<\/ram:Name>.*<ram:CityName>Köln<\/ram:CityName><ram:CountryID>DE<\/ram:CountryID>/,
      );
      expect(xml).not.to.contain('FR40303265045');
      expect(verdict(xml)).to.deep.equal(valid);
    });
  });

  describe('exempt supplies of goods', () => {
    it('when goods go to an EU business with a VAT id, then the invoice states an intra-Community supply (K, VATEX-EU-IC, Art. 138, § 4 Nr. 1b / § 6a UStG) with both VAT ids and the delivery country (was AE citing Art. 196)', async () => {
      const seller = await invoicingSeller();
      const id = await createOrder(seller, {
        customer: french,
        status: { is_paid: true },
        shipping: { fee: '5.00' },
        line: [{ id: 1, name: 'Lampe', quantity: 2, price: '50.00', tax: '19' }],
      });
      const xml = await issuedXml(seller, id);
      expect(breakdownOf(xml)).to.deep.equal([['K', '0.00', '105.00', '0.00', 'VATEX-EU-IC']]);
      expect(xml).not.to.contain('<ram:CategoryCode>AE<').and.not.to.contain('Art. 196');
      expect(xml).to.contain(
        '<ram:ExemptionReason>Steuerfreie innergemeinschaftliche Lieferung (Art. 138 MwStSystRL; § 4 Nr. 1b, § 6a UStG).</ram:ExemptionReason>',
      );
      expect(xml).to.contain('<ram:IncludedNote><ram:Content>Steuerfreie innergemeinschaftliche Lieferung');
      expect(xml).to.match(/<ram:SellerTradeParty>.*<ram:ID schemeID="VA">DE123456789<\/ram:ID>.*<\/ram:SellerTradeParty>/);
      expect(xml).to.match(/<ram:BuyerTradeParty>.*<ram:ID schemeID="VA">FR40303265045<\/ram:ID>.*<\/ram:BuyerTradeParty>/);
      // BR-IC-12: the deliver-to country; BR-IC-11: the delivery date.
      expect(xml).to.match(/<ram:ShipToTradeParty>.*<ram:CountryID>FR<\/ram:CountryID>.*<\/ram:ShipToTradeParty><ram:ActualDeliverySupplyChainEvent>/);
      expect(verdict(xml)).to.deep.equal(valid);
    });

    it('when an EU business with a VAT id has the goods delivered in the seller’s country, then it is no intra-Community supply: S 19 %', async () => {
      const seller = await invoicingSeller();
      const id = await createOrder(seller, {
        customer: french,
        status: { is_paid: true },
        shipping: { address: { name: 'Lager Köln', street: 'Weg 3', zip: '50667', city: 'Köln', country_iso2: 'DE' } },
        line: [{ id: 1, name: 'Lampe', quantity: 1, price: '119.00', tax: '19' }],
      });
      const xml = await issuedXml(seller, id);
      expect(breakdownOf(xml)).to.deep.equal([['S', '19.00', '100.00', '19.00', '']]);
      expect(verdict(xml)).to.deep.equal(valid);
    });

    it('when goods sent outside the EU bill no VAT (tax 0), then the invoice states an export (G, VATEX-EU-G, Art. 146, § 4 Nr. 1a / § 6 UStG) with its exemption reason (was Z with no note); a line with VAT stays S', async () => {
      const seller = await invoicingSeller();
      const id = await createOrder(seller, {
        customer: american,
        status: { is_paid: true },
        shipping: { fee: '10.00' },
        line: [
          { id: 1, name: 'Lampe', quantity: 1, price: '100.00', tax: '0' },
          { id: 2, name: 'Tasse', quantity: 1, price: '11.90', tax: '19' },
        ],
      });
      const xml = await issuedXml(seller, id);
      const rows = breakdownOf(xml);
      expect(rows.map((r) => [r[0], r[1], r[4]])).to.deep.equal([
        ['G', '0.00', 'VATEX-EU-G'],
        ['S', '19.00', ''],
      ]);
      expect(xml).to.contain('<ram:ExemptionReason>Steuerfreie Ausfuhrlieferung (Art. 146 MwStSystRL; § 4 Nr. 1a, § 6 UStG).</ram:ExemptionReason>');
      expect(xml).to.contain('<ram:IncludedNote><ram:Content>Steuerfreie Ausfuhrlieferung');
      expect(verdict(xml)).to.deep.equal(valid);
    });
  });

  describe('codes outside the EN 16931 code lists', () => {
    it('when the buyer lives in XK, the goods go to XK or the order is in BGN (in Kontor’s lists, not in CEN’s), then no invoice is issued: the job names the field and its rule, POST is a 400 naming it (were issued and failed BR-CL-14, BR-CL-04)', async () => {
      const seller = await invoicingSeller();
      const cases: [Record<string, unknown>, string, string][] = [
        [{ customer: { ...german, address: { ...german.address, city: 'Prishtina', country_iso2: 'XK' } } }, 'order.customer.address.country_iso2', 'BR-CL-14'],
        [
          { shipping: { address: { name: 'Lager', street: 'Rr. 1', city: 'Prishtina', country_iso2: 'XK' } } },
          'order.shipping.address.country_iso2',
          'BR-CL-14',
        ],
        [{ currency_id: 'BGN' }, 'order.currency_id', 'BR-CL-04'],
      ];
      for (const [fields, field, rule] of cases) {
        const paid = await createOrder(seller, {
          status: { is_paid: true },
          line: [{ id: 1, name: 'Tasse', quantity: 1, price: '11.90', tax: '19' }],
          ...fields,
        });
        const outcome = await autoIssued(seller, paid);
        expect(outcome.status, field).to.equal('refused');
        expect(outcome.reason).to.contain(`${field} (${rule})`);
        expect((await readOrder(seller, paid)).bill_url).to.equal(null);
        const unpaid = await createOrder(seller, { line: [{ id: 1, name: 'Tasse', quantity: 1, price: '11.90', tax: '19' }], ...fields });
        const res = await call(`order/${unpaid}/invoice/`, { token: seller.token, body: {} });
        expect(res.status, res.text).to.equal(400);
        expect(res.body.error?.map(({ error, field: f }) => ({ error, field: f }))).to.deep.equal([{ error: 'invalid_field', field }]);
        expect(res.body.error?.[0]?.description).to.contain(rule);
      }
    });

    it('when the seller’s country is outside the code list, then its invoices are refused as seller details are (seller_details_missing, user.address.country_iso2)', async () => {
      const seller = await invoicingSeller();
      await setAccountAddress(seller.id, { ...sellerAddress, country_iso2: 'XK' });
      const id = await createOrder(seller, { line: [{ id: 1, name: 'Tasse', quantity: 1, price: '11.90', tax: '19' }] });
      const res = await call(`order/${id}/invoice/`, { token: seller.token, body: {} });
      expect(res.status, res.text).to.equal(400);
      expect(res.body.error?.map(({ error, field }) => ({ error, field }))).to.deep.equal([
        { error: 'seller_details_missing', field: 'user.address.country_iso2' },
      ]);
      expect(res.body.error?.[0]?.description).to.contain('BR-CL-14');
    });
  });
});

describe('invoices: a channel order without line tax (found by a reviewer: eBay orders got Z 0 %)', function () {
  this.timeout(120000);
  let sandbox: Sandbox;
  channelLoopForSuite((loop) => ({ sandbox } = loop));
  invoiceWorkerForSuite('invoice-tax');

  it('when an eBay order of a German buyer is imported paid and linked to a stock item with tax 19.00, then its invoice states 19 %: 11.90 is 10.00 and 1.90 VAT (was Z: 11.90 and 0.00)', async () => {
    const seller = await giveInvoiceDetails(await newSeller());
    const stock = await call('stock/', { token: seller.token, body: { stock: { name: 'Tasse', sku: 'EB-1', quantity: 10, tax: '19.00' } } });
    expect(stock.status, stock.text).to.equal(201);
    const { ebayId, id } = await ebaySandboxOrder(sandbox, seller, { currency: 'EUR', lines: [{ sku: 'EB-1', quantity: 1, price: '11.90' }] });
    expect((await importOrders({ accountId: seller.id, portalAccountId: ebayId }, `invoice-tax-${ebayId}`)).orders).to.deep.include({ created: 1 });
    const order = (await kontorOrder(seller, id))! as unknown as { id: string; line: { tax: unknown; stock_align_id: unknown }[] };
    expect(order.line.map((l) => [l.tax, l.stock_align_id])).to.deep.equal([[null, `ID_${String(stock.body.stock_id)}`]]);
    await waitFor(
      async () => ((await call(`order/${order.id}/`, { token: seller.token })).body.order as { bill_url: unknown }).bill_url || undefined,
      'the invoice',
    );
    const res = await fetch(`${await apiBase()}/v1.1/order/${order.id}/invoice/?format=xml`, {
      headers: { Authorization: `Bearer ${seller.token}` },
      redirect: 'manual',
    });
    const xml = Buffer.from(await (await fetch(res.headers.get('location')!)).arrayBuffer()).toString('utf8');
    expect(breakdownOf(xml)).to.deep.equal([['S', '19.00', '10.00', '1.90', '']]);
    expect(verdict(xml)).to.deep.equal(valid);
  });
});
