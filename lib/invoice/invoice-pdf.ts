/**
 * The invoice as a PDF/A-3B with its Factur-X XML embedded (issue 35), drawn with pdf-lib: a
 * maintained, dependency-free PDF writer in JavaScript that can embed a TrueType font (through
 * @pdf-lib/fontkit), attach a file with its AFRelationship (the catalog's /AF too) and take any
 * low-level object we add (the XMP metadata and the sRGB OutputIntent PDF/A asks for). Chosen
 * over PDFKit (no /AF, no AFRelationship) and over a headless browser (a browser per invoice is
 * seconds of CPU and writes no PDF/A). Only renders: every amount comes from the InvoiceDocument.
 *
 * PDF/A-3 needs every font embedded (no standard-14 font): DejaVu Sans from the npm package
 * dejavu-fonts-ttf, read once per process; and an OutputIntent with an ICC profile: sRGB from
 * Debian's icc-profiles-free (/usr/share/color/icc/sRGB.icc, INVOICE_ICC_PROFILE), read at run
 * time, never copied into the project.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import fontkit from '@pdf-lib/fontkit';
import { AFRelationship, PDFDocument, PDFFont, PDFHexString, PDFName, PDFPage, PDFString, rgb } from 'pdf-lib';
import { amount, InvoiceAddress, InvoiceDocument, paymentTerms, percent } from './invoice-document';

/** The embedded XML's file name Factur-X prescribes (ZUGFeRD 2.x uses the same). */
export const facturxFileName = 'factur-x.xml';

/** The XMP namespace of the Factur-X extension schema (Factur-X 1.0; ZUGFeRD 2.1 and later share it). */
export const facturxNamespace = 'urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#';

export interface PdfAssets {
  regular: Uint8Array;
  bold: Uint8Array;
  /** The sRGB profile, deflated once (pdf-lib's own deflate runs in JavaScript, for every document). */
  iccDeflated: Uint8Array;
}

let assets: PdfAssets | undefined;

/**
 * fontkit for pdf-lib with the parsed fonts kept: parsing DejaVu (700 kB) for every invoice was
 * most of the rendering time. pdf-lib only reads the parsed font (glyphs, metrics) and makes a
 * new subset per document, so one parse serves every document of the process.
 */
type Font = ReturnType<typeof fontkit.create>;
const parsedFonts = new WeakMap<Uint8Array, Font>();

/**
 * pdf-lib shapes every string it draws or measures with the font's OpenType lookups; invoices
 * repeat most of theirs (labels, amounts), so a parsed font keeps the runs of the last strings.
 */
function withLayoutMemo(font: Font): Font {
  const runs = new Map<string, ReturnType<Font['layout']>>();
  const layout = font.layout.bind(font);
  font.layout = (text: string, features?: Parameters<Font['layout']>[1]) => {
    const key = features ? `${JSON.stringify(features)}\u0000${text}` : text;
    let run = runs.get(key);
    if (!run) {
      if (runs.size >= 20000) runs.clear();
      run = layout(text, features);
      runs.set(key, run);
    }
    return run;
  };
  return font;
}

const cachingFontkit: typeof fontkit = {
  ...fontkit,
  create(buffer: Uint8Array, postscriptName?: string) {
    let font = parsedFonts.get(buffer);
    if (!font) {
      font = withLayoutMemo(fontkit.create(buffer, postscriptName));
      parsedFonts.set(buffer, font);
    }
    return font;
  },
};

/** The fonts (npm dejavu-fonts-ttf) and the ICC profile, read once; a missing file names itself. */
export function pdfAssets(iccProfilePath: string): PdfAssets {
  if (!assets) {
    const fonts = path.join(path.dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');
    const read = (file: string, hint: string) => {
      try {
        return fs.readFileSync(file);
      } catch {
        throw new Error(`invoice PDF: cannot read ${file} (${hint})`);
      }
    };
    assets = {
      regular: read(path.join(fonts, 'DejaVuSans.ttf'), 'npm package dejavu-fonts-ttf'),
      bold: read(path.join(fonts, 'DejaVuSans-Bold.ttf'), 'npm package dejavu-fonts-ttf'),
      iccDeflated: zlib.deflateSync(read(iccProfilePath, 'Debian package icc-profiles-free, or set INVOICE_ICC_PROFILE to an sRGB profile')),
    };
  }
  return assets;
}

const words = {
  de: {
    invoice: 'Rechnung',
    credit: 'Gutschrift',
    number: 'Nummer',
    date: 'Datum',
    delivered: 'Lieferdatum',
    order: 'Bestellung',
    customer: 'Kundennummer',
    buyerVat: 'USt-IdNr. Kunde',
    shipTo: 'Lieferanschrift',
    pos: 'Pos.',
    item: 'Artikel',
    qty: 'Menge',
    unitGross: 'Einzelpreis brutto',
    unitNet: 'Einzelpreis netto',
    vat: 'USt.',
    net: 'Netto',
    lineNet: 'Gesamt netto',
    shipping: 'Versand',
    netTotal: 'Summe netto',
    vatOn: (rate: string, basis: string) => `USt. ${rate} % auf ${basis}`,
    exempt: (basis: string) => `Steuerfrei auf ${basis}`,
    grand: 'Gesamtbetrag',
    rounding: 'Rundung',
    paid: 'Bezahlt',
    due: 'Offener Betrag',
    payment: 'Zahlungsart',
    vatId: 'USt-IdNr.',
    taxNumber: 'Steuernummer',
    refers: 'Bezieht sich auf Rechnung',
    page: 'Seite',
    per: (price: string, quantity: number) => `${price} je ${quantity}`,
  },
  en: {
    invoice: 'Invoice',
    credit: 'Credit note',
    number: 'Number',
    date: 'Date',
    delivered: 'Delivery date',
    order: 'Order',
    customer: 'Customer number',
    buyerVat: 'Customer VAT ID',
    shipTo: 'Delivery address',
    pos: 'Pos.',
    item: 'Item',
    qty: 'Qty',
    unitGross: 'Unit price gross',
    unitNet: 'Unit price net',
    vat: 'VAT',
    net: 'Net',
    lineNet: 'Net amount',
    shipping: 'Shipping',
    netTotal: 'Total net',
    vatOn: (rate: string, basis: string) => `VAT ${rate} % on ${basis}`,
    exempt: (basis: string) => `VAT exempt on ${basis}`,
    grand: 'Total',
    rounding: 'Rounding',
    paid: 'Paid',
    due: 'Amount due',
    payment: 'Payment method',
    vatId: 'VAT ID',
    taxNumber: 'Tax number',
    refers: 'Refers to invoice',
    page: 'Page',
    per: (price: string, quantity: number) => `${price} per ${quantity}`,
  },
};

const formatCache = new Map<string, ReturnType<typeof makeFormats>>();

/**
 * Money and dates in the seller's locale (numbers as the seller's customers read them); Intl formats
 * made once per locale and currency. Money has the XML's two decimals in every currency (Kontor
 * keeps money to the cent, lib/http): with the currency's own digits a forint or yen invoice
 * showed its XML's 38647.06 as "38.647 HUF" and its column added up to a forint more than its total.
 */
function formats(doc: InvoiceDocument) {
  const key = `${doc.locale}|${doc.currency}`;
  let f = formatCache.get(key);
  if (!f) {
    f = makeFormats(doc);
    formatCache.set(key, f);
  }
  return f;
}

function makeFormats(doc: InvoiceDocument) {
  const locale = safeLocale(doc.locale);
  const money = new Intl.NumberFormat(locale, { style: 'currency', currency: doc.currency, minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const unit = new Intl.NumberFormat(locale, { style: 'currency', currency: doc.currency, minimumFractionDigits: 2, maximumFractionDigits: 4 });
  const rate = new Intl.NumberFormat(locale, { minimumFractionDigits: 0, maximumFractionDigits: 2 });
  const date = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' });
  return {
    money: (cents: bigint) => money.format(Number(amount(cents))),
    price: (decimal: string) => unit.format(Number(decimal)),
    rate: (r: number) => rate.format(Number(percent(r))),
    date: (iso: string) => date.format(new Date(`${iso}T00:00:00Z`)),
  };
}

function safeLocale(locale: string): string {
  try {
    return Intl.getCanonicalLocales(locale)[0] ?? 'de-DE';
  } catch {
    return 'de-DE';
  }
}

const A4: [number, number] = [595.28, 841.89];
const margin = 50;
const grey = rgb(0.35, 0.38, 0.42);
const black = rgb(0, 0, 0);
const line = rgb(0.75, 0.78, 0.82);

/** Draws text page by page: the cursor moves down, a new page starts when the bottom is reached. */
class Canvas {
  page: PDFPage;
  y: number;
  pages: PDFPage[] = [];

  constructor(
    private readonly pdf: PDFDocument,
    readonly regular: PDFFont,
    readonly bold: PDFFont,
  ) {
    this.page = this.newPage();
    this.y = A4[1] - margin;
  }

  private newPage(): PDFPage {
    const page = this.pdf.addPage(A4);
    this.pages.push(page);
    return page;
  }

  /** Room for `height` points below the cursor, or a new page. */
  need(height: number): void {
    if (this.y - height < margin + 30) {
      this.page = this.newPage();
      this.y = A4[1] - margin;
    }
  }

  text(text: string, x: number, y: number, size = 9, font = this.regular, color = black): void {
    this.page.drawText(text, { x, y, size, font, color });
  }

  /** Right-aligned at xRight; a text wider than `width` (a column's room) is drawn smaller to fit it. */
  right(text: string, xRight: number, y: number, size = 9, font = this.regular, width = Infinity): void {
    const natural = font.widthOfTextAtSize(text, size);
    const fitted = natural > width ? Math.max(4, (size * width) / natural) : size;
    this.text(text, xRight - font.widthOfTextAtSize(text, fitted), y, fitted, font);
  }

  rule(y: number): void {
    this.page.drawLine({ start: { x: margin, y }, end: { x: A4[0] - margin, y }, thickness: 0.5, color: line });
  }
}

/** Splits text into lines no wider than `width` at the size given (words longer than a line are cut). */
function wrapText(text: string, font: PDFFont, size: number, width: number): string[] {
  const out: string[] = [];
  let current = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const next = current ? `${current} ${word}` : word;
    if (font.widthOfTextAtSize(next, size) <= width) current = next;
    else {
      if (current) out.push(current);
      current = word;
      while (font.widthOfTextAtSize(current, size) > width && current.length > 1) {
        let cut = current.length - 1;
        while (cut > 1 && font.widthOfTextAtSize(current.slice(0, cut), size) > width) cut--;
        out.push(current.slice(0, cut));
        current = current.slice(cut);
      }
    }
  }
  if (current) out.push(current);
  return out.length ? out : [''];
}

const addressLines = (a: InvoiceAddress): string[] =>
  [a.name, a.name2, a.street, a.street2, [a.zip, a.city].filter(Boolean).join(' '), a.province, a.country || a.countryIso2].filter(Boolean);

const xmlEscape = (text: string) => text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);

/** XMP of a PDF/A-3B Factur-X invoice: PDF/A identification, Dublin Core, the fx: properties and their extension schema. */
export function facturxXmp(meta: { title: string; author: string; created: Date; producer: string }): string {
  const iso = meta.created.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const property = (name: string, description: string) =>
    `<rdf:li rdf:parseType="Resource"><pdfaProperty:name>${name}</pdfaProperty:name><pdfaProperty:valueType>Text</pdfaProperty:valueType>` +
    `<pdfaProperty:category>external</pdfaProperty:category><pdfaProperty:description>${description}</pdfaProperty:description></rdf:li>`;
  return `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/">
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/"><pdfaid:part>3</pdfaid:part><pdfaid:conformance>B</pdfaid:conformance></rdf:Description>
<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:format>application/pdf</dc:format><dc:title><rdf:Alt><rdf:li xml:lang="x-default">${xmlEscape(meta.title)}</rdf:li></rdf:Alt></dc:title><dc:creator><rdf:Seq><rdf:li>${xmlEscape(meta.author)}</rdf:li></rdf:Seq></dc:creator></rdf:Description>
<rdf:Description rdf:about="" xmlns:pdf="http://ns.adobe.com/pdf/1.3/"><pdf:Producer>${xmlEscape(meta.producer)}</pdf:Producer></rdf:Description>
<rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/"><xmp:CreatorTool>${xmlEscape(meta.producer)}</xmp:CreatorTool><xmp:CreateDate>${iso}</xmp:CreateDate><xmp:ModifyDate>${iso}</xmp:ModifyDate><xmp:MetadataDate>${iso}</xmp:MetadataDate></rdf:Description>
<rdf:Description rdf:about="" xmlns:fx="${facturxNamespace}"><fx:DocumentType>INVOICE</fx:DocumentType><fx:DocumentFileName>${facturxFileName}</fx:DocumentFileName><fx:Version>1.0</fx:Version><fx:ConformanceLevel>EN 16931</fx:ConformanceLevel></rdf:Description>
<rdf:Description rdf:about="" xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/" xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#" xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#">
<pdfaExtension:schemas><rdf:Bag><rdf:li rdf:parseType="Resource">
<pdfaSchema:schema>Factur-X PDFA Extension Schema</pdfaSchema:schema><pdfaSchema:namespaceURI>${facturxNamespace}</pdfaSchema:namespaceURI><pdfaSchema:prefix>fx</pdfaSchema:prefix>
<pdfaSchema:property><rdf:Seq>${property('DocumentFileName', 'name of the embedded XML invoice file')}${property('DocumentType', 'INVOICE')}${property('Version', 'The actual version of the Factur-X XML schema')}${property('ConformanceLevel', 'The conformance level of the embedded Factur-X data')}</rdf:Seq></pdfaSchema:property>
</rdf:li></rdf:Bag></pdfaExtension:schemas>
</rdf:Description>
</rdf:RDF>
</x:xmpmeta>
<?xpacket end="w"?>`;
}

/** The PDF/A-3B of the invoice with `xml` (its CII) embedded as factur-x.xml. */
export async function renderPdf(doc: InvoiceDocument, xml: string, fonts: PdfAssets, created: Date): Promise<Uint8Array> {
  const w = doc.locale.toLowerCase().startsWith('de') ? words.de : words.en;
  const f = formats(doc);
  const pdf = await PDFDocument.create({ updateMetadata: false });
  pdf.registerFontkit(cachingFontkit);
  const regular = await pdf.embedFont(fonts.regular, { subset: true });
  const bold = await pdf.embedFont(fonts.bold, { subset: true });
  const c = new Canvas(pdf, regular, bold);
  const right = A4[0] - margin;
  const title = `${doc.typeCode === 381 ? w.credit : w.invoice} ${doc.number}`;

  // Seller block (right), the sender line and the buyer's billing address (left).
  const seller = doc.seller.address;
  c.text(seller.name || '', margin, c.y, 14, bold);
  let sy = c.y;
  // Every block is wrapped to its column: a long name or street drawn on one line ran over the next column.
  const sellerWidth = right - margin - bold.widthOfTextAtSize(seller.name || '', 14) - 12;
  for (const l of addressLines({ ...seller, name: '' }).flatMap((l) => wrapText(l, regular, 8, sellerWidth))) {
    c.right(l, right, sy, 8);
    sy -= 11;
  }
  c.y -= 70;
  c.text([seller.name, seller.street, [seller.zip, seller.city].filter(Boolean).join(' ')].filter(Boolean).join(' · '), margin, c.y, 7, regular, grey);
  c.y -= 14;
  const factsLeft = 340;
  const buyerLines = addressLines(doc.buyer.address).flatMap((l) => wrapText(l, regular, 10, factsLeft - margin - 12));
  let by = c.y;
  for (const l of buyerLines) {
    c.text(l, margin, by, 10);
    by -= 13;
  }

  // Document facts (right column).
  const facts: [string, string][] = [
    [w.number, doc.number],
    [w.date, f.date(doc.issueDate)],
    [w.delivered, f.date(doc.deliveryDate)],
    [w.order, doc.orderId],
  ];
  if (doc.customerNumber) facts.push([w.customer, doc.customerNumber]);
  if (doc.buyer.vatId) facts.push([w.buyerVat, doc.buyer.vatId]);
  if (doc.corrects) facts.push([w.refers, `${doc.corrects.invoiceNumber} (${f.date(doc.corrects.issueDate)})`]);
  let fy = c.y;
  for (const [k, v] of facts) {
    c.text(k, factsLeft, fy, 8, regular, grey);
    c.right(v, right, fy, 9, regular, right - factsLeft - regular.widthOfTextAtSize(k, 8) - 8);
    fy -= 13;
  }
  c.y = Math.min(by, fy) - 10;
  if (doc.shipTo) {
    c.text(w.shipTo, margin, c.y, 8, regular, grey);
    c.y -= 12;
    for (const part of wrapText(addressLines(doc.shipTo).join(', '), regular, 9, right - margin)) {
      c.text(part, margin, c.y, 9);
      c.y -= 12;
    }
    c.y -= 6;
  }
  c.text(title, margin, c.y, 16, bold);
  c.y -= 26;

  // Lines: position, item, quantity, unit price net, VAT rate, net amount.
  const cols = { pos: margin, item: margin + 30, qty: 318, unit: 410, vat: 455, net: right };
  // What each right-aligned column has between its neighbours (the item's text ends 40 points before qty).
  const room = { qty: 36, unit: cols.unit - cols.qty - 6, vat: cols.vat - cols.unit - 6, net: cols.net - cols.vat - 6 };
  const header = () => {
    c.text(w.pos, cols.pos, c.y, 8, bold);
    c.text(w.item, cols.item, c.y, 8, bold);
    c.right(w.qty, cols.qty, c.y, 8, bold);
    c.right(w.unitNet, cols.unit, c.y, 8, bold);
    c.right(w.vat, cols.vat, c.y, 8, bold);
    c.right(w.lineNet, cols.net, c.y, 8, bold);
    c.y -= 5;
    c.rule(c.y);
    c.y -= 12;
  };
  header();
  for (const l of doc.lines) {
    const name = wrapText(l.name || l.sku || `#${l.id}`, regular, 9, cols.qty - cols.item - 40);
    const extra = l.sku && l.name ? 1 : 0;
    const before = c.pages.length;
    c.need(12 * (name.length + extra) + 4);
    if (c.pages.length !== before) header();
    c.text(String(l.id), cols.pos, c.y, 9);
    c.right(String(l.quantity), cols.qty, c.y, 9, regular, room.qty);
    // The price as the XML states it (BT-146 for BT-149 units): a line's own price reads "831,93 € je 1000".
    const price = f.price(l.netUnitPrice);
    c.right(l.basisQuantity === 1 ? price : w.per(price, l.basisQuantity), cols.unit, c.y, 9, regular, room.unit);
    c.right(`${f.rate(l.rate)} %`, cols.vat, c.y, 9, regular, room.vat);
    c.right(f.money(l.net), cols.net, c.y, 9, regular, room.net);
    for (const part of name) {
      c.text(part, cols.item, c.y, 9);
      c.y -= 12;
    }
    if (extra) {
      c.text(`SKU ${l.sku}`, cols.item, c.y, 7, regular, grey);
      c.y -= 12;
    }
    c.y -= 2;
  }
  for (const ch of doc.charges) {
    c.need(14);
    c.text(ch.reason, cols.item, c.y, 9);
    c.right(`${f.rate(ch.rate)} %`, cols.vat, c.y, 9, regular, room.vat);
    c.right(f.money(ch.net), cols.net, c.y, 9, regular, room.net);
    c.y -= 14;
  }
  c.rule(c.y + 6);
  c.y -= 8;

  // Totals: net, the VAT per rate, grand total, paid, due.
  const t = doc.totals;
  const rows: [string, string, boolean][] = [[w.netTotal, f.money(t.taxBasis), false]];
  for (const v of doc.vat)
    rows.push([v.category === 'S' || v.category === 'Z' ? w.vatOn(f.rate(v.rate), f.money(v.basis)) : w.exempt(f.money(v.basis)), f.money(v.tax), false]);
  rows.push([w.grand, f.money(t.grandTotal), true]);
  if (t.rounding !== 0n) rows.push([w.rounding, f.money(t.rounding), false]);
  rows.push([w.paid, f.money(t.paid), false]);
  rows.push([w.due, f.money(t.due), true]);
  const labelLeft = 300;
  const placed = rows.map(([k, v, strong]) => {
    const font = strong ? bold : regular;
    return { label: wrapText(k, font, 9, right - labelLeft - font.widthOfTextAtSize(v, 9) - 10), v, font };
  });
  c.need(placed.reduce((h, r) => h + r.label.length * 12 + 2, 10));
  for (const { label, v, font } of placed) {
    c.right(v, right, c.y, 9, font);
    for (const part of label) {
      c.text(part, labelLeft, c.y, 9, font);
      c.y -= 12;
    }
    c.y -= 2;
  }
  c.y -= 8;

  // Payment and the notes the law asks for.
  const below: string[] = [paymentTerms(doc, f.money)];
  if (doc.paymentMethod.name) below.push(`${w.payment}: ${doc.paymentMethod.name}`);
  if (doc.payee.iban) below.push(`IBAN ${doc.payee.iban}${doc.payee.bic ? ` · BIC ${doc.payee.bic}` : ''}`);
  below.push(...doc.notes);
  for (const text of below)
    for (const part of wrapText(text, regular, 9, right - margin)) {
      c.need(12);
      c.text(part, margin, c.y, 9);
      c.y -= 12;
    }

  // Footer on every page: the seller's tax identifiers, the page number.
  const footer = [
    seller.name,
    doc.seller.vatId && `${w.vatId} ${doc.seller.vatId}`,
    doc.seller.taxNumber && `${w.taxNumber} ${doc.seller.taxNumber}`,
    doc.seller.email,
  ]
    .filter(Boolean)
    .join(' · ');
  const pageLabel = (i: number) => `${w.page} ${i + 1}/${c.pages.length}`;
  // Up to three lines beside the page number, upwards from the bottom margin (the body ends 30 points above it).
  const footerLines = wrapText(footer, regular, 7, right - margin - regular.widthOfTextAtSize(pageLabel(c.pages.length), 7) - 12).slice(0, 3);
  c.pages.forEach((page, i) => {
    footerLines.forEach((text, n) =>
      page.drawText(text, { x: margin, y: margin - 10 + (footerLines.length - 1 - n) * 9, size: 7, font: regular, color: grey }),
    );
    const label = pageLabel(i);
    page.drawText(label, { x: right - regular.widthOfTextAtSize(label, 7), y: margin - 10, size: 7, font: regular, color: grey });
  });

  await pdfA3(pdf, {
    title,
    author: seller.name || 'Kontor',
    created,
    icc: fonts.iccDeflated,
    xml: Buffer.from(xml, 'utf8'),
    number: doc.number,
    locale: safeLocale(doc.locale),
  });
  return pdf.save();
}

/** What makes the document PDF/A-3B and Factur-X: info = XMP, OutputIntent, the XML attached with /AF, a file ID. */
async function pdfA3(
  pdf: PDFDocument,
  p: { title: string; author: string; created: Date; icc: Uint8Array; xml: Buffer; number: string; locale: string },
): Promise<void> {
  const producer = 'Kontor (pdf-lib)';
  pdf.setTitle(p.title, { showInWindowTitleBar: true });
  pdf.setAuthor(p.author);
  pdf.setCreator(producer);
  pdf.setProducer(producer);
  pdf.setCreationDate(p.created);
  pdf.setModificationDate(p.created);
  pdf.setLanguage(p.locale);
  await pdf.attach(p.xml, facturxFileName, {
    mimeType: 'text/xml',
    description: 'Factur-X/ZUGFeRD invoice (EN 16931)',
    creationDate: p.created,
    modificationDate: p.created,
    // Alternative: the XML is the same invoice as the PDF (Factur-X for DE/ZUGFeRD; France also allows Data or Source).
    afRelationship: AFRelationship.Alternative,
  });
  const { context, catalog } = pdf;
  const metadata = context.stream(facturxXmp({ title: p.title, author: p.author, created: p.created, producer }), { Type: 'Metadata', Subtype: 'XML' });
  catalog.set(PDFName.of('Metadata'), context.register(metadata));
  const icc = context.stream(p.icc, { N: 3, Filter: 'FlateDecode' });
  const intent = context.obj({
    Type: 'OutputIntent',
    S: 'GTS_PDFA1',
    OutputConditionIdentifier: PDFString.of('sRGB'),
    Info: PDFString.of('sRGB IEC61966-2.1'),
    DestOutputProfile: context.register(icc),
  });
  catalog.set(PDFName.of('OutputIntents'), context.obj([context.register(intent)]));
  const id = PDFHexString.of(crypto.createHash('md5').update(`${p.number}:${p.created.toISOString()}`).digest('hex'));
  context.trailerInfo.ID = context.obj([id, id]);
}
