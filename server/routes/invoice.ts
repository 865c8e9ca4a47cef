import { accepted, endpoint, Joi } from '../../lib/http';
import { InvoiceFormat, invoiceLink, requestInvoice } from '../../lib/invoice';
import { orderIdPattern } from '../../lib/order';

const orderIdParams = Joi.object({ order_id: Joi.string().pattern(orderIdPattern) });

/** An order's invoice or credit note (issue 35; lib/invoice/README.md). */
export const invoiceEndpoints = [
  endpoint<{ order_id: string }>({
    method: 'POST',
    path: 'order/{order_id}/invoice/',
    creates: true,
    summary:
      'Issue the invoice (credit note for a credit order) of an order: gives it an invoice number and bill_date when it has none, then renders and archives the PDF/A-3 with its Factur-X XML and sets bill_url; 202 with job_id. An order issued before is not issued again.',
    scope: 'order_w',
    params: orderIdParams,
    response: ['job_id'],
    async: true,
    async handle({ caller, params }) {
      return accepted({ job_id: await requestInvoice(caller, params.order_id) });
    },
  }),

  endpoint<{ order_id: string }, Record<string, never>, { format?: InvoiceFormat }>({
    method: 'GET',
    path: 'order/{order_id}/invoice/',
    summary:
      "bill_url: the order's issued invoice; HTTP 302 to a download link that expires (INVOICE_URL_TTL_SECONDS), the invoice's facts in the body. format=xml links its Factur-X (CII) XML instead of the PDF, format=xrechnung its XRechnung 3.0 (CII).",
    scope: 'order_r',
    params: orderIdParams,
    query: Joi.object({ format: Joi.string().valid('pdf', 'xml', 'xrechnung').default('pdf') }),
    response: ['invoice'],
    answers: { 302: 'The invoice is issued: Location is its download link (it expires), the body its facts.' },
    async handle({ caller, params, query }) {
      const invoice = await invoiceLink(caller, params.order_id, query.format ?? 'pdf');
      return { status: 302, headers: { Location: invoice.url }, payload: { invoice } };
    },
  }),
];
