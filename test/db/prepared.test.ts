import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { prepared } from '../../lib/db/prepared';

describe('db: prepared statements (lib/db/prepared.ts)', () => {
  it('when a marked statement runs again on a connection, then Postgres holds it prepared once, under a name from its text, and each run binds its own values', async () => {
    await db().transaction(async (trx) => {
      const first = await trx.raw('SELECT ?::int + 1 AS n /* prepared test */', [1]).options(prepared);
      const second = await trx.raw('SELECT ?::int + 1 AS n /* prepared test */', [41]).options(prepared);
      await trx.raw('SELECT ?::int AS unmarked /* prepared test */', [7]);
      expect(first.rows).to.deep.equal([{ n: 2 }]);
      expect(second.rows).to.deep.equal([{ n: 42 }]);
      // The same connection: the transaction's.
      const { rows } = (await trx.raw("SELECT name, statement FROM pg_prepared_statements WHERE statement LIKE '%prepared test%'")) as {
        rows: { name: string; statement: string }[];
      };
      expect(rows).to.have.length(1);
      expect(rows[0]!.name).to.match(/^k[0-9a-f]{40}$/);
      expect(rows[0]!.statement).to.contain('+ 1 AS n');
    });
  });

  it('when a marked query builder runs, then it is prepared too and answers like the unmarked one', async () => {
    await db().transaction(async (trx) => {
      const marked = await trx('currency').select('id').where('id', 'EUR').options(prepared);
      const plain = await trx('currency').select('id').where('id', 'EUR');
      expect(marked).to.deep.equal(plain);
      const { rows } = (await trx.raw('SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement LIKE \'select "id" from "currency"%\'')) as {
        rows: { n: number }[];
      };
      expect(rows[0]!.n).to.equal(1);
    });
  });
});
