import { Client } from 'pg';

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
 * maintenance database. Lets `npm start` and `npm test` run on a fresh PostgreSQL.
 */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const { name, maintenance } = parse(databaseUrl);
  const client = new Client({ connectionString: maintenance });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      try {
        await client.query(`CREATE DATABASE "${name}"`);
      } catch (err) {
        // Another process created it between our check and our CREATE.
        if ((err as { code?: string }).code !== '42P04') throw err;
      }
    }
  } finally {
    await client.end();
  }
}
