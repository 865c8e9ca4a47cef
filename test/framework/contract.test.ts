import { expect } from 'chai';
import { jsonSchemaOf, patternOf } from '../../lib/http/json-schema';
import { bool, Joi, list } from '../../lib/http/schema';
import Ajv2020 from 'ajv/dist/2020';
import { XMLValidator } from 'fast-xml-parser';
import { apiBase, call, newSeller } from '../support/api';
import { checkExchange, contractFigures, contractSettled, Exchange } from '../support/contract';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { endpoint } from '../../lib/http/endpoint';
import { createApp } from '../../server/app';

/** An exchange as the suite's fetch records it, with the in-process app's document; path holds the query. */
async function exchange(fields: Partial<Omit<Exchange, 'path'>> & { path: string; status: number; body?: unknown; request?: unknown }): Promise<Exchange> {
  const { path, body, request, ...rest } = fields;
  const url = new URL(`${await apiBase()}/v1.1${path}`);
  const json = (value: unknown) => Buffer.from(JSON.stringify(value));
  return {
    method: 'GET',
    url,
    version: 'v1.1',
    path: url.pathname.slice('/v1.1'.length),
    requestHeaders: new Headers(request === undefined ? {} : { 'content-type': 'application/json' }),
    requestBody: request === undefined ? undefined : json(request),
    responseHeaders: new Headers({ 'content-type': 'application/json; charset=UTF-8' }),
    responseBody: json(body ?? { ack: 'success' }),
    ...rest,
  };
}

describe('the contract checker (issue 36) and the schemas it reads', () => {
  it('when an answer breaks its read type, has an undocumented status or charset, or a taken request breaks its schema, then the checker names it', async () => {
    const wrongType = await checkExchange(await exchange({ path: '/order/1_2026_01/', status: 200, body: { ack: 'success', order: { line: 'one' } } }));
    expect(wrongType.join('\n')).to.match(/answer body: \/order\/line must be array/);
    const undocumented = await checkExchange(await exchange({ path: '/order/1_2026_01/', status: 418 }));
    expect(undocumented.join('\n')).to.match(/status 418 is not documented/);
    const charset = await checkExchange(
      await exchange({
        path: '/system/currency/',
        status: 200,
        body: { ack: 'success', currency: [] },
        responseHeaders: new Headers({ 'content-type': 'application/json; charset=KOI8-R' }),
      }),
    );
    expect(charset.join('\n')).to.match(/charset koi8-r/);
    const unknownField = await checkExchange(
      await exchange({ method: 'POST', path: '/order/1_2026_01/history/', status: 200, request: { text: 'a note', colour: 'red' } }),
    );
    expect(unknownField.join('\n')).to.match(/the service took a request the document refuses/);
    const tooMany = await checkExchange(await exchange({ path: '/order/?pagination[limit]=201', status: 200, body: { ack: 'success', order: [] } }));
    expect(tooMany.join('\n')).to.match(/pagination/);
  });

  it('when a bulk request answers 207, then each item is held to the item schema by its own part: taken items must be documented, refused ones refused', async () => {
    const post = (items: unknown[], parts: unknown[]) =>
      exchange({ method: 'POST', path: '/stock/list/', status: 207, request: { stock: items }, body: { ack: 'warning', response: parts } });
    const fine = await checkExchange(
      await post(
        [
          { name: 'Mug', quantity: 3 },
          { name: 'Jug', quantity: 'many' },
        ],
        [
          { path: 'stock[0]', code: 201, id: '1' },
          {
            path: 'stock[1]',
            code: 400,
            error: [{ error: 'invalid_field', code: 400, field: 'stock[1].quantity', description: 'stock[1].quantity must be a number' }],
          },
        ],
      ),
    );
    expect(fine).to.deep.equal([]);
    const tookUndocumented = await checkExchange(await post([{ name: 'Mug', colour: 'red' }], [{ path: 'stock[0]', code: 201, id: '1' }]));
    expect(tookUndocumented.join('\n')).to.match(/the service took stock\[0\], the document refuses it/);
    const refusedDocumented = await checkExchange(
      await post(
        [{ name: 'Mug', quantity: 3 }],
        [
          {
            path: 'stock[0]',
            code: 400,
            error: [{ error: 'invalid_field', code: 400, field: 'stock[0].quantity', description: 'stock[0].quantity must be a number' }],
          },
        ],
      ),
    );
    expect(refusedDocumented.join('\n')).to.match(/the document takes stock\[0\], the service refused it/);
  });

  it('when a server of other endpoints listens on a port an earlier server of the suite used, then its exchanges are checked against its own document', async () => {
    const listen = async (app: ReturnType<typeof createApp>, port = 0) => {
      const server: Server = app.listen(port, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      return server;
    };
    const first = await listen(createApp());
    const port = (first.address() as AddressInfo).port;
    const base = `http://127.0.0.1:${port}`;
    expect((await call('system/currency/EUR/', { base, token: (await newSeller()).token })).status).to.equal(200);
    await new Promise((resolve) => first.close(resolve));
    const own = endpoint({
      method: 'GET',
      path: 'test/port-reused/',
      summary: 'a test route',
      response: ['text'],
      handle: async () => ({ payload: { text: 'ok' } }),
    });
    const second = await listen(createApp([own]), port);
    try {
      await contractSettled();
      const before = contractFigures().mismatches.length;
      const res = await call('test/port-reused/', { base, token: (await newSeller()).token });
      expect(res.status, res.text).to.equal(200);
      await contractSettled();
      expect(contractFigures().mismatches.slice(before)).to.deep.equal([]);
    } finally {
      await new Promise((resolve) => second.close(resolve));
    }
  });

  it('when an answer and a request keep the document (nulls, numbers as text, an empty pagination), then the checker finds nothing', async () => {
    const problems = await checkExchange(
      await exchange({
        path: '/order/1_2026_01/',
        status: 200,
        body: { ack: 'success', order: { id: '1_2026_01', platform: null, paid_amount: null, line: [{ id: 1, quantity: '2', price: '9.90' }] } },
      }),
    );
    expect(problems).to.deep.equal([]);
    const page = await checkExchange(
      await exchange({ path: '/order/?pagination[limit]=200&filter[status][is_paid]=1', status: 200, body: { ack: 'success', order: [] } }),
    );
    expect(page).to.deep.equal([]);
  });

  it('when OPTIONS and an order holding add_field (lists in a list) answer in XML, then the XML is well formed (the checker found <name?> and <0>)', async () => {
    const seller = await newSeller();
    const xml = { Accept: 'application/xml' };
    const options = await call('order/{order_id}/'.replace('{order_id}', '1_2026_01'), { method: 'OPTIONS', headers: xml });
    expect(options.status).to.equal(200);
    expect(XMLValidator.validate(options.text)).to.equal(true);
    // `email?` (optional) under its escape (lib/http xml-name.ts; it was `email_`, a name another key could hold).
    expect(options.text).to.include('<email_x003F_>');
    const created = await call('order/', { token: seller.token, body: { order: { customer: { email: 'b@example.com' }, add_field: [['colour', 'red']] } } });
    expect(created.status, created.text).to.equal(201);
    const read = await call(`order/${String(created.body.order_id)}/`, { token: seller.token, headers: xml });
    expect(read.status).to.equal(200);
    expect(XMLValidator.validate(read.text)).to.equal(true);
    expect(read.text).to.match(/<add_field><item>colour<\/item><item>red<\/item><\/add_field>/);
  });

  it('when a Joi regex has a flag, then the pattern spells it out; Joi conversions are accepted as Joi accepts them', () => {
    const pattern = patternOf(String(/^(NO_)?\d{1,12}$/i));
    expect(pattern).to.equal('^([Nn][Oo]_)?\\d{1,12}$');
    expect(new RegExp(pattern, 'u').test('no_12')).to.equal(true);
    expect(new RegExp(pattern, 'u').test('NO_x')).to.equal(false);
    const schema = jsonSchemaOf(Joi.object({ flag: bool(), ids: list(Joi.number().integer()) }), 'request');
    expect(JSON.stringify(schema)).to.include('"additionalProperties":false');
    const flag = (schema.properties as Record<string, { anyOf: { pattern?: string }[] }>).flag!;
    expect(flag.anyOf.some((s) => s.pattern !== undefined && new RegExp(s.pattern, 'u').test('TRUE'))).to.equal(true);
  });

  it('when a trimmed text has a maximum length, then the document states it (the spaces around it taken, as Joi trims them first), so the service refusing a longer one is what the document says', async () => {
    const sent = ['abc', '  abc  ', 'abcd', ' ab cd ', 'a', '', '   ', ' a b ', 'ab', '\tab\n'];
    const takes = (text: Joi.StringSchema) => {
      const valid = new Ajv2020({ strict: false }).compile(jsonSchemaOf(Joi.object({ text }), 'request'));
      return sent.map((value) => valid({ text: value }));
    };
    const joiTakes = (text: Joi.StringSchema) => sent.map((value) => text.validate(value).error === undefined);
    // A maximum: the document takes what Joi takes, no more, no less.
    for (const text of [Joi.string().trim().min(1).max(3), Joi.string().trim().max(3).allow(''), Joi.string().trim().max(1)])
      expect(takes(text)).to.deep.equal(joiTakes(text));
    // A length: read as its upper bound (wider than Joi, never narrower).
    const exactly = Joi.string().trim().length(2);
    expect(takes(exactly).map((taken, i) => taken || !joiTakes(exactly)[i])).to.deep.equal(sent.map(() => true));
    expect(takes(exactly)[2], 'abcd').to.equal(false);

    // What a client met: openapi.json took a 65-character own category id and customer.id that the service refused.
    const seller = await newSeller();
    const refused: [string, unknown, string][] = [
      ['/stock/category/', { category: { platform: 'shop_g', id: 'c'.repeat(65), name: 'Cups' } }, 'category[0].id'],
      ['/order/', { order: { customer: { email: 'a@example.com', id: 'C'.repeat(65) } } }, 'order.customer.id'],
    ];
    for (const [path, request, field] of refused) {
      const res = await call(path.slice(1), { token: seller.token, body: request });
      expect(res.status, res.text).to.equal(400);
      expect(res.body.error!.map((e) => e.field)).to.deep.equal([field]);
      const problems = await checkExchange(await exchange({ method: 'POST', path, status: 400, request, body: res.body }));
      expect(problems, path).to.deep.equal([]);
    }
  });

  it("when a trimmed text allows '', then spaces alone are documented as taken, as Joi takes them (a fuzz seed found Stock_type's size)", () => {
    const size = Joi.string()
      .trim()
      .pattern(/^\d+x\d+x\d+$/)
      .allow('');
    expect(size.validate('   ').error).to.equal(undefined);
    const valid = new Ajv2020({ strict: false }).compile(jsonSchemaOf(Joi.object({ size }), 'request'));
    const takes = (text: string) => valid({ size: text });
    expect(['   ', '', ' 1x2x3 ', ' x '].map(takes)).to.deep.equal(['   ', '', ' 1x2x3 ', ' x '].map((text) => size.validate(text).error === undefined));
    expect(takes('   ')).to.equal(true);
  });
});
