/**
 * EN 16931 business rules our invoices touch, checked on the CII XML as a receiver reads it:
 * written from the standard's rule list (EN 16931-1:2017, 6.4: BR-01..BR-16, BR-21..BR-27, BR-45..
 * BR-48, BR-55, BR-57, BR-CO-09, BR-CO-10..BR-CO-18, BR-CO-25, BR-CO-26, and the VAT breakdown rules BR-S/Z/E/AE-02, -05, -08,
 * -09, -10) and BT-131 as the standard defines it (quantity x net price / base quantity, to the cent), not from our renderer: it parses the XML on its own (fast-xml-parser) and never imports
 * lib/invoice. The official CEN validation XSLT runs under Debian's Saxon-HE (libsaxonhe-java)
 * but is not in ../shared/, so the suite cannot run it (it was run by hand, lib/invoice README);
 * these checks stand in for it, including the rules it
 * found broken (BR-07, BR-16, BR-S-08) and XML 1.0's characters. They also run over the genuine
 * samples in ../shared/samples/einvoice/.
 */
import { XMLParser } from 'fast-xml-parser';

export interface Violation {
  rule: string;
  message: string;
}

/**
 * Also checked beyond the list above: the rules of an intra-Community supply (K: BR-IC-01, 02, 05,
 * 08..12) and of an export outside the EU (G: BR-G-01, 02, 05, 08..10), which the CEN validator
 * applies to them, and the code lists of currencies and countries (BR-CL-03, 04, 14) as the CEN
 * validation XSLT 1.3.16 (ConnectingEurope/eInvoicing-EN16931, cii/xslt/EN16931-CII-validation.xslt,
 * last update 2026-03-30) states them in its asserts: this file's own copy, not lib/invoice's.
 */
const currencies = new Set(
  (
    'AED AFN ALL AMD AOA ARS AUD AWG AZN BAM BBD BDT BHD BIF BMD BND BOB BOV BRL BSD BTN BWP BYN BZD CAD CDF CHE CHF CHW CLF ' +
    'CLP CNH CNY COP COU CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG ' +
    'HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK ' +
    'MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR ' +
    'SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STD SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD USN UYI UYU UYW ' +
    'UZS VES VED VND VUV WST XAF XAG XAU XBA XBB XBC XBD XCD XCG XDR XOF XPD XPF XPT XSU XTS XUA XXX YER ZAR ZMW ZWG'
  ).split(' '),
);
const countries = new Set(
  (
    '1A AD AE AF AG AI AL AM AN AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BL BJ BM BN BO BQ BR BS BT BV BW BY BZ CA ' +
    'CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD ' +
    'GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI ' +
    'KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY ' +
    'MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG ' +
    'SH SI SJ SK SL SM SN SO SR ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG ' +
    'VI VN VU WF WS XI YE YT ZA ZM ZW'
  ).split(' '),
);

/** The prefix of a VAT category's rules: "Intra-community supply" (K) has BR-IC-*, the others their code. */
const rulesOf = (category: string) => (category === 'K' ? 'BR-IC' : `BR-${category}`);

const repeated = new Set([
  'IncludedSupplyChainTradeLineItem',
  'ApplicableTradeTax',
  'SpecifiedTradeAllowanceCharge',
  'SpecifiedTaxRegistration',
  'IncludedNote',
  'SpecifiedTradePaymentTerms',
  'InvoiceReferencedDocument',
  'CategoryTradeTax',
]);
const parser = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  parseTagValue: false,
  trimValues: true,
  isArray: (name) => repeated.has(name),
});

type Node = Record<string, unknown>;
const at = (n: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((cur, key) => {
    const v = Array.isArray(cur) ? cur[0] : cur;
    return v && typeof v === 'object' ? (v as Node)[key] : undefined;
  }, n);
const str = (n: unknown): string => {
  const v = Array.isArray(n) ? n[0] : n;
  if (v === undefined || v === null) return '';
  return typeof v === 'object' ? String((v as Node)['#text'] ?? '') : String(v);
};
const list = (n: unknown): Node[] => (Array.isArray(n) ? (n as Node[]) : n ? [n as Node] : []);

/** A decimal string as an exact scaled integer (1e-6 units): amounts have 2 places, prices and quantities up to 6. */
function units(value: string): bigint {
  const v = value.trim();
  if (!/^-?\d+(\.\d+)?$/.test(v)) return NaN as unknown as bigint;
  const negative = v.startsWith('-');
  const [whole = '0', fraction = ''] = v.replace('-', '').split('.');
  const n = BigInt(whole) * 1000000n + BigInt((fraction + '000000').slice(0, 6));
  return negative ? -n : n;
}
const cents = (u: bigint) => u; // amounts compared in 1e-6 units
const show = (u: bigint) => `${u < 0n ? '-' : ''}${(u < 0n ? -u : u) / 1000000n}.${((u < 0n ? -u : u) % 1000000n).toString().padStart(6, '0').slice(0, 2)}`;

/** round(basis x rate / 100) to two decimals, half away from zero, in 1e-6 units. */
function vatOf(basis: bigint, rate: bigint): bigint {
  const raw = (basis * rate) / 100000000n; // basis(1e-6) * rate(1e-6) / 100 -> 1e-6 units
  const negative = raw < 0n;
  const abs = negative ? -raw : raw;
  const rounded = ((abs + 5000n) / 10000n) * 10000n;
  return negative ? -rounded : rounded;
}

/** A value in 1e-6 units rounded to the cent, half away from zero. */
function roundToCent(u: bigint): bigint {
  const negative = u < 0n;
  const rounded = (((negative ? -u : u) + 5000n) / 10000n) * 10000n;
  return negative ? -rounded : rounded;
}

const key = (category: string, rate: string) => `${category}:${rate === '' ? '' : units(rate)}`;

/** Every violation of the rules listed above in one CII D16B invoice. */
export function checkEn16931(xml: string): Violation[] {
  const out: Violation[] = [];
  const fail = (rule: string, message: string) => out.push({ rule, message });
  // XML 1.0 (2.2, production Char): a document with any other character is not XML, and every
  // validator's parser refuses all of it (the CEN XSLT under Saxon did, on a line name with U+0001).
  // fast-xml-parser reads it anyway, so it is checked here.
  // eslint-disable-next-line no-control-regex
  const badChar = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.exec(xml);
  if (badChar) fail('XML-Char', `U+${badChar[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')} at ${badChar.index} is not an XML 1.0 character`);
  const doc = (parser.parse(xml) as Node).CrossIndustryInvoice as Node | undefined;
  if (!doc) return [{ rule: 'CII', message: 'root is not CrossIndustryInvoice' }];
  const tx = at(doc, 'SupplyChainTradeTransaction');
  const agreement = at(tx, 'ApplicableHeaderTradeAgreement');
  const settlement = at(tx, 'ApplicableHeaderTradeSettlement');
  const sums = at(settlement, 'SpecifiedTradeSettlementHeaderMonetarySummation');
  const seller = at(agreement, 'SellerTradeParty');
  const buyer = at(agreement, 'BuyerTradeParty');

  if (!str(at(doc, 'ExchangedDocumentContext', 'GuidelineSpecifiedDocumentContextParameter', 'ID'))) fail('BR-01', 'no specification identifier (BT-24)');
  if (!str(at(doc, 'ExchangedDocument', 'ID'))) fail('BR-02', 'no invoice number (BT-1)');
  if (!/^\d{8}$/.test(str(at(doc, 'ExchangedDocument', 'IssueDateTime', 'DateTimeString')))) fail('BR-03', 'no issue date (BT-2)');
  if (!str(at(doc, 'ExchangedDocument', 'TypeCode'))) fail('BR-04', 'no type code (BT-3)');
  if (!/^[A-Z]{3}$/.test(str(at(settlement, 'InvoiceCurrencyCode')))) fail('BR-05', 'no invoice currency (BT-5)');
  if (!str(at(seller, 'Name'))) fail('BR-06', 'no seller name (BT-27)');
  if (!str(at(buyer, 'Name'))) fail('BR-07', 'no buyer name (BT-44)');
  if (!at(seller, 'PostalTradeAddress')) fail('BR-08', 'no seller postal address (BG-5)');
  if (!/^[A-Z]{2}$/.test(str(at(seller, 'PostalTradeAddress', 'CountryID')))) fail('BR-09', 'no seller country code (BT-40)');
  if (!at(buyer, 'PostalTradeAddress')) fail('BR-10', 'no buyer postal address (BG-8)');
  if (!/^[A-Z]{2}$/.test(str(at(buyer, 'PostalTradeAddress', 'CountryID')))) fail('BR-11', 'no buyer country code (BT-55)');
  const shipTo = at(tx, 'ApplicableHeaderTradeDelivery', 'ShipToTradeParty', 'PostalTradeAddress');
  if (shipTo && !/^[A-Z]{2}$/.test(str(at(shipTo, 'CountryID')))) fail('BR-57', 'a deliver-to address without country code (BT-80)');
  for (const [rule, name] of [
    ['BR-12', 'LineTotalAmount'],
    ['BR-13', 'TaxBasisTotalAmount'],
    ['BR-14', 'GrandTotalAmount'],
    ['BR-15', 'DuePayableAmount'],
  ] as const)
    if (!str(at(sums, name))) fail(rule, `no ${name}`);

  const lines = list(at(tx, 'IncludedSupplyChainTradeLineItem'));
  if (!lines.length) fail('BR-16', 'no invoice line');
  const bases = new Map<string, bigint>();
  const add = (k: string, v: bigint) => bases.set(k, (bases.get(k) ?? 0n) + v);
  let lineSum = 0n;
  const lineCategories = new Set<string>();
  for (const line of lines) {
    const id = str(at(line, 'AssociatedDocumentLineDocument', 'LineID'));
    if (!id) fail('BR-21', 'a line without identifier (BT-126)');
    const quantity = at(line, 'SpecifiedLineTradeDelivery', 'BilledQuantity');
    if (!str(quantity)) fail('BR-22', `line ${id}: no quantity (BT-129)`);
    if (!str(at(quantity, '@unitCode'))) fail('BR-23', `line ${id}: no unit of measure (BT-130)`);
    const net = str(at(line, 'SpecifiedLineTradeSettlement', 'SpecifiedTradeSettlementLineMonetarySummation', 'LineTotalAmount'));
    if (!net) fail('BR-24', `line ${id}: no net amount (BT-131)`);
    if (!str(at(line, 'SpecifiedTradeProduct', 'Name'))) fail('BR-25', `line ${id}: no item name (BT-153)`);
    const price = str(at(line, 'SpecifiedLineTradeAgreement', 'NetPriceProductTradePrice', 'ChargeAmount'));
    if (!price) fail('BR-26', `line ${id}: no net price (BT-146)`);
    else if (units(price) < 0n) fail('BR-27', `line ${id}: negative net price ${price}`);
    else if (net && str(quantity)) {
      // EN 16931-1 defines BT-131 as BT-146 / BT-149 x BT-129 (+ line charges - line allowances);
      // importers (Mustang's LineCalculator) recompute it and refuse a line that differs.
      const basis = str(at(line, 'SpecifiedLineTradeAgreement', 'NetPriceProductTradePrice', 'BasisQuantity')) || '1';
      let adjust = 0n;
      for (const ac of list(at(line, 'SpecifiedLineTradeSettlement', 'SpecifiedTradeAllowanceCharge')))
        adjust += (str(at(ac, 'ChargeIndicator', 'Indicator')) === 'true' ? 1n : -1n) * units(str(at(ac, 'ActualAmount')));
      const computed = roundToCent((units(str(quantity)) * units(price)) / units(basis)) + adjust;
      if (computed !== units(net)) fail('BT-131', `line ${id}: ${str(quantity)} x ${price} / ${basis} is ${show(computed)}, not its net amount ${net}`);
    }
    const tax = at(line, 'SpecifiedLineTradeSettlement', 'ApplicableTradeTax');
    const category = str(at(tax, 'CategoryCode'));
    const rate = str(at(tax, 'RateApplicablePercent'));
    lineCategories.add(category);
    if (category === 'S' && !(units(rate) > 0n)) fail('BR-S-05', `line ${id}: standard rated with rate ${rate}`);
    for (const c of ['Z', 'E', 'AE']) if (category === c && units(rate || '0') !== 0n) fail(`BR-${c}-05`, `line ${id}: category ${c} with rate ${rate}`);
    lineSum += units(net);
    add(key(category, rate), units(net));
  }

  let allowances = 0n;
  let charges = 0n;
  const chargeCategories = new Set<string>();
  for (const ac of list(at(settlement, 'SpecifiedTradeAllowanceCharge'))) {
    const isCharge = str(at(ac, 'ChargeIndicator', 'Indicator')) === 'true';
    const amount = units(str(at(ac, 'ActualAmount')));
    const tax = at(ac, 'CategoryTradeTax');
    chargeCategories.add(str(at(tax, 'CategoryCode')));
    const k = key(str(at(tax, 'CategoryCode')), str(at(tax, 'RateApplicablePercent')));
    if (isCharge) {
      charges += amount;
      add(k, amount);
    } else {
      allowances += amount;
      add(k, -amount);
    }
  }

  const amountOf = (name: string) => units(str(at(sums, name)) || '0');
  const lineTotal = amountOf('LineTotalAmount');
  const allowanceTotal = amountOf('AllowanceTotalAmount');
  const chargeTotal = amountOf('ChargeTotalAmount');
  const taxBasis = amountOf('TaxBasisTotalAmount');
  // BT-110 is the TaxTotalAmount in the invoice currency (BT-111 would be in BT-6's).
  const currency = str(at(settlement, 'InvoiceCurrencyCode'));
  const taxTotals = list(at(sums, 'TaxTotalAmount'));
  const taxTotalNode = taxTotals.find((t) => str(at(t, '@currencyID')) === currency) ?? taxTotals[0];
  const taxTotal = units(str(taxTotalNode) || '0');
  if (!currencies.has(currency)) fail('BR-CL-04', `invoice currency ${currency} is not in ISO 4217`);
  for (const t of taxTotals) {
    const id = str(at(t, '@currencyID'));
    if (id && !currencies.has(id)) fail('BR-CL-03', `currencyID ${id} is not in ISO 4217`);
  }
  for (const [name, address] of [
    ['seller', at(seller, 'PostalTradeAddress')],
    ['buyer', at(buyer, 'PostalTradeAddress')],
    ['deliver-to', shipTo],
  ] as const) {
    const country = str(at(address, 'CountryID'));
    if (country && !countries.has(country)) fail('BR-CL-14', `${name} country ${country} is not in ISO 3166-1`);
  }
  const grand = amountOf('GrandTotalAmount');
  const prepaid = amountOf('TotalPrepaidAmount');
  const rounding = amountOf('RoundingAmount');
  const due = amountOf('DuePayableAmount');

  if (cents(lineTotal) !== cents(lineSum)) fail('BR-CO-10', `line total ${show(lineTotal)} is not the sum of line net amounts ${show(lineSum)}`);
  if (allowanceTotal !== allowances) fail('BR-CO-11', `allowance total ${show(allowanceTotal)} is not the sum of allowances ${show(allowances)}`);
  if (chargeTotal !== charges) fail('BR-CO-12', `charge total ${show(chargeTotal)} is not the sum of charges ${show(charges)}`);
  if (taxBasis !== lineSum - allowances + charges)
    fail('BR-CO-13', `tax basis ${show(taxBasis)} is not lines - allowances + charges (${show(lineSum - allowances + charges)})`);

  const breakdown = list(at(settlement, 'ApplicableTradeTax'));
  if (!breakdown.length) fail('BR-CO-18', 'no VAT breakdown');
  let vatSum = 0n;
  const broken = new Set<string>();
  for (const v of breakdown) {
    const category = str(at(v, 'CategoryCode'));
    const rate = str(at(v, 'RateApplicablePercent'));
    const basisText = str(at(v, 'BasisAmount'));
    const taxText = str(at(v, 'CalculatedAmount'));
    if (!basisText) fail('BR-45', `breakdown ${category} ${rate}: no taxable amount`);
    if (!taxText) fail('BR-46', `breakdown ${category} ${rate}: no tax amount`);
    if (!category) fail('BR-47', 'a breakdown without category code');
    if (category !== 'O' && !rate) fail('BR-48', `breakdown ${category}: no rate`);
    const basis = units(basisText || '0');
    const tax = units(taxText || '0');
    vatSum += tax;
    const k = key(category, rate);
    broken.add(k);
    if (tax !== vatOf(basis, units(rate || '0'))) fail('BR-CO-17', `breakdown ${category} ${rate}: tax ${show(tax)} is not ${show(basis)} x ${rate} %`);
    if ((bases.get(k) ?? 0n) !== basis)
      fail(`${rulesOf(category)}-08`, `breakdown ${category} ${rate}: taxable ${show(basis)} is not the lines and charges of it (${show(bases.get(k) ?? 0n)})`);
    if (category === 'S') {
      if (tax !== vatOf(basis, units(rate))) fail('BR-S-09', `breakdown S ${rate}: tax is not basis x rate`);
      if (str(at(v, 'ExemptionReason')) || str(at(v, 'ExemptionReasonCode'))) fail('BR-S-10', 'an exemption reason on a standard-rated breakdown');
    } else if (['Z', 'E', 'AE', 'K', 'G'].includes(category)) {
      if (tax !== 0n) fail(`${rulesOf(category)}-09`, `breakdown ${category}: tax ${show(tax)} is not 0`);
      if (['E', 'AE', 'K', 'G'].includes(category) && !str(at(v, 'ExemptionReason')) && !str(at(v, 'ExemptionReasonCode')))
        fail(`${rulesOf(category)}-10`, `breakdown ${category}: no exemption reason`);
    }
  }
  // K and G: their lines at 0 % (-05), one breakdown of each (-01), and an intra-Community supply's delivery date and country (BR-IC-11, 12).
  for (const line of lines) {
    const tax = at(line, 'SpecifiedLineTradeSettlement', 'ApplicableTradeTax');
    const category = str(at(tax, 'CategoryCode'));
    if (['K', 'G'].includes(category) && units(str(at(tax, 'RateApplicablePercent')) || '0') !== 0n)
      fail(`${rulesOf(category)}-05`, `line ${str(at(line, 'AssociatedDocumentLineDocument', 'LineID'))}: category ${category} with a rate`);
  }
  const breakdownCategories = breakdown.map((v) => str(at(v, 'CategoryCode')));
  for (const c of ['K', 'G'])
    if ((lineCategories.has(c) || chargeCategories.has(c)) && breakdownCategories.filter((b) => b === c).length !== 1)
      fail(`${rulesOf(c)}-01`, `lines or charges of category ${c}, but not exactly one VAT breakdown of it`);
  if (breakdownCategories.includes('K')) {
    const delivery = at(tx, 'ApplicableHeaderTradeDelivery');
    if (!str(at(delivery, 'ActualDeliverySupplyChainEvent', 'OccurrenceDateTime', 'DateTimeString')) && !at(settlement, 'BillingSpecifiedPeriod'))
      fail('BR-IC-11', 'an intra-Community supply without the actual delivery date (BT-72) or invoicing period (BG-14)');
    if (!str(at(shipTo, 'CountryID'))) fail('BR-IC-12', 'an intra-Community supply without the deliver-to country code (BT-80)');
  }
  for (const k of bases.keys()) if (!broken.has(k)) fail('BR-CO-18', `lines or charges of ${k} have no VAT breakdown`);
  if (taxTotal !== vatSum) fail('BR-CO-14', `VAT total ${show(taxTotal)} is not the sum of the breakdown ${show(vatSum)}`);
  if (grand !== taxBasis + taxTotal) fail('BR-CO-15', `grand total ${show(grand)} is not tax basis + VAT (${show(taxBasis + taxTotal)})`);
  if (due !== grand - prepaid + rounding)
    fail('BR-CO-16', `amount due ${show(due)} is not grand total - paid + rounding (${show(grand - prepaid + rounding)})`);
  if (due > 0n && !list(at(settlement, 'SpecifiedTradePaymentTerms')).some((t) => str(at(t, 'Description')) || str(at(t, 'DueDateDateTime', 'DateTimeString'))))
    fail('BR-CO-25', 'amount due is positive, but there is neither a due date nor payment terms');

  const registrations = (p: unknown, scheme: string) =>
    list(at(p, 'SpecifiedTaxRegistration')).filter((r) => str(at(r, 'ID', '@schemeID')) === scheme && str(at(r, 'ID')));
  const sellerTaxId =
    registrations(seller, 'VA').length + registrations(seller, 'FC').length > 0 || Boolean(at(agreement, 'SellerTaxRepresentativeTradeParty'));
  if (!str(at(seller, 'ID')) && !str(at(seller, 'GlobalID')) && !str(at(seller, 'SpecifiedLegalOrganization', 'ID')) && !registrations(seller, 'VA').length)
    fail('BR-CO-26', 'no seller identifier (BT-29), legal registration (BT-30) or VAT identifier (BT-31)');
  if (lineCategories.has('S') && !sellerTaxId) fail('BR-S-02', 'standard-rated lines, but no seller VAT identifier or tax registration');
  // BR-IC-02 and BR-G-02 want the seller's VAT identifier (BT-31) or its tax representative's: a tax number (FC) does not do.
  const sellerVatId = registrations(seller, 'VA').length > 0 || Boolean(at(agreement, 'SellerTaxRepresentativeTradeParty'));
  if (lineCategories.has('K')) {
    if (!sellerVatId) fail('BR-IC-02', 'intra-Community supply lines, but no seller VAT identifier');
    if (!registrations(buyer, 'VA').length) fail('BR-IC-02', 'intra-Community supply lines, but no buyer VAT identifier');
  }
  if (lineCategories.has('G') && !sellerVatId) fail('BR-G-02', 'export lines, but no seller VAT identifier');
  if (lineCategories.has('AE')) {
    if (!sellerTaxId) fail('BR-AE-02', 'reverse charge lines, but no seller VAT identifier');
    if (!registrations(buyer, 'VA').length && !str(at(buyer, 'SpecifiedLegalOrganization', 'ID')))
      fail('BR-AE-02', 'reverse charge lines, but no buyer VAT identifier');
  }
  // BR-CO-09: a VAT identifier starts with its country's ISO 3166-1 code (Greece EL); checked as two capitals.
  for (const r of [...registrations(seller, 'VA'), ...registrations(buyer, 'VA')])
    if (!/^[A-Z]{2}/.test(str(at(r, 'ID')))) fail('BR-CO-09', `VAT identifier ${str(at(r, 'ID'))} without its country prefix`);
  for (const ref of list(at(settlement, 'InvoiceReferencedDocument')))
    if (!str(at(ref, 'IssuerAssignedID'))) fail('BR-55', 'a preceding invoice reference without its number (BT-25)');
  return out;
}

/**
 * The XRechnung 3.0 rules (KoSIT's BR-DE list) an XRechnung of ours touches, on the CII XML:
 * BR-DE-1 payment instructions, BR-DE-2/5/6/7 the seller contact with name, phone and email,
 * BR-DE-3/4 and 8/9 seller's and buyer's city and post code, BR-DE-15 the buyer reference,
 * BR-DE-17 the type code, BR-DE-21 the specification identifier, BR-DE-23-a an IBAN for a credit
 * transfer, BR-DE-24-a a card's and BR-DE-25-a a direct debit's details. The KoSIT schematron itself is not in ../shared/ (lib/invoice/README.md).
 */
export function checkXrechnung(xml: string): Violation[] {
  const out: Violation[] = [];
  const fail = (rule: string, message: string) => out.push({ rule, message });
  const doc = (parser.parse(xml) as Node).CrossIndustryInvoice as Node | undefined;
  if (!doc) return [{ rule: 'CII', message: 'root is not CrossIndustryInvoice' }];
  const tx = at(doc, 'SupplyChainTradeTransaction');
  const agreement = at(tx, 'ApplicableHeaderTradeAgreement');
  const settlement = at(tx, 'ApplicableHeaderTradeSettlement');
  const seller = at(agreement, 'SellerTradeParty');
  const buyer = at(agreement, 'BuyerTradeParty');
  const means = list(at(settlement, 'SpecifiedTradeSettlementPaymentMeans'));
  if (!means.length) fail('BR-DE-1', 'no payment instructions (BG-16)');
  const contact = at(seller, 'DefinedTradeContact');
  if (!contact) fail('BR-DE-2', 'no seller contact (BG-6)');
  if (!str(at(seller, 'PostalTradeAddress', 'CityName'))) fail('BR-DE-3', 'no seller city (BT-37)');
  if (!str(at(seller, 'PostalTradeAddress', 'PostcodeCode'))) fail('BR-DE-4', 'no seller post code (BT-38)');
  if (!str(at(contact, 'PersonName')) && !str(at(contact, 'DepartmentName'))) fail('BR-DE-5', 'no seller contact point (BT-41)');
  if (!str(at(contact, 'TelephoneUniversalCommunication', 'CompleteNumber'))) fail('BR-DE-6', 'no seller contact telephone (BT-42)');
  if (!str(at(contact, 'EmailURIUniversalCommunication', 'URIID'))) fail('BR-DE-7', 'no seller contact email (BT-43)');
  if (!str(at(buyer, 'PostalTradeAddress', 'CityName'))) fail('BR-DE-8', 'no buyer city (BT-52)');
  if (!str(at(buyer, 'PostalTradeAddress', 'PostcodeCode'))) fail('BR-DE-9', 'no buyer post code (BT-53)');
  if (!str(at(agreement, 'BuyerReference'))) fail('BR-DE-15', 'no buyer reference (BT-10)');
  if (!['326', '380', '384', '389', '381', '875', '876', '877'].includes(str(at(doc, 'ExchangedDocument', 'TypeCode'))))
    fail('BR-DE-17', 'a type code XRechnung does not take');
  if (
    !str(at(doc, 'ExchangedDocumentContext', 'GuidelineSpecifiedDocumentContextParameter', 'ID')).startsWith(
      'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.',
    )
  )
    fail('BR-DE-21', 'not the XRechnung 3 specification identifier');
  for (const m of means)
    if (['30', '58'].includes(str(at(m, 'TypeCode'))) && !str(at(m, 'PayeePartyCreditorFinancialAccount', 'IBANID')))
      fail('BR-DE-23-a', 'a credit transfer without the payee IBAN');
  for (const m of means)
    if (['48', '54', '55'].includes(str(at(m, 'TypeCode'))) && !str(at(m, 'ApplicableTradeSettlementFinancialCard', 'ID')))
      fail('BR-DE-24-a', 'a card payment without the card (BG-18)');
  const mandate =
    list(at(settlement, 'SpecifiedTradePaymentTerms')).some((t) => str(at(t, 'DirectDebitMandateID'))) || str(at(settlement, 'CreditorReferenceID'));
  for (const m of means)
    if (str(at(m, 'TypeCode')) === '59' && !mandate && !str(at(m, 'PayerPartyDebtorFinancialAccount', 'IBANID')))
      fail('BR-DE-25-a', 'a direct debit without its mandate, creditor id or debited account (BG-19)');
  return out;
}
