/**
 * Customers come into being with an order (document 2: a customer is created automatically with
 * the first order) and are reused by later ones.
 */
import type { Knex } from 'knex';
import { counterRepository } from '../account/counter.repository';
import { addToOutbox } from '../queue/outbox';
import type { CustomerBook } from './customer-book';
import { CustomerContact, customerRepository } from './customer.repository';
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
 */
export async function linkCustomer(
  trx: Knex.Transaction,
  accountId: number,
  input: OrderCustomerFields,
  currencyId: string,
  book?: CustomerBook,
): Promise<LinkedCustomer> {
  const contact = contactOf(input);
  const known = book?.find(input);
  if (known) {
    // A batch of orders: the book writes the customer's final contact data once (CustomerBook.write).
    book!.update(known, contact);
    return { internalId: known.internal_id, number: known.number, created: false };
  }
  const find = () =>
    input.id !== undefined
      ? customerRepository.findByNumber(trx, accountId, input.id)
      : input.email
        ? customerRepository.findByEmail(trx, accountId, input.email)
        : Promise.resolve(undefined);
  let existing = await find();
  const key = input.id !== undefined ? `id:${input.id}` : input.email ? `email:${input.email.toLowerCase()}` : undefined;
  if (!existing && key) {
    // Two first orders of one new customer at once: the second waits here and then finds the first's customer.
    await customerRepository.lockKey(trx, accountId, key);
    existing = await find();
  }
  if (existing) {
    const shopUsername =
      input.username && !existing.shop_username.includes(input.username) ? [...existing.shop_username, input.username] : existing.shop_username;
    await customerRepository.update(trx, accountId, existing.internal_id, contact, shopUsername);
    return { internalId: existing.internal_id, number: existing.number, created: false };
  }
  let number = input.id;
  while (number === undefined) {
    // A client may have given a number the counter reaches later: skip numbers in use.
    const next = String(await counterRepository.next(trx, accountId, 'customer'));
    if (!(await customerRepository.numberExists(trx, accountId, next))) number = next;
  }
  const internalId = await customerRepository.insert(trx, accountId, number, currencyId, contact);
  book?.add({ ...contact, internal_id: internalId, number, shop_username: contact.username ? [contact.username] : [], updated_at: new Date() });
  await addToOutbox(trx, accountId, 'event.emit', { accountId, section: 'customer', type: 'created', recordId: number });
  return { internalId, number, created: true };
}
