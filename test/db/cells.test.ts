/**
 * Cells (lib/db/cells.ts, issue 34 point 4): every database of a cell hands out ids of its own
 * range, so an account moves between cells with its ids; the router reads an account's cell from
 * its id and a token's from its prefix. Each case works on databases of its own, created here
 * beside the suite's (`<suite database>_cell2` ...), migrated as the cell named.
 */
import { expect } from 'chai';
import { config, Config, ConfigError, loadConfig, setConfig } from '../../config';
import { issueConsentState, takeConsentState } from '../../lib/admin/consent-state';
import { accountOfRouteKey, cellOfAccount, cellOfId, cellOfRouteKey, cellRange } from '../../lib/db/cells';
import { recreateDatabase } from '../../lib/db/ensure-database';
import { closeDb, createKnex, Knex } from '../../lib/db/knex';
import { migrateDatabase } from '../../lib/migrate';
import { call, newSeller, Seller } from '../support/api';
import { kontor } from '../support/cli';
import { createOrder, createStock, readOrder } from '../order/helpers';

interface SequenceState {
  sequencename: string;
  data_type: string;
  min_value: string;
  max_value: string;
  last_value: string | null;
}

const int4Max = '2147483647';
const int8Max = '9223372036854775807';

describe('db: cells, id ranges per cell and the router keys (lib/db/cells.ts)', function () {
  this.timeout(120000);
  let saved: Config;
  const opened: Knex[] = [];
  const urlOf = (suffix: string) => {
    const url = new URL(saved.databaseUrl);
    url.pathname = `${url.pathname}_${suffix}`;
    return url.toString();
  };
  const open = (url: string) => {
    const knex = createKnex(url, 2);
    opened.push(knex);
    return knex;
  };
  const sequences = async (knex: Knex): Promise<SequenceState[]> =>
    (
      (await knex.raw(
        `SELECT sequencename, data_type::text, min_value::text, max_value::text, last_value::text
           FROM pg_sequences WHERE schemaname = 'public' AND sequencename NOT LIKE 'knex\\_%' ORDER BY 1`,
      )) as { rows: SequenceState[] }
    ).rows;

  /** Points the app (API, pools, Redis keys) at a database as the cell given. */
  async function useCell(url: string, cellId: number, cellCount: number): Promise<void> {
    await closeDb();
    // Redis keys apart from the suite's: account ids of another database would meet its rate limits.
    setConfig({ ...saved, databaseUrl: url, cellId, cellCount, queuePrefix: `${saved.queuePrefix}-cell${cellId}of${cellCount}` });
  }

  /** A seller with a stock item and an order on it (customer, line, movement, history), all made through the API. */
  async function sellerWithOrder(knex: Knex): Promise<{ seller: Seller; stockId: number; orderId: string; ids: Record<string, string[]> }> {
    const seller = await newSeller();
    const stockId = await createStock(seller, 'CELL-1', 5);
    const orderId = await createOrder(seller, { line: [{ id: stockId, quantity: 1, sku: 'CELL-1', name: 'item' }] });
    const read = async (sql: string) => ((await knex.raw(sql, [seller.id])) as { rows: { id: string }[] }).rows.map((r) => r.id);
    const ids = {
      sales_order: await read('SELECT internal_id::text AS id FROM sales_order WHERE account_id = ?'),
      customer: await read('SELECT internal_id::text AS id FROM customer WHERE account_id = ?'),
      stock_history: await read('SELECT id::text AS id FROM stock_history WHERE account_id = ?'),
      person: await read('SELECT id::text AS id FROM person WHERE account_id = ?'),
      portal_account: await read('SELECT id::text AS id FROM portal_account WHERE account_id = ?'),
    };
    return { seller, stockId, orderId, ids };
  }

  before(async () => {
    saved = config();
    // Migrated in parallel: each is a whole run of the migrations.
    await Promise.all(
      [
        ['cell2', 2, 4],
        ['cell3', 3, 4],
        ['cell_single', 0, 1],
      ].map(async ([suffix, id, count]) => {
        const url = urlOf(suffix as string);
        await recreateDatabase(url);
        await migrateDatabase(url, { id: id as number, count: count as number });
      }),
    );
  });

  after(async () => {
    await closeDb();
    setConfig(saved);
    await Promise.all(opened.map((knex) => knex.destroy()));
  });

  it('cell ranges: CELL_ID must be below CELL_COUNT (default 0 of 1); 4, 3, 7 or 64 cells split 1..2^31-1 (integer) and 1..2^49-1 (bigint) without gap or overlap; an id names its cell', () => {
    for (const count of [4, 3, 7, 64]) {
      for (const type of ['integer', 'bigint'] as const) {
        const ranges = Array.from({ length: count }, (_, cell) => cellRange(cell, count, type));
        expect(ranges[0]!.first).to.equal(1n);
        for (let cell = 1; cell < count; cell++) expect(ranges[cell]!.first).to.equal(ranges[cell - 1]!.last + 1n);
        expect(ranges[count - 1]!.last).to.equal(type === 'integer' ? 2n ** 31n - 1n : 2n ** 49n - 1n);
        ranges.forEach((range, cell) => {
          expect(cellOfId(range.first, count, type), `${type} ${range.first} of ${count}`).to.equal(cell);
          expect(cellOfId(range.last, count, type), `${type} ${range.last} of ${count}`).to.equal(cell);
        });
      }
    }
    expect(cellRange(2, 4)).to.deep.equal({ first: 1073741825n, last: 1610612736n });
    expect(cellOfAccount(1073741824, 4)).to.equal(1);
    expect(cellOfAccount(1073741825, 4)).to.equal(2);
    expect(cellOfAccount(123, 1)).to.equal(0);
    expect(() => loadConfig({ CELL_ID: '4', CELL_COUNT: '4' })).to.throw(ConfigError, 'CELL_ID is invalid: "CELL_ID" must be below CELL_COUNT');
    expect(loadConfig({})).to.include({ cellId: 0, cellCount: 1 });
  });

  it('when a fresh database is migrated as cell 2 of 4, then its sequences have the range of cell 2 and a seller made through the API gets account, person, portal account, stock, order, customer and movement ids of cell 2, and its item, order, customers and movements are read back through the API', async () => {
    const url = urlOf('cell2');
    const knex = open(url);
    for (const s of await sequences(knex)) {
      const range = cellRange(2, 4, s.data_type === 'bigint' ? 'bigint' : 'integer');
      expect([s.sequencename, s.min_value, s.max_value], s.sequencename).to.deep.equal([s.sequencename, String(range.first), String(range.last)]);
    }
    await useCell(url, 2, 4);
    const { seller, stockId, orderId, ids } = await sellerWithOrder(knex);
    const int4 = cellRange(2, 4, 'integer');
    const int8 = cellRange(2, 4, 'bigint');
    for (const id of [seller.id, stockId, seller.portalAccountId, ...ids.person!, ...ids.portal_account!]) {
      expect(BigInt(id) >= int4.first && BigInt(id) <= int4.last, `${id} in ${int4.first}..${int4.last}`).to.equal(true);
    }
    for (const [table, list] of Object.entries(ids).filter(([table]) => ['sales_order', 'customer', 'stock_history'].includes(table))) {
      expect(list, table).to.have.length.above(0);
      for (const id of list) expect(BigInt(id) >= int8.first && BigInt(id) <= int8.last, `${table} ${id}`).to.equal(true);
    }
    expect(cellOfAccount(seller.id)).to.equal(2);
    // Ten-digit ids work wherever an id is taken: the item by its id in the path, the customer's
    // bigint internal_id exact in JSON.
    const item = await call(`stock/${stockId}/`, { token: seller.token });
    expect(item.status, item.text).to.equal(200);
    expect(Number((item.body.stock as { id: unknown }).id)).to.equal(stockId);
    const customers = await call('admin/customer/', { token: seller.token });
    expect(customers.status, customers.text).to.equal(200);
    expect((customers.body.customer as { internal_id: number }[]).map((c) => String(c.internal_id))).to.deep.equal(ids.customer);
    const order = await readOrder(seller, orderId);
    expect(order.line.map((l) => Number(l.id))).to.deep.equal([stockId]);
    const history = await call(`stock/${stockId}/history/`, { token: seller.token });
    expect(history.status, history.text).to.equal(200);
    expect(JSON.stringify(history.body)).to.include(ids.stock_history![0]!);
  });

  it("when a second database is migrated as cell 3 of 4, then its sellers get ids of cell 3, apart from cell 2's", async () => {
    const url2 = urlOf('cell2');
    const url3 = urlOf('cell3');
    await useCell(url3, 3, 4);
    const three = await sellerWithOrder(open(url3));
    await useCell(url2, 2, 4);
    const two = await sellerWithOrder(open(url2));
    expect(cellOfAccount(three.seller.id, 4)).to.equal(3);
    expect(cellOfAccount(two.seller.id, 4)).to.equal(2);
    expect(cellOfId(three.stockId, 4)).to.equal(3);
    for (const table of Object.keys(three.ids)) {
      expect(three.ids[table], table).to.have.length.above(0);
      for (const id of three.ids[table]!)
        expect(cellOfId(id, 4, ['sales_order', 'customer', 'stock_history'].includes(table) ? 'bigint' : 'integer'), `${table} ${id}`).to.equal(3);
      expect(
        three.ids[table]!.filter((id) => two.ids[table]!.includes(id)),
        table,
      ).to.deep.equal([]);
    }
  });

  it('when a cell is migrated again, then no sequence changes (min, max and the next id stay)', async () => {
    const url = urlOf('cell2');
    const knex = open(url);
    const before = await sequences(knex);
    expect(await migrateDatabase(url, { id: 2, count: 4 })).to.deep.equal([]);
    expect(await sequences(knex)).to.deep.equal(before);
    // Through the Procfile's release line too.
    const viaCli = await kontorAs(url, 2, 4, 'migrate');
    expect(viaCli.code, viaCli.err).to.equal(0);
    expect(await sequences(knex)).to.deep.equal(before);
  });

  it('when a database whose ids lie outside the range is migrated as cell 2 of 4, then it is refused naming the sequence, and nothing changes', async () => {
    const url = urlOf('cell_single');
    await useCell(url, 0, 1);
    await newSeller();
    const knex = open(url);
    const before = await sequences(knex);
    const refusal = await migrateDatabase(url, { id: 2, count: 4 }).then(
      () => undefined,
      (err: Error) => err,
    );
    expect(refusal?.message).to.match(/cell 2 of 4: sequence account_id_seq: account\.id holds ids 1\.\.1, outside the cell's range 1073741825\.\.1610612736/);
    expect(await sequences(knex)).to.deep.equal(before);
    const cli = await kontorAs(url, 2, 4, 'migrate');
    expect(cli.code).to.equal(1);
    expect(cli.err).to.match(/^kontor: cell 2 of 4: sequence account_id_seq: account\.id holds ids 1\.\.1/);
    expect(await sequences(knex)).to.deep.equal(before);
  });

  it("when CELL_COUNT is 1, then migrate leaves every sequence as PostgreSQL made it (from 1 to the type's maximum)", async () => {
    const knex = open(urlOf('cell_single'));
    const states = await sequences(knex);
    expect(states).to.have.length.above(0);
    for (const s of states) {
      expect([s.sequencename, s.min_value, s.max_value]).to.deep.equal([s.sequencename, '1', s.data_type === 'bigint' ? int8Max : int4Max]);
    }
  });

  it("tokens and consent states: with several cells an access token or a consent link's state names its account, which the router maps to the cell (moved accounts by its list); with one cell tokens and states are as before", async () => {
    await useCell(urlOf('cell2'), 2, 4);
    const seller = await newSeller();
    expect(seller.token).to.match(new RegExp(`^a${seller.id}_kat_[A-Za-z0-9_-]{43}$`));
    expect(accountOfRouteKey(seller.token)).to.equal(seller.id);
    expect(cellOfRouteKey(seller.token)).to.equal(2);
    expect(cellOfRouteKey(seller.token, new Map([[seller.id, 3]]))).to.equal(3);
    const answer = await call('stock/', { token: seller.token });
    expect(answer.status, answer.text).to.equal(200);
    // A consent link's state, which comes back to the public /connect/... callbacks, the same way.
    const state = await issueConsentState({ accountId: seller.id, portalAccountId: seller.portalAccountId, connector: 'ebay' });
    expect(state).to.match(new RegExp(`^a${seller.id}_[A-Za-z0-9_-]{43}$`));
    expect(cellOfRouteKey(state)).to.equal(2);
    expect(await takeConsentState(state, 'ebay')).to.deep.include({ accountId: seller.id, portalAccountId: seller.portalAccountId });
    expect(await takeConsentState(state, 'ebay')).to.equal(undefined);
    await useCell(urlOf('cell_single'), 0, 1);
    const single = await newSeller();
    expect(single.token).to.match(/^kat_[A-Za-z0-9_-]{43}$/);
    expect(cellOfRouteKey(single.token, new Map(), 4)).to.equal(0);
    expect(await issueConsentState({ accountId: single.id, portalAccountId: single.portalAccountId, connector: 'ebay' })).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(accountOfRouteKey('a99999999999_kat_x')).to.equal(undefined);
  });
});

/** `kontor <args>` against a database as the cell given. */
async function kontorAs(url: string, cellId: number, cellCount: number, ...args: string[]) {
  const savedEnv = { ...process.env };
  process.env.CELL_ID = String(cellId);
  process.env.CELL_COUNT = String(cellCount);
  const before = config();
  setConfig({ ...before, databaseUrl: url });
  try {
    return await kontor(...args);
  } finally {
    setConfig(before);
    process.env = savedEnv;
  }
}
