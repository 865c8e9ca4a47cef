/**
 * Issue 35, point 4: our invoices checked by tools that are not ours (xmllint against the
 * official CII D16B schema, poppler's pdftotext) and by the EN 16931 rules written from the
 * standard's list (en16931-rules.ts), for each shape the issue names; the PDF's Factur-X
 * structure read back by the same reader that reads the genuine samples.
 */
import { expect } from 'chai';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { planInvoice, readFacturx, renderCii, renderPdf, pdfAssets, facturxNamespace, xrechnungGuideline } from '../../lib/invoice';
import { config } from '../../config';
import { checkEn16931, checkXrechnung } from './en16931-rules';
import { order, overlappingWords, pdfaFacts, pdfText, scenarios, seller, xmllint } from './support';

describe('invoices: validators (issue 35)', function () {
  this.timeout(30000);

  for (const s of scenarios) {
    describe(`when ${s.name} is invoiced`, () => {
      const doc = planInvoice(s.order, s.seller);
      const xml = renderCii(doc);
      let pdf: Uint8Array;
      before(async () => {
        pdf = await renderPdf(doc, xml, pdfAssets(config().invoice.iccProfile), new Date('2026-11-26T10:00:00Z'));
      });

      it('then xmllint validates its XML against the UN/CEFACT CII D16B schema', () => {
        const verdict = xmllint(xml);
        expect(verdict.output).to.contain('- validates');
        expect(verdict.code).to.equal(0);
      });

      it('then it breaks none of the EN 16931 rules it touches (BR-CO-10..18, BR-CO-25, the VAT breakdown rules)', () => {
        expect(checkEn16931(xml)).to.deep.equal([]);
      });

      it('then its XRechnung (CII) validates against the schema, keeps the EN 16931 rules and the XRechnung ones (BR-DE)', () => {
        const xrechnung = renderCii(doc, 'xrechnung');
        expect(xrechnung).to.contain(`<ram:ID>${xrechnungGuideline}</ram:ID>`);
        expect(xmllint(xrechnung).code).to.equal(0);
        expect(checkEn16931(xrechnung)).to.deep.equal([]);
        expect(checkXrechnung(xrechnung)).to.deep.equal([]);
        // The Factur-X XML is not an XRechnung: the checks can tell them apart.
        expect(checkXrechnung(xml).map((v) => v.rule)).to.include.members(['BR-DE-15', 'BR-DE-21']);
      });

      it('then its total is what the buyer owes for the order, and the amount due what is left', () => {
        const t = doc.totals;
        const owed = BigInt(Math.round(Math.abs(Number(s.order.invoiceAmount)) * 100));
        expect(t.grandTotal + t.rounding).to.equal(owed);
        expect(t.due).to.equal(owed - BigInt(Math.round(Math.abs(Number(s.order.paidAmount ?? '0')) * 100)));
      });

      it('then its PDF is PDF/A-3B with factur-x.xml attached (Alternative, in the catalog /AF), the fx: XMP and every font embedded', async () => {
        const read = await readFacturx(pdf);
        expect(read.pdfa).to.deep.equal({ part: '3', conformance: 'B' });
        expect(read.facturx).to.deep.equal({ documentFileName: 'factur-x.xml', conformanceLevel: 'EN 16931', version: '1.0' });
        expect(read.xmp).to.contain(facturxNamespace);
        expect(read.files.map((f) => [f.name, f.afRelationship, f.mimeType, f.inCatalogAF])).to.deep.equal([['factur-x.xml', 'Alternative', 'text/xml', true]]);
        expect(Buffer.from(read.invoiceFile!.bytes).toString('utf8')).to.equal(xml);
        const facts = await pdfaFacts(pdf);
        expect(facts.fonts).to.be.greaterThan(0);
        expect(facts.unembeddedFonts).to.deep.equal([]);
        expect(facts.outputIntents).to.deep.equal(['/GTS_PDFA1']);
        expect(facts.fileId).to.equal(true);
        expect(facts.version).to.equal('%PDF-1.7');
      });

      it('then the PDF shows the numbers of the XML, in the seller locale', async () => {
        const read = await readFacturx(pdf);
        const text = pdfText(pdf);
        const money = new Intl.NumberFormat(s.seller.locale, { style: 'currency', currency: s.order.currency });
        expect(read.invoice).to.include({ number: s.order.invoiceNumber, currency: s.order.currency, typeCode: String(doc.typeCode) });
        // pdftotext reads the no-break space Intl puts before the currency sign as a space.
        for (const amount of [read.invoice!.grandTotal, read.invoice!.taxBasisTotal, read.invoice!.duePayable])
          expect(text).to.contain(money.format(Number(amount)).replace(/[\u00a0\u202f]/g, ' '));
        expect(text).to.contain(doc.typeCode === 381 ? 'Gutschrift' : s.seller.locale.startsWith('de') ? 'Rechnung' : 'Invoice');
      });
    });
  }

  it('when the seller sells goods to a French business with a VAT id, then the invoice is an intra-Community supply (K, no VAT, BR-IC-*) with the legal note in the XML and on the PDF (was AE, the reverse charge of services)', async () => {
    const s = scenarios[1]!;
    const doc = planInvoice(s.order, s.seller);
    expect(doc.vat.map((v) => [v.category, v.rate, v.tax, v.exemptionCode])).to.deep.equal([['K', 0, 0n, 'VATEX-EU-IC']]);
    const xml = renderCii(doc);
    expect(xml).to.contain('<ram:ID schemeID="VA">FR40303265045</ram:ID>');
    expect(xml).to.contain('<ram:ExemptionReasonCode>VATEX-EU-IC</ram:ExemptionReasonCode>');
    const text = pdfText(await renderPdf(doc, xml, pdfAssets(config().invoice.iccProfile), new Date()));
    expect(text).to.contain('Steuerfreie innergemeinschaftliche Lieferung');
    expect(text).to.contain('FR40303265045');
    // The rule checks can fail: K without the buyer's VAT id or the delivery country is named.
    const bare = xml.replace(/(<ram:BuyerTradeParty>.*?)<ram:SpecifiedTaxRegistration>.*?<\/ram:SpecifiedTaxRegistration>/, '$1');
    expect(checkEn16931(bare).map((v) => v.rule)).to.deep.equal(['BR-IC-02']);
    expect(checkEn16931(xml.replace(/<ram:ShipToTradeParty>.*?<\/ram:ShipToTradeParty>/, '')).map((v) => v.rule)).to.deep.equal(['BR-IC-12']);
  });

  it('when goods without VAT go outside the EU, then the invoice states an export (G, VATEX-EU-G) and the rule checks name what G lacks', () => {
    const us = { ...scenarios[0]!.order.buyer, address: { ...scenarios[0]!.order.buyer.address, city: 'New York', countryIso2: 'US' } };
    const doc = planInvoice(order({ buyer: us, lines: [{ position: 1, name: 'Lampe', sku: 'L', quantity: 1, price: '100.00', tax: '0' }] }), seller);
    const xml = renderCii(doc);
    expect(doc.vat.map((v) => [v.category, v.rate, v.exemptionCode])).to.deep.equal([['G', 0, 'VATEX-EU-G']]);
    expect(checkEn16931(xml)).to.deep.equal([]);
    const noReason = xml
      .replace(/<ram:ExemptionReason>[^<]*<\/ram:ExemptionReason>/, '')
      .replace(/<ram:ExemptionReasonCode>[^<]*<\/ram:ExemptionReasonCode>/, '');
    expect(checkEn16931(noReason).map((v) => v.rule)).to.deep.equal(['BR-G-10']);
    // BR-CL-14 and BR-CL-04: codes outside EN 16931's lists are named.
    expect(
      checkEn16931(xml.replace('<ram:CountryID>US</ram:CountryID>', '<ram:CountryID>XK</ram:CountryID>').replace('>EUR<', '>BGN<')).map((v) => v.rule),
    ).to.deep.equal(['BR-CL-04', 'BR-CL-14']);
  });

  it('when names, addresses and labels are longer than their columns, then the PDF wraps them: no word is drawn over another or past the page (found looking at a reverse-charge invoice)', async () => {
    const long = (name: string, countryIso2: string) => ({
      name,
      name2: 'z. Hd. Frau Dr. Müller-Lüdenscheidt, Einkauf und Rechnungsprüfung',
      street: 'Strandvej 123456789 Bygning C, 4. sal, lejlighed 17, Indgang fra gården',
      street2: '',
      zip: '5970',
      city: 'Ærøskøbing',
      province: '',
      country: '',
      countryIso2,
    });
    const longSeller = {
      ...seller,
      party: {
        ...seller.party,
        address: { ...long('Kontor Testhandel GmbH & Co. KG', 'DE'), name2: '' },
        email: 'rechnungswesen.abteilung@kontor-testhandel.example.com',
      },
    };
    const reverse = order({
      buyer: { address: long('Ærøskøbing Ølhandel ApS with a very long company name indeed', 'DK'), vatId: 'DK12345678', taxNumber: '', email: '' },
      shipTo: long('Lager Nord, Ærøskøbing Ølhandel ApS with a very long company name indeed', 'DK'),
      shippingFee: '4.90',
      lines: [{ position: 1, name: 'Kaffeebecher', sku: 'CUP-1', quantity: 3, price: '1299.99', tax: '19' }],
    });
    // A line worth millions (CHF in en-GB, wider than its column) on a credit note naming a long invoice number.
    const millions = order({
      currency: 'CHF',
      corrects: { invoiceNumber: '2026000123456', issueDate: '2026-11-01' },
      lines: [{ position: 1, name: 'Rabatt', sku: 'S1', quantity: 1000000, price: '123.45', tax: '0' }],
    });
    for (const [s, o] of [
      [{ ...seller, locale: 'en-GB' }, millions],
      [seller, reverse],
      [longSeller, reverse],
      [{ ...longSeller, locale: 'en-GB' }, reverse],
      ...scenarios.map((x) => [x.seller, x.order] as const),
    ] as const) {
      const doc = planInvoice(o, s);
      const pdf = await renderPdf(doc, renderCii(doc), pdfAssets(config().invoice.iccProfile), new Date());
      expect(overlappingWords(pdf), `${s.locale} ${o.buyer.address.name}`).to.deep.equal([]);
    }
    // The check can fail: two words drawn over one another, and one past the edge, are named.
    const probe = await PDFDocument.create();
    const font = await probe.embedFont(StandardFonts.Helvetica);
    const page = probe.addPage([200, 100]);
    page.drawText('Steuerschuldnerschaft', { x: 10, y: 50, size: 9, font });
    page.drawText('0,00', { x: 60, y: 50, size: 9, font });
    page.drawText('Randnotiz', { x: 180, y: 20, size: 9, font });
    const found = overlappingWords(await probe.save());
    expect(found[0]).to.equal('"Steuerschuldnerschaft" over "0,00"');
    // poppler cuts a word at the page's edge: it names the part it sees.
    expect(found.slice(1))
      .to.have.length(1)
      .and.to.match(/^"Rand[a-z]*" past the page's edge$/);
  });

  it('when an invoice has lines at 19 %, 7 % and 0 % and shipping, then each rate has its breakdown and shipping is split over the rates by their gross', () => {
    const doc = planInvoice(scenarios[0]!.order, scenarios[0]!.seller);
    expect(doc.vat.map((v) => [v.category, v.rate])).to.deep.equal([
      ['S', 1900],
      ['S', 700],
      ['Z', 0],
    ]);
    expect(doc.charges.map((c) => c.rate)).to.deep.equal([1900, 700, 0]);
    // The net shares of the 4.90 shipping: below the gross, above it less the highest rate's VAT.
    const shippingNet = doc.charges.reduce((a, c) => a + c.net, 0n);
    expect(shippingNet < 490n && shippingNet > 411n, String(shippingNet)).to.equal(true);
  });

  it('when a credit note is rendered, then its XML names the invoice it corrects and states positive amounts', () => {
    const doc = planInvoice(scenarios[3]!.order, scenarios[3]!.seller);
    const xml = renderCii(doc);
    expect(doc.typeCode).to.equal(381);
    expect(xml).to.contain('<ram:TypeCode>381</ram:TypeCode>');
    expect(xml).to.match(/<ram:InvoiceReferencedDocument><ram:IssuerAssignedID>1001<\/ram:IssuerAssignedID>/);
    // 9.99 gross at 19 %: 8.39 + 1.59 = 9.98 (no basis gives 9.99), the cent is the rounding amount.
    expect([doc.totals.grandTotal, doc.totals.rounding, doc.totals.paid, doc.totals.due]).to.deep.equal([998n, 1n, 999n, 0n]);
  });

  it('when the rule checks read an invoice whose totals were altered, then they name the rules it breaks', () => {
    const xml = renderCii(planInvoice(scenarios[0]!.order, scenarios[0]!.seller));
    const altered = xml.replace(/<ram:GrandTotalAmount>([\d.]+)</, (_, v: string) => `<ram:GrandTotalAmount>${(Number(v) + 1).toFixed(2)}<`);
    expect(checkEn16931(altered).map((v) => v.rule)).to.deep.equal(['BR-CO-15', 'BR-CO-16']);
    const wrongVat = xml.replace(/<ram:CalculatedAmount>([\d.]+)</, (_, v: string) => `<ram:CalculatedAmount>${(Number(v) + 0.01).toFixed(2)}<`);
    expect(checkEn16931(wrongVat).map((v) => v.rule)).to.include.members(['BR-CO-17', 'BR-S-09', 'BR-CO-14']);
  });

  it('when an order has 80 lines, then the PDF runs over several pages, each with its footer, and its XML keeps every rule', async () => {
    const lines = Array.from({ length: 80 }, (_, i) => ({
      position: i + 1,
      name: `Artikel ${i + 1} mit einem langen Namen, der in der Spalte umbrechen muss, weil er nicht in eine Zeile passt`,
      sku: `SKU-${i + 1}`,
      quantity: 1 + (i % 4),
      price: `${1 + (i % 9)}.${String(i % 100).padStart(2, '0')}`,
      tax: i % 3 ? '19.00' : '7.00',
    }));
    const doc = planInvoice(order({ lines, shippingFee: '5.90' }), seller);
    const xml = renderCii(doc);
    expect(checkEn16931(xml)).to.deep.equal([]);
    const pdf = await renderPdf(doc, xml, pdfAssets(config().invoice.iccProfile), new Date());
    const pages = (await PDFDocument.load(pdf)).getPageCount();
    expect(pages).to.be.greaterThan(2);
    expect(pdfText(pdf)).to.contain(`Seite 1/${pages}`);
    expect((await pdfaFacts(pdf)).unembeddedFonts).to.deep.equal([]);
  });

  it('when a seller has neither VAT id nor tax number, then the rule checks name BR-CO-26 (the CEN validator found it on our small-business invoice)', () => {
    const s = scenarios[4]!;
    const bare = { ...s.seller, party: { ...s.seller.party, vatId: '', taxNumber: '' } };
    expect(checkEn16931(renderCii(planInvoice(s.order, bare))).map((v) => v.rule)).to.deep.equal(['BR-CO-26']);
    expect(renderCii(planInvoice(s.order, s.seller))).to.contain('<ram:SellerTradeParty><ram:ID>12/345/67890</ram:ID>');
  });

  it('when xmllint reads an XML with its elements out of the schema order, then it refuses it (the schema check can fail)', () => {
    const xml = renderCii(planInvoice(scenarios[0]!.order, scenarios[0]!.seller)).replace(
      /(<ram:InvoiceCurrencyCode>EUR<\/ram:InvoiceCurrencyCode>)(<ram:SpecifiedTradeSettlementPaymentMeans>.*?<\/ram:SpecifiedTradeSettlementPaymentMeans>)/,
      '$2$1',
    );
    const verdict = xmllint(xml);
    expect(verdict.code).to.not.equal(0);
    expect(verdict.output).to.contain('fails to validate');
  });
});
