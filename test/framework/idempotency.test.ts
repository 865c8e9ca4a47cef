import { expect } from 'chai';
import crypto from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { config } from '../../config';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { setClock } from '../../lib/clock';
import { db } from '../../lib/db/knex';
import { DomainError, retryLater } from '../../lib/errors';
import { created, endpoint } from '../../lib/http/endpoint';
import { Joi } from '../../lib/http/schema';
import { endpoints } from '../../server/routes';
import { createApp } from '../../server/app';
import { apiBase, call, newSeller, RequestOptions, Seller, withConcurrentCalls } from '../support/api';
import { giveInvoiceDetails } from '../support/invoicing';
import { freePort, runEntry } from '../support/process';
import { fixture } from '../bank/fixtures';

const newKey = () => crypto.randomUUID();

/** Rows of the seller everywhere: every table with account_id, and order history (scoped through its order). */
async function rowsOf(seller: Seller): Promise<Record<string, number>> {
  const tables = (
    await db()('information_schema.columns')
      .where({ table_schema: 'public', column_name: 'account_id' })
      .whereNot({ table_name: 'idempotency_key' })
      .select('table_name')
  ).map((r: { table_name: string }) => r.table_name);
  const counts: Record<string, number> = {};
  for (const table of tables) counts[table] = Number((await db()(table).where({ account_id: seller.id }).count({ n: '*' }))[0]!.n);
  const history = await db()('sales_order_history as h')
    .join('sales_order as o', 'o.internal_id', 'h.order_internal_id')
    .where('o.account_id', seller.id)
    .count({ n: '*' });
  counts.sales_order_history = Number(history[0]!.n);
  return counts;
}

interface Case {
  /** Makes what the request needs; returns the path and the request. */
  prepare(seller: Seller): Promise<{ path: string; options: RequestOptions }>;
}

const orderOf = async (seller: Seller): Promise<string> => {
  const res = await call('order/', { token: seller.token, body: { order: { customer: { email: 'buyer@example.com' } } } });
  expect(res.status, res.text).to.equal(201);
  return res.body.order_id as string;
};

const stockOf = async (seller: Seller, stock: Record<string, unknown> = { name: 'Lamp', sku: 'LAMP-1', quantity: 4 }): Promise<number> => {
  const res = await call('stock/', { token: seller.token, body: { stock } });
  expect(res.status, res.text).to.equal(201);
  return res.body.stock_id as number;
};

const json = (body: unknown) => ({ body });

const webhookHandler = {
  event_handler: {
    type: { id: 'created' },
    section: 'order',
    action: { id: 'notification', required: { url: 'https://receiver.example/hooks/kontor', format: 'post', target_name: 'erp' } },
  },
};

/** One request per endpoint declared `creates`, doing real work. */
const cases: Record<string, Case> = {
  'order/': { prepare: async () => ({ path: 'order/', options: json({ order: { customer: { email: 'a@example.com' } } }) }) },
  'order/list/': {
    prepare: async () => ({
      path: 'order/list/',
      options: json({ order: [{ customer: { email: 'a@example.com' } }, { customer: { email: 'b@example.com' } }] }),
    }),
  },
  'order/{order_id}/history/': { prepare: async (s) => ({ path: `order/${await orderOf(s)}/history/`, options: json({ text: 'called the buyer' }) }) },
  'order/{order_id}/invoice/': { prepare: async (s) => ({ path: `order/${await orderOf(await giveInvoiceDetails(s))}/invoice/`, options: json({}) }) },
  'order/{order_id}/send_mit/': {
    async prepare(s) {
      const account = await createPortalAccount(s.id, { name: 'auction shop', platform: 'auction_a' });
      const res = await call('order/', {
        token: s.token,
        body: {
          portal_account_id: account.id,
          order: {
            platform: 'auction_a',
            customer: { email: 'a@example.com' },
            line: [{ id: 1, name: 'cup', quantity: 1, price: '9.90', transaction_id: 'T-1' }],
          },
        },
      });
      expect(res.status, res.text).to.equal(201);
      return { path: `order/${res.body.order_id}/send_mit/`, options: json({ send_mit: { deliverer: 'DHL', code: '00340434161094042557' } }) };
    },
  },
  'stock/': { prepare: async () => ({ path: 'stock/', options: json({ stock: { name: 'Cup', sku: 'CUP-1', quantity: 3 } }) }) },
  'stock/list/': {
    prepare: async () => ({
      path: 'stock/list/',
      options: json({
        stock: [
          { name: 'A', sku: 'A-1' },
          { name: 'B', sku: 'B-1' },
        ],
      }),
    }),
  },
  'stock/{stock_id}/cia/': { prepare: async (s) => ({ path: `stock/${await stockOf(s)}/cia/`, options: { method: 'POST' } }) },
  'stock/{stock_id}/portal_upload/': {
    async prepare(s) {
      const id = await stockOf(s, { name: 'Lamp', price: '19.90', quantity: 4, auction_a: [{ name: 'Desk lamp', price: '19.90', duration: 'GTC' }] });
      return { path: `stock/${id}/portal_upload/`, options: json({ portal_upload: { auction_a: [{ action: 'list' }] } }) };
    },
  },
  'stock/{stock_id}/description/': {
    prepare: async (s) => ({
      path: `stock/${await stockOf(s)}/description/`,
      options: json({ description: { name: 'main', icon_id: 'flag_de', language_iso2: 'DE', long: '<p>long</p>', short: 'short' } }),
    }),
  },
  'stock/category/': { prepare: async () => ({ path: 'stock/category/', options: json({ category: [{ platform: 'shop_g', id: '1', name: 'Kitchen' }] }) }) },
  'stock/shop_parameter/': {
    prepare: async () => ({ path: 'stock/shop_parameter/', options: json({ shop_parameter: { type: 'tax_class', name: 'standard' } }) }),
  },
  'bank/transfer/': {
    prepare: async () => ({
      path: 'bank/transfer/',
      options: json({ bank: { transfer_date: '2026-11-20T10:00:00Z', sender: 'Anna Berg', subject: 'thanks', amount: '10.00' } }),
    }),
  },
  'bank/statement/': {
    prepare: async () => ({ path: 'bank/statement/', options: { body: fixture('camt053.001.08.xml'), headers: { 'Content-Type': 'application/xml' } } }),
  },
  'task/': { prepare: async () => ({ path: 'task/', options: json({ task: { title: 'call back' } }) }) },
  'admin/event/handler/': { prepare: async () => ({ path: 'admin/event/handler/', options: json(webhookHandler) }) },
  'admin/event/handler/{event_handler_id}/delivery/{delivery_id}/redeliver/': {
    async prepare(seller) {
      const handler = await call('admin/event/handler/', { method: 'POST', token: seller.token, body: webhookHandler });
      // A delivery as the events worker records one (no worker runs in this test).
      const [delivery] = await db()('webhook_delivery')
        .insert({
          id: crypto.randomUUID(),
          account_id: seller.id,
          handler_id: handler.body.event_handler_id,
          event_id: '1',
          section: 'order',
          type: 'created',
          body: '{}',
          state: 'delivered',
        })
        .returning('id');
      return { path: `admin/event/handler/${handler.body.event_handler_id}/delivery/${delivery.id}/redeliver/`, options: {} };
    },
  },
};

const send = (seller: Seller, path: string, options: RequestOptions, key?: string) =>
  call(path, { ...options, method: 'POST', token: seller.token, headers: { ...options.headers, ...(key ? { 'Idempotency-Key': key } : {}) } });

const createTask = (seller: Seller, key: string | undefined, task: Record<string, unknown> = { title: 'call back' }, extra: RequestOptions = {}) =>
  send(seller, 'task/', { body: { task }, ...extra }, key);

const taskCount = async (seller: Seller) => Number((await db()('task').where({ account_id: seller.id }).count({ n: '*' }))[0]!.n);

/** Waits (polling PostgreSQL) until the key is held by a running request. */
async function whenRunning(seller: Seller, key: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const row = await db()('idempotency_key').where({ account_id: seller.id, key }).first('status');
    if (row && row.status === null) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('the first request never claimed its key');
}

describe('Idempotency-Key (POSTs that create or trigger)', function () {
  this.timeout(60000);

  afterEach(() => setClock(undefined));

  it('when the endpoints are read, then exactly the creating POSTs are declared creates, and each has a case here', () => {
    const declared = endpoints.filter((e) => e.creates).map((e) => e.path);
    expect(declared.sort()).to.deep.equal(Object.keys(cases).sort());
    expect(endpoints.filter((e) => e.creates).every((e) => e.method === 'POST')).to.equal(true);
  });

  for (const [path, c] of Object.entries(cases)) {
    it(`when POST ${path} is sent twice with one key, then the second answers the first answer and changes no row`, async () => {
      const seller = await newSeller();
      const { path: url, options } = await c.prepare(seller);
      const key = newKey();
      const before = await rowsOf(seller);
      const first = await send(seller, url, options, key);
      expect(first.status, first.text).to.be.within(200, 299);
      const afterFirst = await rowsOf(seller);
      expect(afterFirst, 'the first call did work').to.not.deep.equal(before);
      expect(first.headers.get('idempotent-replayed')).to.equal(null);

      const second = await send(seller, url, options, key);
      expect(second.status).to.equal(first.status);
      expect(second.body).to.deep.equal(first.body);
      expect(second.headers.get('location')).to.equal(first.headers.get('location'));
      expect(second.headers.get('idempotent-replayed')).to.equal('true');
      expect(await rowsOf(seller), 'the second call did no work').to.deep.equal(afterFirst);
    });
  }

  it('when the key comes back with another body or another path, then 422 idempotency_key_reused naming the header, and nothing is done', async () => {
    const seller = await newSeller();
    const key = newKey();
    expect((await createTask(seller, key)).status).to.equal(201);
    const other = await createTask(seller, key, { title: 'something else' });
    expect(other.status).to.equal(422);
    expect(other.body.ack).to.equal('error');
    expect(other.body.error![0]).to.include({ error: 'idempotency_key_reused', field: 'Idempotency-Key', code: 422 });
    expect(other.body.error_description).to.be.a('string');
    const elsewhere = await send(seller, 'order/', { body: { order: { customer: { email: 'a@example.com' } } } }, key);
    expect(elsewhere.status).to.equal(422);
    expect(await taskCount(seller)).to.equal(1);
    expect(await db()('sales_order').where({ account_id: seller.id })).to.have.length(0);
  });

  it('when the same body comes as XML, with its keys in another order, then it is the same request and is replayed (as XML when asked)', async () => {
    const seller = await newSeller();
    const key = newKey();
    const first = await createTask(seller, key, { title: 'call back', priority: 'high' });
    expect(first.status, first.text).to.equal(201);
    const xml = '<?xml version="1.0" encoding="UTF-8"?><request><task><priority>high</priority><title>call back</title></task></request>';
    const again = await send(seller, 'task/', { body: xml, headers: { 'Content-Type': 'application/xml', Accept: 'application/xml' } }, key);
    expect(again.status).to.equal(201);
    expect(again.headers.get('content-type')).to.match(/^application\/xml/);
    expect(again.text).to.contain(`<task_id>${first.body.task_id}</task_id>`);
    expect(await taskCount(seller)).to.equal(1);
  });

  it('when a key is malformed, then 400 invalid_idempotency_key naming the header; a quoted key (the draft form) is the bare key', async () => {
    const seller = await newSeller();
    for (const bad of ['', 'has space', 'x'.repeat(256), 'quote"inside', 'é-umlaut']) {
      const res = await createTask(seller, undefined, undefined, { headers: { 'Idempotency-Key': bad } });
      expect(res.status, bad).to.equal(400);
      expect(res.body.error![0]).to.include({ error: 'invalid_idempotency_key', field: 'Idempotency-Key' });
    }
    expect(await taskCount(seller)).to.equal(0);
    const key = newKey();
    const first = await createTask(seller, key);
    const quoted = await createTask(seller, `"${key}"`);
    expect(quoted.body).to.deep.equal(first.body);
    expect(quoted.headers.get('idempotent-replayed')).to.equal('true');
    expect(await taskCount(seller)).to.equal(1);
  });

  it('when a request fails validation, then the key stays free: the corrected request with the same key runs', async () => {
    const seller = await newSeller();
    const key = newKey();
    const bad = await createTask(seller, key, { title: 'x', priority: 'urgent!' });
    expect(bad.status).to.equal(400);
    const good = await createTask(seller, key);
    expect(good.status).to.equal(201);
    expect(await taskCount(seller)).to.equal(1);
  });

  it('when two sellers send the same key, then each gets its own answer (keys are per account)', async () => {
    const [a, b] = [await newSeller(), await newSeller()];
    const key = newKey();
    const first = await createTask(a, key);
    const second = await createTask(b, key, { title: 'another title' });
    expect([first.status, second.status]).to.deep.equal([201, 201]);
    expect(second.headers.get('idempotent-replayed')).to.equal(null);
    expect([await taskCount(a), await taskCount(b)]).to.deep.equal([1, 1]);
  });

  it('when requests without a key repeat, then each does its work (the header is opt-in)', async () => {
    const seller = await newSeller();
    await createTask(seller, undefined);
    await createTask(seller, undefined);
    expect(await taskCount(seller)).to.equal(2);
  });

  describe('a duplicate while the first request runs (task table locked so the first waits)', () => {
    async function holdingTaskTable<T>(work: (release: () => Promise<void>) => Promise<T>): Promise<T> {
      const trx = await db().transaction();
      await trx.raw('LOCK TABLE task IN EXCLUSIVE MODE');
      let released = false;
      const release = async () => {
        if (!released) await trx.commit();
        released = true;
      };
      try {
        return await work(release);
      } finally {
        await release();
      }
    }

    it('when calls may run side by side, then the duplicate gets 409 idempotency_key_in_use with Retry-After, and after the first ends the replay', async () => {
      const seller = await newSeller();
      const key = newKey();
      await withConcurrentCalls(3, () =>
        holdingTaskTable(async (release) => {
          const first = createTask(seller, key);
          await whenRunning(seller, key);
          const duplicate = await createTask(seller, key);
          expect(duplicate.status).to.equal(409);
          expect(duplicate.body.error![0]).to.include({ error: 'idempotency_key_in_use', field: 'Idempotency-Key', code: 409 });
          expect(duplicate.headers.get('retry-after')).to.equal('1');
          // Another body under the running key is still another request.
          expect((await createTask(seller, key, { title: 'other' })).status).to.equal(422);
          await release();
          const answered = await first;
          expect(answered.status).to.equal(201);
          const replay = await createTask(seller, key);
          expect(replay.body).to.deep.equal(answered.body);
          expect(replay.headers.get('idempotent-replayed')).to.equal('true');
        }),
      );
      expect(await taskCount(seller)).to.equal(1);
    });

    it("when document 1's one call at a time applies, then the concurrency gate answers the duplicate first (429 too_many_concurrent_calls)", async () => {
      const seller = await newSeller();
      const key = newKey();
      await holdingTaskTable(async (release) => {
        const first = createTask(seller, key);
        await whenRunning(seller, key);
        const duplicate = await createTask(seller, key);
        expect(duplicate.status).to.equal(429);
        expect(duplicate.body.error![0]!.error).to.equal('too_many_concurrent_calls');
        await release();
        expect((await first).status).to.equal(201);
      });
      expect(await taskCount(seller)).to.equal(1);
    });
  });

  describe('answers a handler gives (a test endpoint)', () => {
    let server: Server;
    let base = '';
    let runs = 0;
    let outcome: 'created' | 'refused' | 'unavailable' | 'crash' = 'created';
    before(async () => {
      const probe = endpoint<Record<string, never>, { n: number }>({
        method: 'POST',
        path: 'test/idempotency_probe/',
        summary: 'test',
        creates: true,
        body: Joi.object({ n: Joi.number().integer() }),
        response: ['run'],
        async handle() {
          runs++;
          if (outcome === 'refused') throw new DomainError('invalid_field', 'the request is refused');
          if (outcome === 'unavailable') throw retryLater();
          if (outcome === 'crash') throw new Error('boom');
          return created({ run: runs });
        },
      });
      server = createApp([probe]).listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(() => new Promise((resolve) => server.close(resolve)));

    const probe = (seller: Seller, key: string) =>
      call('test/idempotency_probe/', { base, token: seller.token, body: { n: 1 }, headers: { 'Idempotency-Key': key } });

    it('when the handler refuses (4xx), then the refusal is kept and replayed without running again', async () => {
      const seller = await newSeller();
      const key = newKey();
      outcome = 'refused';
      const start = runs;
      const first = await probe(seller, key);
      expect(first.status).to.equal(400);
      outcome = 'created';
      const again = await probe(seller, key);
      expect(again.status).to.equal(400);
      expect(again.body).to.deep.equal(first.body);
      expect(runs - start).to.equal(1);
    });

    it('when the handler answers 503 or 500, then nothing is kept: the retry with the key runs and its answer is kept', async () => {
      const seller = await newSeller();
      for (const failure of ['unavailable', 'crash'] as const) {
        const key = newKey();
        outcome = failure;
        const start = runs;
        expect((await probe(seller, key)).status).to.equal(failure === 'unavailable' ? 503 : 500);
        outcome = 'created';
        const retry = await probe(seller, key);
        expect(retry.status).to.equal(201);
        const replay = await probe(seller, key);
        expect(replay.body).to.deep.equal(retry.body);
        expect(runs - start).to.equal(2);
      }
    });

    it('when 24 hours have passed, then the key is free again; within them the answer is replayed', async () => {
      const seller = await newSeller();
      const key = newKey();
      const start = runs;
      const t0 = Date.now();
      setClock(() => t0);
      const first = await probe(seller, key);
      setClock(() => t0 + 23 * 3600 * 1000);
      expect((await probe(seller, key)).body).to.deep.equal(first.body);
      expect(runs - start).to.equal(1);
      setClock(() => t0 + 24 * 3600 * 1000 + 1000);
      const later = await probe(seller, key);
      expect(later.status).to.equal(201);
      expect(later.headers.get('idempotent-replayed')).to.equal(null);
      expect(runs - start).to.equal(2);
    });
  });

  it('when the retry reaches a second web process (shared PostgreSQL), then it replays the first answer', async () => {
    const port = await freePort();
    const web = runEntry('server/index.ts', { PORT: String(port), DATABASE_URL: config().databaseUrl, QUEUE_PREFIX: config().queuePrefix, LOG_LEVEL: 'info' });
    try {
      await web.waitFor(/api listening/);
      const seller = await newSeller();
      const key = newKey();
      const first = await createTask(seller, key);
      expect(first.status).to.equal(201);
      const other = await createTask(seller, key, undefined, { base: `http://127.0.0.1:${port}` });
      expect(other.status).to.equal(201);
      expect(other.body).to.deep.equal(first.body);
      expect(other.headers.get('idempotent-replayed')).to.equal('true');
      expect(await taskCount(seller)).to.equal(1);
    } finally {
      await web.stop();
    }
  });

  it('when OPTIONS or openapi.json describe a creating POST, then they name the Idempotency-Key header and its 409/422; reads do not', async () => {
    const seller = await newSeller();
    const options = await call('task/', { method: 'OPTIONS', token: seller.token });
    const methods = (options.body.options as { methods: { method: string; headers?: Record<string, string> }[] }).methods;
    expect(methods.find((m) => m.method === 'POST')!.headers).to.have.key('Idempotency-Key');
    expect(methods.find((m) => m.method === 'GET')!.headers).to.equal(undefined);
    const doc = (await (await fetch(`${await apiBase()}/v1.1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { parameters: { name: string; in: string }[]; responses: Record<string, unknown> }>>;
    };
    for (const e of endpoints.filter((x) => x.creates)) {
      const op = doc.paths[`/${e.path}`]!.post!;
      expect(
        op.parameters.some((p) => p.name === 'Idempotency-Key' && p.in === 'header'),
        e.path,
      ).to.equal(true);
      expect(op.responses, e.path).to.include.keys('409', '422');
    }
    expect(doc.paths['/task/']!.get!.parameters.some((p) => p.name === 'Idempotency-Key')).to.equal(false);
    expect(doc.paths['/order/{order_id}/']!.post!.parameters.some((p) => p.name === 'Idempotency-Key')).to.equal(false);
  });
});
