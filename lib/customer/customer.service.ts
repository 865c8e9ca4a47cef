/**
 * Customers come into being with an order (document 2: a customer is created automatically with
 * the first order) and are reused by later ones.
 */
import type { Knex } from 'knex';
import type { OrderScope } from '../access';
import { counterRepository } from '../account';
import { notFound } from '../errors';
import { addToOutbox } from '../queue';
import type { CustomerBook } from './customer-book';
import { CustomerContact, customerRepository, StoredContact, StoredCustomer } from './customer.repository';
import type { OrderCustomerFields } from './customer.type';

export interface LinkedCustomer {
  internalId: string;
  number: string;
  created: boolean;
}

/** Only the fields the order sent overwrite the customer's contact data. */
function contactOf(input: OrderCustomerFields): CustomerContact {
  const contact: CustomerContact = {};
  for (const key of ['username', 'comment', 'email', 'vat_id', 'phone_1', 'phone_2', 'fax'] as const) {
    if (input[key] !== undefined) contact[key] = input[key];
  }
  if (input.address !== undefined) {
    contact.address = { ...input.address };
    if (input.address.name !== undefined) contact.address_name = input.address.name;
  }
  return contact;
}

/**
 * Finds or creates the order's customer in the caller's transaction: by customer.id when sent
 * (created with that number when new), else by e-mail (case-insensitive), else a new customer
 * with the next customer number. The customer's contact data takes the order's values.
 * Only customers the scope covers are found (customer.repository.ts: for a client bound to one
 * portal account, those with an order of it): such a client's order with the e-mail of another
 * portal account's customer gets a customer of its own; one naming such a customer's number is
 * refused as if the customer did not exist (404 customer.id: the number is taken).
 */
export async function linkCustomer(
  trx: Knex.Transaction,
  scope: OrderScope,
  input: OrderCustomerFields,
  currencyId: string,
  book?: CustomerBook,
): Promise<LinkedCustomer> {
  const { accountId } = scope;
  const contact = contactOf(input);
  // Only a customer named by number or e-mail can be found again.
  const named = input.id !== undefined || Boolean(input.email);
  if (book) {
    const known = await findInBook(trx, input, named, book);
    if (known) {
      // A batch of orders: the book writes the customer's final contact data once, with the orders (CustomerBook.write).
      book.update(known, contact);
      return { internalId: known.internal_id, number: known.number, created: false };
    }
  } else {
    const existing = await findLocked(trx, scope, input, named);
    if (existing) {
      const shopUsername =
        input.username && !existing.shop_username.includes(input.username) ? [...existing.shop_username, input.username] : existing.shop_username;
      await customerRepository.update(trx, accountId, existing.internal_id, contact, shopUsername);
      return { internalId: existing.internal_id, number: existing.number, created: false };
    }
  }
  let number = input.id;
  // Outside the scope, a number in use is another portal account's customer: not this caller's to reuse.
  if (number !== undefined && scope.portalAccountGrant !== 'all' && (await customerRepository.numberExists(trx, accountId, number)))
    throw notFound(`customer ${number}`, 'customer.id');
  if (book) {
    // Numbered, inserted and announced with the batch's orders (CustomerBook.write).
    const row = await book.create(trx, number, contact, currencyId);
    return { internalId: row.internal_id, number: row.number, created: true };
  }
  while (number === undefined) {
    // A client may have given a number the counter reaches later: skip numbers in use.
    const next = String(await counterRepository.next(trx, accountId, 'customer'));
    if (!(await customerRepository.numberExists(trx, accountId, next))) number = next;
  }
  const internalId = await customerRepository.insert(trx, accountId, number, currencyId, contact);
  await addToOutbox(trx, accountId, 'event.emit', { accountId, section: 'customer', type: 'created', recordId: number });
  return { internalId, number, created: true };
}

/**
 * Two first orders of one new customer at once: the second waits on the customer counter, which
 * every new customer takes (before the order counter: lib/order's lock order), and then finds the
 * first's customer.
 */
async function awaitNewCustomers(trx: Knex.Transaction, accountId: number): Promise<void> {
  await counterRepository.take(trx, accountId, 'customer', 0);
}

/** The customer, locked for its update; none when it is new. */
async function findLocked(trx: Knex.Transaction, scope: OrderScope, input: OrderCustomerFields, named: boolean): Promise<StoredCustomer | undefined> {
  const find = () =>
    input.id !== undefined
      ? customerRepository.findByNumber(trx, scope, input.id)
      : input.email
        ? customerRepository.findByEmail(trx, scope, input.email)
        : Promise.resolve(undefined);
  const existing = await find();
  if (existing || !named) return existing;
  await awaitNewCustomers(trx, scope.accountId);
  return find();
}

/**
 * The customer in the batch's book. At the first one it does not hold, the book takes the
 * customer counter's lock and reads its customers again (completeUnderLock: another sale may
 * have created this one since the load); from then on, a customer it does not hold is new. Those
 * found again join it unlocked like the others, so their rows are locked only when the batch
 * writes its orders.
 */
async function findInBook(trx: Knex.Transaction, input: OrderCustomerFields, named: boolean, book: CustomerBook): Promise<StoredContact | undefined> {
  const known = book.find(input);
  if (known) return known;
  await book.completeUnderLock(trx);
  return named ? book.find(input) : undefined;
}
