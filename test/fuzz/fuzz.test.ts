/**
 * Fuzz: a few thousand hostile requests across every declared endpoint (server/routes), one at a
 * time per seller, asserting what issue 13 asks of the whole interface: no 5xx, an answer within
 * a bound (no hang), no stack trace or source path in any answer, an error envelope on every
 * 4xx whose 400 items name their field, no row of the sellers changed by a 4xx, and no row of
 * another seller changed by any request. Requests carry another seller's ids as well as the
 * caller's, and some a token of a client with one read scope bound to one portal account.
 * Seeded: a failure prints its seed, and FUZZ_SEED=<seed> repeats the run.
 */
import { expect } from 'chai';
import { XMLParser } from 'fast-xml-parser';
import { db } from '../../lib/db/knex';
import { describe as describeSchema } from '../../lib/http/describe';
import type { Endpoint } from '../../lib/http/endpoint';
import { endpoints } from '../../server/routes';
import { apiBase, call, newSeller, query, Seller } from '../support/api';
import { orderBody } from '../order/helpers';
import { clientToken } from '../support/bound-client';
import { createClient } from '../../lib/auth/client.service';
import { hostileBody, hostileId, hostileQuery, Prng, shapedValue } from './hostile';

const seed = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const maxRequests = Number(process.env.FUZZ_REQUESTS ?? 2_500);
/** A bound on the run, not an assertion: the loop stops early on a slow machine, once it sent minRequests. */
const maxMilliseconds = 40_000;
/**
 * Sent whatever the time: on the shared 2-core machine a run under load sent 425 in the 40 s
 * (FUZZ_SEED=469574258, 578126836, with nothing wrong) and failed its "more than 500" as a timing
 * assert would; the test's timeout bounds the run instead.
 */
const minRequests = Math.min(maxRequests, 501);
/** A request not answered within this is a hang. */
const answerWithinMs = 15_000;
const xml = new XMLParser({ parseTagValue: false, ignoreAttributes: true });

interface Target {
  seller: Seller;
  ids: string[];
  /** A client's token with one read scope, bound to the seller's portal account: another scope's token. */
  narrow: string;
}

async function seed_(seller: Seller): Promise<Target> {
  const stock = await call('stock/', { token: seller.token, body: { stock: { name: 'fuzz item', quantity: 3 } } });
  const order = await call('order/', { token: seller.token, body: { order: { customer: { email: 'buyer@example.com' } } } });
  expect([stock.status, order.status], order.text).to.deep.equal([201, 201]);
  const narrow = await clientToken(seller, `fuzz-narrow-${seller.id}`, seller.portalAccountId, 'stock_r');
  return { seller, ids: [String(stock.body.stock_id), String(order.body.order_id), String(seller.portalAccountId)], narrow };
}

/** Every row of the sellers in every tenant table, as one digest per table and seller ("table account"). */
async function snapshot(tables: string[], accountIds: number[]): Promise<Record<string, string>> {
  const sql = tables
    .map(
      (t) =>
        `select '${t} ' || x.account_id as t, md5(coalesce(string_agg(x::text, '|' order by x::text), '')) as d from "${t}" x where account_id = any(?) group by x.account_id`,
    )
    .join(' union all ');
  const { rows } = (await db().raw(
    sql,
    tables.map(() => accountIds),
  )) as { rows: { t: string; d: string }[] };
  return Object.fromEntries(rows.map((r) => [r.t, r.d]));
}

/** The digests that differ between two snapshots (a table and seller that has rows in one only differs too). */
function changedIn(before: Record<string, string>, after: Record<string, string>): string[] {
  return [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => before[k] !== after[k]);
}

/** What an answer must never show: a stack frame or a path of the service's source. */
const leak = /\bat [\w.<>]+ \(|\.ts:\d+|node_modules|\/work\/|Error: .*\n\s+at /;

function pathOf(r: Prng, e: Endpoint, ids: string[]): string {
  return e.path.replace(/\{\w+\}/g, () => hostileId(r, ids));
}

interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer | string;
}

function request(r: Prng, e: Endpoint, target: Target, other: Target): Sent {
  const headers: Record<string, string> = {};
  if (e.auth && r.chance(0.97)) headers.Authorization = `Bearer ${r.chance(0.15) ? target.narrow : target.seller.token}`;
  if (!e.auth && r.chance(0.5)) {
    const credentials = r.pick([`${target.seller.login}:${target.seller.password}`, `${target.seller.login}\u0000:x`, 'a:\ud800', ':', 'x'.repeat(3_000)]);
    headers.Authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
  }
  if (r.chance(0.25)) headers.Accept = r.pick(['application/xml', 'text/xml', 'application/json;q=0.1, application/xml', '*/*']);
  if (r.chance(0.15)) headers['Accept-Charset'] = r.pick(['ISO-8859-15', 'latin1', 'utf-16', 'bogus']);
  const method = r.chance(0.03) ? r.pick(['PUT', 'PATCH', 'OPTIONS']) : e.method;
  // Another seller's ids now and then: a stock item, an order, a portal account not the caller's.
  let path = pathOf(r, e, r.chance(0.25) ? other.ids : target.ids);
  if (e.method !== 'POST' || r.chance(0.1)) {
    const filters = Object.keys(e.search?.filters ?? {});
    const type = e.search?.type ?? e.select?.type ?? e.query;
    const selects = type ? Object.keys(describeSchema(type).keys ?? {}) : [];
    const query = hostileQuery(r, filters, selects).slice(0, 8_000);
    if (query) path += `?${query}`;
  }
  if (e.method === 'POST' || (method !== 'GET' && r.chance(0.3))) {
    const body = hostileBody(r, shapedValue(r, e.body ? describeSchema(e.body) : undefined));
    return { method, path, headers: { ...headers, ...body.headers }, ...(body.bytes !== undefined ? { body: body.bytes } : {}) };
  }
  return { method, path, headers };
}

/** The error items of an answer in JSON or XML. */
function errorItems(text: string, contentType: string): { ack?: unknown; error?: { error?: unknown; code?: unknown; field?: unknown }[] } {
  if (contentType.includes('xml')) {
    const response = xml.parse(text).response ?? {};
    // One error item is one element, several are repeated elements.
    return { ack: response.ack, error: response.error === undefined ? undefined : [].concat(response.error) };
  }
  return JSON.parse(text);
}

describe('fuzz: hostile requests across every endpoint', function () {
  this.timeout(180_000);

  /**
   * The refusals seeded runs found naming no field, sent on purpose: each 400 must name what to
   * correct (before, the body's and the path's refusals named nothing, and an undecodable path
   * parameter answered "the request could not be read").
   */
  it('when a body is not JSON, not an object, XML with a DOCTYPE, not decodable as its Content-Encoding, a statement that is none, a path parameter does not decode, or a query or form key names a property of Object.prototype (qs drops those), then 400 names the body, the header, the parameter or the key, and nothing changes', async () => {
    const seller = await newSeller();
    const json = { 'Content-Type': 'application/json' };
    const cases: { path: string; method?: string; body?: string; headers?: Record<string, string>; field: string }[] = [
      { path: 'stock/', body: '{"stock":', headers: json, field: 'body' },
      { path: 'stock/', body: '[{"stock":{}}]', headers: json, field: 'body' },
      {
        path: 'stock/',
        body: '<!DOCTYPE r [<!ENTITY a "b">]><request><stock><name>&a;</name></stock></request>',
        headers: { 'Content-Type': 'application/xml' },
        field: 'body',
      },
      { path: 'stock/', body: '<request><stock><name>x</name></stock>', headers: { 'Content-Type': 'application/xml' }, field: 'body' },
      { path: 'bank/statement/', body: 'mailto:a@b', headers: { 'Content-Type': 'text/plain' }, field: 'body' },
      { path: 'stock/a%ED%A0%80/', field: 'stock_id' },
      { path: 'order/%E0%A4%A/history/', method: 'POST', body: '{"text":"x"}', headers: json, field: 'order_id' },
      // qs dropped these keys without a word: the request was answered as if they were not sent.
      { path: 'stock/?constructor[prototype][x]=1', field: 'constructor[prototype][x]' },
      { path: 'stock/?select[__proto__][name]=1', field: 'select[__proto__][name]' },
      { path: 'stock/?select[%63onstructor]=1', field: 'select[constructor]' },
      // qs drops every name of Object.prototype, not only those three (found by a reviewer of ab1bfaa): every field, as if no select was sent.
      { path: 'stock/?select[toString]=1', field: 'select[toString]' },
      { path: 'stock/?valueOf=1', field: 'valueOf' },
      {
        path: 'stock/',
        body: 'stock[name]=x&stock[hasOwnProperty]=1',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        field: 'stock[hasOwnProperty]',
      },
      // fast-xml-parser renamed this one __toString without a word (found by a reviewer of ab1bfaa).
      {
        path: 'stock/',
        body: '<request><stock><name>x</name><toString>1</toString></stock></request>',
        headers: { 'Content-Type': 'application/xml' },
        field: 'stock.toString',
      },
      // A body its Content-Encoding does not decode, an encoding not read, an MT940 whose :20: is indented (found by a reviewer of 60a91fb: no field).
      { path: 'stock/', body: '{"stock":{"name":"x"}}', headers: { ...json, 'Content-Encoding': 'gzip' }, field: 'body' },
      { path: 'stock/', body: '{"stock":{"name":"x"}}', headers: { ...json, 'Content-Encoding': 'compress' }, field: 'Content-Encoding' },
      { path: 'bank/statement/', body: ' :20:STMT\n', headers: { 'Content-Type': 'text/plain' }, field: 'body' },
      // A rule over the whole body ('at least one of'): its item named field '' (FUZZ_SEED=355347606, fixed in 18774bd).
      { path: `admin/portal_account/${seller.portalAccountId}/take_over/`, body: '{}', headers: json, field: 'listing_id,sku' },
    ];
    const before = await snapshot(['stock'], [seller.id]);
    for (const c of cases) {
      const res = await call(c.path, {
        token: seller.token,
        method: c.method ?? (c.body === undefined ? 'GET' : 'POST'),
        ...(c.body !== undefined ? { body: c.body } : {}),
        headers: c.headers ?? {},
      });
      const items = (res.body as { error?: { field?: string }[] }).error ?? [];
      expect([res.status, items[0]?.field], `${c.path} ${c.body ?? ''}: ${res.text}`).to.deep.equal([400, c.field]);
      expect(res.text, 'no internals in the answer').not.to.match(leak);
    }
    expect(await snapshot(['stock'], [seller.id])).to.deep.equal(before);
  });

  /**
   * token.php's refusals under RFC 6749 5.2 named no field (found by the random pass: FUZZ_SEED=2782380 and 343208678 sent
   * Basic credentials and a username in the body): each names the parameter to correct.
   */
  it('when token.php refuses a parameter (a username or client_id beside Basic naming another, a secret beside Basic, an unknown scope, a client using a seller grant, an unknown code or refresh token), then the 400 names that parameter', async () => {
    const seller = await newSeller();
    const client = await createClient('fuzz-token-fields', 'https://fuzz-token-fields.example.com/cb');
    const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    const asSeller = { Authorization: basic(seller.login, seller.password), 'Content-Type': 'application/x-www-form-urlencoded' };
    const asClient = { Authorization: basic(client.client_id, client.client_secret), 'Content-Type': 'application/x-www-form-urlencoded' };
    const cases: [Record<string, string>, string, string, string][] = [
      [asSeller, 'grant_type=client_credentials&username=someone-else', 'invalid_request', 'username'],
      [asSeller, 'grant_type=client_credentials&client_id=someone-else', 'invalid_request', 'client_id'],
      [asSeller, 'grant_type=client_credentials&client_secret=x', 'invalid_request', 'client_secret'],
      [asSeller, 'grant_type=client_credentials&password=x', 'invalid_request', 'password'],
      [asSeller, 'grant_type=client_credentials&scope=stock_r%20nope', 'invalid_scope', 'scope'],
      [asClient, 'grant_type=client_credentials', 'unauthorized_client', 'grant_type'],
      [asClient, 'grant_type=authorization_code&code=kac_unknown', 'invalid_grant', 'code'],
      [asClient, 'grant_type=refresh_token&refresh_token=krt_unknown', 'invalid_grant', 'refresh_token'],
    ];
    for (const [headers, body, error, field] of cases) {
      const res = await call('token.php', { headers, body });
      expect([body, res.status, res.body.error?.[0]?.error, res.body.error?.[0]?.field], res.text).to.deep.equal([body, 400, error, field]);
    }
  });

  it("when a seller's well-formed requests name another seller's stock item, order and portal account, in the path, the body or a filter, then each is refused as absent (or finds nothing), no 5xx, and the other seller's rows are unchanged", async () => {
    const [mine, theirs] = [await seed_(await newSeller()), await seed_(await newSeller())];
    const [stockId, , portalAccountId] = theirs.ids;
    // Order ids are numbered per seller (document 1: <order_number>_<YYYY>_<MM>): their second order's id is one the caller has none of.
    // At 40.00, what the transfer below sends: a payment of less paid no order (is_order_paid '0' whatever the scoping, found by a reviewer of b51b8dc).
    const orderId = (await call('order/', { token: theirs.seller.token, body: { order: orderBody({ line: [{ id: 1, price: '40.00', quantity: 1 }] }) } })).body
      .order_id as string;
    const token = mine.seller.token;
    const { rows } = (await db().raw(
      `select table_name as t from information_schema.columns where column_name = 'account_id' and table_schema = current_schema() order by 1`,
    )) as { rows: { t: string }[] };
    const tables = rows.map((row) => row.t);
    const before = await snapshot(tables, [theirs.seller.id]);
    const refused: [string, { method?: string; body?: Record<string, unknown> }, number][] = [
      [`stock/${stockId}/`, {}, 404],
      [`stock/${stockId}/`, { body: { stock: { name: 'taken', quantity: 99 } } }, 404],
      [`stock/${stockId}/`, { method: 'DELETE' }, 404],
      [`stock/${stockId}/cia/`, { body: {} }, 404],
      [`stock/${stockId}/history/`, {}, 404],
      [`stock/${stockId}/description/`, { body: { description: { language_iso2: 'de', short: 'x' } } }, 404],
      [`stock/${stockId}/portal_upload/`, { body: { portal_upload: { shop_g: [{ portal_account_id: Number(portalAccountId), action: 'list' }] } } }, 404],
      [`order/${orderId}/`, {}, 404],
      [`order/${orderId}/`, { body: { order: { status: { is_shipped: true } } } }, 404],
      [`order/${orderId}/`, { method: 'DELETE' }, 404],
      [`order/${orderId}/history/`, { body: { text: 'taken' } }, 404],
      [`order/${orderId}/send_mit/`, { body: { send_mit: {} } }, 404],
      [`admin/portal_account/${portalAccountId}/`, {}, 404],
      ['order/', { body: { order: orderBody({ line: [{ id: 1, stock_align_id: `ID_${stockId}`, quantity: 1, price: '1.00' }] }) } }, 404],
      ['stock/', { body: { stock: { name: 'x', cia: { market_d: { is_active: true, portal_account_id: [Number(portalAccountId)] } } } } }, 400],
      [`stock/?${query({ portal_account_id: portalAccountId })}`, {}, 400],
    ];
    const answers: string[] = [];
    for (const [path, options, status] of refused) {
      const res = await call(path, { token, ...options });
      if (res.status !== status)
        answers.push(`${options.method ?? (options.body ? 'POST' : 'GET')} ${path} → ${res.status}, expected ${status}: ${res.text.slice(0, 300)}`);
      expect(res.text).not.to.match(leak);
    }
    // Reads and a transfer that name them find nothing of theirs.
    const stock = await call(`stock/?${query({ filter: { id: stockId } })}`, { token });
    const orders = await call(`order/?${query({ filter: { id: orderId } })}`, { token });
    expect([stock.status, stock.body.stock, orders.status, orders.body.order], `${stock.text} ${orders.text}`).to.deep.equal([200, [], 200, []]);
    const paying = await call('bank/transfer/', {
      token,
      body: { bank: { transfer_date: '2026-11-20 09:15:00', sender: 'X', subject: `Order ${orderId}`, amount: 40 } },
    });
    expect(paying.body.is_order_paid, paying.text).to.equal('0');
    expect(answers).to.deep.equal([]);
    expect(await snapshot(tables, [theirs.seller.id]), 'the other seller’s rows').to.deep.equal(before);
  });

  it('when thousands of hostile requests are sent, then none is a 5xx, every 4xx has an error envelope, and no 4xx changes data', async () => {
    const r = new Prng(seed);
    const targets: Target[] = [];
    for (let i = 0; i < 6; i++) targets.push(await seed_(await newSeller()));
    const accountIds = targets.map((t) => t.seller.id);
    const { rows } = (await db().raw(
      `select table_name as t from information_schema.columns where column_name = 'account_id' and table_schema = current_schema() order by 1`,
    )) as { rows: { t: string }[] };
    const tables = rows.map((row) => row.t);
    const base = await apiBase();
    const failures: string[] = [];
    let before = await snapshot(tables, accountIds);
    const started = Date.now();
    let sent = 0;
    for (; sent < maxRequests && (sent < minRequests || Date.now() - started < maxMilliseconds) && failures.length < 10; sent++) {
      const e = r.pick(endpoints);
      r.budget = 40_000;
      const target = targets[sent % targets.length]!;
      const req = request(r, e, target, targets[(sent + 1) % targets.length]!);
      const url = `${base}/${r.chance(0.9) ? 'v1.1' : r.pick(['v0.5', 'v1.0'])}/${req.path}`;
      const shown = `${req.path.slice(0, 300)} ${String(req.body ?? '').slice(0, 300)}`;
      let res: Response;
      let text: string;
      try {
        res = await fetch(url, { method: req.method, headers: req.headers, body: req.body, redirect: 'manual', signal: AbortSignal.timeout(answerWithinMs) });
        text = await res.text();
      } catch (err) {
        failures.push(`#${sent} ${req.method} ${e.path}: no answer within ${answerWithinMs} ms (${(err as Error).name}): ${shown}`);
        break;
      }
      const where = `#${sent} ${req.method} ${e.path} → ${res.status}`;
      if (res.status >= 500) failures.push(`${where}: ${shown} → ${text.slice(0, 300)}`);
      if (leak.test(text)) failures.push(`${where}: the answer shows the service's internals: ${text.slice(0, 300)}`);
      // A GET or OPTIONS changes nothing, so the snapshot before it still holds (and saves time).
      const after = req.method === 'GET' || req.method === 'OPTIONS' ? before : await snapshot(tables, accountIds);
      if (res.status >= 400 && res.status < 500) {
        let envelope: ReturnType<typeof errorItems> = {};
        try {
          envelope = errorItems(text, res.headers.get('content-type') ?? '');
        } catch {
          /* judged below */
        }
        const items = envelope.error ?? [];
        if (envelope.ack !== 'error' || !items.length || !items.every((i) => typeof i.error === 'string' && Number(i.code) >= 300)) {
          failures.push(`${where}: no error envelope: ${text.slice(0, 300)}`);
        }
        // A 400 tells the client what to correct: each item names its field (document 1: malformed request).
        if (res.status === 400 && !items.every((i) => typeof i.field === 'string' && i.field !== '')) {
          failures.push(`${where}: a 400 item names no field: ${text.slice(0, 300)} ← ${shown}`);
        }
        const changed = changedIn(before, after);
        if (changed.length) failures.push(`${where}: a 4xx changed ${changed.join(', ')}: ${shown.slice(0, 400)}`);
      } else {
        // Whatever the answer, no other seller's rows change: a request acts on its caller's account only.
        const foreign = changedIn(before, after).filter((k) => !k.endsWith(` ${target.seller.id}`));
        if (foreign.length) failures.push(`${where}: another seller's rows changed (${foreign.join(', ')}): ${shown.slice(0, 400)}`);
      }
      before = after;
    }
    console.log(`      fuzz: ${sent} requests in ${Date.now() - started} ms, FUZZ_SEED=${seed}`);
    expect(failures, `FUZZ_SEED=${seed} (${sent} requests)\n${failures.join('\n')}`).to.deep.equal([]);
    expect(sent, `FUZZ_SEED=${seed}`).to.be.greaterThan(500);
  });
});
