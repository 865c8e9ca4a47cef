/**
 * The customers of a batch of order creates (POST order/list/): loaded and locked in one
 * statement (in internal_id order, so two batches never deadlock), found and updated in memory as
 * linkCustomer would one order after another, and their final contact data written back in one
 * UPDATE. Customers the batch creates join the book, so later orders of the batch find them.
 */
import type { Knex } from 'knex';
import type { DeferredWrites } from '../db/deferred-writes';
import { CustomerContact, customerRepository, StoredContact } from './customer.repository';
import type { OrderCustomerFields } from './customer.type';

interface Entry {
  row: StoredContact;
  touched: number;
}

export class CustomerBook {
  private readonly entries: Entry[];
  private clock = 0;

  private constructor(rows: StoredContact[]) {
    this.entries = rows.map((row) => ({ row, touched: 0 }));
  }

  /** Loads and locks the stored customers the orders name by customer.id or e-mail. */
  static async load(trx: Knex.Transaction, accountId: number, inputs: OrderCustomerFields[]): Promise<CustomerBook> {
    const numbers = inputs.flatMap((i) => (i.id !== undefined ? [i.id] : []));
    const emails = inputs.flatMap((i) => (i.id === undefined && i.email ? [i.email.toLowerCase()] : []));
    return new CustomerBook(await customerRepository.lockContacts(trx, accountId, numbers, emails));
  }

  /**
   * The customer linkCustomer would find: by number, else the most recently edited with the
   * e-mail (one edited in this batch first: its updated_at is the transaction's now()).
   */
  find(input: OrderCustomerFields): StoredContact | undefined {
    if (input.id !== undefined) return this.entries.find((e) => e.row.number === input.id)?.row;
    if (!input.email) return undefined;
    const email = input.email.toLowerCase();
    const matches = this.entries.filter((e) => e.row.email?.toLowerCase() === email);
    matches.sort((a, b) => b.touched - a.touched || b.row.updated_at.getTime() - a.row.updated_at.getTime());
    return matches[0]?.row;
  }

  /** The order's contact data overwrite the customer's; its username joins shop_username. */
  update(row: StoredContact, contact: CustomerContact): void {
    Object.assign(row, contact);
    if (contact.username && !row.shop_username.includes(contact.username)) row.shop_username = [...row.shop_username, contact.username];
    this.entries.find((e) => e.row === row)!.touched = ++this.clock;
  }

  /** A customer created in the batch (already written): later orders find it here. */
  add(row: StoredContact): void {
    this.entries.push({ row, touched: ++this.clock });
  }

  /** Writes the contact data of every customer the batch updated, in one statement (with `later`, deferred). */
  async write(trx: Knex.Transaction, accountId: number, later?: DeferredWrites): Promise<void> {
    const touched = this.entries.filter((e) => e.touched > 0).map((e) => e.row);
    await customerRepository.updateContacts(trx, accountId, touched, later);
  }
}
