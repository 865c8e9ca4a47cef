/**
 * What the official CEN/TC 434 validation (ConnectingEurope/eInvoicing-EN16931 1.3.16,
 * cii/xslt/EN16931-CII-validation.xslt under Saxon-HE) found on invoices of shapes the other tests
 * did not issue, each as a case that failed before its fix: the rule's id and text, our own check
 * of it (en16931-rules.ts), and xmllint. The official validator is not in ../shared/, so no test
 * runs it: it was run by hand over these shapes and about 1,700 generated invoices (lib/invoice
 * README), and found no fatal rule after the fixes.
 */
import { expect } from 'chai';
import { planInvoice, renderCii } from '../../lib/invoice';
import { allocate } from '../../lib/invoice/invoice-document';
import { checkEn16931 } from './en16931-rules';
import { order, scenarios, seller, xmllint } from './support';

const line = (position: number, price: string, tax: string, quantity = 1, name = `Artikel ${position}`) => ({
  position,
  name,
  sku: `SKU-${position}`,
  quantity,
  price,
  tax,
});
const nameless = { name: '', name2: '', street: '', street2: '', zip: '', city: '', province: '', country: '', countryIso2: 'DE' };

/** The shapes the CEN validator refused before the fixes (each also in its own case below). */
const findings = {
  // BR-S-08: a discount line at 19 % beside positive lines, a discount at 7 %, and shipping.
  discount: order({
    shippingFee: '4.90',
    lines: [line(1, '100.00', '19', 2), line(2, '-15.00', '19', 1, 'Rabatt 15 €'), line(3, '-2.50', '7', 2, 'Gutschein')],
  }),
  // BR-07: a buyer with neither name nor name_2.
  nameless: order({ buyer: { address: nameless, vatId: '', taxNumber: '', email: 'anon@example.com' }, lines: [line(1, '10.00', '19')] }),
  // BR-16: an order with a shipping fee and no lines.
  noLines: order({ shippingFee: '4.90', lines: [] }),
  // XML 1.0 Char: a line name with a control character.
  control: order({ lines: [line(1, '2.00', '19', 1, '\u0001Tasse\u0008 mit\tTab'), line(2, '1.00', '7', 1, 'Schale \uD800')] }),
};

describe('invoices: what the official EN 16931 validator found (CEN schematron 1.3.16)', () => {
  it('when shipping and lines are split over mixed signs (a discount line), then the parts still add up to the whole (allocate)', () => {
    // 159.69 over a line of 200.00 gross, a discount of -15.00 and shipping of 5.03: the floors of
    // the exact shares and the cents left by the largest fractions, never a cent lost.
    const parts = allocate(15969n, [20000n, -1500n, 503n]);
    expect(parts.reduce((a, b) => a + b, 0n)).to.equal(15969n);
    expect(parts).to.deep.equal([16807n, -1261n, 423n]);
    expect(allocate(-479n, [-500n, -13n])).to.deep.equal([-467n, -12n]);
    // All positive: as before (largest remainder, ties to the earlier part).
    expect(allocate(490n, [2997n, 2350n, 300n])).to.deep.equal([260n, 204n, 26n]);
  });

  it(
    'when an order has a discount line at 19 % beside positive lines, and a discount at 7 %, then BR-S-08 holds: "For each different value of VAT ' +
      'category rate (BT-119) where the VAT category code (BT-118) is "Standard rated", the VAT category taxable amount (BT-116) in a VAT breakdown ' +
      '(BG-23) shall equal the sum of Invoice line net amounts (BT-131) plus the sum of document level charge amounts (BT-99) minus the sum of ' +
      'document level allowance amounts (BT-92) where ... the VAT rate equals the VAT category rate (BT-119)"',
    () => {
      const doc = planInvoice(findings.discount, seller);
      const xml = renderCii(doc);
      // Before: the 19 % lines and charge added up to 159.68 against a taxable amount of 159.69, and the amount due was -0.01.
      expect(checkEn16931(xml)).to.deep.equal([]);
      expect(xmllint(xml).code).to.equal(0);
      expect(doc.totals.grandTotal + doc.totals.rounding).to.equal(18490n);
      expect(doc.totals.due).to.equal(0n);
      // Shipping goes to the rates whose lines add up to more than nothing: no negative charge at 7 %.
      expect(doc.charges.map((c) => [c.rate, c.net > 0n])).to.deep.equal([[1900, true]]);
      expect(doc.vat.map((v) => [v.rate, v.basis, v.tax])).to.deep.equal([
        [1900, 15958n, 3032n],
        [700, -467n, -33n],
      ]);
    },
  );

  it('when the buyer has neither name nor name_2, then BR-07 holds: "An Invoice shall contain the Buyer name (BT-44)" (named by its email, else "Kunde <number>")', () => {
    const xml = renderCii(planInvoice(findings.nameless, seller));
    expect(checkEn16931(xml)).to.deep.equal([]);
    expect(xml).to.contain('<ram:BuyerTradeParty><ram:ID>42</ram:ID><ram:Name>anon@example.com</ram:Name>');
    const bare = { ...findings.nameless, buyer: { ...findings.nameless.buyer, email: '' } };
    expect(planInvoice(bare, seller).buyer.address.name).to.equal('Kunde 42');
    expect(planInvoice({ ...bare, customerNumber: null }, { ...seller, locale: 'en-US' }).buyer.address.name).to.equal('Customer');
    const shipped = { ...bare, shipTo: { ...nameless, name: 'Lager Nord', city: 'Kiel' } };
    expect(planInvoice(shipped, seller).buyer.address.name).to.equal('Lager Nord');
    // A named buyer keeps its name.
    expect(planInvoice(scenarios[0]!.order, seller).buyer.address.name).to.equal('Erika Mustermann');
  });

  it('when an order has a shipping fee and no lines, then BR-16 holds: "An Invoice shall have at least one Invoice line (BG-25)" (the shipping is its line)', () => {
    const doc = planInvoice(findings.noLines, seller);
    const xml = renderCii(doc);
    expect(checkEn16931(xml)).to.deep.equal([]);
    expect(doc.lines.map((l) => [l.id, l.name, l.quantity, l.net])).to.deep.equal([[1, 'Versand', 1, 490n]]);
    expect(doc.charges).to.deep.equal([]);
    expect(doc.totals.grandTotal + doc.totals.rounding).to.equal(490n);
    expect(checkEn16931(renderCii(planInvoice(order({ lines: [] }), seller)))).to.deep.equal([]);
  });

  it('when a line name holds a control character or a lone surrogate, then the XML is still XML 1.0 (the validators refused the whole document)', () => {
    const xml = renderCii(planInvoice(findings.control, seller));
    expect(checkEn16931(xml)).to.deep.equal([]);
    expect(xml).to.contain('<ram:Name>Tasse mit\tTab</ram:Name>');
    expect(xml).to.contain('<ram:Name>Schale </ram:Name>');
    expect(xmllint(xml).code, xmllint(xml).output).to.equal(0);
    // The check can fail: the character put back is named.
    expect(checkEn16931(xml.replace('Tasse', '\u0001Tasse')).map((v) => v.rule)).to.deep.equal(['XML-Char']);
  });

  it('when a VAT identifier is given lower case, with blanks or as its digits alone, then BR-CO-09 holds: "... shall have a prefix in accordance with ISO code ISO 3166-1 alpha-2 ... Greece may use the prefix EL" (found 2026-11-28)', () => {
    const at = (countryIso2: string, vatId: string) => ({
      address: { ...nameless, name: 'Käufer', street: 'Weg 1', city: 'Ort', countryIso2 },
      vatId,
      taxNumber: '',
      email: '',
    });
    const cases: [string, string, string, string][] = [
      // seller's vat_id, buyer's country, buyer's vat_id, the buyer's id stated
      ['de 123 456 789', 'FR', 'fr12345678901', 'FR12345678901'],
      ['123456789', 'GR', '123456789', 'EL123456789'],
      ['DE123456789', 'AT', 'U12345678', 'ATU12345678'],
      ['DE123456789', 'CH', 'CHE-123.456.789', 'CHE-123.456.789'],
    ];
    for (const [sellerId, country, buyerId, stated] of cases) {
      const doc = planInvoice(order({ buyer: at(country, buyerId), lines: [line(1, '10.00', '19')] }), {
        ...seller,
        party: { ...seller.party, vatId: sellerId },
      });
      const xml = renderCii(doc);
      expect(checkEn16931(xml), `${sellerId} / ${buyerId}`).to.deep.equal([]);
      expect(xml).to.contain('<ram:ID schemeID="VA">DE123456789</ram:ID>').and.to.contain(`<ram:ID schemeID="VA">${stated}</ram:ID>`);
    }
    // The check can fail: an id without its prefix is named.
    const xml = renderCii(planInvoice(order({ lines: [line(1, '10.00', '19')] }), seller)).replace('>DE123456789<', '>123456789<');
    expect(checkEn16931(xml).map((v) => v.rule)).to.deep.equal(['BR-CO-09']);
  });
});
