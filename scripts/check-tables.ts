/**
 * Lint step (npm run lint): each table has one owning folder of lib/, and only that folder queries
 * it. Other domains ask the owner: a function of its repository, a subquery builder or a
 * statement to embed where one round trip matters (lib/order/order-scope.repository.ts,
 * lib/account/account-use.repository.ts). A domain below the owner in the layering
 * (scripts/check-cycles.ts) declares a contract the owner implements and provides at startup
 * (lib/access/order-grant.ts, implemented by lib/order/order-grant.repository.ts). A query of a
 * table from another folder fails with file:line and the owner to ask.
 *
 * What counts as a query: a table name as the first argument of a Knex call (`trx('t')`,
 * `knex('t')`, `db()('t')`, `.from('t')`, `.into('t')`, `.join('t', ...)`, `.leftJoin`,
 * `.table('t')`, each also as `'t as x'`), and in SQL text (`from t`, `join t`, `into t`,
 * `update t`, `delete from t`, a further table of a FROM list: `from x, t a where`). Comments
 * are not read. Migrations (lib/db/migrations) create the tables and are not scanned; every
 * table they create must have an owner below.
 *
 * A table named by a variable (`trx(table)`, `tx(t)`, `knex(t)`, `db()(t)`, `(trx ?? db())(t)`)
 * cannot be read here: such a call fails unless its file is listed in tablesByVariable with the
 * tables it reaches, which are then checked like literal ones. Not seen: a variable passed to
 * `.from(x)`, `.into(x)`, `.table(x)` or a join (their argument is often a subquery), a Knex
 * instance under another name (`conn(t)`), and SQL text built from a variable (`${table}`).
 */
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..');

/** Table -> the domain folder of lib/ that owns it; a reason where the owner is not the obvious one. */
export const owners: Record<string, string> = {
  account: 'account',
  person: 'account',
  // The account's running numbers (orders, invoices, customers): lib/account's counters.
  order_counter: 'account',
  // The invoice numbers given to orders, taken in the order write path's lock order (lib/invoice keeps the documents).
  order_invoice_number: 'order',
  oauth_client: 'auth',
  access_token: 'auth',
  refresh_token: 'auth',
  authorization_code: 'auth',
  client_access: 'auth',
  // Who created a job (the grant that may read its status): part of the jobs' area.
  job_creator: 'queue',
  // Stored answers of Idempotency-Key requests: an HTTP convention, not a domain's.
  idempotency_key: 'http',
  currency: 'reference',
  country: 'reference',
  payment_method: 'reference',
  stock_condition: 'reference',
  description_icon: 'reference',
  global_category: 'reference',
  first_name_gender: 'reference',
  outbox: 'queue',
  portal_account: 'portal-account',
  // Shipping groups are edited in the admin/ area; stock items only name them.
  shipping_group: 'admin',
  // A Shopify store's install (shop domain, scopes): part of the Shopify channel's helpers in lib/portals/shopify.
  shopify_store: 'portals',
  // What a CIA push last set at a Shopify store (the compare quantity of the next): the webshop adapter's.
  shopify_inventory_set: 'portals',
  customer: 'customer',
  task: 'task',
  stock: 'stock',
  stock_set: 'stock',
  stock_history: 'stock',
  stock_description: 'stock',
  stock_category: 'stock',
  stock_shop_parameter: 'stock',
  cia_portal_state: 'cia',
  // The live listings an upload made (list, revise, end): only the uploads read them.
  portal_listing: 'portal-offer',
  // Revisions per listing and channel day (eBay's 250 a day): counted by the quantity pushes.
  portal_listing_revision: 'portal-offer',
  // Items of a push whose outcome is unknown, pushed once more when the late call can no longer land.
  portal_push_unknown: 'portal-offer',
  sales_order: 'order',
  sales_order_line: 'order',
  sales_order_history: 'order',
  invoice: 'invoice',
  bank: 'bank',
  bank_counter: 'bank',
  payment_provider_account: 'bank',
  payment_provider_pending: 'bank',
  bank_reversal_pending: 'bank',
  channel_order: 'order-import',
  ebay_account_deletion: 'portal-connect',
  event_handler: 'event',
  event_run: 'event',
  webhook_delivery: 'event',
  webhook_attempt: 'event',
};

/**
 * Foreign queries allowed for now, "file: table" -> why. Keep it short: each entry is a debt with
 * the place it should move to.
 */
export const allowed: Record<string, string> = {};

/**
 * Files of lib/ that name tables through a variable, each with every table it may reach that way;
 * the list stands for the file's references at each such call. Keep it short: a literal name is
 * better.
 */
export const tablesByVariable: Record<string, string[]> = {
  // deleteExpired: one DELETE per kind of expired token or code.
  'lib/auth/token.repository.ts': ['access_token', 'refresh_token', 'authorization_code'],
  // insertInBatches: the two large reference sets.
  'lib/reference/admin-reference.seed.ts': ['global_category', 'first_name_gender'],
};

export interface TableReference {
  line: number;
  table: string;
}

/** The source with its comments blanked out (line breaks kept, so positions keep their line). */
export function withoutComments(source: string): string {
  let out = '';
  let i = 0;
  let quote: string | undefined;
  while (i < source.length) {
    const c = source[i]!;
    const next = source[i + 1];
    if (quote) {
      out += c;
      if (c === '\\') {
        out += next ?? '';
        i += 2;
        continue;
      }
      if (c === quote) quote = undefined;
      i++;
    } else if (c === '/' && next === '/') {
      while (i < source.length && source[i] !== '\n') i++;
    } else if (c === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      const stop = end < 0 ? source.length : end + 2;
      out += source.slice(i, stop).replace(/[^\n]/g, ' ');
      i = stop;
    } else {
      // A template literal's ${...} is read as part of the literal: enough to find table names.
      if (c === "'" || c === '"' || c === '`') quote = c;
      out += c;
      i++;
    }
  }
  return out;
}

const name = '([a-z_][a-z0-9_]*)';
const patterns = [
  // trx('t'), knex('t'), db()('t'), tx('t'), .from('t'), .into('t'), .table('t'), the joins; 't as x' too.
  new RegExp(
    `(?:\\b(?:trx|tx|knex|db)|\\)|\\.(?:from|into|table|join|leftJoin|rightJoin|innerJoin|leftOuterJoin|fullOuterJoin|crossJoin))\\s*\\(\\s*['"\`]${name}(?:\\s+as\\s+\\w+)?['"\`]`,
    'gi',
  ),
  // SQL text: from t, join t, into t, update t, delete from t (a schema prefix "public." allowed).
  new RegExp(`\\b(?:from|join|into|update)\\s+(?:public\\.)?"?${name}\\b`, 'gi'),
  // SQL text: a further table of a FROM list, "FROM x, t a WHERE": the alias and the clause after
  // it tell it from a column list.
  new RegExp(`,\\s*(?:public\\.)?${name}\\s+(?:as\\s+)?(?!(?:where|join|on|as)\\b)[a-z_]\\w*\\s+(?:where|join|left|right|inner|cross|on)\\b`, 'gi'),
];

/** The known tables a source queries, with their lines. */
export function tableReferences(source: string): TableReference[] {
  const code = withoutComments(source);
  const found: TableReference[] = [];
  for (const pattern of patterns) {
    for (const match of code.matchAll(pattern)) {
      const table = match[1]!.toLowerCase();
      if (!(table in owners)) continue;
      found.push({ line: code.slice(0, match.index).split('\n').length, table });
    }
  }
  return found.sort((a, b) => a.line - b.line);
}

/** A Knex call whose first argument is a name, not a string: `trx(table)`, `db()(table)`, `(trx ?? db())(table)`. */
const variableCall = /(?:\b(?:trx|tx|knex)|\bdb\(\)\)?)\s*\(\s*[A-Za-z_$]/g;

/** The lines of a source that name a table through a variable. */
export function variableCalls(source: string): number[] {
  const code = withoutComments(source);
  return [...code.matchAll(variableCall)].map((match) => code.slice(0, match.index).split('\n').length);
}

/** lib/order/order.service.ts -> order; lib/log.ts -> log. */
const domainOf = (file: string) => /^lib\/([^/]+?)(\.ts)?(\/|$)/.exec(file)?.[1];

/** The references of one file (path relative to the repository) to tables another folder owns. */
export function foreignReferences(file: string, source: string): string[] {
  const domain = domainOf(file);
  const listed = tablesByVariable[file];
  const unnamed: string[] = [];
  const references = tableReferences(source);
  for (const line of variableCalls(source)) {
    if (listed) references.push(...listed.map((table) => ({ line, table })));
    else
      unnamed.push(
        `${file}:${line}: names a table through a variable, which this check cannot read: write the name, or list the file in tablesByVariable (scripts/check-tables.ts) with the tables it reaches`,
      );
  }
  return [
    ...unnamed,
    ...references
      .sort((a, b) => a.line - b.line)
      .filter(({ table }) => owners[table] !== domain && !allowed[`${file}: ${table}`])
      .map(({ line, table }) => `${file}:${line}: queries ${table}, owned by lib/${owners[table]}: ask it (a function of its repository)`),
  ];
}

/** Entries of tablesByVariable that name an unknown table, or a file without such a call (left over). */
function staleVariableEntries(): string[] {
  return Object.entries(tablesByVariable).flatMap(([file, tables]) => {
    const full = path.join(root, file);
    const unknown = tables
      .filter((table) => !(table in owners))
      .map((table) => `scripts/check-tables.ts: tablesByVariable names ${table}, no table of the map`);
    if (!fs.existsSync(full) || variableCalls(fs.readFileSync(full, 'utf8')).length === 0)
      return [...unknown, `scripts/check-tables.ts: tablesByVariable lists ${file}, which names no table through a variable: drop the entry`];
    return unknown;
  });
}

function tsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return full === path.join(root, 'lib/db/migrations') ? [] : tsFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Owners that are not a folder of lib/ (a folder renamed, the map not). */
function missingOwners(): string[] {
  return [...new Set(Object.values(owners))]
    .filter((owner) => !fs.existsSync(path.join(root, 'lib', owner)))
    .map((owner) => `scripts/check-tables.ts: owner lib/${owner} is not a folder`);
}

/** Tables the migrations create that have no owner in the map. */
function unownedTables(): string[] {
  const dir = path.join(root, 'lib/db/migrations');
  const created = fs
    .readdirSync(dir)
    .flatMap((file) => [...fs.readFileSync(path.join(dir, file), 'utf8').matchAll(/createTable(?:IfNotExists)?\(\s*'(\w+)'/g)].map((m) => m[1]!));
  return created.filter((table) => !(table in owners)).map((table) => `lib/db/migrations: table ${table} has no owner in scripts/check-tables.ts`);
}

function main(): void {
  const files = tsFiles(path.join(root, 'lib'));
  const problems = [...unownedTables(), ...missingOwners(), ...staleVariableEntries()];
  for (const full of files) {
    const file = path.relative(root, full).split(path.sep).join('/');
    problems.push(...foreignReferences(file, fs.readFileSync(full, 'utf8')));
  }
  if (problems.length) {
    console.error(`Tables queried outside their owner (see the map in scripts/check-tables.ts):\n${problems.join('\n')}`);
    process.exitCode = 1;
    return;
  }
  console.log(`check-tables: each table queried only by its owner (${files.length} files)`);
}

if (require.main === module) main();
