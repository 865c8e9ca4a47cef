/**
 * The invoice as UN/CEFACT Cross Industry Invoice D16B XML in the Factur-X 1.0 / ZUGFeRD 2.x
 * EN 16931 profile (guideline urn:cen.eu:en16931:2017). Element order follows the D16B schema's
 * sequences (../shared/contracts/cii-d16b/, checked by xmllint in the tests). Only renders: every
 * amount comes from the InvoiceDocument.
 */
import { amount, InvoiceAddress, InvoiceDocument, InvoiceParty, paymentTerms, percent } from './invoice-document';

/** BT-24: the EN 16931 core, which Factur-X's EN 16931 profile uses as is. */
export const en16931Guideline = 'urn:cen.eu:en16931:2017';

/** BT-24 of XRechnung 3.0, the German CIUS of EN 16931 (here in its CII syntax). */
export const xrechnungGuideline = 'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0';

/** factur-x: the XML inside the PDF; xrechnung: the same invoice for XRechnung receivers (BT-10 and BG-6 added). */
export type CiiVariant = 'factur-x' | 'xrechnung';

/**
 * Characters XML 1.0 does not allow (C0 controls but tab, LF and CR; U+FFFE, U+FFFF; lone
 * surrogates): an order's text may hold them, a parser refuses the whole document for one (the CEN
 * validator did, on a line name with U+0001), so they are dropped.
 */
// eslint-disable-next-line no-control-regex
const notXml = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const escape = (text: string) =>
  text.replace(notXml, '').replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);

/** An element with text, or nothing when the text is empty (optional BTs are left out, not sent empty). */
const el = (name: string, text: string, attributes = ''): string => {
  const content = escape(text);
  return content === '' ? '' : `<${name}${attributes}>${content}</${name}>`;
};
const wrap = (name: string, ...children: string[]): string => {
  const inner = children.join('');
  return inner === '' ? '' : `<${name}>${inner}</${name}>`;
};
const date102 = (isoDate: string) => isoDate.replaceAll('-', '');

function postalAddress(a: InvoiceAddress): string {
  return wrap(
    'ram:PostalTradeAddress',
    el('ram:PostcodeCode', a.zip),
    el('ram:LineOne', a.street),
    el('ram:LineTwo', a.street2),
    el('ram:CityName', a.city),
    el('ram:CountryID', a.countryIso2),
    el('ram:CountrySubDivisionName', a.province),
  );
}

function party(tag: string, p: InvoiceParty, id = '', contact: InvoiceDocument['sellerContact'] | null = null): string {
  return wrap(
    tag,
    el('ram:ID', id),
    el('ram:Name', [p.address.name, p.address.name2].filter(Boolean).join(', ') || p.address.name),
    contact
      ? wrap(
          'ram:DefinedTradeContact',
          el('ram:PersonName', contact.name),
          wrap('ram:TelephoneUniversalCommunication', el('ram:CompleteNumber', contact.phone)),
          wrap('ram:EmailURIUniversalCommunication', el('ram:URIID', contact.email)),
        )
      : '',
    postalAddress(p.address),
    p.email ? `<ram:URIUniversalCommunication>${el('ram:URIID', p.email, ' schemeID="EM"')}</ram:URIUniversalCommunication>` : '',
    p.vatId ? `<ram:SpecifiedTaxRegistration>${el('ram:ID', p.vatId, ' schemeID="VA"')}</ram:SpecifiedTaxRegistration>` : '',
    p.taxNumber ? `<ram:SpecifiedTaxRegistration>${el('ram:ID', p.taxNumber, ' schemeID="FC"')}</ram:SpecifiedTaxRegistration>` : '',
  );
}

const tax = (category: string, rate: number) =>
  `<ram:TypeCode>VAT</ram:TypeCode><ram:CategoryCode>${category}</ram:CategoryCode><ram:RateApplicablePercent>${percent(rate)}</ram:RateApplicablePercent>`;

/** The factur-x.xml of the invoice, or its XRechnung. */
export function renderCii(doc: InvoiceDocument, variant: CiiVariant = 'factur-x'): string {
  const xrechnung = variant === 'xrechnung';
  const cur = ` currencyID="${escape(doc.currency)}"`;
  const lines = doc.lines.map((l) => {
    // BR-27: the net price is never negative; a negative line (a discount) bills a negative quantity.
    const negative = l.net < 0n;
    const price = l.netUnitPrice.replace('-', '');
    const quantity = negative && l.quantity > 0 ? -l.quantity : l.quantity;
    return wrap(
      'ram:IncludedSupplyChainTradeLineItem',
      wrap('ram:AssociatedDocumentLineDocument', el('ram:LineID', String(l.id))),
      wrap('ram:SpecifiedTradeProduct', el('ram:SellerAssignedID', l.sku), el('ram:Name', l.name || l.sku || `#${l.id}`)),
      // BT-149 only where the price is the whole line's (linePrice); left out, it is 1.
      wrap(
        'ram:SpecifiedLineTradeAgreement',
        wrap(
          'ram:NetPriceProductTradePrice',
          el('ram:ChargeAmount', price),
          l.basisQuantity !== 1 ? el('ram:BasisQuantity', `${l.basisQuantity}`, ' unitCode="H87"') : '',
        ),
      ),
      wrap('ram:SpecifiedLineTradeDelivery', el('ram:BilledQuantity', `${quantity}`, ' unitCode="H87"')),
      wrap(
        'ram:SpecifiedLineTradeSettlement',
        `<ram:ApplicableTradeTax>${tax(l.category, l.rate)}</ram:ApplicableTradeTax>`,
        wrap('ram:SpecifiedTradeSettlementLineMonetarySummation', el('ram:LineTotalAmount', amount(l.net))),
      ),
    );
  });
  const breakdown = doc.vat.map(
    (v) =>
      `<ram:ApplicableTradeTax>${el('ram:CalculatedAmount', amount(v.tax))}<ram:TypeCode>VAT</ram:TypeCode>${el('ram:ExemptionReason', v.exemptionReason)}` +
      `${el('ram:BasisAmount', amount(v.basis))}<ram:CategoryCode>${v.category}</ram:CategoryCode>${el('ram:ExemptionReasonCode', v.exemptionCode)}` +
      `<ram:RateApplicablePercent>${percent(v.rate)}</ram:RateApplicablePercent></ram:ApplicableTradeTax>`,
  );
  const charges = doc.charges.map(
    (c) =>
      `<ram:SpecifiedTradeAllowanceCharge><ram:ChargeIndicator><udt:Indicator>true</udt:Indicator></ram:ChargeIndicator>` +
      `${el('ram:ActualAmount', amount(c.net))}${el('ram:ReasonCode', c.reasonCode)}${el('ram:Reason', c.reason)}` +
      `<ram:CategoryTradeTax>${tax(c.category, c.rate)}</ram:CategoryTradeTax></ram:SpecifiedTradeAllowanceCharge>`,
  );
  const t = doc.totals;
  const terms = paymentTerms(doc, (cents) => `${amount(cents)} ${doc.currency}`);
  const shipTo = doc.shipTo
    ? wrap('ram:ShipToTradeParty', el('ram:Name', [doc.shipTo.name, doc.shipTo.name2].filter(Boolean).join(', ')), postalAddress(doc.shipTo))
    : '';
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"' +
    ' xmlns:qdt="urn:un:unece:uncefact:data:standard:QualifiedDataType:100"' +
    ' xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100"' +
    ' xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100">' +
    `<rsm:ExchangedDocumentContext><ram:GuidelineSpecifiedDocumentContextParameter><ram:ID>${xrechnung ? xrechnungGuideline : en16931Guideline}</ram:ID></ram:GuidelineSpecifiedDocumentContextParameter></rsm:ExchangedDocumentContext>` +
    '<rsm:ExchangedDocument>' +
    el('ram:ID', doc.number) +
    `<ram:TypeCode>${doc.typeCode}</ram:TypeCode>` +
    `<ram:IssueDateTime><udt:DateTimeString format="102">${date102(doc.issueDate)}</udt:DateTimeString></ram:IssueDateTime>` +
    doc.notes.map((n) => `<ram:IncludedNote>${el('ram:Content', n)}</ram:IncludedNote>`).join('') +
    '</rsm:ExchangedDocument>' +
    '<rsm:SupplyChainTradeTransaction>' +
    lines.join('') +
    wrap(
      'ram:ApplicableHeaderTradeAgreement',
      // BT-10, which XRechnung requires (BR-DE-15): the order id, what seller and buyer know the sale by.
      xrechnung ? el('ram:BuyerReference', doc.orderId) : '',
      // BR-CO-26 wants a seller identifier, legal registration or VAT id: a seller without VAT id
      // (a small business) is identified by its tax number (BT-29).
      party(
        'ram:SellerTradeParty',
        doc.seller,
        doc.seller.vatId ? '' : doc.seller.taxNumber,
        // BG-6: XRechnung requires it (BR-DE-2, 5, 6, 7); Factur-X carries it when the seller gave a phone.
        xrechnung || doc.sellerContact.phone ? { ...doc.sellerContact, name: doc.sellerContact.name || doc.seller.address.name } : null,
      ),
      party('ram:BuyerTradeParty', doc.buyer, doc.customerNumber),
      wrap('ram:SellerOrderReferencedDocument', el('ram:IssuerAssignedID', doc.orderId)),
    ) +
    // BT-72, the delivery date (German § 14 UStG asks for it; XRechnung recommends it).
    wrap(
      'ram:ApplicableHeaderTradeDelivery',
      shipTo,
      `<ram:ActualDeliverySupplyChainEvent><ram:OccurrenceDateTime><udt:DateTimeString format="102">${date102(doc.deliveryDate)}</udt:DateTimeString></ram:OccurrenceDateTime></ram:ActualDeliverySupplyChainEvent>`,
    ) +
    '<ram:ApplicableHeaderTradeSettlement>' +
    el('ram:InvoiceCurrencyCode', doc.currency) +
    wrap(
      'ram:SpecifiedTradeSettlementPaymentMeans',
      el('ram:TypeCode', doc.paymentMethod.code),
      el('ram:Information', doc.paymentMethod.name),
      wrap('ram:PayeePartyCreditorFinancialAccount', el('ram:IBANID', doc.payee.iban)),
      wrap('ram:PayeeSpecifiedCreditorFinancialInstitution', el('ram:BICID', doc.payee.bic)),
    ) +
    breakdown.join('') +
    charges.join('') +
    wrap('ram:SpecifiedTradePaymentTerms', el('ram:Description', terms)) +
    '<ram:SpecifiedTradeSettlementHeaderMonetarySummation>' +
    el('ram:LineTotalAmount', amount(t.lineTotal)) +
    el('ram:ChargeTotalAmount', amount(t.chargeTotal)) +
    el('ram:AllowanceTotalAmount', amount(0n)) +
    el('ram:TaxBasisTotalAmount', amount(t.taxBasis)) +
    el('ram:TaxTotalAmount', amount(t.taxTotal), cur) +
    (t.rounding !== 0n ? el('ram:RoundingAmount', amount(t.rounding)) : '') +
    el('ram:GrandTotalAmount', amount(t.grandTotal)) +
    el('ram:TotalPrepaidAmount', amount(t.paid)) +
    el('ram:DuePayableAmount', amount(t.due)) +
    '</ram:SpecifiedTradeSettlementHeaderMonetarySummation>' +
    (doc.corrects
      ? `<ram:InvoiceReferencedDocument>${el('ram:IssuerAssignedID', doc.corrects.invoiceNumber)}<ram:FormattedIssueDateTime><qdt:DateTimeString format="102">${date102(doc.corrects.issueDate)}</qdt:DateTimeString></ram:FormattedIssueDateTime></ram:InvoiceReferencedDocument>`
      : '') +
    '</ram:ApplicableHeaderTradeSettlement>' +
    '</rsm:SupplyChainTradeTransaction>' +
    '</rsm:CrossIndustryInvoice>\n'
  );
}
