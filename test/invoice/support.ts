/**
 * Helpers of the invoice tests: invoices of the shapes issue 35 names (several VAT rates, a
 * reverse-charge EU buyer, a foreign currency, a partial credit note, a small business), the
 * independent tools that check them (xmllint against the CII D16B schema, pdftotext), and a check
 * that every font of a PDF is embedded and that it carries an OutputIntent.
 */
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFRef } from 'pdf-lib';
import { invoiceProcessors, LocalFolderStorage, setInvoiceStorage } from '../../lib/invoice';
import type { InvoiceOrder, SellerInvoiceSettings } from '../../lib/invoice';
import { apiBase } from '../support/api';
import { startQueueWorker } from '../support/queue-worker';

export const shared = path.resolve(__dirname, '../../../shared');

/**
 * The invoice worker for the tests of the describe it is called in, storing the invoices in a
 * folder of their own that goes with them. The folder is known once the describe's before has run.
 */
export function invoiceWorkerForSuite(name: string): { readonly dir: string } {
  let worker: { stop(): Promise<void> } | undefined;
  const suite = { dir: '' };
  before(async () => {
    suite.dir = fs.mkdtempSync(path.join(os.tmpdir(), `kontor-${name}-`));
    setInvoiceStorage(new LocalFolderStorage(suite.dir, await apiBase(), crypto.randomBytes(32)));
    worker = await startQueueWorker('invoice', invoiceProcessors, 'invoice');
  });
  after(async () => {
    await worker?.stop();
    setInvoiceStorage(undefined);
    if (suite.dir) fs.rmSync(suite.dir, { recursive: true, force: true });
  });
  return suite;
}
export const ciiXsd = path.join(shared, 'contracts/cii-d16b/CrossIndustryInvoice_100pD16B.xsd');
export const samplesDir = path.join(shared, 'samples/einvoice');

const address = (name: string, countryIso2: string, city = 'Berlin') => ({
  name,
  name2: '',
  street: 'Hauptstraße 1',
  street2: '',
  zip: '10115',
  city,
  province: '',
  country: '',
  countryIso2,
});

export const seller: SellerInvoiceSettings = {
  party: { address: address('Kontor Testhandel GmbH', 'DE'), vatId: 'DE123456789', taxNumber: '12/345/67890', email: 'rechnung@example.com' },
  smallBusiness: false,
  locale: 'de-DE',
  iban: 'DE02120300000000202051',
  bic: 'BYLADEM1001',
  contact: { name: 'Rechnungsstelle', phone: '+49 30 1234567', email: 'rechnung@example.com' },
};

const base: InvoiceOrder = {
  id: '7_2026_11',
  invoiceNumber: '1001',
  billDate: '2026-11-26',
  deliveryDate: '2026-11-25',
  currency: 'EUR',
  paymentMethodId: 'Prepayment',
  paymentMethodName: 'Prepayment (bank transfer in advance)',
  invoiceAmount: '0.00',
  paidAmount: null,
  shippingFee: null,
  customerNumber: '42',
  buyer: { address: address('Erika Mustermann', 'DE'), vatId: '', taxNumber: '', email: 'erika@example.com' },
  shipTo: null,
  lines: [],
  corrects: null,
};

/** An order with invoice_amount computed as lib/order does (Σ quantity × price + shipping). */
export function order(fields: Partial<InvoiceOrder>): InvoiceOrder {
  const o = { ...base, ...fields };
  let cents = o.shippingFee ? Math.round(Number(o.shippingFee) * 100) : 0;
  for (const l of o.lines) cents += l.quantity * Math.round(Number(l.price ?? '0') * 100);
  const invoiceAmount = (cents / 100).toFixed(2);
  return { ...o, invoiceAmount, paidAmount: fields.paidAmount === undefined ? invoiceAmount : fields.paidAmount };
}

/** The shapes of issue 35, each with the seller it is issued by. */
export const scenarios: { name: string; order: InvoiceOrder; seller: SellerInvoiceSettings }[] = [
  {
    name: 'several VAT rates (19 %, 7 %, 0 %) with shipping',
    seller,
    order: order({
      shippingFee: '4.90',
      shipTo: address('Erika Mustermann (Packstation)', 'DE', 'Hamburg'),
      lines: [
        { position: 1, name: 'Kaffeebecher „Kontor“', sku: 'CUP-1', quantity: 3, price: '9.99', tax: '19.00' },
        { position: 2, name: 'Kochbuch', sku: 'BOOK-7', quantity: 1, price: '23.50', tax: '7.00' },
        { position: 3, name: 'Gutschein-Karte', sku: 'CARD', quantity: 2, price: '1.50', tax: '0.00' },
      ],
    }),
  },
  {
    name: 'an intra-Community supply to an EU business (French, with VAT id)',
    seller,
    order: order({
      invoiceNumber: '1002',
      buyer: { address: address('Société Exemple SARL', 'FR', 'Paris'), vatId: 'FR40303265045', taxNumber: '', email: 'achats@example.fr' },
      shippingFee: '12.00',
      lines: [{ position: 1, name: 'Industrial mug', sku: 'CUP-9', quantity: 120, price: '4.20', tax: '19.00' }],
    }),
  },
  {
    name: 'a foreign currency (USD), partly paid',
    seller: { ...seller, locale: 'en-US' },
    order: order({
      invoiceNumber: '1003',
      currency: 'USD',
      paidAmount: '50.00',
      lines: [
        { position: 1, name: 'Espresso machine', sku: 'ESP-2', quantity: 1, price: '189.00', tax: '19.00' },
        { position: 2, name: 'Descaler', sku: 'DSC', quantity: 2, price: '7.49', tax: '19.00' },
      ],
    }),
  },
  {
    name: 'a partial credit note (type 381) of invoice 1001',
    seller,
    order: order({
      id: '9_2026_11',
      invoiceNumber: '1004',
      corrects: { invoiceNumber: '1001', issueDate: '2026-11-26' },
      lines: [{ position: 1, name: 'Kaffeebecher „Kontor“ (Rücksendung)', sku: 'CUP-1', quantity: 1, price: '-9.99', tax: '19.00' }],
    }),
  },
  {
    name: 'a small business (§ 19 UStG)',
    seller: { ...seller, smallBusiness: true, party: { ...seller.party, vatId: '' } },
    order: order({ invoiceNumber: '1005', lines: [{ position: 1, name: 'Handgemachte Seife', sku: 'SOAP', quantity: 4, price: '5.95', tax: '19.00' }] }),
  },
];

/** xmllint's verdict on a CII XML against the D16B schema: exit code and output. */
export function xmllint(xml: string): { code: number | null; output: string } {
  const run = spawnSync('xmllint', ['--noout', '--nonet', '--schema', ciiXsd, '-'], { input: xml, encoding: 'utf8' });
  if (run.error) throw new Error(`xmllint not runnable (Debian package libxml2-utils): ${run.error.message}`);
  return { code: run.status, output: `${run.stdout}${run.stderr}` };
}

/** The text of a PDF's first page, as poppler's pdftotext reads it. */
export function pdfText(pdf: Uint8Array): string {
  const run = spawnSync('pdftotext', ['-layout', '-f', '1', '-l', '1', '-', '-'], { input: Buffer.from(pdf), encoding: 'utf8' });
  if (run.error) throw new Error(`pdftotext not runnable (Debian package poppler-utils): ${run.error.message}`);
  return run.stdout;
}

/** A word poppler places on a page (points, origin top left). */
export interface PlacedWord {
  page: number;
  text: string;
  xMin: number;
  yMin: number;
  xMax: number;
  yMax: number;
}

/** Every word of a PDF with its box, as poppler's `pdftotext -bbox` places it: what a reader sees where. */
export function pdfWords(pdf: Uint8Array): { words: PlacedWord[]; pageWidth: number } {
  const run = spawnSync('pdftotext', ['-bbox', '-', '-'], { input: Buffer.from(pdf), encoding: 'utf8' });
  if (run.error) throw new Error(`pdftotext not runnable (Debian package poppler-utils): ${run.error.message}`);
  const words: PlacedWord[] = [];
  let page = 0;
  let pageWidth = 0;
  for (const m of run.stdout.matchAll(/<page width="([\d.]+)"|<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g)) {
    if (m[1]) {
      page++;
      pageWidth = Number(m[1]);
    } else words.push({ page, text: m[6]!, xMin: Number(m[2]), yMin: Number(m[3]), xMax: Number(m[4]), yMax: Number(m[5]) });
  }
  return { words, pageWidth };
}

/**
 * Words drawn over one another or past the page's edge: a reader could not read them. Boxes
 * touching by less than a point (a line's descenders and the next line's ascenders) do not count.
 */
export function overlappingWords(pdf: Uint8Array): string[] {
  const { words, pageWidth } = pdfWords(pdf);
  const out: string[] = [];
  const slack = 1;
  for (const [i, a] of words.entries()) {
    if (a.xMax > pageWidth || a.xMin < 0) out.push(`"${a.text}" past the page's edge`);
    for (const b of words.slice(i + 1))
      if (a.page === b.page && a.xMin < b.xMax - slack && b.xMin < a.xMax - slack && a.yMin < b.yMax - slack && b.yMin < a.yMax - slack)
        out.push(`"${a.text}" over "${b.text}"`);
  }
  return out;
}

/** Fonts of every page that have no embedded font program (PDF/A forbids them), and the OutputIntents' subtypes. */
export async function pdfaFacts(
  pdf: Uint8Array,
): Promise<{ unembeddedFonts: string[]; fonts: number; outputIntents: string[]; fileId: boolean; version: string }> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  const unembedded: string[] = [];
  let fonts = 0;
  for (const page of doc.getPages()) {
    const resources = page.node.Resources();
    const fontDict = resources?.lookup(PDFName.of('Font'));
    if (!(fontDict instanceof PDFDict)) continue;
    for (const [name, ref] of fontDict.entries()) {
      fonts++;
      const font = doc.context.lookup(ref, PDFDict);
      const descendants = font.lookup(PDFName.of('DescendantFonts'));
      const cid = descendants instanceof PDFArray ? descendants.lookup(0, PDFDict) : font;
      const descriptor = cid.lookup(PDFName.of('FontDescriptor'));
      const embedded = descriptor instanceof PDFDict && ['FontFile', 'FontFile2', 'FontFile3'].some((k) => descriptor.get(PDFName.of(k)) instanceof PDFRef);
      if (!embedded) unembedded.push(name.decodeText());
    }
  }
  const intents = doc.catalog.lookup(PDFName.of('OutputIntents'));
  const outputIntents: string[] = [];
  if (intents instanceof PDFArray)
    for (let i = 0; i < intents.size(); i++) {
      const intent = intents.lookup(i, PDFDict);
      if (intent.get(PDFName.of('DestOutputProfile')) instanceof PDFRef) outputIntents.push(String(intent.lookup(PDFName.of('S'))));
    }
  const header = Buffer.from(pdf.slice(0, 8)).toString('latin1');
  return { unembeddedFonts: unembedded, fonts, outputIntents, fileId: doc.context.trailerInfo.ID !== undefined, version: header };
}
