/**
 * What an invoice needs from Kontor's data before it is issued. An invoice is a legal document
 * that is never changed once issued (README.md), so one that every validator refuses must not be
 * issued at all: a seller who has not yet given a company address or a tax identifier gets no
 * invoice, but a refusal naming what to set, and the invoice when it is set.
 */
import { domainError } from '../errors';
import type { InvoiceDocument, SellerInvoiceSettings } from './invoice-document';

/** A fact an invoice needs and lacks: the field as a client reads it, and the rule that asks for it. */
export interface MissingFact {
  field: string;
  rule: string;
}

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
  const missing: MissingFact[] = [];
  const need = (value: string, field: string, rule: string) => {
    if (!value.trim()) missing.push({ field, rule });
  };
  need(a.name, 'user.address.name', 'BR-06');
  need(a.street, 'user.address.street', 'BR-08');
  need(a.city, 'user.address.city', 'BR-08');
  need(a.countryIso2, 'user.address.country_iso2', 'BR-09');
  need(seller.party.vatId || seller.party.taxNumber, 'user.settings.invoice.vat_id', 'BR-S-02 (or user.settings.invoice.tax_number)');
  return missing;
}

/**
 * What XRechnung 3.0 asks beyond EN 16931 that an issued document may lack: the seller's post
 * code and contact phone and email (BR-DE-4, 6, 7) and the buyer's city and post code (BR-DE-8,
 * 9). XRechnung is for public buyers, who always have an address; an invoice whose XRechnung
 * would break these rules is issued without one (its PDF and Factur-X are valid) rather than
 * withheld or issued broken.
 */
export function missingXrechnungFacts(doc: InvoiceDocument): MissingFact[] {
  const missing: MissingFact[] = [];
  const need = (value: string, field: string, rule: string) => {
    if (!value.trim()) missing.push({ field, rule });
  };
  need(doc.seller.address.zip, 'user.address.zip', 'BR-DE-4');
  need(doc.sellerContact.phone, 'user.settings.invoice.phone', 'BR-DE-6');
  need(doc.sellerContact.email, 'user.settings.invoice.email', 'BR-DE-7');
  need(doc.buyer.address.city, 'order.customer.address.city', 'BR-DE-8');
  need(doc.buyer.address.zip, 'order.customer.address.zip', 'BR-DE-9');
  return missing;
}

/** "user.address.street (BR-08), ..." for a refusal's description. */
export const listMissing = (facts: MissingFact[]) => facts.map((f) => `${f.field} (${f.rule})`).join(', ');

/** One error item of POST order/{order_id}/invoice/'s 400 for a fact the seller lacks. */
const errorItem = (f: MissingFact) => ({
  error: 'seller_details_missing' as const,
  description: `an invoice states the seller's ${f.field.replace(/^user\./, '')} (EN 16931 ${f.rule}), which the account lacks: the address is set by support, settings.invoice by POST admin/user/`,
  code: 400,
  field: f.field,
});

/** The 400 of POST order/{order_id}/invoice/ for a seller who lacks facts: an error item per fact, each naming its field. */
export function sellerDetailsMissing(first: MissingFact, rest: MissingFact[]) {
  const { description, field } = errorItem(first);
  return domainError('seller_details_missing', description, { field, more: rest.map(errorItem) });
}
