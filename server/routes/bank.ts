import { bankSearch, bankSearchRepository, createTransfer, BankInput, bankCreateType, importStatement } from '../../lib/bank';
import { accepted, created, endpoint, ok, okPage, Joi } from '../../lib/http';

/** Bank (document 1): transfers read and created, payment-provider payments read. */
export const bankEndpoints = [
  endpoint({
    method: 'GET',
    path: 'bank/transfer/',
    summary: 'Search bank transfers (Bank_filter_type; date range at most 3 months, default the last month).',
    scope: 'bank_r',
    search: bankSearch,
    response: ['bank', 'next_min_id'],
    handle: async ({ caller, search }) => okPage('bank', await bankSearchRepository.search(caller, 'bank', search)),
  }),

  endpoint<Record<string, never>, { bank: BankInput }>({
    method: 'POST',
    path: 'bank/transfer/',
    creates: true,
    summary: 'Create a transfer; assigned to an order its subject names (is_order_paid 1). HTTP 302 with the existing bank_id when it exists.',
    scope: 'bank_w',
    body: Joi.object({ bank: bankCreateType.required() }),
    example: { bank: { transfer_date: '2026-11-02', sender: 'Erika Mustermann', subject: 'Thank you for the mugs', amount: '25.00' } },
    response: ['bank_id', 'is_order_paid'],
    answers: { 302: 'The transfer exists already: its bank_id.' },
    async handle({ caller, body }) {
      const result = await createTransfer(caller, body.bank);
      const payload = { bank_id: result.bankId, is_order_paid: result.isOrderPaid ? '1' : '0' };
      // No Location: clients that follow redirects would GET it and lose this body (lib/bank README).
      return result.existed ? { status: 302, payload } : created(payload);
    },
  }),

  endpoint<Record<string, never>, Buffer>({
    method: 'POST',
    path: 'bank/statement/',
    creates: true,
    summary:
      'Import a bank statement (ours, beside document 1): every booked credit becomes a transfer, once; 202 with the job_id of the matching, 200 when nothing new was stored.',
    scope: 'bank_w',
    file: 'the statement file as the body: CAMT.053 or camt.054 (.001.02 to .08, the encoding its XML declaration names, else UTF-8) or MT940 (the character set detected: UTF-8, ISO-8859-1/15, Windows-1252, CP850/437/852), or a ZIP archive of such files (the camt.053 download of a bank: every file read, stored together)',
    response: ['statement', 'job_id'],
    async: true,
    answers: { 200: 'Nothing new was stored: no job.' },
    async handle({ caller, body }) {
      const { jobId, ...statement } = await importStatement(caller, body);
      return jobId ? accepted({ statement, job_id: jobId }) : ok({ statement });
    },
  }),

  endpoint({
    method: 'GET',
    path: 'bank/payment_provider/',
    summary: 'Search payment-provider payments (Bank_filter_type; date range at most 3 months, default the last month).',
    scope: 'bank_r',
    search: bankSearch,
    response: ['bank', 'next_min_id'],
    handle: async ({ caller, search }) => okPage('bank', await bankSearchRepository.search(caller, 'payment_provider', search)),
  }),
];
