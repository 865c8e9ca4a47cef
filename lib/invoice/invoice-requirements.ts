/**
 * What an invoice needs from Kontor's data before it is issued. An invoice is a legal document
 * that is never changed once issued (README.md), so one that every validator refuses must not be
 * issued at all: a seller who has not yet given a company address or a tax identifier gets no
 * invoice, but a refusal naming what to set, and the invoice when it is set.
 */
import { domainError } from '../errors';
import type { InvoiceDocument, SellerInvoiceSettings } from './invoice-document';

/** A fact an invoice needs and lacks: the field as a client reads it (or the other that would do), and the rule that asks for it. */
export interface MissingFact {
  field: string;
  orField?: string;
  rule: string;
}

type Need = { value: string } & MissingFact;

const absent = (needs: Need[]): MissingFact[] => needs.filter((n) => !n.value.trim()).map(({ value: _, ...fact }) => fact);

/**
 * The seller's facts every invoice states: the company name (EN 16931 BR-06), a postal address
 * with its country (BR-08, BR-09; the VAT Directive art. 226 (5) and § 14 (4) UStG ask the full
 * address: street and city), and a VAT id or tax number: every VAT category Kontor writes
 * (S, Z, E, AE) wants one of them (BR-S-02, BR-Z-02, BR-E-02, BR-AE-02), a small business too.
 * The post code is left to XRechnung (below): EN 16931 does not ask it, and not every country
 * has one. The address is set by support (`kontor user address`), the rest by POST admin/user/.
 */
export function missingSellerFacts(seller: SellerInvoiceSettings): MissingFact[] {
  const a = seller.party.address;
  return absent([
    { value: a.name, field: 'user.address.name', rule: 'BR-06' },
    { value: a.street, field: 'user.address.street', rule: 'BR-08' },
    { value: a.city, field: 'user.address.city', rule: 'BR-08' },
    { value: a.countryIso2, field: 'user.address.country_iso2', rule: 'BR-09' },
    {
      value: seller.party.vatId || seller.party.taxNumber,
      field: 'user.settings.invoice.vat_id',
      orField: 'user.settings.invoice.tax_number',
      rule: 'BR-S-02',
    },
  ]);
}

/**
 * What XRechnung 3.0 asks beyond EN 16931 that an issued document may lack: the seller's post
 * code and contact phone and email (BR-DE-4, 6, 7), the buyer's city and post code (BR-DE-8,
 * 9), and a card's or a direct debit's details (BR-DE-24-a, 25-a). XRechnung is for public buyers, who always have an address; an invoice whose XRechnung
 * would break these rules is issued without one (its PDF and Factur-X are valid) rather than
 * withheld or issued broken.
 */
export function missingXrechnungFacts(doc: InvoiceDocument): MissingFact[] {
  const means = meansXrechnungCannotState[doc.paymentMethod.code];
  return absent([
    { value: doc.seller.address.zip, field: 'user.address.zip', rule: 'BR-DE-4' },
    { value: doc.sellerContact.phone, field: 'user.settings.invoice.phone', rule: 'BR-DE-6' },
    { value: doc.sellerContact.email, field: 'user.settings.invoice.email', rule: 'BR-DE-7' },
    { value: doc.buyer.address.city, field: 'order.customer.address.city', rule: 'BR-DE-8' },
    { value: doc.buyer.address.zip, field: 'order.customer.address.zip', rule: 'BR-DE-9' },
  ]).concat(means ? [{ field: 'order.payment_method_id', rule: means }] : []);
}

/**
 * Payment means (BT-81) whose XRechnung states facts no field of Kontor holds: a card payment
 * (54) the card's number (BG-18, BR-DE-24-a), a direct debit (59) the mandate, the creditor id and
 * the debited IBAN (BG-19, BR-DE-25-a). KoSIT's validator refuses such an XRechnung without them
 * (found 2026-11-28); EN 16931 does not ask them, so the PDF and Factur-X are issued as before.
 */
const meansXrechnungCannotState: Record<string, string> = { '54': 'BR-DE-24-a', '59': 'BR-DE-25-a' };

const named = (f: MissingFact) => (f.orField ? `${f.field} or ${f.orField}` : f.field);

/** "user.address.street (BR-08), ..." for a refusal's description. */
export const listMissing = (facts: MissingFact[]) => facts.map((f) => `${named(f)} (${f.rule})`).join(', ');

/** One error item of POST order/{order_id}/invoice/'s 400 for a fact the seller lacks. */
const errorItem = (f: MissingFact) => ({
  error: 'seller_details_missing' as const,
  description: `an invoice states the seller's ${named(f).replace(/user\./g, '')} (EN 16931 ${f.rule}), which the account lacks: the address is set by support, settings.invoice by POST admin/user/`,
  code: 400,
  field: f.field,
});

/** The 400 of POST order/{order_id}/invoice/ for a seller who lacks facts: an error item per fact, each naming its field. */
export function sellerDetailsMissing(first: MissingFact, rest: MissingFact[]) {
  const { description, field } = errorItem(first);
  return domainError('seller_details_missing', description, { field, more: rest.map(errorItem) });
}
