/**
 * The customers of a batch of order creates (POST order/, order/list/, a channel's page): read in
 * one statement, without locking them, found and updated in memory as linkCustomer would one order
 * after another, and their final contact data written back in one UPDATE with the batch's
 * orders (which locks them then). Customers the batch creates join the book, so later orders of
 * the batch find them.
 */
import type { Knex } from 'knex';
import type { OrderScope } from '../access/caller';
import type { DeferredWrites, Statement } from '../db/deferred-writes';
import { CustomerContact, customerRepository, StoredContact } from './customer.repository';
import type { OrderCustomerFields } from './customer.type';

interface Entry {
  row: StoredContact;
  touched: number;
}

/** What orders name their customers by: customer.id, else the e-mail. */
function keysOf(inputs: OrderCustomerFields[]): { numbers: string[]; emails: string[] } {
  return {
    numbers: inputs.flatMap((i) => (i.id !== undefined ? [i.id] : [])),
    emails: inputs.flatMap((i) => (i.id === undefined && i.email ? [i.email.toLowerCase()] : [])),
  };
}

export class CustomerBook {
  private readonly entries: Entry[];
  private clock = 0;

  private constructor(rows: StoredContact[]) {
    this.entries = rows.map((row) => ({ row, touched: 0 }));
  }

  /** Loads the stored customers the orders name by customer.id or e-mail; `first` goes in the same statement, before the read. */
  static async load(trx: Knex.Transaction, scope: OrderScope, inputs: OrderCustomerFields[], first?: Statement): Promise<CustomerBook> {
    const { numbers, emails } = keysOf(inputs);
    return new CustomerBook(await customerRepository.readContacts(trx, scope, numbers, emails, first));
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

  /** Reads the customer an order names again (another sale may have created it since load); the book keeps it. */
  async reload(trx: Knex.Transaction, scope: OrderScope, input: OrderCustomerFields): Promise<StoredContact | undefined> {
    const { numbers, emails } = keysOf([input]);
    const known = new Set(this.entries.map((e) => e.row.internal_id));
    for (const row of await customerRepository.readContacts(trx, scope, numbers, emails)) {
      if (!known.has(row.internal_id)) this.entries.push({ row, touched: 0 });
    }
    return this.find(input);
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
