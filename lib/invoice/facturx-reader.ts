/**
 * Reads a Factur-X / ZUGFeRD PDF as a receiver would: its embedded files (from the catalog's
 * EmbeddedFiles name tree, with their AFRelationship and whether the catalog's /AF names them),
 * its XMP metadata (PDF/A identification, the fx: extension), and from the invoice XML the type
 * code, number, currency and totals. The same code reads ours and others' (the genuine samples in
 * ../shared/samples/einvoice/): CII D16B (Factur-X, ZUGFeRD 2.x) and ZUGFeRD 1.0's
 * CrossIndustryDocument. pdf-lib parses the PDF (object streams included), fast-xml-parser the XML.
 */
import { child, ciiParser, CiiNode, value } from './cii-nodes';
import { decodePDFRawStream, PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFObject, PDFRawStream, PDFRef, PDFStream, PDFString } from 'pdf-lib';

export interface EmbeddedFileReading {
  name: string;
  /** /AFRelationship of the file specification (Alternative, Data, Source, ...), '' when absent. */
  afRelationship: string;
  /** /Subtype of the embedded file stream (text/xml), '' when absent. */
  mimeType: string;
  /** Whether the catalog's /AF array names this file specification. */
  inCatalogAF: boolean;
  bytes: Uint8Array;
}

export interface FacturxReading {
  files: EmbeddedFileReading[];
  /** The XMP packet of the catalog, '' when none. */
  xmp: string;
  /** pdfaid:part and pdfaid:conformance from the XMP ('' when absent). */
  pdfa: { part: string; conformance: string };
  /** The fx: (Factur-X / ZUGFeRD 2.x) properties of the XMP, or null; ZUGFeRD 1.0 uses zf:. */
  facturx: { documentFileName: string; conformanceLevel: string; version: string } | null;
  /** The invoice file: factur-x.xml, zugferd-invoice.xml, ZUGFeRD-invoice.xml or xrechnung.xml. */
  invoiceFile: EmbeddedFileReading | null;
  invoice: InvoiceReading | null;
}

export interface InvoiceReading {
  /** CrossIndustryInvoice (CII D16B) or CrossIndustryDocument (ZUGFeRD 1.0). */
  root: string;
  guideline: string;
  number: string;
  typeCode: string;
  currency: string;
  lineTotal: string;
  taxBasisTotal: string;
  taxTotal: string;
  grandTotal: string;
  duePayable: string;
  /** BT-25: the invoice a credit note corrects, '' when none. */
  precedingInvoice: string;
}

const invoiceFileNames = ['factur-x.xml', 'zugferd-invoice.xml', 'xrechnung.xml'];

const textOf = (o: PDFObject | undefined): string =>
  o instanceof PDFString || o instanceof PDFHexString ? o.decodeText() : o instanceof PDFName ? o.decodeText() : '';

function streamBytes(stream: PDFObject | undefined): Uint8Array {
  if (stream instanceof PDFRawStream) return decodePDFRawStream(stream).decode();
  if (stream instanceof PDFStream) return stream.getContents();
  return new Uint8Array();
}

/** The name tree's leaves: [name, value] pairs, through /Kids. */
function nameTree(pdf: PDFDocument, node: PDFDict | undefined, out: [string, PDFObject][] = [], depth = 0): [string, PDFObject][] {
  if (!node || depth > 32) return out;
  const names = node.lookup(PDFName.of('Names'));
  if (names instanceof PDFArray) for (let i = 0; i + 1 < names.size(); i += 2) out.push([textOf(names.lookup(i)), names.get(i + 1)]);
  const kids = node.lookup(PDFName.of('Kids'));
  if (kids instanceof PDFArray) for (let i = 0; i < kids.size(); i++) nameTree(pdf, kids.lookup(i, PDFDict), out, depth + 1);
  return out;
}

const xml = ciiParser();

/** The monetary summation: D16B and ZUGFeRD 1.0 name its amounts alike, only its own element differs. */
const totalsOf = (sums: unknown) => ({
  lineTotal: value(child(sums, 'LineTotalAmount')),
  taxBasisTotal: value(child(sums, 'TaxBasisTotalAmount')),
  taxTotal: value(child(sums, 'TaxTotalAmount')),
  grandTotal: value(child(sums, 'GrandTotalAmount')),
  duePayable: value(child(sums, 'DuePayableAmount')),
});

/** The type code, number, currency and totals of a CII D16B or ZUGFeRD 1.0 invoice. */
export function readInvoiceXml(text: string): InvoiceReading {
  const doc = xml.parse(text) as CiiNode;
  const d16b = doc.CrossIndustryInvoice as CiiNode | undefined;
  if (d16b) {
    const settlement = child(d16b, 'SupplyChainTradeTransaction', 'ApplicableHeaderTradeSettlement');
    const sums = child(settlement, 'SpecifiedTradeSettlementHeaderMonetarySummation');
    return {
      root: 'CrossIndustryInvoice',
      guideline: value(child(d16b, 'ExchangedDocumentContext', 'GuidelineSpecifiedDocumentContextParameter', 'ID')),
      number: value(child(d16b, 'ExchangedDocument', 'ID')),
      typeCode: value(child(d16b, 'ExchangedDocument', 'TypeCode')),
      currency: value(child(settlement, 'InvoiceCurrencyCode')),
      ...totalsOf(sums),
      precedingInvoice: value(child(settlement, 'InvoiceReferencedDocument', 'IssuerAssignedID')),
    };
  }
  const v1 = doc.CrossIndustryDocument as CiiNode | undefined;
  if (v1) {
    const settlement = child(v1, 'SpecifiedSupplyChainTradeTransaction', 'ApplicableSupplyChainTradeSettlement');
    const sums = child(settlement, 'SpecifiedTradeSettlementMonetarySummation');
    return {
      root: 'CrossIndustryDocument',
      guideline: value(child(v1, 'SpecifiedExchangedDocumentContext', 'GuidelineSpecifiedDocumentContextParameter', 'ID')),
      number: value(child(v1, 'HeaderExchangedDocument', 'ID')),
      typeCode: value(child(v1, 'HeaderExchangedDocument', 'TypeCode')),
      currency: value(child(settlement, 'InvoiceCurrencyCode')),
      ...totalsOf(sums),
      precedingInvoice: '',
    };
  }
  throw new Error(`not a CII invoice: root ${Object.keys(doc).find((k) => k !== '?xml') ?? 'none'}`);
}

/** Reads the PDF's embedded files, XMP and invoice XML. */
export async function readFacturx(pdfBytes: Uint8Array): Promise<FacturxReading> {
  const pdf = await PDFDocument.load(pdfBytes, { ignoreEncryption: true, updateMetadata: false, throwOnInvalidObject: false });
  const catalog = pdf.catalog;
  const af = catalog.lookup(PDFName.of('AF'));
  const afRefs = new Set<string>();
  if (af instanceof PDFArray) for (let i = 0; i < af.size(); i++) afRefs.add(String(af.get(i)));
  const names = catalog.lookup(PDFName.of('Names'));
  const tree = names instanceof PDFDict ? names.lookup(PDFName.of('EmbeddedFiles')) : undefined;
  const files: EmbeddedFileReading[] = [];
  for (const [name, spec] of nameTree(pdf, tree instanceof PDFDict ? tree : undefined)) {
    const dict = spec instanceof PDFRef ? pdf.context.lookup(spec, PDFDict) : spec instanceof PDFDict ? spec : undefined;
    if (!dict) continue;
    const ef = dict.lookup(PDFName.of('EF'));
    const stream = ef instanceof PDFDict ? (ef.lookup(PDFName.of('F')) ?? ef.lookup(PDFName.of('UF'))) : undefined;
    const fileName = textOf(dict.lookup(PDFName.of('UF'))) || textOf(dict.lookup(PDFName.of('F'))) || name;
    files.push({
      name: fileName,
      afRelationship: textOf(dict.lookup(PDFName.of('AFRelationship'))),
      mimeType: stream instanceof PDFStream ? textOf(stream.dict.lookup(PDFName.of('Subtype'))) : '',
      inCatalogAF: spec instanceof PDFRef && afRefs.has(String(spec)),
      bytes: streamBytes(stream),
    });
  }
  const xmp = Buffer.from(streamBytes(catalog.lookup(PDFName.of('Metadata')))).toString('utf8');
  const tag = (name: string) => new RegExp(`<${name}>([^<]*)</${name}>|${name}="([^"]*)"`).exec(xmp);
  const pick = (name: string) => {
    const m = tag(name);
    return m ? (m[1] ?? m[2] ?? '').trim() : '';
  };
  const invoiceFile = files.find((f) => invoiceFileNames.includes(f.name.toLowerCase())) ?? null;
  return {
    files,
    xmp,
    pdfa: { part: pick('pdfaid:part'), conformance: pick('pdfaid:conformance') },
    facturx: pick('fx:DocumentFileName')
      ? { documentFileName: pick('fx:DocumentFileName'), conformanceLevel: pick('fx:ConformanceLevel'), version: pick('fx:Version') }
      : null,
    invoiceFile,
    invoice: invoiceFile ? readInvoiceXml(Buffer.from(invoiceFile.bytes).toString('utf8')) : null,
  };
}
