import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv2020 from 'ajv/dist/2020';
import { expect } from 'chai';
import { endpoints } from '../../server/routes';
import { apiBase, call } from '../support/api';

type Document = {
  openapi: string;
  servers: { url: string }[];
  paths: Record<
    string,
    Record<string, { security: Record<string, string[]>[]; responses: Record<string, unknown>; requestBody?: { content: Record<string, unknown> } }>
  >;
};

async function documentOf(version = 'v1.1'): Promise<Document> {
  const res = await fetch(`${await apiBase()}/${version}/openapi.json`);
  expect(res.status).to.equal(200);
  expect(res.headers.get('content-type')).to.match(/^application\/json/);
  return (await res.json()) as Document;
}

describe('OpenAPI document and docs page', () => {
  it('when openapi.json is read without a token, then it is a valid OpenAPI 3.1 document', async () => {
    const doc = await documentOf();
    expect(doc.openapi).to.equal('3.1.0');
    const result = await new Validator().validate(doc as never);
    expect(result.errors ?? [], JSON.stringify(result.errors ?? []).slice(0, 2000)).to.deep.equal([]);
    expect(result.valid).to.equal(true);
  });

  it("when openapi.json is read, then every operation's group is in the global tag list with a description, in document 1's order (Spectral's operation-tag-defined)", async () => {
    const doc = (await documentOf()) as Document & { tags: { name: string; description: string }[] };
    const used = new Set(Object.values(doc.paths).flatMap((methods) => Object.values(methods).flatMap((op) => (op as { tags?: string[] }).tags ?? [])));
    expect(doc.tags.map((t) => t.name)).to.have.members([...used]);
    expect(doc.tags.map((t) => t.name).slice(0, 4)).to.deep.equal(['token', 'stock', 'order', 'bank']);
    for (const tag of doc.tags) expect(tag.description, tag.name).to.match(/^\S.{20,}/);
  });

  it("when a schema of openapi.json names a default or examples, then each is a value of that schema (Spectral's oas3-valid-schema-example found send_mit's mail_text)", async () => {
    const doc = await documentOf();
    const ajv = new Ajv2020({ strict: false });
    const broken: string[] = [];
    // Every object is taken for a schema but a map of properties (whose keys are field names).
    const visit = (node: unknown, at: string, isMap = false): void => {
      if (Array.isArray(node)) return node.forEach((n, i) => visit(n, `${at}[${i}]`));
      if (node === null || typeof node !== 'object') return;
      const schema = node as Record<string, unknown>;
      const bare = { ...schema, default: undefined, examples: undefined };
      if (!isMap && 'default' in schema && !ajv.validate(bare, schema.default)) broken.push(at);
      const examples = !isMap && Array.isArray(schema.examples) ? (schema.examples as unknown[]) : [];
      examples.forEach((example, i) => ajv.validate(bare, example) || broken.push(`${at}.examples[${i}]`));
      for (const [key, child] of Object.entries(schema)) {
        if (isMap || (key !== 'default' && key !== 'example' && key !== 'examples')) visit(child, `${at}.${key}`, !isMap && key === 'properties');
      }
    };
    visit(doc.paths, 'paths');
    visit((doc as unknown as { components: unknown }).components, 'components');
    expect(broken).to.deep.equal([]);
  });

  it('when openapi.json is read, then the items of stock/list/ and order/list/ are described (Redocly found `items: {}`), and no large schema is written twice', async () => {
    const doc = (await documentOf()) as Document & { components: { schemas: Record<string, Record<string, unknown>> } };
    const schemas = doc.components.schemas;
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema({ ...doc, $id: 'doc' });
    const stockItem = ajv.compile({ $ref: 'doc#/components/schemas/post_stock_list_request/properties/stock' });
    expect(
      stockItem([
        { name: 'Mug', quantity: 3 },
        { id: 'SKU_MUG-1', price: '4.50' },
      ]),
    ).to.equal(true);
    expect(stockItem({ name: 'Mug' }), 'one item alone, as XML sends it').to.equal(true);
    expect(stockItem([{ name: 'Mug', colour: 'red' }])).to.equal(false);
    const orderItem = ajv.compile({ $ref: 'doc#/components/schemas/post_order_list_request/properties/order' });
    expect(orderItem([{ customer: { email: 'erika@example.com' } }, { id: '7_2026_11', paid_amount: '5.00' }])).to.equal(true);
    expect(orderItem([{ paid_amount: '5.00' }]), 'a new order without customer.email').to.equal(false);
    // The service reads any id but undefined as an update (order-list.service.ts): one that is no text is refused, not created.
    expect(orderItem([{ id: 5, customer: { email: 'erika@example.com' } }]), 'an id that is not a text').to.equal(false);
    // Every schema of 1,000 characters or more, below the named ones, is there once.
    const texts = new Map<string, number>();
    const walk = (value: unknown, top: boolean): void => {
      if (typeof value !== 'object' || value === null) return;
      const text = JSON.stringify(value);
      if (!top && !Array.isArray(value) && text.length >= 1000 && ('type' in value || 'anyOf' in value)) texts.set(text, (texts.get(text) ?? 0) + 1);
      for (const v of Object.values(value)) walk(v, false);
    };
    for (const schema of Object.values(schemas)) walk(schema, true);
    expect([...texts.entries()].filter(([, n]) => n > 1).map(([text]) => text.slice(0, 120))).to.deep.equal([]);
  });

  it('when openapi.json is read, then a datetime field states the texts the service reads (json-schema-faker found any string documented)', async () => {
    const doc = await documentOf();
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema({ ...doc, $id: 'doc' });
    const transferDate = ajv.compile({ $ref: 'doc#/components/schemas/post_bank_transfer_request/properties/bank/properties/transfer_date' });
    for (const taken of ['2026-11-01', '2026-11-01 10:00:00', '2026-11-01T10:00:00Z', '2026-11-01T10:00:00.123+01:00', ' 2026-11-01 '])
      expect(transferDate(taken), taken).to.equal(true);
    for (const refused of ['01.11.2026', 'yesterday', '1700000000', '2026-11-01 10', '']) expect(transferDate(refused), refused).to.equal(false);
  });

  it('when openapi.json is read, then every declared endpoint is in it with its scope, and authorize.php too', async () => {
    const doc = await documentOf();
    for (const e of endpoints) {
      const op = doc.paths[`/${e.path}`]?.[e.method.toLowerCase()];
      expect(op, `${e.method} ${e.path}`).to.not.equal(undefined);
      expect(op!.security, `${e.method} ${e.path}`).to.deep.equal(e.auth ? [{ oauth2: [...e.auth.scopes] }] : []);
      if (e.auth) expect(Object.keys(op!.responses), `${e.method} ${e.path}`).to.include.members(['400', '401', '403', '429', '503']);
      if (e.async && !e.bulk && !e.response.includes('response')) expect(op!.responses).to.have.property('202');
      if (e.bulk || e.response.includes('response')) expect(op!.responses).to.have.property('207');
    }
    expect(doc.paths['/authorize.php']).to.have.keys('get', 'post', 'options');
    expect(doc.paths['/order/']!.post!.requestBody!.content).to.have.keys('application/json', 'application/xml', 'application/x-www-form-urlencoded');
  });

  it("when openapi.json is read under another version, then its server is that version's base_url", async () => {
    const doc = await documentOf('v1.0');
    expect(doc.servers[0]!.url).to.match(/\/v1\.0$/);
  });

  it('when the docs page is opened, then its HTML, script and style load from this server with a CSP that allows them', async () => {
    const base = await apiBase();
    const page = await fetch(`${base}/v1.1/docs/`);
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-security-policy')).to.include("script-src 'self'");
    expect(page.headers.get('x-frame-options')).to.equal('SAMEORIGIN');
    expect(page.headers.get('content-security-policy')).not.to.contain('upgrade-insecure-requests');
    const html = await page.text();
    for (const file of ['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'kontor-docs.js', 'kontor-docs.css']) {
      expect(html).to.include(file);
      const asset = await fetch(`${base}/v1.1/docs/${file}`);
      expect(asset.status, file).to.equal(200);
      expect((await asset.text()).length, file).to.be.above(50);
    }
    const redirect = await fetch(`${base}/v1.1/docs`, { redirect: 'manual' });
    expect(redirect.status).to.equal(301);
    expect(redirect.headers.get('location')).to.equal('/v1.1/docs/');
  });

  it('when the docs page asks for a file outside swagger-ui, then it is not found', async () => {
    const res = await call('docs/..%2F..%2Fpackage.json');
    expect(res.status).to.equal(404);
  });
});
