/**
 * lib/customer, the one way in from other domains: customers made by orders.
 * scripts/check-cycles.ts refuses imports of this folder's other files from outside it;
 * README.md beside this file has the decisions.
 */
export { customerAnonymiseRepository } from './customer-anonymise.repository';
export { CustomerBook } from './customer-book';
export { customerRepository, customerSearch } from './customer.repository';
export { linkCustomer } from './customer.service';
export { customerGroupIds, customerIdToApi } from './customer.type';
export type { OrderCustomerFields } from './customer.type';
