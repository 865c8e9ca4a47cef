/**
 * lib/invoice, the one way in (issue 35): invoices and credit notes of orders as PDF/A-3 with
 * their Factur-X (EN 16931) XML, archived once and handed out under the seller's authorization.
 * README.md beside this file has the decisions.
 */
export { invoiceLink, issueInvoices, requestInvoice } from './invoice.service';
export type { InvoiceFormat, IssueTimings } from './invoice.service';
export { invoiceProcessors } from './invoice.processor';
export { invoiceStorage, setInvoiceStorage } from './invoice-storage.config';
export { archiveKey, LocalFolderStorage, S3Storage, s3Client } from './invoice-storage';
export { planInvoice } from './invoice-document';
export type { InvoiceOrder, SellerInvoiceSettings } from './invoice-document';
export { renderCii, xrechnungGuideline } from './invoice-cii';
export { renderPdf, pdfAssets, facturxNamespace } from './invoice-pdf';
export { readFacturx } from './facturx-reader';
