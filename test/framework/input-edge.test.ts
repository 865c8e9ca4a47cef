/**
 * The framework's edge: what request bytes may become input. XML text decoding, strings
 * PostgreSQL cannot hold, nesting and size bounds, impossible dates, ids beyond their column and
 * prototype-named keys, each through HTTP, with the data afterwards.
 */
import { spawnSync } from 'node:child_process';
import { expect } from 'chai';
import { XMLParser } from 'fast-xml-parser';
import { createClient } from '../../lib/auth/client.service';
import { ApiResponse, call, newSeller, Seller } from '../support/api';
import { openAuthorize, sendForm } from '../support/authorize';

function expectRefused(res: ApiResponse, status: number, field?: string): void {
  expect(res.status, res.text).to.equal(status);
  expect(res.body.ack).to.equal('error');
  if (field !== undefined) expect(res.body.error![0]!.field).to.equal(field);
}

async function stockCount(seller: Seller): Promise<number> {
  const res = await call('stock/', { token: seller.token });
  expect(res.status).to.equal(200);
  return (res.body.stock as unknown[]).length;
}

async function settingsOf(seller: Seller): Promise<unknown> {
  const res = await call('admin/user/', { token: seller.token });
  expect(res.status, res.text).to.equal(200);
  return (res.body.user as { settings?: unknown }).settings;
}

function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: 'x' };
  for (let i = 1; i < depth; i++) value = { n: value };
  return value;
}

describe('the input edge', () => {
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });

  describe('XML text', () => {
    it('when an XML body carries entities, character references and CDATA, then the text is stored decoded and read back escaped once', async () => {
      const name = 'A&amp;B &lt;x&gt; &quot;q&quot; &apos;a&apos; &#228; &#x20AC; <![CDATA[<b>&amp;</b>]]> end';
      const created = await call('stock/', {
        token: seller.token,
        headers: { 'Content-Type': 'application/xml' },
        body: `<request><stock><name>${name}</name></stock></request>`,
      });
      expect(created.status, created.text).to.equal(201);
      const decoded = 'A&B <x> "q" \'a\' ä € <b>&amp;</b> end';
      const json = await call(`stock/${created.body.stock_id}/`, { token: seller.token });
      expect((json.body.stock as { name: string }).name).to.equal(decoded);
      const asXml = await call(`stock/${created.body.stock_id}/`, { token: seller.token, headers: { Accept: 'application/xml' } });
      expect(asXml.text).to.contain('<name>A&amp;B &lt;x&gt; &quot;q&quot; &apos;a&apos; ä € &lt;b&gt;&amp;amp;&lt;/b&gt; end</name>');
      expect(new XMLParser({ parseTagValue: false, htmlEntities: true }).parse(asXml.text).response.stock.name).to.equal(decoded);
    });

    it('when a JSON client stored characters XML 1.0 cannot carry, then the XML answer is still XML, with U+FFFD where each stood, and JSON keeps them (found by a reviewer of the channel import)', async () => {
      const name = 'Tasse\u0001 rot\u001b\u000b \uFFFF ok\t\u00e4';
      const created = await call('stock/', { token: seller.token, body: { stock: { name } } });
      expect(created.status, created.text).to.equal(201);
      const json = await call(`stock/${created.body.stock_id}/`, { token: seller.token });
      expect((json.body.stock as { name: string }).name).to.equal(name);
      const asXml = await call(`stock/${created.body.stock_id}/`, { token: seller.token, headers: { Accept: 'application/xml' } });
      expect(asXml.status).to.equal(200);
      const lint = spawnSync('xmllint', ['--noout', '-'], { input: asXml.text, encoding: 'utf8' });
      expect(lint.status, lint.stderr).to.equal(0);
      expect(new XMLParser({ parseTagValue: false }).parse(asXml.text).response.stock.name).to.equal('Tasse\uFFFD rot\uFFFD\uFFFD \uFFFD ok\t\u00e4');
    });

    it('when an XML body holds a character reference XML 1.0 allows no character for, then 400 malformed_xml names it and nothing is stored, as xmllint refuses it (found by the security pass: &#0; was dropped with a 201)', async () => {
      for (const reference of ['&#0;', '&#x0;', '&#x1;', '&#xD800;', '&#xDFFF;', '&#xFFFE;', '&#x110000;', '&#99999999999;']) {
        const body = `<request><stock><name>Tasse${reference}rot</name></stock></request>`;
        const lint = spawnSync('xmllint', ['--noout', '-'], { input: body, encoding: 'utf8' });
        expect(lint.status, `xmllint on ${reference}`).to.not.equal(0);
        const res = await call('stock/', { token: seller.token, headers: { 'Content-Type': 'application/xml' }, body });
        expectRefused(res, 400, 'body');
        expect(res.body.error![0]!.error).to.equal('malformed_xml');
        expect(res.body.error![0]!.description).to.contain(`${reference} in <name>`);
      }
      expect(await stockCount(seller)).to.equal(0);
      // Legal references, and a reference's text in CDATA or a comment, are read as before.
      const body = '<request><stock><name>&#65;&#x20AC;&#x1F600;&#9;<!-- &#0; --><![CDATA[&#0;]]></name></stock></request>';
      const created = await call('stock/', { token: seller.token, headers: { 'Content-Type': 'application/xml' }, body });
      expect(created.status, created.text).to.equal(201);
      const json = await call(`stock/${created.body.stock_id}/`, { token: seller.token });
      expect((json.body.stock as { name: string }).name).to.equal('A€\u{1F600}\t&#0;');
    });

    it('when an XML body holds a character XML 1.0 allows nowhere, sent raw (U+0001, U+001B, U+FFFF, also in CDATA), then 400 malformed_xml names it and nothing is stored, as xmllint refuses it', async () => {
      for (const [raw, named] of [
        ['\u0001', 'U+0001 in <name>'],
        ['\u001b', 'U+001B in <name>'],
        ['\uFFFF', 'U+FFFF in <name>'],
        ['<![CDATA[\u0002]]>', 'U+0002 in <name>'],
      ] as const) {
        const body = `<request><stock><name>Tasse${raw}rot</name></stock></request>`;
        const lint = spawnSync('xmllint', ['--noout', '-'], { input: body, encoding: 'utf8' });
        expect(lint.status, `xmllint on ${named}`).to.not.equal(0);
        const res = await call('stock/', { token: seller.token, headers: { 'Content-Type': 'application/xml' }, body });
        expectRefused(res, 400, 'body');
        expect(res.body.error![0]!.error).to.equal('malformed_xml');
        expect(res.body.error![0]!.description).to.contain(named);
      }
      expect(await stockCount(seller)).to.equal(0);
    });

    it('when an object is an empty element (how XML writes {}) or a list one element, then XML is taken as JSON is (found sending generated bodies both ways)', async () => {
      const xml = (path: string, body: string) =>
        call(path, {
          token: seller.token,
          headers: { 'Content-Type': 'application/xml' },
          body: `<?xml version="1.0" encoding="UTF-8"?><request>${body}</request>`,
        });
      const task = await xml('task/', '<task><text>Call back</text><reference/></task>');
      expect(task.status, task.text).to.equal(201);
      const order = await call('order/', {
        token: seller.token,
        body: { order: { customer: { email: 'xml@example.com' }, line: [{ id: 1, name: 'Mug', quantity: 1, price: '5.00' }] } },
      });
      expect(order.status, order.text).to.equal(201);
      // send_mit with every default: JSON's {"send_mit": {}}.
      const sendMit = await xml(`order/${order.body.order_id}/send_mit/`, '<send_mit/>');
      expect(sendMit.status, sendMit.text).to.equal(202);
      // One scope is one element; the body is taken, and the access it names does not exist.
      const restricted = await xml('admin/client_access/999999/', '<client_access><scope>order_r</scope></client_access>');
      expect([restricted.status, restricted.body.error?.[0]?.error]).to.deep.equal([404, 'not_found']);
    });

    it('when an item of a list is an empty element (how XML writes {} among items), then XML is answered as JSON is (found sending generated bodies both ways)', async () => {
      const asXml = (path: string, body: string) =>
        call(path, { token: seller.token, headers: { 'Content-Type': 'application/xml' }, body: `<request>${body}</request>` });
      const line = '<line><id>1</id><name>Mug</name><quantity>1</quantity><price>5.00</price></line>';
      const order = await asXml('order/', `<order><customer><email>a@example.com</email></customer>${line}<line/></order>`);
      expectRefused(order, 400, 'order.line[1].id');
      const sub = await asXml('stock/', '<stock><name>Shirt</name><variation><type>main</type><sub/></variation></stock>');
      expectRefused(sub, 400, 'stock.variation.sub[0].create_quantity');
      const fromJson = await call('stock/', { token: seller.token, body: { stock: { name: 'Mug', auction_a: [{ name: 'Mug A' }, {}] } } });
      const fromXml = await asXml('stock/', '<stock><name>Mug</name><auction_a><name>Mug A</name></auction_a><auction_a/></stock>');
      expect([fromJson.status, fromXml.status], fromXml.text).to.deep.equal([201, 201]);
      const listers = async (id: unknown) => {
        const read = await call(`stock/${id}/`, { token: seller.token });
        return (read.body.stock as { auction_a: { name?: string }[] }).auction_a.map((lister) => lister.name ?? null);
      };
      // An item with no fields makes no lister, in JSON as in XML.
      expect([await listers(fromJson.body.stock_id), await listers(fromXml.body.stock_id)]).to.deep.equal([['Mug A'], ['Mug A']]);
      // A bulk call's item: stock/list/ takes {} as a stock item with no fields, order/list/ names what a new order lacks.
      const stockList = await asXml('stock/list/', '<stock><name>Cup</name></stock><stock/>');
      expect(stockList.status, stockList.text).to.equal(207);
      expect((stockList.body.response as { code: number }[]).map((item) => item.code)).to.deep.equal([201, 201]);
      const orderList = await asXml('order/list/', '<order/>');
      expect(orderList.status, orderList.text).to.equal(207);
      expect((orderList.body.response as { error: { field: string }[] }[])[0]!.error[0]!.field).to.equal('order[0].customer');
    });

    it('when an XML field is xsi:nil (how an XSD-generated client writes no value), then it is null as in JSON, and other attributes are no fields', async () => {
      const created = await call('stock/', { token: seller.token, body: { stock: { name: 'Mug', mpn: 'MPN-1', quantity: 5 } } });
      expect(created.status, created.text).to.equal(201);
      const id = created.body.stock_id as number;
      const xsi = 'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"';
      const update = await call(`stock/${id}/`, {
        token: seller.token,
        headers: { 'Content-Type': 'application/xml' },
        body: `<request ${xsi}><stock><name xml:lang="en">Mug, blue</name><mpn xsi:nil="true"/><quantity xsi:nil="1"></quantity></stock></request>`,
      });
      expect(update.status, update.text).to.equal(200);
      const read = (await call(`stock/${id}/`, { token: seller.token })).body.stock as Record<string, unknown>;
      // As {"mpn": null, "quantity": null} in JSON: a stock field's null is "not sent".
      expect([read.name, read.mpn, read.quantity]).to.deep.equal(['Mug, blue', 'MPN-1', 5]);
      // Without xsi:nil the empty element is '' and clears the text, as "" does in JSON.
      await call(`stock/${id}/`, { token: seller.token, headers: { 'Content-Type': 'application/xml' }, body: '<request><stock><mpn/></stock></request>' });
      expect(((await call(`stock/${id}/`, { token: seller.token })).body.stock as Record<string, unknown>).mpn ?? null).to.equal(null);
    });

    it('when an XML body is indented, then the layout whitespace is no field and leaf text is kept as sent', async () => {
      const body = '<?xml version="1.0"?>\n<request>\n  <user>\n    <settings>\n      <city> Köln </city>\n    </settings>\n  </user>\n</request>\n';
      const res = await call('admin/user/', { token: seller.token, headers: { 'Content-Type': 'application/xml' }, body });
      expect(res.status, res.text).to.equal(200);
      expect(await settingsOf(seller)).to.deep.equal({ city: ' Köln ' });
    });

    it('when a large XML body is parsed off the event loop, then it is decoded like a small one, and a malformed one is a 400', async () => {
      // Above the 64 KiB parsed in place (about 105 KB), while the settings stay under their own
      // bound of 65,536 bytes as JSON (about 41 KB): each &amp; is five bytes sent, one stored.
      const settings = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, `A &amp; ${i} ${'é'.repeat(300)}${'&amp;'.repeat(400)}`]));
      const fields = Object.entries(settings)
        .map(([k, v]) => `<${k}>${v}</${k}>`)
        .join('');
      const res = await call('admin/user/', {
        token: seller.token,
        headers: { 'Content-Type': 'application/xml' },
        body: `<request><user><settings>${fields}</settings></user></request>`,
      });
      expect(res.status, res.text.slice(0, 300)).to.equal(200);
      const stored = (await settingsOf(seller)) as Record<string, string>;
      expect(Object.keys(stored)).to.have.length(40);
      expect(stored.k7).to.equal(`A & 7 ${'é'.repeat(300)}${'&'.repeat(400)}`);
      const broken = await call('admin/user/', {
        token: seller.token,
        headers: { 'Content-Type': 'application/xml' },
        body: `<request><user><settings>${fields}</user></settings></request>`,
      });
      expectRefused(broken, 400);
      expect(broken.body.error![0]!.error).to.equal('malformed_xml');
      expect(await settingsOf(seller)).to.deep.equal(stored);
    });

    it('when an XML body holds more elements than the bound, then 413 and nothing is stored', async () => {
      const items = '<stock><name>x</name></stock>'.repeat(11_000);
      const res = await call('stock/list/', { token: seller.token, headers: { 'Content-Type': 'application/xml' }, body: `<request>${items}</request>` });
      expectRefused(res, 413);
      expect(res.body.error![0]!.error).to.equal('payload_too_large');
      expect(await stockCount(seller)).to.equal(0);
    });
  });

  describe('strings PostgreSQL cannot hold', () => {
    it('when a body string holds NUL, then 400 names the field and nothing is stored', async () => {
      expectRefused(await call('stock/', { token: seller.token, body: { stock: { name: 'a\u0000b' } } }), 400, 'stock.name');
      expect(await stockCount(seller)).to.equal(0);
    });

    it('when a query filter or a path id holds NUL, then 400 names it', async () => {
      expectRefused(await call('stock/?filter[name]=a%00b', { token: seller.token }), 400, 'filter.name');
      expectRefused(await call('stock/SKU_a%00b/', { token: seller.token }), 400, 'stock_id');
    });

    it('when settings hold a lone surrogate, then 400 names the field and the settings stay', async () => {
      await call('admin/user/', { token: seller.token, body: { user: { settings: { x: 'kept' } } } });
      const body = '{"user":{"settings":{"x":"\\ud800","y":"\\udc00z"}}}';
      expectRefused(await call('admin/user/', { token: seller.token, body, headers: { 'Content-Type': 'application/json' } }), 400, 'user.settings.x');
      expect(await settingsOf(seller)).to.deep.equal({ x: 'kept' });
    });

    it('when credentials at token.php or authorize.php hold NUL, then 400 or 401, never 500', async () => {
      const basic = await call('token.php', {
        headers: { Authorization: `Basic ${Buffer.from(`${seller.login}\u0000:pw`).toString('base64')}`, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials',
      });
      expectRefused(basic, 400, 'Authorization');
      const form = await call('token.php', {
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: `grant_type=client_credentials&username=${seller.login}&password=a%00b`,
      });
      expectRefused(form, 400, 'password');
      const client = await createClient('NUL ERP', 'https://erp.example.com/cb');
      const consent = await openAuthorize({ response_type: 'code', client_id: client.client_id, scope: 'order_r' });
      const page = await sendForm(consent, { login: `${seller.login}\u0000`, password: 'x', scope_item: 'order_r', decision: 'allow' });
      expect(page.status).to.equal(400);
      expect(page.html).to.contain('login contains a NUL character');
    });
  });

  describe('nesting, lists and keys', () => {
    it('when settings nest 10,000 or 4,000 deep, then 400 names the field and GET admin/user/ still answers in XML', async () => {
      for (const depth of [10_000, 4_000]) {
        // Written out, since JSON.stringify itself overflows at this depth.
        const body = `{"user":{"settings":${'{"n":'.repeat(depth)}"x"${'}'.repeat(depth)}}}`;
        const res = await call('admin/user/', { token: seller.token, body, headers: { 'Content-Type': 'application/json' } });
        expectRefused(res, 400);
        expect(res.body.error![0]!.error).to.equal('too_deep');
        expect(res.body.error![0]!.field).to.match(/^user\.settings(\.n)+$/);
      }
      const read = await call('admin/user/', { token: seller.token, headers: { Accept: 'application/xml' } });
      expect(read.status).to.equal(200);
    });

    it('when settings nest within the bound, then they are stored and read back in XML', async () => {
      const res = await call('admin/user/', { token: seller.token, body: { user: { settings: nested(25) } } });
      expect(res.status, res.text).to.equal(200);
      const read = await call('admin/user/', { token: seller.token, headers: { Accept: 'application/xml' } });
      expect(read.status).to.equal(200);
      expect(read.text).to.contain('<leaf>x</leaf>');
    });

    it('when an order carries 1,000,000 lines, then 400 names order.line and no order is stored', async () => {
      const body = `{"order":{"customer":{"email":"b@example.com"},"line":[${Array(1_000_000).fill('{}').join(',')}]}}`;
      const res = await call('order/', { token: seller.token, body, headers: { 'Content-Type': 'application/json' } });
      expectRefused(res, 400, 'order.line');
      expect(res.body.error![0]!.error).to.equal('too_many_items');
      const orders = await call('order/', { token: seller.token });
      expect(orders.body.order).to.deep.equal([]);
    });

    it('when settings have more than 1,000 keys, then 400 names them', async () => {
      const settings = Object.fromEntries(Array.from({ length: 1_001 }, (_, i) => [`k${i}`, i]));
      const res = await call('admin/user/', { token: seller.token, body: { user: { settings } } });
      expectRefused(res, 400, 'user.settings');
      expect(res.body.error![0]!.error).to.equal('too_many_fields');
    });

    it('when a key is __proto__, constructor or prototype, then 400 names it like an unknown field and nothing is stored', async () => {
      for (const key of ['__proto__', 'constructor', 'prototype']) {
        const body = `{"stock":{"name":"x","${key}":{"quantity":5}}}`;
        expectRefused(await call('stock/', { token: seller.token, body, headers: { 'Content-Type': 'application/json' } }), 400, `stock.${key}`);
      }
      expectRefused(
        await call('admin/user/', {
          token: seller.token,
          body: '{"user":{"settings":{"__proto__":{"a":1}}}}',
          headers: { 'Content-Type': 'application/json' },
        }),
        400,
        'user.settings.__proto__',
      );
      expect(await stockCount(seller)).to.equal(0);
    });
  });

  describe('dates and ids', () => {
    it('when a filter or a body names a day that does not exist, then 400 names the field and nothing is stored', async () => {
      expectRefused(await call('order/?filter[status][paid_date][value]=2026-02-30', { token: seller.token }), 400, 'filter.status.paid_date.value');
      const res = await call('order/', { token: seller.token, body: { order: { customer: { email: 'b@example.com' }, shipping: { date: '2026-02-30' } } } });
      expectRefused(res, 400, 'order.shipping.date');
      const datetime = await call('order/', {
        token: seller.token,
        body: { order: { customer: { email: 'b@example.com' }, current_date: '2026-02-30 10:00:00' } },
      });
      expectRefused(datetime, 400, 'order.current_date');
      expect((await call('order/', { token: seller.token })).body.order).to.deep.equal([]);
    });

    it('when an id lies beyond its column, then the path answers 404 and a filter or min_id 400', async () => {
      expectRefused(await call('admin/portal_account/2147483648/', { token: seller.token }), 404);
      expectRefused(await call('stock/?filter[id]=2147483648', { token: seller.token }), 400, 'filter.id');
      expectRefused(await call('task/?pagination[min_id]=9999999999', { token: seller.token }), 400, 'pagination[min_id]');
      const big = await call('order/?filter[number]=99999999999', { token: seller.token });
      expect(big.status, big.text).to.equal(200);
    });
  });
});
