/**
 * What an invoice needs from Kontor's data before it is issued. An invoice is a legal document
 * that is never changed once issued (README.md), so one that every validator refuses must not be
 * issued at all: a seller who has not yet given a company address or a tax identifier gets no
 * invoice, but a refusal naming what to set, and the invoice when it is set.
 */
import { domainError } from '../errors';
import { cenCountries, cenCurrencies } from './invoice-code-lists';
import type { InvoiceDocument, InvoiceOrder, SellerInvoiceSettings } from './invoice-document';

/**
 * A fact an invoice needs and lacks: the field as a client reads it (or the other that would do),
 * and the rule that asks for it; `outside` is a value given that the rule's code list has not.
 */
export interface MissingFact {
  field: string;
  orField?: string;
  rule: string;
  outside?: string;
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
  const country = outsideList(a.countryIso2, cenCountries, 'user.address.country_iso2', 'BR-CL-14');
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
  ]).concat(country);
}

/** The fact of a code given that EN 16931's code list (invoice-code-lists.ts) has not; none for an empty one. */
function outsideList(code: string, codes: ReadonlySet<string>, field: string, rule: string): MissingFact[] {
  const given = code.trim().toUpperCase();
  return given && !codes.has(given) ? [{ field, rule, outside: given }] : [];
}

/**
 * What the order must state for its invoice (the seller's facts are above): each line's VAT rate,
 * and a currency and countries of EN 16931's code lists.
 * - **A line without tax** (null: the channel mappers leave it empty on purpose, a client may) is
 *   invoiced at its stock item's rate (invoice.service.ts fills it in before this check); one with
 *   neither is refused, naming `order.line[i].tax`: read as 0 it was invoiced Z 0 % and its VAT went
 *   unstated on a document that never changes (BR-CO-04 wants each line's VAT category; § 14 (4) 8
 *   UStG its rate). A line sent with tax 0 is 0 %.
 * - **Currency and countries** outside the code lists of the CEN validation (BR-CL-04 the invoice
 *   currency, BR-CL-14 every country code: XK, BGN, STN were issued and refused by every validator).
 * `buyer` false for a credit order before its issue: its buyer is the credited invoice's, mirrored
 * when it is issued (invoice.service.ts) and checked then.
 */
export function missingOrderFacts(order: Pick<InvoiceOrder, 'lines' | 'currency' | 'buyer' | 'shipTo'>, buyer = true): MissingFact[] {
  const lines = order.lines.flatMap((l, i) => (l.tax === null || l.tax.trim() === '' ? [{ field: `order.line[${i}].tax`, rule: 'BR-CO-04' }] : []));
  return [
    ...lines,
    ...outsideList(order.currency, cenCurrencies, 'order.currency_id', 'BR-CL-04'),
    ...(buyer ? outsideList(order.buyer.address.countryIso2, cenCountries, 'order.customer.address.country_iso2', 'BR-CL-14') : []),
    ...(buyer && order.shipTo ? outsideList(order.shipTo.countryIso2, cenCountries, 'order.shipping.address.country_iso2', 'BR-CL-14') : []),
  ];
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

/** What is wrong with the fact, after its rule: a code outside the list, else nothing (it is missing). */
const outsideNote = (f: MissingFact) => (f.outside ? ` ${f.outside}, not in EN 16931's code list` : '');

/** "user.address.street (BR-08), ..." for a refusal's description. */
export const listMissing = (facts: MissingFact[]) => facts.map((f) => `${named(f)} (${f.rule})${outsideNote(f)}`).join(', ');

/** One error item of POST order/{order_id}/invoice/'s 400 for a fact the seller lacks. */
const errorItem = (f: MissingFact) => ({
  error: 'seller_details_missing' as const,
  description: f.outside
    ? `an invoice states the seller's ${named(f).replace(/user\./g, '')} from EN 16931's code list (${f.rule}), and ${f.outside} is not in it: the address is set by support`
    : `an invoice states the seller's ${named(f).replace(/user\./g, '')} (EN 16931 ${f.rule}), which the account lacks: the address is set by support, settings.invoice by POST admin/user/`,
  code: 400,
  field: f.field,
});

/** The 400 of POST order/{order_id}/invoice/ for a seller who lacks facts: an error item per fact, each naming its field. */
export function sellerDetailsMissing(first: MissingFact, rest: MissingFact[]) {
  const { description, field } = errorItem(first);
  return domainError('seller_details_missing', description, { field, more: rest.map(errorItem) });
}

/** What the order lacks for its invoice, in a refusal's words (the job's reason, GET's 404). */
export const orderFactsReason = (orderId: string, facts: MissingFact[]) =>
  `order ${orderId}'s invoice needs ${listMissing(facts)}: set them with POST order/${orderId}/ (a line's tax also by its stock item's tax), then POST order/${orderId}/invoice/`;

/** One error item of POST order/{order_id}/invoice/'s 400 for a fact the order lacks. */
const orderErrorItem = (f: MissingFact) => ({
  error: 'invalid_field' as const,
  description: f.outside
    ? `${f.field} is ${f.outside}, which is not in EN 16931's code list (${f.rule}): every validator refuses such an invoice, and an issued invoice never changes`
    : `${f.field} is empty and the line's stock item has no tax: an invoice states each line's VAT rate (EN 16931 ${f.rule}); set the line's tax (0 for none) or link it to an item with one`,
  code: 400,
  field: f.field,
});

/** The 400 of POST order/{order_id}/invoice/ for an order that lacks facts: an invalid_field item per fact. */
export function orderDetailsMissing(first: MissingFact, rest: MissingFact[]) {
  const { description, field } = orderErrorItem(first);
  return domainError('invalid_field', description, { field, more: rest.map(orderErrorItem) });
}
