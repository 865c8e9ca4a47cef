/**
 * What a credit note takes from the invoice it credits (decision, README "Credit notes"): the
 * buyer as that invoice states it (name, address, VAT id, email, customer number), where its
 * goods went, and its tax treatment. A credit note corrects that invoice: read from the credit
 * order's own customer (often only an email), a credit note of an intra-Community invoice charged
 * 19 % back (S, 84.03 + 15.97 of 100.00) that the invoice never charged (found by a reviewer).
 * Read from the archived XML, not from the credited order: that order may have changed since its
 * invoice was issued, the invoice never does.
 */
import { child, ciiParser, CiiNode, list, value } from './cii-nodes';
import { invoiceAddress, InvoiceAddress, InvoiceParty, VatRegime } from './invoice-document';

/** The buyer side of an issued invoice. */
export interface CreditedBuyer {
  buyer: InvoiceParty;
  customerNumber: string;
  shipTo: InvoiceAddress | null;
  /** The VAT categories of its breakdown (BT-118), as issued: AE on invoices issued before K. */
  categories: string[];
}

const parser = ciiParser(['ApplicableTradeTax', 'SpecifiedTaxRegistration', 'URIUniversalCommunication']);

function addressOf(name: string, a: unknown): InvoiceAddress {
  return invoiceAddress({
    name,
    zip: value(child(a, 'PostcodeCode')),
    street: value(child(a, 'LineOne')),
    street2: value(child(a, 'LineTwo')),
    city: value(child(a, 'CityName')),
    countryIso2: value(child(a, 'CountryID')),
    province: value(child(a, 'CountrySubDivisionName')),
  });
}

/** The buyer, delivery address and VAT categories of one of our CII invoices (invoice-cii.ts wrote it). */
export function readCreditedBuyer(xml: string): CreditedBuyer {
  const root = (parser.parse(xml) as CiiNode).CrossIndustryInvoice;
  if (!root) throw new Error('the credited invoice archived is not a CII invoice');
  const tx = child(root, 'SupplyChainTradeTransaction');
  const party = child(tx, 'ApplicableHeaderTradeAgreement', 'BuyerTradeParty');
  const shipTo = child(tx, 'ApplicableHeaderTradeDelivery', 'ShipToTradeParty');
  const vat = list(child(party, 'SpecifiedTaxRegistration')).find((r) => value(child(r, 'ID', '@schemeID')) === 'VA');
  const email = list(child(party, 'URIUniversalCommunication')).find((u) => value(child(u, 'URIID', '@schemeID')) === 'EM');
  return {
    buyer: {
      address: addressOf(value(child(party, 'Name')), child(party, 'PostalTradeAddress')),
      vatId: vat ? value(child(vat, 'ID')) : '',
      taxNumber: '',
      email: email ? value(child(email, 'URIID')) : '',
    },
    customerNumber: value(child(party, 'ID')),
    shipTo: shipTo ? addressOf(value(child(shipTo, 'Name')), child(shipTo, 'PostalTradeAddress')) : null,
    categories: list(child(tx, 'ApplicableHeaderTradeSettlement', 'ApplicableTradeTax')).map((t) => value(child(t, 'CategoryCode'))),
  };
}

/**
 * The credited invoice's tax treatment from its categories: E small business, K (or AE, which
 * invoices issued before K stated for the same supply) intra-Community, G export, Z domestic (an
 * export issued before G stated Z: credited as it was). S alone does not tell a domestic invoice
 * from an export whose lines all bore VAT: then the regime its buyer and delivery country give
 * (`fallback`), never K or E the invoice did not have.
 */
export function creditedRegime(categories: string[], fallback: VatRegime): VatRegime {
  if (categories.includes('E')) return 'small_business';
  if (categories.includes('K') || categories.includes('AE')) return 'intra_eu';
  if (categories.includes('G')) return 'export';
  if (categories.includes('Z')) return 'domestic';
  return fallback === 'export' ? 'export' : 'domestic';
}
