import { defineProcessors } from '../queue';
import { issueInvoices } from './invoice.service';

/**
 * The processors of the invoice queue (run by the mail worker process, workers/mail.ts):
 * invoice.issue renders and archives the invoices of its orders. Idempotent: an order issued
 * before is answered issued_before and not rendered again.
 */
export const invoiceProcessors = defineProcessors('invoice', {
  'invoice.issue': (data) => issueInvoices(data.accountId, data.orderIds),
});
