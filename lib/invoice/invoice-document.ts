/**
 * The invoice as numbers, computed once from the order (issue 35): lines, shipping, the VAT
 * breakdown per category and rate, totals, paid and due, all in the order's currency. The CII XML
 * (invoice-cii.ts) and the PDF (invoice-pdf.ts) only render this; neither computes an amount.
 *
 * Kontor's prices are gross per unit with the VAT percent they include (document 2, line.tax;
 * lib/order/README.md), and invoice_amount is what the buyer owes. EN 16931 is net-based: the
 * gross of each VAT rate is split into a net basis and its VAT so that basis + round(basis x
 * rate) is that gross to the cent (BR-CO-17 holds exactly); where no basis does (the VAT
 * rounding skips a cent), the cent is BT-114, the rounding amount, so the amount due stays the
 * order's. Pure: no database, no clock.
 */
import { fromCents, toCents } from '../order';

/**
 * UNTDID 5305 VAT category codes used here: S standard rate, Z zero rate, E exempt (small
 * business), K intra-Community supply of goods, G export outside the EU.
 */
export type VatCategory = 'S' | 'Z' | 'E' | 'K' | 'G';

/**
 * How an invoice taxes its lines (vatRegime): by each line's rate (domestic: S, or Z at 0 %), no
 * VAT as a small business (E), an intra-Community supply of goods (K), or an export outside the
 * EU, whose lines without VAT are G (a line the seller charged VAT on stays S).
 */
export type VatRegime = 'domestic' | 'small_business' | 'intra_eu' | 'export';

/** 380 commercial invoice, 381 credit note (UNTDID 1001). */
export type TypeCode = 380 | 381;

export interface InvoiceAddress {
  name: string;
  name2: string;
  street: string;
  street2: string;
  zip: string;
  city: string;
  province: string;
  country: string;
  /** ISO 3166-1 alpha-2, upper case; '' when unknown. */
  countryIso2: string;
}

export interface InvoiceParty {
  address: InvoiceAddress;
  /** VAT identifier (BT-31 seller, BT-48 buyer); '' when none. */
  vatId: string;
  /** Seller's tax number (BT-32, "Steuernummer"); '' when none. */
  taxNumber: string;
  email: string;
}

/** What the seller's account says about its invoices (account.address, account.settings.invoice). */
export interface SellerInvoiceSettings {
  party: InvoiceParty;
  /** Small business (e.g. German § 19 UStG): no VAT charged, category E with the note. */
  smallBusiness: boolean;
  /** Locale the PDF formats numbers and dates in (BCP 47, default de-DE). */
  locale: string;
  /** Payee account for credit transfers (BT-84), shown and put into the XML when given. */
  iban: string;
  bic: string;
  /** The seller's contact (BG-6: BT-41 name, BT-42 phone, BT-43 email); XRechnung requires all three. */
  contact: { name: string; phone: string; email: string };
}

/** The order as the invoice reads it (lib/order's row, money as decimal strings). */
export interface InvoiceOrder {
  id: string;
  invoiceNumber: string;
  /** YYYY-MM-DD: the date the invoice number was given (bill_date). */
  billDate: string;
  /** YYYY-MM-DD: when the goods were delivered (BT-72): the shipping date where known, else the invoice date. */
  deliveryDate: string;
  currency: string;
  paymentMethodId: string | null;
  paymentMethodName: string | null;
  invoiceAmount: string;
  paidAmount: string | null;
  shippingFee: string | null;
  customerNumber: string | null;
  buyer: InvoiceParty;
  shipTo: InvoiceAddress | null;
  /** tax: the VAT percent the price includes; a line without one is refused before planning (invoice-requirements.ts). */
  lines: { position: number; name: string | null; sku: string | null; quantity: number; price: string | null; tax: string | null }[];
  /** For a credit note: the invoice it corrects (the credit.main_id order's). */
  corrects: { invoiceNumber: string; issueDate: string } | null;
  /** A credit note's: the credited invoice's (invoice.service.ts mirrors it); else vatRegime's. */
  regime?: VatRegime;
}

export interface DocumentLine {
  id: number;
  name: string;
  sku: string;
  quantity: number;
  /** Gross unit price as the order has it, cents. */
  grossUnit: bigint;
  /**
   * Net price (BT-146) of `basisQuantity` units, as a string: line net / quantity with 4 decimals
   * where quantity x that price gives the line net to the cent, else the line net itself.
   */
  netUnitPrice: string;
  /** Base quantity (BT-149) the net price is for: 1, or the line's quantity (`linePrice`). */
  basisQuantity: number;
  /** Line net amount (BT-131), cents. */
  net: bigint;
  category: VatCategory;
  /** VAT rate in hundredths of a percent (1900 = 19 %). */
  rate: number;
}

/** A document-level charge (BG-21): shipping, split over the VAT rates of the lines. */
export interface DocumentCharge {
  reason: string;
  /** UNTDID 7161: FC freight service. */
  reasonCode: string;
  net: bigint;
  category: VatCategory;
  rate: number;
}

/** One VAT breakdown (BG-23). */
export interface VatBreakdown {
  category: VatCategory;
  rate: number;
  basis: bigint;
  tax: bigint;
  /** BT-120, required for E, K and G (BR-E-10, BR-IC-10, BR-G-10). */
  exemptionReason: string;
  /** BT-121 (VATEX): VATEX-EU-IC for K, VATEX-EU-G for G. */
  exemptionCode: string;
}

export interface InvoiceTotals {
  /** BT-106 sum of line net amounts. */
  lineTotal: bigint;
  /** BT-108 sum of charges. */
  chargeTotal: bigint;
  /** BT-109 total without VAT. */
  taxBasis: bigint;
  /** BT-110 VAT total. */
  taxTotal: bigint;
  /** BT-112 total with VAT. */
  grandTotal: bigint;
  /** BT-113 paid amount. */
  paid: bigint;
  /** BT-114 rounding amount. */
  rounding: bigint;
  /** BT-115 amount due. */
  due: bigint;
}

export interface InvoiceDocument {
  typeCode: TypeCode;
  number: string;
  issueDate: string;
  deliveryDate: string;
  currency: string;
  orderId: string;
  locale: string;
  seller: InvoiceParty;
  buyer: InvoiceParty;
  customerNumber: string;
  shipTo: InvoiceAddress | null;
  lines: DocumentLine[];
  charges: DocumentCharge[];
  vat: VatBreakdown[];
  totals: InvoiceTotals;
  /** Notes the law asks for (reverse charge, small business); also BT-22 in the XML. */
  notes: string[];
  paymentMethod: { id: string | null; name: string; code: string };
  payee: { iban: string; bic: string };
  sellerContact: { name: string; phone: string; email: string };
  corrects: { invoiceNumber: string; issueDate: string } | null;
}

/**
 * Where goods move inside the EU's VAT area (ISO 3166-1 alpha-2; Greece as GR, its VAT prefix EL):
 * the member states, and Northern Ireland (XI), which for goods is treated as one (Windsor
 * Framework; its traders' VAT ids start with XI). Goods sent from one of them to another are an
 * intra-Community supply, to anywhere else an export.
 */
const euGoods = new Set('AT BE BG CY CZ DE DK EE ES FI FR GR HR HU IE IT LT LU LV MT NL PL PT RO SE SI SK XI'.split(' '));

/** UNTDID 4461 payment means of the payment methods (GET system/payment_method/); 1 = not defined. */
const paymentMeansCodes: Record<string, string> = {
  COD: '10',
  Prepayment: '58',
  OnAccount: '58',
  CCAccepted: '54',
  CashOnPickup: '10',
  Escrow: '1',
  Debit: '59',
  Check: '20',
  MoneyXferAccepted: '30',
  factoring: '58',
  payment_provider: '68',
};

/**
 * The exemption notes (BT-120, and BT-22 on the document) of K and G: the VAT Directive's article,
 * and for a German seller the UStG's (§ 14 (4) 8 UStG asks an exempt supply's invoice to say why;
 * § 14a (3) both VAT ids for an intra-Community supply, which the parties state).
 */
const exemptionNotes = {
  de: {
    intraEu: (german: boolean) => `Steuerfreie innergemeinschaftliche Lieferung (Art. 138 MwStSystRL${german ? '; § 4 Nr. 1b, § 6a UStG' : ''}).`,
    export: (german: boolean) => `Steuerfreie Ausfuhrlieferung (Art. 146 MwStSystRL${german ? '; § 4 Nr. 1a, § 6 UStG' : ''}).`,
  },
  en: {
    intraEu: (german: boolean) =>
      `Tax-exempt intra-Community supply of goods (Art. 138 Council Directive 2006/112/EC${german ? '; German § 4 No. 1b, § 6a UStG' : ''}).`,
    export: (german: boolean) => `Tax-exempt export outside the EU (Art. 146 Council Directive 2006/112/EC${german ? '; German § 4 No. 1a, § 6 UStG' : ''}).`,
  },
};

const notesByLanguage = {
  de: {
    smallBusiness: 'Gemäß § 19 UStG wird keine Umsatzsteuer berechnet (Kleinunternehmer).',
    shipping: 'Versand',
    customer: 'Kunde',
    credit: (n: string, d: string) => `Gutschrift zur Rechnung ${n} vom ${d}.`,
    paid: 'Bezahlt.',
    payNow: 'Zahlbar sofort ohne Abzug.',
    refund: (a: string) => `Der Betrag von ${a} wird erstattet.`,
  },
  en: {
    smallBusiness: 'No VAT charged: small business exemption (German § 19 UStG).',
    shipping: 'Shipping',
    customer: 'Customer',
    credit: (n: string, d: string) => `Credit note for invoice ${n} of ${d}.`,
    paid: 'Paid.',
    payNow: 'Payable immediately without deduction.',
    refund: (a: string) => `The amount of ${a} will be refunded.`,
  },
};

/** The language of the notes: German for a German locale, English otherwise. */
const wordsFor = (locale: string) => (locale.toLowerCase().startsWith('de') ? notesByLanguage.de : notesByLanguage.en);

/**
 * A percent string ('19', '7.00', '19,5', '0') as hundredths of a percent. A line without one is
 * not planned: read as 0, an eBay order's line (its tax left empty on purpose) was invoiced Z 0 %
 * and the seller's 19 % VAT went unstated on a document that never changes (found by a reviewer).
 * invoice.service.ts takes the linked stock item's rate, invoice-requirements.ts refuses the rest.
 */
export function rateOf(tax: string | null): number {
  if (tax === null || tax.trim() === '') throw new Error('a line without VAT rate reached planInvoice: invoice-requirements refuses such an order');
  return Number(toCents(tax.replace(',', '.')));
}

/** round(n x rate / 10000) half away from zero, in bigint cents. */
function vatOf(net: bigint, rate: number): bigint {
  const negative = net < 0n;
  const abs = negative ? -net : net;
  const tax = (abs * BigInt(rate) * 2n + 10000n) / 20000n;
  return negative ? -tax : tax;
}

/** floor(a / b) for bigint (toward minus infinity; b > 0). */
const floorDiv = (a: bigint, b: bigint): bigint => (a >= 0n ? a / b : -((-a + b - 1n) / b));

/**
 * Splits `total` over parts in proportion to their weights (largest remainder, ties to the
 * earlier part), so the parts add up to the total exactly, whatever the signs of the weights
 * (a discount line is a negative weight beside positive ones): each part is the floor of its exact
 * share, and the cents left (fewer than the parts) go to the largest fractions. EN 16931's sums
 * (BR-CO-10, BR-S-08: the lines and charges of a rate add up to its taxable amount) rely on it.
 */
export function allocate(total: bigint, weights: bigint[]): bigint[] {
  let sum = weights.reduce((a, b) => a + b, 0n);
  if (sum === 0n) return weights.map((_, i) => (i === 0 ? total : 0n));
  // Scale so the divisor is positive: floor and remainder then mean the same for every sign.
  const flip = sum < 0n ? -1n : 1n;
  sum *= flip;
  const shares = weights.map((w) => {
    const exact = total * w * flip;
    const floor = floorDiv(exact, sum);
    return { floor, rest: exact - floor * sum };
  });
  let left = total - shares.reduce((a, b) => a + b.floor, 0n);
  const order = shares.map((_, i) => i).sort((a, b) => (shares[b]!.rest > shares[a]!.rest ? 1 : shares[b]!.rest < shares[a]!.rest ? -1 : a - b));
  for (const i of order) {
    if (left <= 0n) break;
    shares[i]!.floor += 1n;
    left -= 1n;
  }
  return shares.map((p) => p.floor);
}

/**
 * The net basis of a gross amount at a rate: the basis b with b + round(b x rate) = gross, or,
 * where the VAT rounding skips that cent, the nearest basis below with the cent left over.
 */
export function splitGross(gross: bigint, rate: number): { basis: bigint; tax: bigint; rest: bigint } {
  if (rate === 0) return { basis: gross, tax: 0n, rest: 0n };
  const guess = (gross * 10000n * 2n + BigInt(10000 + rate)) / (BigInt(10000 + rate) * 2n);
  let best: { basis: bigint; tax: bigint; rest: bigint } | undefined;
  for (let d = -3n; d <= 3n; d++) {
    const basis = guess + d;
    const tax = vatOf(basis, rate);
    const rest = gross - basis - tax;
    if (rest === 0n) return { basis, tax, rest };
    // Keep the candidate closest below the gross: the rounding amount stays a positive cent.
    if (rest > 0n && (!best || rest < best.rest)) best = { basis, tax, rest };
  }
  return best!;
}

const address = (a: Partial<InvoiceAddress> | null | undefined): InvoiceAddress => ({
  name: a?.name ?? '',
  name2: a?.name2 ?? '',
  street: a?.street ?? '',
  street2: a?.street2 ?? '',
  zip: a?.zip ?? '',
  city: a?.city ?? '',
  province: a?.province ?? '',
  country: a?.country ?? '',
  countryIso2: (a?.countryIso2 ?? '').toUpperCase(),
});

/**
 * The buyer's address with a name (BR-07: BT-44 is mandatory): a buyer without name and name_2 is
 * named by the delivery address's name, else the email, else "Kunde <customer number>".
 */
function buyerAddress(order: InvoiceOrder, customer: string): InvoiceAddress {
  const a = address(order.buyer.address);
  if (a.name.trim() || a.name2.trim()) return a;
  const shipName = [order.shipTo?.name, order.shipTo?.name2].filter((n) => n?.trim()).join(', ');
  return { ...a, name: shipName || order.buyer.email.trim() || [customer, order.customerNumber ?? ''].join(' ').trim() };
}

/**
 * A VAT identifier as EN 16931 states it (BR-CO-09: prefixed by the ISO 3166 code of the country
 * that issued it, Greece EL): blanks dropped, upper case, and one given as its digits alone (a
 * client's or a channel's "123456789") prefixed with the country of the party's address (decision:
 * an id names the country it was issued in, and a buyer is registered where it lives). The CEN
 * validator refused every invoice naming "de123456789" or "123456789" (found 2026-11-28).
 */
export function vatIdentifier(raw: string, countryIso2: string): string {
  const id = raw.replace(/\s+/g, '').toUpperCase();
  if (!id || /^[A-Z]{2}/.test(id) || !countryIso2) return id;
  return `${countryIso2 === 'GR' ? 'EL' : countryIso2}${id}`;
}

/** Where the goods go (BT-80): the delivery address's country, else the buyer's. */
export const deliveryCountry = (order: Pick<InvoiceOrder, 'shipTo' | 'buyer'>): string =>
  (order.shipTo?.countryIso2 || order.buyer.address.countryIso2).toUpperCase();

/**
 * How the seller's invoice to this buyer, of goods sent to `deliverTo`, is taxed (decision,
 * lib/invoice README "VAT categories"). Kontor sells goods, so a supply to another EU state is
 * K, not AE (the reverse charge of services, Art. 196): an intra-Community supply (Art. 138 of the
 * VAT Directive, § 4 Nr. 1b / § 6a UStG) when the seller has a VAT id (BR-IC-02), the goods go from
 * the seller's EU state to another (BR-IC-12 states that country) and the buyer has a VAT id not
 * of the seller's state. Goods sent outside the EU are an export (Art. 146, § 4 Nr. 1a / § 6 UStG)
 * when the seller has a VAT id (BR-G-02); without one they stay domestic, Z at 0 %.
 */
export function vatRegime(seller: SellerInvoiceSettings, buyer: InvoiceParty, deliverTo: string): VatRegime {
  if (seller.smallBusiness) return 'small_business';
  const from = seller.party.address.countryIso2;
  if (!seller.party.vatId.trim() || !euGoods.has(from) || !deliverTo) return 'domestic';
  if (!euGoods.has(deliverTo)) return 'export';
  const buyerId = vatIdentifier(buyer.vatId, buyer.address.countryIso2);
  const issuedIn = buyerId.slice(0, 2) === 'EL' ? 'GR' : buyerId.slice(0, 2);
  return deliverTo !== from && buyerId !== '' && issuedIn !== from ? 'intra_eu' : 'domestic';
}

/**
 * The invoice (type 380) or credit note (381, when the order corrects another's invoice) of an
 * order. A credit order's amounts may be entered negative or positive; the credit note states
 * them positive (as EN 16931 expects for type 381) and its type says they are owed back.
 */
export function planInvoice(order: InvoiceOrder, seller: SellerInvoiceSettings): InvoiceDocument {
  const words = wordsFor(seller.locale);
  const typeCode: TypeCode = order.corrects ? 381 : 380;
  const sign = typeCode === 381 && toCents(order.invoiceAmount) < 0n ? -1n : 1n;
  const regime = order.regime ?? vatRegime(seller, order.buyer, deliveryCountry(order));
  const categoryOf = (rate: number): { category: VatCategory; rate: number } =>
    regime === 'small_business'
      ? { category: 'E', rate: 0 }
      : regime === 'intra_eu'
        ? { category: 'K', rate: 0 }
        : rate > 0
          ? { category: 'S', rate }
          : { category: regime === 'export' ? 'G' : 'Z', rate: 0 };
  const germanLaw = seller.party.address.countryIso2 === 'DE';
  const exempt = seller.locale.toLowerCase().startsWith('de') ? exemptionNotes.de : exemptionNotes.en;
  const exemptionOf = (category: VatCategory): { exemptionReason: string; exemptionCode: string } =>
    category === 'K'
      ? { exemptionReason: exempt.intraEu(germanLaw), exemptionCode: 'VATEX-EU-IC' }
      : category === 'G'
        ? { exemptionReason: exempt.export(germanLaw), exemptionCode: 'VATEX-EU-G' }
        : { exemptionReason: category === 'E' ? words.smallBusiness : '', exemptionCode: '' };

  // BR-16: an invoice has at least one line. An order without lines bills its shipping fee (or
  // nothing) as its one line, at the VAT a charge without lines would have had.
  const orderLines = order.lines.length
    ? order.lines
    : [{ position: 1, name: words.shipping, sku: null, quantity: 1, price: order.shippingFee ?? '0', tax: '0' }];
  const shippingFee = order.lines.length ? order.shippingFee : null;
  const lines = orderLines.map((l) => {
    const grossUnit = sign * toCents(l.price ?? '0');
    return { line: l, grossUnit, gross: grossUnit * BigInt(l.quantity), ...categoryOf(rateOf(l.tax)) };
  });
  const key = (c: { category: VatCategory; rate: number }) => `${c.category}:${c.rate}`;
  const groups = new Map<string, { category: VatCategory; rate: number; lineGross: bigint }>();
  for (const l of lines) {
    const g = groups.get(key(l)) ?? { category: l.category, rate: l.rate, lineGross: 0n };
    g.lineGross += l.gross;
    groups.set(key(l), g);
  }
  // Shipping shares the VAT of what is shipped: split over the rates by their lines' gross. A rate
  // whose lines add up to less than nothing (a discount at its own rate) ships nothing and gets no
  // share: it would be a negative charge.
  const shippingGross = sign * toCents(shippingFee ?? '0');
  const groupList = [...groups.values()];
  if (shippingGross !== 0n && groupList.length === 0) groupList.push({ ...categoryOf(0), lineGross: 0n });
  const shippingShares = allocate(
    shippingGross,
    groupList.map((g) => (g.lineGross > 0n ? g.lineGross : 0n)),
  );

  const docLines: DocumentLine[] = [];
  const charges: DocumentCharge[] = [];
  const vat: VatBreakdown[] = [];
  let rounding = 0n;
  groupList.forEach((g, gi) => {
    const shipping = shippingShares[gi] ?? 0n;
    const { basis, tax, rest } = splitGross(g.lineGross + shipping, g.rate);
    rounding += rest;
    const members = lines.filter((l) => key(l) === key(g));
    const nets = allocate(basis, [...members.map((m) => m.gross), shipping]);
    members.forEach((m, i) => {
      const net = nets[i]!;
      docLines.push({
        id: m.line.position,
        name: m.line.name ?? '',
        sku: m.line.sku ?? '',
        quantity: m.line.quantity,
        grossUnit: m.grossUnit,
        ...linePrice(net, m.line.quantity),
        net,
        category: g.category,
        rate: g.rate,
      });
    });
    const shippingNet = nets[members.length]!;
    if (shipping !== 0n) charges.push({ reason: words.shipping, reasonCode: 'FC', net: shippingNet, category: g.category, rate: g.rate });
    vat.push({
      category: g.category,
      rate: g.rate,
      basis,
      tax,
      ...exemptionOf(g.category),
    });
  });
  docLines.sort((a, b) => a.id - b.id);

  const lineTotal = docLines.reduce((a, l) => a + l.net, 0n);
  const chargeTotal = charges.reduce((a, c) => a + c.net, 0n);
  const taxBasis = lineTotal + chargeTotal;
  const taxTotal = vat.reduce((a, v) => a + v.tax, 0n);
  const grandTotal = taxBasis + taxTotal;
  // A credit order's paid_amount is the credit refunded, whatever its sign: lib/order refuses a
  // negative paid_amount (so 32.72 refunds a credit order of -32.72) and stores is_paid's as the
  // invoice_amount (-32.72); both are 32.72 paid of the credit note's positive 32.72. Flipped by
  // the sign of the amounts, a 32.72 read as -32.72 and the credit note stated 65.44 due.
  const paidCents = toCents(order.paidAmount ?? '0');
  const paid = typeCode === 381 && paidCents < 0n ? -paidCents : paidCents;
  const notes: string[] = [];
  if (order.corrects) notes.push(words.credit(order.corrects.invoiceNumber, order.corrects.issueDate));
  // The exemption notes of the breakdown (K, G, E) on the document too (BT-22, and the PDF's notes).
  for (const v of vat) if (v.exemptionReason && !notes.includes(v.exemptionReason)) notes.push(v.exemptionReason);
  return {
    typeCode,
    number: order.invoiceNumber,
    issueDate: order.billDate,
    deliveryDate: order.deliveryDate || order.billDate,
    currency: order.currency,
    orderId: order.id,
    locale: seller.locale,
    seller: { ...seller.party, vatId: vatIdentifier(seller.party.vatId, seller.party.address.countryIso2) },
    buyer: { ...order.buyer, vatId: vatIdentifier(order.buyer.vatId, order.buyer.address.countryIso2), address: buyerAddress(order, words.customer) },
    customerNumber: order.customerNumber ?? '',
    // BR-IC-12: an intra-Community supply states where the goods went; without a delivery address, to the buyer.
    shipTo: order.shipTo ? address(order.shipTo) : regime === 'intra_eu' ? buyerAddress(order, words.customer) : null,
    lines: docLines,
    charges,
    vat,
    totals: { lineTotal, chargeTotal, taxBasis, taxTotal, grandTotal, paid, rounding, due: grandTotal - paid + rounding },
    notes,
    paymentMethod: { id: order.paymentMethodId, name: order.paymentMethodName ?? '', code: paymentMeansCode(order.paymentMethodId, seller.iban) },
    payee: { iban: seller.iban, bic: seller.bic },
    sellerContact: seller.contact,
    corrects: order.corrects,
  };
}

/**
 * The payment terms (BT-20; BR-CO-25 wants them where an amount is due), in the seller's language,
 * naming the amount with `money` (the XML's '10.02 EUR', the PDF's locale). Who owes whom: an
 * invoice's positive amount due is the buyer's to pay, a negative one (paid more than billed) the
 * seller's to refund; a credit note's positive amount due is the credit still to be refunded. An
 * overpaid invoice said "Zahlbar sofort ohne Abzug" beside an amount due of -10.02.
 */
export function paymentTerms(doc: Pick<InvoiceDocument, 'typeCode' | 'totals' | 'locale'>, money: (cents: bigint) => string): string {
  const words = wordsFor(doc.locale);
  const due = doc.totals.due;
  if (due === 0n) return words.paid;
  const owedToBuyer = doc.typeCode === 381 ? due > 0n : due < 0n;
  return owedToBuyer ? words.refund(money(due < 0n ? -due : due)) : words.payNow;
}

/**
 * BT-81 of the payment method; a credit transfer (30, 58) names the payee's account (BR-61), so
 * without the seller's IBAN it is stated as 1, instrument not defined.
 */
function paymentMeansCode(methodId: string | null, iban: string): string {
  const code = (methodId && paymentMeansCodes[methodId]) || '1';
  return (code === '58' || code === '30') && !iban ? '1' : code;
}

/** round(n / d) half away from zero, for bigint (d > 0). */
const roundDiv = (n: bigint, d: bigint): bigint => (n < 0n ? -((-n * 2n + d) / (d * 2n)) : (n * 2n + d) / (d * 2n));

/** A scaled integer as its decimal text with `places` decimals ('-0.8319'). */
function decimal(scaled: bigint, places: number): string {
  const abs = scaled < 0n ? -scaled : scaled;
  const unit = 10n ** BigInt(places);
  return `${scaled < 0n ? '-' : ''}${abs / unit}.${(abs % unit).toString().padStart(places, '0')}`;
}

/**
 * The net price of a line (BT-146) and its base quantity (BT-149). EN 16931-1 defines the line net
 * amount (BT-131) as BT-146 / BT-149 x BT-129, and importers recompute it (Mustang's LineCalculator
 * rounds quantity x price / base quantity to the cent and refuses a line that differs). The price
 * is net / quantity with four decimals where quantity x it rounds to the line net; where it does
 * not (1000 x 0.8319 = 831.90 against 831.93), the price is the line net for the line's quantity
 * (BT-149 = quantity), which is exact: the reviewer found 831.93, 14.71 and 126.05 so. Decision:
 * the unit price where it is exact to the cent (most lines, and what a reader expects), the price
 * per quantity only where it is not; more decimals would need up to 8 for a quantity of a million
 * and none are enough for a quotient that never ends (831.93 / 7).
 */
export function linePrice(net: bigint, quantity: number): { netUnitPrice: string; basisQuantity: number } {
  if (quantity === 0) return { netUnitPrice: '0.0000', basisQuantity: 1 };
  const q = BigInt(quantity);
  const price = roundDiv(net * 100n, q);
  if (roundDiv(price * q, 100n) === net) return { netUnitPrice: decimal(price, 4), basisQuantity: 1 };
  return { netUnitPrice: decimal(net, 2), basisQuantity: quantity };
}

/** Cents as the two-decimal string the XML carries. */
export const amount = (cents: bigint): string => fromCents(cents);

/** Hundredths of a percent as '19.00'. */
export const percent = (rate: number): string => fromCents(BigInt(rate));

export { address as invoiceAddress };
