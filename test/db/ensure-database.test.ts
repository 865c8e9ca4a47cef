/**
 * A database the service creates is UTF-8 whatever the server's template1 is (lib/db
 * ensure-database.ts, README "A new database is UTF-8"). The machine's PostgreSQL was initialised
 * with C.UTF-8, so the test starts a server of its own with Debian's PostgreSQL 15 binaries,
 * initialised as a server of SQL_ASCII and locale C is (initdb without a UTF-8 LANG), on a free
 * port with its socket in a temporary directory, stopped and removed afterwards even on failure.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { config } from '../../config';
import { ensureDatabase, recreateDatabase } from '../../lib/db/ensure-database';
import { pg, pgTempDir } from '../support/pg-server';
import { freePort } from '../support/process';

/** The rows of a statement on a database. */
async function rowsOf<T>(url: string, sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, values)).rows as T[];
  } finally {
    await client.end();
  }
}

interface Made {
  encoding: string;
  collate: string;
  ctype: string;
}

const madeOf = async (server: string, name: string): Promise<Made | undefined> =>
  (
    await rowsOf<Made>(
      `${server}/postgres`,
      'SELECT pg_encoding_to_char(encoding) AS encoding, datcollate AS collate, datctype AS ctype FROM pg_database WHERE datname = $1',
      [name],
    )
  )[0];

describe('db: a database the service creates is UTF-8 (lib/db ensure-database.ts)', function () {
  this.timeout(60000);
  let dir = '';
  let dataDir = '';
  let running = false;
  let server = '';

  before(async () => {
    dir = await pgTempDir('kontor-ascii-');
    dataDir = path.join(dir, 'data');
    const port = await freePort();
    await pg('initdb', ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '--no-sync', '--encoding=SQL_ASCII', '--locale=C']);
    await pg('pg_ctl', ['-D', dataDir, '-l', `${dataDir}.log`, '-w', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`, 'start']);
    running = true;
    server = `postgres://postgres@127.0.0.1:${port}`;
  });

  after(async () => {
    if (running) await pg('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("when the server's template1 is SQL_ASCII with locale C, then the database is created UTF8 with C.UTF-8, where lower() and normalize() fold a Danish, Greek and Cyrillic payer's capitals", async () => {
    expect(await madeOf(server, 'template1')).to.deep.equal({ encoding: 'SQL_ASCII', collate: 'C', ctype: 'C' });
    await ensureDatabase(`${server}/kontor_fresh`);
    expect(await madeOf(server, 'kontor_fresh')).to.deep.equal({ encoding: 'UTF8', collate: 'C.UTF-8', ctype: 'C.UTF-8' });
    // What the bank's name fold (bank.repository.ts foldedName) asks of the database (a final Σ
    // is lowered to σ, which the fold reads as JavaScript's ς: text-fold.ts).
    const [folded] = await rowsOf<{ lower: string; nfkd: string }>(
      `${server}/kontor_fresh`,
      'SELECT lower($1) AS lower, normalize(lower($1), NFKD) = normalize($2, NFKD) AS nfkd',
      ['SØREN KJÆR ΑΝΔΡΈΑΣ АНДРЕЙЧЕНКО', 'søren kjær ανδρέασ андрейченко'],
    );
    expect(folded).to.deep.equal({ lower: 'søren kjær ανδρέασ андрейченко', nfkd: true });
  });

  it('when recreateDatabase runs on such a server, then the new database is UTF-8 too', async () => {
    await recreateDatabase(`${server}/kontor_again`);
    expect(await madeOf(server, 'kontor_again')).to.deep.equal({ encoding: 'UTF8', collate: 'C.UTF-8', ctype: 'C.UTF-8' });
  });

  it('when the database exists already (made SQL_ASCII before), then it is left as it is, its data included', async () => {
    await rowsOf(`${server}/postgres`, 'CREATE DATABASE kontor_before');
    await rowsOf(`${server}/kontor_before`, "CREATE TABLE kept (v text); INSERT INTO kept VALUES ('Müller')");
    await ensureDatabase(`${server}/kontor_before`);
    expect(await madeOf(server, 'kontor_before')).to.deep.equal({ encoding: 'SQL_ASCII', collate: 'C', ctype: 'C' });
    expect(await rowsOf(`${server}/kontor_before`, 'SELECT v FROM kept')).to.deep.equal([{ v: 'Müller' }]);
  });

  it("when the suite's own database was created on the machine's server, then it is UTF8 with C.UTF-8 (test/setup.ts recreateDatabase)", async () => {
    const url = new URL(config().databaseUrl);
    const name = decodeURIComponent(url.pathname.slice(1));
    expect(await madeOf(`${url.protocol}//${url.username}@${url.host}`, name)).to.deep.equal({ encoding: 'UTF8', collate: 'C.UTF-8', ctype: 'C.UTF-8' });
  });
});
