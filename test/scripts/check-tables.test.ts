import fs from 'node:fs';
import { expect } from 'chai';
import { foreignReferences, owners, tableReferences, tablesByVariable } from '../../scripts/check-tables';

describe('lint: each table queried only by its owning folder (scripts/check-tables.ts)', () => {
  const foreign = [
    "import { db } from '../db/knex';",
    "// a comment naming trx('sales_order') is not a query",
    "export const orders = (accountId: number) => db()('sales_order').where({ account_id: accountId });",
    "export const lines = (trx: Knex.Transaction) => trx.from('sales_order_line AS l').join('stock as s', 's.id', 'l.stock_id');",
    'export const sql = `SELECT 1 FROM portal_account p WHERE p.id = ?`;',
    'export const joined = `UPDATE bank b SET x = 1 FROM unnest(?::int[]) AS v(id), account a WHERE a.id = b.account_id`;',
  ].join('\n');

  it('when a file queries tables of other folders, then each query is named with file:line and the owner', () => {
    expect(foreignReferences('lib/bank/bank.repository.ts', foreign)).to.deep.equal([
      'lib/bank/bank.repository.ts:3: queries sales_order, owned by lib/order: ask it (a function of its repository)',
      'lib/bank/bank.repository.ts:4: queries sales_order_line, owned by lib/order: ask it (a function of its repository)',
      'lib/bank/bank.repository.ts:4: queries stock, owned by lib/stock: ask it (a function of its repository)',
      'lib/bank/bank.repository.ts:5: queries portal_account, owned by lib/portal-account: ask it (a function of its repository)',
      'lib/bank/bank.repository.ts:6: queries account, owned by lib/account: ask it (a function of its repository)',
    ]);
  });

  it("when a file queries only its own folder's tables, then nothing is reported", () => {
    const own = [
      "export const banks = (trx: Knex.Transaction) => trx('bank').leftJoin('bank_counter as c', 'c.account_id', 'bank.account_id');",
      "export const sql = 'UPDATE bank SET order_id = NULL WHERE id = ?';",
      "// the transfer's order is asked of lib/order, never read from sales_order here",
      "export const text = 'imported from the statement';",
      "export const columns = 'SELECT id, customer, stock FROM bank WHERE id = ?';",
    ].join('\n');
    expect(foreignReferences('lib/bank/bank.repository.ts', own)).to.deep.equal([]);
    expect(tableReferences(own).map((r) => r.table)).to.deep.equal(['bank', 'bank_counter', 'bank', 'bank']);
  });

  it("when the same query sits in the owner's folder, then it is not reported", () => {
    expect(foreignReferences('lib/order/order-scope.repository.ts', foreign).map((p) => p.split(': ')[1])).to.deep.equal([
      'queries stock, owned by lib/stock',
      'queries portal_account, owned by lib/portal-account',
      'queries bank, owned by lib/bank',
      'queries account, owned by lib/account',
    ]);
  });

  it('when a file names a table through a variable, then the call is refused unless the file is listed with the tables it reaches, which are checked like literal ones', () => {
    const byVariable = [
      '// trx(table) in a comment is not a call',
      "export const one = (table: string) => db()(table).select('id');",
      'export const two = (trx: Knex.Transaction, table: string) => (trx ?? db())(table).delete();',
      'export const three = (trx: Knex.Transaction, t: string) => trx(t).insert({});',
      // Calls of other things, a regular expression and a cast are not Knex calls.
      'export const other = observerOf(a, b)(Number(c)) + /^(\\d{4})(T\\d{2})?$/.exec(d) && (columns as X)[e];',
      "export const built = knex({ client: 'pg' });",
    ].join('\n');
    expect(foreignReferences('lib/admin/reseal.ts', byVariable)).to.deep.equal(
      [2, 3, 4].map(
        (line) =>
          `lib/admin/reseal.ts:${line}: names a table through a variable, which this check cannot read: write the name, or list the file in tablesByVariable (scripts/check-tables.ts) with the tables it reaches`,
      ),
    );
    expect(tablesByVariable['lib/auth/token.repository.ts']).to.include('access_token');
    const listed = "export const purge = (table: string) => db()(table).where('expires_at', '<', db().fn.now()).delete();";
    expect(foreignReferences('lib/auth/token.repository.ts', listed)).to.deep.equal([]);
    // A listed file of another folder than the tables' owner: each listed table is reported at the call.
    tablesByVariable['lib/admin/purge.ts'] = ['access_token', 'shipping_group'];
    try {
      expect(foreignReferences('lib/admin/purge.ts', ['', listed].join('\n'))).to.deep.equal([
        'lib/admin/purge.ts:2: queries access_token, owned by lib/auth: ask it (a function of its repository)',
      ]);
    } finally {
      delete tablesByVariable['lib/admin/purge.ts'];
    }
  });

  it('when the map is read, then every owner is a folder of lib/', () => {
    for (const [table, owner] of Object.entries(owners)) expect(fs.existsSync(`lib/${owner}`), `${table} -> lib/${owner}`).to.equal(true);
  });
});
