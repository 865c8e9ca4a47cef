/**
 * The customers of a batch of order creates (POST order/, order/list/, a channel's page): read in
 * one statement, without locking them, found and updated in memory as linkCustomer would one order
 * after another, and their final contact data written back in one UPDATE with the batch's
 * orders (which locks them then). Customers the batch creates join the book, so later orders of
 * the batch find them, and are written with the orders too: numbered and given their internal
 * ids by one statement per batch, inserted by one, their `created` events with the orders' events.
 */
import type { Knex } from 'knex';
import type { OrderScope } from '../access';
import type { Statement } from '../db';
import type { OutboxJob, PendingWrites } from '../queue';
import { counterRepository } from '../account';
import { CustomerContact, customerRepository, NewCustomer, StoredContact } from './customer.repository';
import type { OrderCustomerFields } from './customer.type';

interface Entry {
  row: StoredContact;
  touched: number;
  /** A customer this batch creates: the currency of the order that created it. */
  createdWith?: string;
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
  /**
   * Whether the book holds every customer its orders can find: read after this transaction took
   * the customer counter's lock, which every creator of a customer takes before it looks (so none
   * can appear before the commit). A customer it does not find is then new, without looking again.
   */
  private complete: boolean;
  /** Internal ids reserved for the customers the batch creates, and the customer counter's value as the batch moved it. */
  private ids: string[] = [];
  private counter?: number;
  /** Customer numbers the counter would hand out next that are in use (a client gave them), as far as read. */
  private used = new Set<string>();
  private usedUpTo = 0;

  private constructor(
    private readonly scope: OrderScope,
    private readonly inputs: OrderCustomerFields[],
    rows: StoredContact[],
    complete: boolean,
  ) {
    this.entries = rows.map((row) => ({ row, touched: 0 }));
    this.complete = complete;
  }

  /**
   * Loads the stored customers the orders name by customer.id or e-mail; `first` goes in the same
   * statement, before the read. `counterTaken`: the transaction holds the customer counter's lock already.
   */
  static async load(trx: Knex.Transaction, scope: OrderScope, inputs: OrderCustomerFields[], first?: Statement, counterTaken = false): Promise<CustomerBook> {
    const { numbers, emails } = keysOf(inputs);
    return new CustomerBook(scope, inputs, await customerRepository.readContacts(trx, scope, numbers, emails, first), counterTaken);
  }

  /**
   * Makes the book complete, once, at its first customer not found: takes the customer counter's
   * lock (as one order after another takes it before creating a customer, which makes two first
   * orders of one new buyer wait for each other), then reads the batch's customers again, keeping
   * the ones it has (another sale may have created one since the load). Two statements: a read in
   * the statement that waited for the lock would see the data as they were before the wait.
   * A customer whose data another sale changed meanwhile so that it matches now is not seen until
   * the next batch: as if that sale had committed just after this statement, which one order
   * after another allows too.
   */
  async completeUnderLock(trx: Knex.Transaction): Promise<void> {
    if (this.complete) return;
    const { numbers, emails } = keysOf(this.inputs);
    await counterRepository.take(trx, this.scope.accountId, 'customer', 0);
    const rows = await customerRepository.readContacts(trx, this.scope, numbers, emails);
    const known = new Set(this.entries.map((e) => e.row.internal_id));
    for (const row of rows) if (!known.has(row.internal_id)) this.entries.push({ row, touched: 0 });
    this.complete = true;
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

  /**
   * A new customer of the batch (the book is complete: completeUnderLock), with the customer
   * number given, else the counter's next number not in use, as one order after another would
   * number it; later orders of the batch find it here, and write() inserts it.
   */
  async create(trx: Knex.Transaction, number: string | undefined, contact: CustomerContact, currencyId: string): Promise<StoredContact> {
    if (!this.complete) throw new Error('CustomerBook.create before completeUnderLock');
    if (this.ids.length === 0) await this.reserve(trx);
    let assigned = number;
    while (assigned === undefined) {
      const next = this.counter! + 1;
      if (next > this.usedUpTo) await this.readUsed(trx, next);
      this.counter = next;
      // In use: a stored customer's number (read above), or one a client gave a customer of this batch.
      if (!this.used.has(String(next)) && !this.entries.some((e) => e.createdWith !== undefined && e.row.number === String(next))) assigned = String(next);
    }
    const row: StoredContact = {
      ...contact,
      internal_id: this.ids.shift()!,
      number: assigned,
      shop_username: contact.username ? [contact.username] : [],
      updated_at: new Date(),
    };
    this.entries.push({ row, touched: ++this.clock, createdWith: currencyId });
    return row;
  }

  /**
   * One statement for the customers the batch may still create (the customers its orders name
   * that the book does not hold, each once; those without a name each): their internal ids, the
   * customer counter's value, and which of the numbers it hands out next are in use. Ids left
   * over stay unused, as a rolled-back insert leaves them.
   */
  private async reserve(trx: Knex.Transaction): Promise<void> {
    const missing = new Set<string>();
    let unnamed = 0;
    for (const input of this.inputs) {
      if (this.find(input)) continue;
      if (input.id !== undefined) missing.add(`#${input.id}`);
      else if (input.email) missing.add(input.email.toLowerCase());
      else unnamed++;
    }
    const count = Math.max(1, missing.size + unnamed);
    const reserved = await customerRepository.reserveNew(trx, this.scope.accountId, count, this.counter === undefined ? count : 0);
    this.ids.push(...reserved.ids);
    if (this.counter === undefined) {
      this.counter = reserved.counter;
      this.usedUpTo = reserved.counter + count;
      for (const n of reserved.used) this.used.add(n);
    }
  }

  /** Which of the numbers from `from` on the counter hands out next are in use (when more customers than reserved skip numbers). */
  private async readUsed(trx: Knex.Transaction, from: number): Promise<void> {
    const count = 100;
    for (const n of await customerRepository.numbersInUse(trx, this.scope.accountId, from, count)) this.used.add(n);
    this.usedUpTo = from + count - 1;
  }

  /**
   * Writes what the batch did to its customers, with the orders (`later`: deferred, to go in the
   * orders' INSERT; the new customers' rows must exist by the end of that statement): the new
   * customers with their final contact data and the customer counter in one statement each, the
   * updated ones' contact data in one. Returns the new customers' `created` events, for the
   * orders' outbox rows.
   */
  async write(trx: Knex.Transaction, accountId: number, later?: PendingWrites): Promise<OutboxJob[]> {
    const created = this.entries.filter((e) => e.createdWith !== undefined);
    const rows: NewCustomer[] = created.map((e) => ({ ...e.row, currency_id: e.createdWith! }));
    await customerRepository.insertMany(trx, accountId, rows, this.counter, later);
    const touched = this.entries.filter((e) => e.touched > 0 && e.createdWith === undefined).map((e) => e.row);
    await customerRepository.updateContacts(trx, accountId, touched, later);
    return created.map((e) => ({ job: 'event.emit' as const, payload: { accountId, section: 'customer', type: 'created', recordId: e.row.number } }));
  }
}
