import { expect } from 'chai';
import { jsonSchemaOf, patternOf } from '../../lib/http/json-schema';
import { bool, Joi, list } from '../../lib/http/schema';
import Ajv2020 from 'ajv/dist/2020';
import { XMLValidator } from 'fast-xml-parser';
import { apiBase, call, newSeller } from '../support/api';
import { checkExchange, Exchange } from '../support/contract';

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
    expect(options.text).to.include('<email_>');
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
