/**
 * lib/bank, the one way in from other domains: bank transfers, statements and payments.
 * scripts/check-cycles.ts refuses imports of this folder's other files from outside it;
 * README.md beside this file has the decisions.
 */
export { bankProcessors } from './bank.processor';
export { bankSearch, bankSearchRepository } from './bank.search';
export { providerAccountCredentialsRepository } from './provider/provider-account.repository';
export { connectProvider } from './provider/provider-account.service';
export { createTransfer } from './bank.service';
export { bankCreateType } from './bank.type';
export type { BankInput } from './bank.type';
export { importStatement } from './statement/statement.service';
export { provideOrderPaymentRecords } from './order-payment-records.provide';
