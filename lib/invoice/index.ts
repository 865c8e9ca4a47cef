/**
 * lib/invoice, the one way in (issue 35): invoices and credit notes of orders as PDF/A-3 with
 * their Factur-X (EN 16931) XML, archived once and handed out under the seller's authorization.
 * README.md beside this file has the decisions.
 */
export { billUrlOf, invoiceLink, issueInvoices, requestInvoice, sellerSettings } from './invoice.service';
export type { InvoiceFormat, InvoiceLink, IssueOutcome, IssueTimings } from './invoice.service';
export { invoiceProcessors } from './invoice.processor';
export { invoiceStorage, setInvoiceStorage } from './invoice-storage.config';
export { archiveKey, keyPattern, LocalFolderStorage, S3Storage, s3Client } from './invoice-storage';
export type { InvoiceStorage } from './invoice-storage';
export { planInvoice, isReverseCharge } from './invoice-document';
export type { InvoiceDocument, InvoiceOrder, SellerInvoiceSettings } from './invoice-document';
export { renderCii, en16931Guideline, xrechnungGuideline } from './invoice-cii';
export type { CiiVariant } from './invoice-cii';
export { renderPdf, pdfAssets, facturxFileName, facturxNamespace } from './invoice-pdf';
export { readFacturx } from './facturx-reader';
export type { FacturxReading } from './facturx-reader';
