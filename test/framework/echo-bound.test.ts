/**
 * What an error repeats of the client's text is bounded (lib/http echo-bound.ts, README "What an
 * error repeats"): a text sent longer than 100 characters appears as its first 100 and "…", in
 * the descriptions, field and error_description, JSON and XML, the parts of a 207 included; the
 * answer stays the 400 naming the field.
 */
import { expect } from 'chai';
import { boundEchoes } from '../../lib/http';
import { config } from '../../config';
import { call, newSeller, query, Seller } from '../support/api';
import { freePort, runEntry, Running } from '../support/process';
import { orderBody } from '../order/helpers';

const long = (start: string) => `${start}${'x'.repeat(5000 - start.length)}`;
const cut = (text: string) => `${text.slice(0, 100)}…`;

interface Item {
  error?: string;
  warning?: string;
  field?: string;
  description: string;
}

/** The texts of an answer that may repeat input: error[] and warning[] items, error_description, and the parts' items. */
function echoTexts(body: Record<string, unknown>): string[] {
  const items = (list: unknown) => ((list as Item[] | undefined) ?? []).flatMap((i) => [i.description, i.field ?? '']);
  const parts = (body.response as { error?: unknown; warning?: unknown }[] | undefined) ?? [];
  return [
    ...items(body.error),
    ...items(body.warning),
    String(body.error_description ?? ''),
    ...parts.flatMap((p) => [...items(p.error), ...items(p.warning)]),
  ];
}

/** No text of the answer holds more than the cut of `sent`, and the cut is there. */
function expectCut(body: Record<string, unknown>, sent: string): void {
  const texts = echoTexts(body);
  for (const text of texts) expect(text, 'an answer text repeats the whole value').to.not.include(sent.slice(0, 101));
  expect(
    texts.some((t) => t.includes(cut(sent))),
    JSON.stringify(body).slice(0, 2000),
  ).to.equal(true);
}

describe('what an error repeats of a long text sent is cut to 100 characters', () => {
  let seller: Seller;
  before(async () => {
    seller = await newSeller();
  });

  it('when a 5,000-character pagination[min_id] is sent, then 400 names pagination[min_id] and repeats its first 100 characters and …', async () => {
    const minId = long('1_2026_');
    const res = await call(`order/?${query({ pagination: { min_id: minId } })}`, { token: seller.token });
    expect(res.status, res.text.slice(0, 500)).to.equal(400);
    expect(res.body.error![0]).to.deep.include({ error: 'invalid_field', field: 'pagination[min_id]' });
    expectCut(res.body, minId);
    expect(res.body.error_description).to.include(`pagination[min_id] ${cut(minId)} `);
  });

  it('when a 5,000-character charset is sent in Content-Type, then 400 names Content-Type and repeats its first 100 characters and …', async () => {
    const charset = long('klingon-');
    const res = await call('admin/user/', { token: seller.token, body: '{}', headers: { 'Content-Type': `application/json; charset=${charset}` } });
    expect(res.status, res.text.slice(0, 500)).to.equal(400);
    expect(res.body.error![0]).to.deep.include({ error: 'unsupported_charset', field: 'Content-Type' });
    expectCut(res.body, charset);
  });

  it('when a long body value fails a pattern, then 400 names the field and repeats its cut, as Joi converted it (trimmed, upper case)', async () => {
    const country = ` ${long('de fr ')} `;
    const res = await call('order/', {
      token: seller.token,
      body: { order: orderBody({ customer: { email: 'buyer@example.com', address: { country_iso2: country } } }) },
    });
    expect(res.status, res.text.slice(0, 500)).to.equal(400);
    expect(res.body.error!.map((e) => e.field)).to.deep.equal(['order.customer.address.country_iso2']);
    expectCut(res.body, country.trim().toUpperCase());
    expect(res.body.error_description).to.match(/pattern/);
    const orders = await call('order/', { token: seller.token });
    expect(orders.body.order).to.deep.equal([]);
  });

  it('when a long unknown key is sent, then 400 names it cut in field, description and error_description', async () => {
    const key = long('nope_');
    const res = await call('order/', { token: seller.token, body: { order: { ...orderBody(), [key]: 1 } } });
    expect(res.status, res.text.slice(0, 500)).to.equal(400);
    expect(res.body.error![0]).to.deep.include({ error: 'invalid_field', field: `order.${cut(key)}` });
    expectCut(res.body, key);
    expect(res.body.error_description).to.equal(`order.${cut(key)} is not allowed`);
  });

  it('when the answer is XML, then it repeats the cut too', async () => {
    const key = long('nope_');
    const res = await call('order/', { token: seller.token, headers: { Accept: 'application/xml' }, body: { order: { ...orderBody(), [key]: 1 } } });
    expect(res.status).to.equal(400);
    expect(res.text).to.include(`<field>order.${cut(key)}</field>`);
    expect(res.text).to.not.include(key.slice(0, 101));
  });

  it('when a part of a 207 fails on a long unknown key, then its error, its part_failed warning and the other parts repeat the cut', async () => {
    const key = long('nope_');
    const res = await call('order/list/', { token: seller.token, body: { order: [orderBody(), { ...orderBody(), [key]: 1 }] } });
    expect(res.status, res.text.slice(0, 500)).to.equal(207);
    const parts = res.body.response as { code: number; error?: Item[] }[];
    expect(parts.map((p) => p.code)).to.deep.equal([201, 400]);
    expect(parts[1]!.error![0]).to.deep.include({ field: `order[1].${cut(key)}` });
    expect(res.body.warning![0]).to.deep.include({ warning: 'part_failed', field: 'order[1]' });
    expectCut(res.body, key);
    const all = await call('order/list/', { token: seller.token, body: { order: [{ ...orderBody(), [key]: 1 }] } });
    expect(all.status).to.equal(207);
    expect(all.body.ack).to.equal('error');
    expectCut(all.body, key);
  });

  it('when a long key of emoji is sent, then it is cut after 100 characters (code points), never inside one, and 60 emoji (120 UTF-16 units) are repeated whole', async () => {
    const key = `nope_${'😀'.repeat(150)}`;
    const res = await call('order/', { token: seller.token, body: { order: { ...orderBody(), [key]: 1 } } });
    expect(res.status).to.equal(400);
    const field = res.body.error![0]!.field!;
    expect(field).to.equal(`order.nope_${'😀'.repeat(95)}…`);
    expect(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(field), 'a lone surrogate').to.equal(false);
    expect(res.body.error_description).to.equal(`${field} is not allowed`);
    const shorter = `nope_${'😀'.repeat(60)}`;
    const whole = await call('order/', { token: seller.token, body: { order: { ...orderBody(), [shorter]: 1 } } });
    expect(whole.body.error![0]!.field).to.equal(`order.${shorter}`);
  });

  it('when a value sent is 100 characters or fewer, then it is repeated whole, without the mark', async () => {
    const key = long('nope_').slice(0, 100);
    const res = await call('order/', { token: seller.token, body: { order: { ...orderBody(), [key]: 1 } } });
    expect(res.status).to.equal(400);
    expect(res.body.error![0]!.field).to.equal(`order.${key}`);
    expect(res.body.error_description).to.equal(`order.${key} is not allowed`);
  });
});

describe('boundEchoes (lib/http echo-bound.ts)', () => {
  it('when texts sent recur anywhere in a description (twice, at its end, a word of a longer value), then each is cut and the rest kept', () => {
    const a = `a${'1'.repeat(100)}`;
    const b = `b${'2'.repeat(150)}`;
    const envelope = {
      error: [{ error: 'invalid_field', description: `x ${a} y ${a}`, code: 400, field: `f.${a}` }],
      ack: 'error',
      error_description: `scope ${b}`,
    };
    const bounded = boundEchoes(envelope, [{ [a]: 1, scope: `order_r ${b}` }]);
    expect(bounded).to.deep.equal({
      error: [{ error: 'invalid_field', description: `x ${cut(a)} y ${cut(a)}`, code: 400, field: `f.${cut(a)}` }],
      ack: 'error',
      error_description: `scope ${cut(b)}`,
    });
    expect(envelope.error[0]!.description, 'the envelope given is not changed').to.equal(`x ${a} y ${a}`);
    expect(boundEchoes(envelope, [{ short: 'x'.repeat(100) }])).to.equal(envelope);
  });
});

describe('the web process logs of a 400 for long texts', function () {
  this.timeout(120000);
  let web: Running;
  let base = '';
  before(async () => {
    const port = await freePort();
    web = runEntry('server/index.ts', { PORT: String(port), DATABASE_URL: config().databaseUrl, QUEUE_PREFIX: config().queuePrefix, LOG_LEVEL: 'debug' });
    // A wait for the start (tsx compiles server/index.ts on a loaded machine), not a timing assertion.
    await web.waitFor(/api listening/, 90000);
    base = `http://127.0.0.1:${port}`;
  });
  after(async () => {
    await web.stop();
  });

  it('when the three long texts are refused and a long unknown path is asked for, then no log line of the web process holds one whole', async () => {
    const seller = await newSeller();
    const minId = long('1_2026_');
    const country = long('de fr ');
    const key = long('nope_');
    const answers = [
      await call(`order/?${query({ pagination: { min_id: minId } })}`, { base, token: seller.token }),
      await call('order/', {
        base,
        token: seller.token,
        body: { order: orderBody({ customer: { email: 'b@example.com', address: { country_iso2: country } } }) },
      }),
      await call('order/', { base, token: seller.token, body: { order: { ...orderBody(), [key]: 1 } } }),
    ];
    expect(answers.map((a) => a.status)).to.deep.equal([400, 400, 400]);
    // A long unknown path: its request line holds the path cut.
    const path = long('stock/nope');
    const unknown = await call(`${path}/`, { base, token: seller.token });
    expect(unknown.status, unknown.text.slice(0, 300)).to.equal(404);
    // The process writes its log asynchronously: its three request lines, then what it logged.
    await web.waitFor(/"status":400[^]*"status":400[^]*"status":400/, 20000);
    await web.waitFor(/"path":"\/v1\.1\/stock\/nope/, 20000);
    for (const text of [minId, country.toUpperCase(), country, key]) expect(web.output()).to.not.include(text.slice(0, 101));
    expect(web.output()).to.not.include(path.slice(0, 201));
  });
});
