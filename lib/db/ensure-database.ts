import { Client } from 'pg';
import { log } from '../log';

function parse(databaseUrl: string): { name: string; maintenance: string } {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!/^[A-Za-z0-9_]+$/.test(name)) throw new Error(`DATABASE_URL: database name "${name}" must be letters, digits and _`);
  url.pathname = '/postgres';
  return { name, maintenance: url.toString() };
}

/**
 * Drops and creates the database: tests start from an empty schema every run, whatever an
 * earlier run or another checkout left in it.
 */
export async function recreateDatabase(databaseUrl: string): Promise<void> {
  const { name, maintenance } = parse(databaseUrl);
  const client = new Client({ connectionString: maintenance });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
  await ensureDatabase(databaseUrl);
}

/**
 * Creates the database named in the URL when it is missing, by connecting to the server's
 * maintenance database. Lets `npm start` and `npm test` run on a fresh PostgreSQL. A database
 * that exists is left as it is (a warning when it is not UTF-8, see createUtf8).
 */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const { name, maintenance } = parse(databaseUrl);
  const client = new Client({ connectionString: maintenance });
  await client.connect();
  try {
    const found = await client.query<{ encoding: string; ctype: string }>(
      'SELECT pg_encoding_to_char(encoding) AS encoding, datctype AS ctype FROM pg_database WHERE datname = $1',
      [name],
    );
    const existing = found.rows[0];
    if (existing) {
      if (!isUtf8(existing.encoding) || !isUtf8Locale(existing.ctype))
        log.warn(
          { database: name, encoding: existing.encoding, ctype: existing.ctype },
          'database is not UTF-8 with a UTF-8 ctype: bank name matching folds non-ASCII capitals otherwise (lib/db README); left as it is',
        );
      return;
    }
    await createUtf8(client, name);
  } finally {
    await client.end();
  }
}

const isUtf8 = (encoding: string): boolean => /^utf-?8$/i.test(encoding);
const isUtf8Locale = (locale: string): boolean => /\.utf-?8(@|$)/i.test(locale);

/**
 * Creates the database in UTF-8 from template0 with the first of these locales the server knows
 * (decision, lib/db README "A new database is UTF-8"): C.UTF-8 (Unicode case mapping and character
 * classes for lower(), upper(), ILIKE and regular expressions; text sorted by code point, which no
 * C library update reorders, so no index needs rebuilding after one); else the server's own locale
 * (template1's) when it is a UTF-8 one; else C, which every server has and takes any encoding
 * (lower() then knows ASCII capitals only). Before, CREATE DATABASE copied template1 with its
 * encoding and locale: on a server initialised with SQL_ASCII or a C or Latin-1 locale, the bank's
 * name fold (bank.repository.ts foldedName: lower(), normalize()) left `SØREN` or `ΑΝΔΡΕΑΣ` as
 * they were, and a payer of such a name missed its order. template0, because a template's locale
 * cannot be changed in the copy of any other.
 */
async function createUtf8(client: Client, name: string): Promise<void> {
  const server = await client.query<{ ctype: string }>("SELECT datctype AS ctype FROM pg_database WHERE datname = 'template1'");
  const own = server.rows[0]?.ctype;
  const locales = [...new Set(['C.UTF-8', ...(own && isUtf8Locale(own) ? [own] : []), 'C'])];
  for (const [i, locale] of locales.entries()) {
    const literal = client.escapeLiteral(locale);
    try {
      await client.query(`CREATE DATABASE "${name}" TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE ${literal} LC_CTYPE ${literal}`);
      return;
    } catch (err) {
      const code = (err as { code?: string }).code;
      // Another process created it between our check and our CREATE.
      if (code === '42P04') return;
      // invalid locale name: the server's C library has no such locale; the next one.
      if (code === '42809' && i < locales.length - 1) continue;
      throw err;
    }
  }
}
