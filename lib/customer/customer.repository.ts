/**
 * SQL of customers. Every query is scoped by the account id; the reads also by the caller's
 * portal-account grant (customerScope). sales.amount is summed from the customer's orders when
 * read, so it never drifts from them.
 */
import type { Knex } from 'knex';
import type { OrderScope } from '../access';
import { orderGrantQueries } from '../access';
import type { Statement } from '../db';
import type { PendingWrites } from '../queue';
import { db, prepared, jsonParameter } from '../db';
import { runSearch, SearchRequest, SearchSpec } from '../http';
import { CustomerRow, customerGroupIds, customerToApi, customerType } from './customer.type';
import { counterRepository } from '../account';

/** Contact fields a customer takes from an order. */
export interface CustomerContact {
  username?: string | null;
  comment?: string | null;
  email?: string | null;
  vat_id?: string | null;
  phone_1?: string | null;
  phone_2?: string | null;
  fax?: string | null;
  address_name?: string | null;
  address?: Record<string, unknown> | null;
}

/** A row of customer as stored: CustomerRow without the sales it is read with, and the columns no answer shows. */
interface CustomerTableRow extends Omit<CustomerRow, 'sales_amount'> {
  address: Record<string, unknown> | null;
  created_at: Date;
}

// The row type of customer for Knex (declared once here, lib/customer owns the table). The address
// is written as JSON text (withJson) and updated_at as SQL (now()); a customer is inserted without
// its internal id, and what has a default (shop_username, group_id, currency_id, the times) may be left out.
type CustomerDefaults = 'shop_username' | 'group_id' | 'currency_id' | 'created_at' | 'updated_at';
type CustomerWrite = Partial<Omit<CustomerTableRow, 'internal_id' | 'address' | 'updated_at'>> & {
  address?: string | null;
  updated_at?: Date | Knex.Raw;
};
declare module 'knex/types/tables' {
  interface Tables {
    customer: Knex.CompositeTableType<
      CustomerTableRow,
      CustomerWrite & Omit<CustomerTableRow, 'internal_id' | 'address' | CustomerDefaults | keyof CustomerContact>,
      CustomerWrite
    >;
  }
}

/**
 * The customers a caller may read (document 1, Authentication 5, carried over from orders):
 * Customer_type has no portal account, and one customer is shared by every portal account it
 * bought through (lib/customer: found by number or e-mail across the account). So a customer
 * "of" portal account P is one with at least one order of P: a client bound to P reads, finds and
 * sums only those; the seller's own tokens and clients granted every portal account read all.
 * A customer without any order of P is as absent as an unknown one (404).
 */
function readQuery(knex: Knex, scope: OrderScope) {
  // sales.amount is summed from the orders (lib/order's, through lib/access/order-grant.ts).
  const grant = scope.portalAccountGrant;
  const sales = orderGrantQueries().customerSalesAmount(knex, grant === 'all' ? null : grant);
  return inCustomerScope(knex('customer').select<CustomerRow[]>('customer.*', sales), scope);
}

/**
 * Narrows a query of customer to those the scope covers (readQuery's rule): the account's, and
 * for a grant bound to one portal account those with an order of it. Order creates and updates
 * find customers through it too, so a bound client's order never reuses, and so never changes,
 * a customer of other portal accounts only.
 */
function inCustomerScope<Q extends Knex.QueryBuilder>(query: Q, scope: OrderScope): Q {
  query.where('customer.account_id', scope.accountId);
  const grant = scope.portalAccountGrant;
  if (grant === 'all') return query;
  query.whereExists(
    orderGrantQueries()
      .ordersOfPortalAccount(db(), 'g', grant)
      .whereRaw('g.customer_internal_id = customer.internal_id AND g.account_id = customer.account_id'),
  );
  return query;
}

/** Customer_filter_type: id[], internal_id[], name[] (address name), email[], date[], group_id[]. */
export const customerSearch: SearchSpec<CustomerRow> = {
  filters: {
    id: { column: 'number', type: 'string' },
    internal_id: { column: 'internal_id', type: 'integer', bigint: true },
    name: { column: 'address_name', type: 'string' },
    email: { column: 'email', type: 'string' },
    date: { column: 'updated_at', type: 'datetime' },
    // Document 2's colours only (0 none to 6 blue, 9 black): another answered no customers, as if none were in it.
    group_id: { column: 'group_id', type: 'integer', values: customerGroupIds },
  },
  key: {
    column: 'internal_id',
    parse: (minId) => (/^\d{1,15}$/.test(minId) ? Number(minId) : undefined),
    idOf: (row) => String(row.internal_id),
  },
  type: customerType,
  alwaysSelected: ['id', 'internal_id'],
};

export interface StoredCustomer {
  internal_id: string;
  number: string;
  shop_username: string[];
}

/** A stored customer with its contact data, as a batch of orders updates it in memory. */
export type StoredContact = StoredCustomer & CustomerContact & { updated_at: Date };

/** A customer a batch of orders creates, as it inserts it (customerRepository.insertMany). */
export type NewCustomer = StoredContact & { currency_id: string };

const contactColumns = ['username', 'comment', 'email', 'vat_id', 'phone_1', 'phone_2', 'fax', 'address_name', 'address'] as const;

export const customerRepository = {
  /** GET admin/customer/: the customers the scope may read (readQuery). */
  search(scope: OrderScope, search: SearchRequest) {
    return runSearch(readQuery(db(), scope), customerSearch, search, customerToApi);
  },

  /** One customer by its customer number (Customer_type id), if the scope may read it. */
  async get(scope: OrderScope, number: string) {
    const row = await readQuery(db(), scope).where('customer.number', number).first();
    return row ? customerToApi(row) : undefined;
  },

  /** Serialises the creation of one customer key (number or e-mail) within the account; only a customer the scope covers. */
  async findByNumber(trx: Knex.Transaction, scope: OrderScope, number: string): Promise<StoredCustomer | undefined> {
    return inCustomerScope(trx('customer'), scope).select('internal_id', 'number', 'shop_username').where({ number }).forNoKeyUpdate().first();
  },

  /** The most recently edited customer with this e-mail (case-insensitive) that the scope covers. */
  async findByEmail(trx: Knex.Transaction, scope: OrderScope, email: string): Promise<StoredCustomer | undefined> {
    return inCustomerScope(trx('customer'), scope)
      .select('internal_id', 'number', 'shop_username')
      .whereRaw('lower(email) = lower(?)', [email])
      .orderBy('updated_at', 'desc')
      .forNoKeyUpdate()
      .first();
  },

  /**
   * The customers a scope covers (readQuery's rule), selecting 1, for WHERE EXISTS: the caller adds
   * its correlation to `customer.number` (lib/task: a customer task is a bound client's only when
   * the customer is).
   */
  inScope(knex: Knex, scope: OrderScope): Knex.QueryBuilder {
    return inCustomerScope(knex('customer').select(knex.raw('1')), scope);
  },

  async numberExists(trx: Knex.Transaction, accountId: number, number: string): Promise<boolean> {
    return Boolean(await trx('customer').select('internal_id').where({ account_id: accountId, number }).first());
  },

  /**
   * The customers with these numbers or e-mails (case-insensitive), not locked: a batch of order
   * creates updates them with its orders' INSERT (updateContacts), so a seller's sales to one
   * buyer do not queue on the buyer's row for the whole of their work. `first`: a write that
   * must come before the read (a counter's lock), sent as a CTE of the same statement: one round
   * trip instead of two.
   */
  async readContacts(trx: Knex.Transaction, scope: OrderScope, numbers: string[], emails: string[], first?: Statement): Promise<StoredContact[]> {
    if (numbers.length === 0 && emails.length === 0) {
      if (first) await trx.raw(first.sql, first.bindings).options(prepared);
      return [];
    }
    let query = inCustomerScope(trx('customer'), scope)
      .select('internal_id', 'number', 'shop_username', 'updated_at', ...contactColumns)
      .where((q) => q.whereRaw('number = ANY(?::text[])', [numbers]).orWhereRaw('lower(email) = ANY(?::text[])', [emails]));
    // Postgres runs a data-modifying CTE to completion whether or not the query reads it.
    if (first) query = query.with('first_write', trx.raw(first.sql, first.bindings));
    const rows = await query.options(prepared);
    return rows.map((r) => ({ ...r, internal_id: String(r.internal_id) }));
  },

  /**
   * update for several customers in one statement, each with its full contact data (in
   * internal_id order, the order every writer of customers locks them). Their rows were read
   * unlocked (readContacts): user names another order added meanwhile are kept, the rest is the
   * last order's, as when the orders had waited for each other.
   */
  async updateContacts(trx: Knex.Transaction, accountId: number, rows: StoredContact[], later?: PendingWrites): Promise<void> {
    if (rows.length === 0) return;
    const sorted = [...rows].sort((a, b) => Number(a.internal_id) - Number(b.internal_id));
    const values = sorted.map((r) => ({
      ...Object.fromEntries(contactColumns.map((c) => [c, r[c] ?? null])),
      internal_id: r.internal_id,
      shop_username: r.shop_username,
    }));
    const sql = `UPDATE customer c SET ${contactColumns.map((col) => (col === 'address' ? "address = NULLIF(v.r->'address', 'null'::jsonb)" : `${col} = v.r->>'${col}'`)).join(', ')},
         shop_username = c.shop_username || ARRAY(SELECT u FROM jsonb_array_elements_text(v.r->'shop_username') u WHERE u <> ALL(c.shop_username)),
         updated_at = now()
       FROM jsonb_array_elements(?::jsonb) AS v(r)
       WHERE c.account_id = ? AND c.internal_id = (v.r->>'internal_id')::bigint`;
    if (later) later.defer(sql, [jsonParameter(values), accountId]);
    else await trx.raw(sql, [jsonParameter(values), accountId]);
  },

  /**
   * For the customers a batch of orders may create, in one statement: `ids` internal ids from the
   * table's sequence, the customer counter's value (its lock is held: nothing else moves it), and
   * which of the `window` numbers it hands out next are in use.
   */
  async reserveNew(trx: Knex.Transaction, accountId: number, ids: number, window: number): Promise<{ ids: string[]; counter: number; used: string[] }> {
    // The counter is lib/account's: its statement, embedded to keep one round trip.
    const counter = counterRepository.valueStatement(accountId, 'customer');
    const { rows } = (await trx
      .raw(
        `WITH c AS (${counter.sql})
         SELECT c.last_value::text AS counter,
           ARRAY(SELECT nextval(pg_get_serial_sequence('customer', 'internal_id'))::text FROM generate_series(1, ?)) AS ids,
           ARRAY(SELECT number FROM customer WHERE account_id = ?
             AND number = ANY(ARRAY(SELECT (c.last_value + g)::text FROM generate_series(1, ?) g))) AS used
         FROM c`,
        [...counter.bindings, ids, accountId, window],
      )
      .options(prepared)) as { rows: { counter: string; ids: string[]; used: string[] }[] };
    const row = rows[0]!;
    return { ids: row.ids, counter: Number(row.counter), used: row.used };
  },

  /** Which of the customer numbers from, from + 1, … (count of them) are in use in the account. */
  async numbersInUse(trx: Knex.Transaction, accountId: number, from: number, count: number): Promise<string[]> {
    const { rows } = (await trx.raw(
      `SELECT number FROM customer WHERE account_id = ? AND number = ANY(ARRAY(SELECT (?::bigint + g)::text FROM generate_series(0, ? - 1) g))`,
      [accountId, from, count],
    )) as { rows: { number: string }[] };
    return rows.map((r) => r.number);
  },

  /**
   * The customers a batch of orders created (internal ids and numbers reserved: reserveNew), in
   * one INSERT with their final contact data, and the customer counter moved to `counter` (the
   * last number the batch handed out) in one UPDATE. With `later`, both deferred.
   */
  async insertMany(trx: Knex.Transaction, accountId: number, rows: NewCustomer[], counter: number | undefined, later?: PendingWrites): Promise<void> {
    if (rows.length === 0) return;
    const values = rows.map((r) => ({
      ...Object.fromEntries(contactColumns.map((c) => [c, r[c] ?? null])),
      internal_id: r.internal_id,
      number: r.number,
      currency_id: r.currency_id,
      shop_username: r.shop_username,
    }));
    const statements: [string, readonly Knex.RawBinding[]][] = [
      [
        `INSERT INTO customer (internal_id, account_id, number, currency_id, shop_username, ${contactColumns.join(', ')})
         SELECT (v.r->>'internal_id')::bigint, ?, v.r->>'number', v.r->>'currency_id',
           ARRAY(SELECT u FROM jsonb_array_elements_text(v.r->'shop_username') WITH ORDINALITY AS e(u, n) ORDER BY n),
           ${contactColumns.map((col) => (col === 'address' ? "NULLIF(v.r->'address', 'null'::jsonb)" : `v.r->>'${col}'`)).join(', ')}
         FROM jsonb_array_elements(?::jsonb) WITH ORDINALITY AS v(r, n) ORDER BY v.n`,
        [accountId, jsonParameter(values)],
      ],
    ];
    if (counter !== undefined) {
      const raise = counterRepository.raiseStatement(accountId, 'customer', counter);
      statements.push([raise.sql, raise.bindings]);
    }
    for (const [sql, bindings] of statements) {
      if (later) later.defer(sql, bindings);
      else await trx.raw(sql, bindings);
    }
  },

  async insert(trx: Knex.Transaction, accountId: number, number: string, currencyId: string, contact: CustomerContact): Promise<string> {
    const [row] = await trx('customer')
      .insert({ ...withJson(contact), account_id: accountId, number, currency_id: currencyId, shop_username: contact.username ? [contact.username] : [] })
      .returning('internal_id');
    return String(row!.internal_id);
  },

  async update(trx: Knex.Transaction, accountId: number, internalId: string, contact: CustomerContact, shopUsername: string[]): Promise<void> {
    await trx('customer')
      .where({ account_id: accountId, internal_id: internalId })
      .update({ ...withJson(contact), shop_username: shopUsername, updated_at: trx.fn.now() });
  },
};

function withJson(contact: CustomerContact): Omit<CustomerContact, 'address'> & { address?: string | null } {
  const { address, ...rest } = contact;
  return address === undefined ? rest : { ...rest, address: address && jsonParameter(address) };
}
