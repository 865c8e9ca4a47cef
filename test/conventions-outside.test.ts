import { expect } from 'chai';
import iconv from 'iconv-lite';
import { config, Config, setConfig } from '../config';
import { apiBase, call, newSeller, query, Seller } from './support/api';
import { createOrder, readOrder } from './order/helpers';
import { createPortalAccount } from '../lib/admin/portal-account-admin.service';

/**
 * Document 1's request conventions as clients written from the document send them, not as the
 * suite's own helpers do: query strings the way PHP's parse_str, jQuery.param and qs's
 * `arrayFormat: 'brackets'` write nested lists, and answers in ISO-8859-15 (Accept-Charset).
 */
describe('request conventions from outside (document 1, Endpoints and Common request types)', () => {
  let seller: Seller;
  let saved: Config;
  before(async () => {
    saved = config();
    setConfig({ ...saved, orderSearchMinAgeSeconds: 0 });
    seller = await newSeller();
  });
  after(() => setConfig(saved));

  describe('nested bracket parameters with empty indices', () => {
    let paid: string;
    let shipped: string;
    let plain: string;
    before(async () => {
      paid = await createOrder(seller, { status: { is_paid: true }, customer: { email: 'ida@shop.example' } });
      shipped = await createOrder(seller, { status: { is_shipped: true }, customer: { email: 'ole@shop.example' } });
      plain = await createOrder(seller, { customer: { email: 'pia@shop.example' } });
    });

    const ids = async (queryText: string) => {
      const res = await call(`order/?${queryText}`, { token: seller.token });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.ack).to.equal('success');
      return (res.body.order as { id: string }[]).map((o) => o.id);
    };

    it('when two filter objects are sent as filter[][...] (qs brackets, PHP), then each is its own filter object and records of either come (OR)', async () => {
      // qs.stringify({ filter: [{ customer: { email } }, { status: { is_shipped: 1 } }] }, { arrayFormat: 'brackets' })
      const unindexed = 'filter[][customer][email]=ida%40shop.example&filter[][status][is_shipped]=1&select[id]=';
      expect(await ids(unindexed)).to.deep.equal([paid, shipped]);
      // the same with the brackets percent-encoded, as encoding clients send them
      expect(await ids(unindexed.replace(/\[/g, '%5B').replace(/\]/g, '%5D'))).to.deep.equal([paid, shipped]);
      // and as PHP's http_build_query and jQuery.param index them: the same answer
      expect(await ids('filter%5B0%5D%5Bcustomer%5D%5Bemail%5D=ida%40shop.example&filter%5B1%5D%5Bstatus%5D%5Bis_shipped%5D=1&select%5Bid%5D=')).to.deep.equal([
        paid,
        shipped,
      ]);
    });

    it('when an indexed filter object is followed by filter[][...], then the latter is the next filter object (PHP appends)', async () => {
      expect(await ids('filter[0][customer][email]=pia%40shop.example&filter[][status][is_paid]=1&select[id]=')).to.deep.equal([paid, plain]);
    });

    it('when the values of one field come as value[]= (jQuery) or value[0]= (PHP), then both are one value list joined by OR', async () => {
      const jquery =
        'filter[0][customer][email][operator]==&filter[0][customer][email][value][]=ida%40shop.example&filter[0][customer][email][value][]=pia%40shop.example';
      const php =
        'filter[0][customer][email][operator]==&filter[0][customer][email][value][0]=ida%40shop.example&filter[0][customer][email][value][1]=pia%40shop.example';
      expect(await ids(`${jquery}&select[id]=`)).to.deep.equal([paid, plain]);
      expect(await ids(`${php}&select[id]=`)).to.deep.equal([paid, plain]);
    });
  });

  describe('select', () => {
    it('when several fields the type lacks are selected, at the top and inside a container, then one 400 names every one of them', async () => {
      const order = await createOrder(seller, { customer: { email: 'sel@shop.example' } });
      const res = await call(`order/${order}/?select[nope]=&select[status][is_paid]=&select[status][is_payed]=`, { token: seller.token });
      expect(res.status).to.equal(400);
      expect(res.body.ack).to.equal('error');
      expect(res.body.error).to.deep.equal([
        { error: 'unknown_select', description: 'select[nope] is not a field of this resource', code: 400, field: 'select[nope]' },
        { error: 'unknown_select', description: 'select[status][is_payed] is not a field of this resource', code: 400, field: 'select[status][is_payed]' },
      ]);
      expect(res.body.error_description).to.be.a('string').and.contain('select[nope]');
      const right = await call(`order/${order}/?select[status][is_paid]=`, { token: seller.token });
      expect(right.body).to.deep.equal({ ack: 'success', order: { status: { is_paid: false }, id: order } });
    });
  });

  describe('body fields', () => {
    it('when an enumerated text field gets a number and an enumerated integer a word, then one error item per field names what it takes, and nothing is stored', async () => {
      const res = await call('stock/', {
        token: seller.token,
        body: { stock: { name: 'enum probe', sku: 'ENUM-1', market_d: { id_type: 5 }, market_i: { tax_id: 'full' } } },
      });
      expect(res.status).to.equal(400);
      expect(res.body.error).to.deep.equal([
        {
          error: 'invalid_field',
          description: "stock.market_d.id_type must be one of [ASIN, ISBN, UPC, EAN, ''] and must be a string",
          code: 400,
          field: 'stock.market_d.id_type',
        },
        {
          error: 'invalid_field',
          description: 'stock.market_i.tax_id must be one of [1, 2, 3, 4, 10, 11, 12] and must be a number',
          code: 400,
          field: 'stock.market_i.tax_id',
        },
      ]);
      expect((await call('stock/?filter[0][sku]=ENUM-1', { token: seller.token })).body.stock).to.deep.equal([]);
    });
  });

  describe('decimal fields', () => {
    it('when a decimal is too long, not a number or of another type, then the 400 says what a decimal is, never our pattern, and nothing is stored', async () => {
      const message = (field: string) => `${field} must be a decimal number of at most 12 digits before the point (a dot or a comma before the decimals)`;
      for (const amount of ['1234567890123.00', 'zwölf', '1.2.3', true, 1e13]) {
        const res = await call('bank/transfer/', { token: seller.token, body: { bank: { transfer_date: '2026-11-20', amount, sender: 'Decimal Probe' } } });
        expect(res.status, JSON.stringify(amount)).to.equal(400);
        expect(res.body.error).to.deep.equal([{ error: 'invalid_field', description: message('bank.amount'), code: 400, field: 'bank.amount' }]);
      }
      const order = await call('order/', {
        token: seller.token,
        body: { order: { customer: { email: 'dec@shop.example' }, line: [{ id: 1, name: 'x', quantity: 1, price: '9,99 €' }] } },
      });
      expect(order.body.error).to.deep.equal([
        { error: 'invalid_field', description: message('order.line[0].price'), code: 400, field: 'order.line[0].price' },
      ]);
      const transfers = await call('bank/transfer/', { token: seller.token });
      expect(transfers.status).to.equal(200);
      expect((transfers.body.bank as { sender: string }[]).filter((b) => b.sender === 'Decimal Probe')).to.deep.equal([]);
    });
  });

  describe('decimal fields in exponent form', () => {
    // Joi's number read the text "1e2" as 100: a typo, or another program's float formatting
    // (XML <price>1E2</price>), booked a hundred as a payment, a fee or a price.
    it('when a decimal comes as text in exponent form, in JSON or XML, then 400 names the field and the order keeps its money; a JSON number in that form is the client’s own number', async () => {
      const orderId = await createOrder(seller, { line: [{ id: 1, name: 'Cup', quantity: 2, price: '10.00' }], shipping: { fee: '5.00' } });
      const message = (field: string) => `${field} must be a decimal number of at most 12 digits before the point (a dot or a comma before the decimals)`;
      const sent = [
        { body: { order: { paid_amount: '1e2' } }, field: 'order.paid_amount' },
        { body: { order: { line: [{ id: 1, name: 'Cup', quantity: 2, price: '2.5E1' }] } }, field: 'order.line[0].price' },
        { body: '<request><order><shipping><fee>1E2</fee></shipping></order></request>', field: 'order.shipping.fee' },
        { body: '<request><order><paid_amount>2e1</paid_amount></order></request>', field: 'order.paid_amount' },
      ];
      for (const { body, field } of sent) {
        const xml = typeof body === 'string' ? { headers: { 'Content-Type': 'application/xml' } } : {};
        const res = await call(`order/${orderId}/`, { token: seller.token, body, ...xml });
        expect(res.status, res.text).to.equal(400);
        expect(res.body.error, JSON.stringify(body)).to.deep.equal([{ error: 'invalid_field', description: message(field), code: 400, field }]);
      }
      const kept = await readOrder(seller, orderId);
      expect(kept).to.deep.include({ paid_amount: null, invoice_amount: '25.00' });
      expect(kept.shipping.fee).to.equal('5.00');
      expect(kept.line.map((l) => l.price)).to.deep.equal(['10.00']);

      const number = await call(`order/${orderId}/`, { token: seller.token, body: { order: { paid_amount: 2e1 } } });
      expect(number.status, number.text).to.equal(200);
      expect((await readOrder(seller, orderId)).paid_amount).to.equal('20.00');
    });
  });

  describe('bodies whose Content-Type is a form', () => {
    const post = async (body: string) => {
      const res = await fetch(`${await apiBase()}/v1.1/stock/`, {
        method: 'POST',
        // what curl -d sends when no -H names the type
        headers: { Authorization: `Bearer ${seller.token}`, 'Content-Type': 'application/x-www-form-urlencoded' },
        body,
      });
      return { status: res.status, body: (await res.json()) as { ack: string; stock_id?: number } };
    };
    const stored = async (sku: string) => {
      const res = await call(`stock/?filter[0][sku]=${sku}&select[name]=`, { token: seller.token });
      return (res.body.stock as { name: string }[]).map((s) => s.name);
    };

    it('when a JSON or XML body comes as application/x-www-form-urlencoded (curl -d), then it is read as what it is, and a real form still as a form', async () => {
      const json = await post('{"stock":{"name":"Curl JSON","sku":"CURL-J"}}');
      expect(json.status, JSON.stringify(json.body)).to.equal(201);
      expect(json.body.ack).to.equal('success');
      const xml = await post('<request><stock><name>Curl XML</name><sku>CURL-X</sku></stock></request>');
      expect(xml.status, JSON.stringify(xml.body)).to.equal(201);
      const form = await post('stock[name]=Curl+Form&stock[sku]=CURL-F');
      expect(form.status, JSON.stringify(form.body)).to.equal(201);
      expect(await stored('CURL-J')).to.deep.equal(['Curl JSON']);
      expect(await stored('CURL-X')).to.deep.equal(['Curl XML']);
      expect(await stored('CURL-F')).to.deep.equal(['Curl Form']);
    });

    it('when a body comes as multipart/form-data (PHP curl given an array), then 400 naming Content-Type, at token.php as at a resource, and nothing is stored', async () => {
      const expected = {
        error: 'bad_request',
        description: 'a multipart body is not read: send JSON, XML or application/x-www-form-urlencoded (token.php takes the form)',
        code: 400,
        field: 'Content-Type',
      };
      const stock = new FormData();
      stock.append('stock[name]', 'Multipart');
      stock.append('stock[sku]', 'MULTI-1');
      const res = await fetch(`${await apiBase()}/v1.1/stock/`, { method: 'POST', headers: { Authorization: `Bearer ${seller.token}` }, body: stock });
      expect(res.status).to.equal(400);
      expect(((await res.json()) as { error: unknown[] }).error).to.deep.equal([expected]);
      expect(await stored('MULTI-1')).to.deep.equal([]);
      // Before: "grant_type is required", though the client sent it.
      const grant = new FormData();
      grant.append('grant_type', 'client_credentials');
      const token = await fetch(`${await apiBase()}/v1.1/token.php`, {
        method: 'POST',
        headers: { Authorization: `Basic ${Buffer.from('nobody:nothing').toString('base64')}` },
        body: grant,
      });
      expect(token.status).to.equal(400);
      expect(((await token.json()) as { error: unknown[] }).error).to.deep.equal([expected]);
    });
  });

  describe('datetimes without an offset', () => {
    const hostZone = process.env.TZ;
    before(() => {
      // An operator's host in Germany; Node re-reads TZ when it is assigned.
      process.env.TZ = 'Europe/Berlin';
    });
    after(() => {
      if (hostZone === undefined) delete process.env.TZ;
      else process.env.TZ = hostZone;
    });
    const naive = (date: Date) => date.toISOString().slice(0, 19).replace('T', ' ');

    it('when a body datetime or a filter datetime comes as "YYYY-MM-DD HH:MM:SS", then it is UTC, as answers are, whatever the host time zone', async () => {
      expect(new Date('2026-11-20 10:00:00').toISOString(), 'the host zone is in effect').to.equal('2026-11-20T09:00:00.000Z');
      const created = await call('bank/transfer/', {
        token: seller.token,
        body: { bank: { transfer_date: '2026-11-20 10:00:00', amount: '12.50', sender: 'Zone Test', subject: 'naive time' } },
      });
      expect(created.status, created.text).to.equal(201);
      const id = created.body.bank_id as string;
      const read = await call(`bank/transfer/?filter[0][id]=${id}`, { token: seller.token });
      expect(read.status, read.text).to.equal(200);
      expect((read.body.bank as { transfer_date: string }[])[0]!.transfer_date).to.equal('2026-11-20T10:00:00.000Z');
      // date is the read-in time: from half an hour ahead (UTC) leaves it out, half an hour back takes it in
      const ids = async (from: Date) => {
        const to = naive(new Date(Date.now() + 2 * 3600_000));
        const res = await call(`bank/transfer/?filter[0][date][from]=${encodeURIComponent(naive(from))}&filter[0][date][to]=${encodeURIComponent(to)}`, {
          token: seller.token,
        });
        expect(res.status, res.text).to.equal(200);
        return (res.body.bank as { id: string }[]).map((b) => b.id);
      };
      expect(await ids(new Date(Date.now() + 30 * 60_000))).to.not.include(id);
      expect(await ids(new Date(Date.now() - 30 * 60_000))).to.include(id);
    });
  });

  describe('bodies in ISO-8859-15', () => {
    const post = async (contentType: string, bytes: Buffer) => {
      const res = await fetch(`${await apiBase()}/v1.1/stock/`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${seller.token}`, 'Content-Type': contentType },
        body: bytes,
      });
      return { status: res.status, body: (await res.json()) as { ack: string; stock_id?: number; error?: unknown[]; error_description?: string } };
    };
    const stored = async (sku: string) => {
      const res = await call(`stock/?filter[0][sku]=${sku}&select[name]=&select[sku]=`, { token: seller.token });
      expect(res.status, res.text).to.equal(200);
      return (res.body.stock as { name: string }[]).map((s) => s.name);
    };

    for (const contentType of ['application/xml', 'text/xml']) {
      it(`when an XML body declares encoding="ISO-8859-15" and Content-Type is ${contentType} without a charset, then the declaration is its charset (RFC 7303 3.2): € (0xA4) and ü are stored`, async () => {
        const sku = `DECL-${contentType.replace('/', '-')}`;
        const xml = iconv.encode(
          `<?xml version="1.0" encoding="ISO-8859-15"?>\n<request><stock><name>Becher 5€ Müller</name><sku>${sku}</sku></stock></request>`,
          'iso-8859-15',
        );
        expect(xml.includes(Buffer.from([0x35, 0xa4]))).to.equal(true);
        const res = await post(contentType, xml);
        expect(res.status, JSON.stringify(res.body)).to.equal(201);
        expect(res.body.ack).to.equal('success');
        expect(await stored(sku)).to.deep.equal(['Becher 5€ Müller']);
      });
    }

    it('when an XML body declares an encoding we do not take, then 400 unsupported_charset naming Content-Type, and nothing is stored', async () => {
      const res = await post('application/xml', Buffer.from('<?xml version="1.0" encoding="KOI8-R"?><request><stock><sku>KOI-1</sku></stock></request>'));
      expect(res.status).to.equal(400);
      expect(res.body.ack).to.equal('error');
      expect(res.body.error).to.deep.equal([
        {
          error: 'unsupported_charset',
          description: 'the XML declares encoding koi8-r, which is not supported; use UTF-8 or ISO-8859-15',
          code: 400,
          field: 'Content-Type',
        },
      ]);
      expect(await stored('KOI-1')).to.deep.equal([]);
    });

    it('when a JSON body in ISO-8859-15 comes without its charset, then 400 naming Content-Type instead of names stored with U+FFFD, and nothing is stored', async () => {
      const json = iconv.encode('{"stock":{"name":"Becher 5€ Müller","sku":"NOCHARSET-1"}}', 'iso-8859-15');
      const res = await post('application/json', json);
      expect(res.status).to.equal(400);
      expect(res.body.ack).to.equal('error');
      expect(res.body.error).to.deep.equal([
        {
          error: 'invalid_text',
          description: 'the body is not valid UTF-8; name its charset in Content-Type (charset=ISO-8859-15)',
          code: 400,
          field: 'Content-Type',
        },
      ]);
      expect(res.body.error_description).to.equal('the body is not valid UTF-8; name its charset in Content-Type (charset=ISO-8859-15)');
      expect(await stored('NOCHARSET-1')).to.deep.equal([]);
      // named, the same bytes are taken
      const named = await post('application/json; charset=ISO-8859-15', json);
      expect(named.status).to.equal(201);
      expect(await stored('NOCHARSET-1')).to.deep.equal(['Becher 5€ Müller']);
    });

    // XML 1.0 4.3.3: "All XML processors MUST be able to read entities in both the UTF-8 and UTF-16
    // encodings"; Appendix F tells UTF-16 by its byte order mark or the NULs beside `<?`. Both were
    // a 400 (unsupported_charset, or "not valid UTF-8").
    const utf16 = (text: string, order: 'le' | 'be', bom: boolean) => {
      const le = Buffer.from((bom ? '\uFEFF' : '') + text, 'utf16le');
      return order === 'le' ? le : Buffer.from(le).swap16();
    };
    const utf16Cases = [
      { order: 'le', bom: true, contentType: 'application/xml', how: 'little-endian with its byte order mark, Content-Type without a charset' },
      { order: 'be', bom: true, contentType: 'text/xml', how: 'big-endian with its byte order mark' },
      { order: 'be', bom: false, contentType: 'application/xml; charset=utf-16', how: 'big-endian without a byte order mark, charset=utf-16' },
      { order: 'le', bom: false, contentType: 'application/xml', how: 'little-endian without a byte order mark or charset (Appendix F: the NULs)' },
    ] as const;
    for (const [i, c] of utf16Cases.entries()) {
      it(`when an XML body comes in UTF-16, ${c.how}, then it is read (XML 1.0 4.3.3): €, ü and 𝄞 are stored`, async () => {
        const sku = `UTF16-${i}`;
        const xml = `<?xml version="1.0" encoding="UTF-16"?>\n<request><stock><name>Becher 5€ Müller 𝄞</name><sku>${sku}</sku></stock></request>`;
        const res = await post(c.contentType, utf16(xml, c.order, c.bom));
        expect(res.status, JSON.stringify(res.body)).to.equal(201);
        expect(res.body.ack).to.equal('success');
        expect(await stored(sku)).to.deep.equal(['Becher 5€ Müller 𝄞']);
      });
    }

    it('when an XML body declares encoding="utf-16" but comes in UTF-8 (.NET XmlSerializer through a StringWriter), then it is read as UTF-8', async () => {
      const xml = Buffer.from(
        '<?xml version="1.0" encoding="utf-16"?>\r\n<request><stock><name>Becher Müller</name><sku>DOTNET-1</sku></stock></request>',
        'utf8',
      );
      for (const contentType of ['application/xml', 'application/xml; charset=utf-8']) {
        const res = await post(contentType, xml);
        expect(res.status, JSON.stringify(res.body)).to.equal(201);
      }
      expect(await stored('DOTNET-1')).to.deep.equal(['Becher Müller', 'Becher Müller']);
    });

    it('when an XML body writes its names with a namespace prefix (<k:request xmlns:k=...>) or in a default namespace, then the names are read by their local part (Namespaces in XML 1.0, 4)', async () => {
      const prefixed = '<?xml version="1.0"?><k:request xmlns:k="urn:example:erp"><k:stock><k:name>Präfix</k:name><k:sku>NS-1</k:sku></k:stock></k:request>';
      const defaulted = '<request xmlns="urn:example:erp"><stock><name>Vorgabe</name><sku>NS-1</sku></stock></request>';
      for (const xml of [prefixed, defaulted]) {
        const res = await post('application/xml', Buffer.from(xml));
        expect(res.status, JSON.stringify(res.body)).to.equal(201);
      }
      expect(await stored('NS-1')).to.deep.equal(['Präfix', 'Vorgabe']);
    });

    it('when a UTF-16 XML body ends in half a character, then 400 invalid_text naming Content-Type, and nothing is stored', async () => {
      const bytes = utf16('<request><stock><name>Halb</name><sku>UTF16-ODD</sku></stock></request>', 'le', true);
      const res = await post('application/xml', Buffer.concat([bytes, Buffer.from([0x20])]));
      expect(res.status).to.equal(400);
      expect(res.body.error).to.deep.equal([
        { error: 'invalid_text', description: 'the body is not valid UTF-16: it ends in half a character', code: 400, field: 'Content-Type' },
      ]);
      expect(await stored('UTF16-ODD')).to.deep.equal([]);
    });

    it('when a JSON body names charset=utf-16, then it stays 400 unsupported_charset (RFC 8259 8.1: JSON between systems is UTF-8), and nothing is stored', async () => {
      const res = await post('application/json; charset=utf-16', utf16('{"stock":{"name":"x","sku":"UTF16-JSON"}}', 'le', true));
      expect(res.status).to.equal(400);
      expect(res.body.error).to.deep.equal([
        { error: 'unsupported_charset', description: 'charset utf-16 is not supported; use UTF-8 or ISO-8859-15', code: 400, field: 'Content-Type' },
      ]);
      expect(await stored('UTF16-JSON')).to.deep.equal([]);
    });
  });

  describe('answers in ISO-8859-15 (Accept-Charset)', () => {
    const name = 'Glas 7€ – łódź 𝄞';
    let stockId: string;
    before(async () => {
      const res = await call('stock/', { token: seller.token, body: { stock: { name, sku: 'ISO-GLAS' } } });
      expect(res.status, res.text).to.equal(201);
      stockId = String(res.body.stock_id);
    });

    const read = async (accept: string, acceptCharset = 'ISO-8859-15') => {
      const res = await fetch(`${await apiBase()}/v1.1/stock/${stockId}/?select[name]=`, {
        headers: { Authorization: `Bearer ${seller.token}`, Accept: accept, 'Accept-Charset': acceptCharset },
      });
      return { status: res.status, contentType: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
    };

    it('when a name holds characters ISO-8859-15 lacks, then the JSON answer carries € as byte 0xA4 and the others as \\u escapes, and decodes to the name stored', async () => {
      const res = await read('application/json');
      expect(res.status).to.equal(200);
      expect(res.contentType).to.equal('application/json; charset=ISO-8859-15');
      expect(res.bytes.includes(Buffer.from([0x37, 0xa4]))).to.equal(true);
      expect(res.bytes.includes(0x3f), 'no ? in place of a character').to.equal(false);
      const body = JSON.parse(iconv.decode(res.bytes, 'iso-8859-15')) as { ack: string; stock: { name: string } };
      expect(body).to.deep.equal({ ack: 'success', stock: { name, id: stockId } });
    });

    it('when the same is asked in XML, then the characters ISO-8859-15 lacks are character references and the declaration names the charset', async () => {
      const res = await read('application/xml');
      expect(res.status).to.equal(200);
      expect(res.contentType).to.equal('application/xml; charset=ISO-8859-15');
      const text = iconv.decode(res.bytes, 'iso-8859-15');
      expect(text).to.equal(
        `<?xml version="1.0" encoding="ISO-8859-15"?>\n<response><ack>success</ack><stock><name>Glas 7€ &#x2013; &#x142;ód&#x17A; &#x1D11E;</name><id>${stockId}</id></stock></response>`,
      );
      expect(res.bytes.includes(Buffer.from([0x37, 0xa4]))).to.equal(true);
    });

    it('when Accept-Charset weighs its charsets (RFC 9110 12.5.2), then the heaviest supported one answers, under its registered name', async () => {
      const utf8 = await read('application/json', 'iso-8859-15;q=0.5, utf-8');
      expect(utf8.contentType).to.equal('application/json; charset=UTF-8');
      expect(JSON.parse(utf8.bytes.toString('utf8'))).to.deep.equal({ ack: 'success', stock: { name, id: stockId } });
      const latin9 = await read('application/xml', 'utf-8;q=0.1, latin9');
      expect(latin9.contentType).to.equal('application/xml; charset=ISO-8859-15');
      expect(iconv.decode(latin9.bytes, 'iso-8859-15')).to.match(
        /^<\?xml version="1.0" encoding="ISO-8859-15"\?>\n<response><ack>success<\/ack><stock><name>Glas 7€ /,
      );
      expect(latin9.bytes.includes(Buffer.from([0x37, 0xa4]))).to.equal(true);
      const refused = await read('application/json', 'iso-8859-15;q=0, klingon');
      expect(refused.contentType).to.equal('application/json; charset=UTF-8');
    });

    it('when the item is read again in UTF-8, then its name is unchanged', async () => {
      const res = await call(`stock/${stockId}/?select[name]=`, { token: seller.token });
      expect(res.body).to.deep.equal({ ack: 'success', stock: { name, id: stockId } });
    });
  });
  describe("a POST's query string (document 1: every request accepts portal_account_id; a POST's data is its body)", () => {
    const portalAccountOf = async (orderId: string) => {
      const res = await call(`order/${orderId}/?select[portal_account_id]=`, { token: seller.token });
      expect(res.status, res.text).to.equal(200);
      return (res.body.order as { portal_account_id: number }).portal_account_id;
    };
    const newOrder = { order: { customer: { email: 'query@shop.example' } } };

    it("when POST order/ names a portal account in its query string, then the order is that portal account's; an unknown one is a 400 and no order is written", async () => {
      const shop2 = (await createPortalAccount(seller.id, { name: 'Shop 2', platform: 'shop_g' })).id;
      const made = await call(`order/?portal_account_id=${shop2}`, { token: seller.token, body: newOrder });
      expect(made.status, made.text).to.equal(201);
      expect(await portalAccountOf(made.body.order_id as string)).to.equal(shop2);
      const unknown = await call('order/?portal_account_id=999999', { token: seller.token, body: newOrder });
      expect(unknown.status, unknown.text).to.equal(400);
      expect(unknown.body.error!.map((e) => [e.error, e.field])).to.deep.equal([['unknown_portal_account', 'portal_account_id']]);
      const both = await call(`order/?portal_account_id=${shop2}`, { token: seller.token, body: { ...newOrder, portal_account_id: seller.portalAccountId } });
      expect(both.status, both.text).to.equal(400);
      expect(both.body.error!.map((e) => e.field)).to.deep.equal(['portal_account_id']);
      const orders = await call(`order/?${query({ filter: { customer: { email: 'query@shop.example' } }, select: { id: '' } })}`, { token: seller.token });
      expect((orders.body.order as unknown[]).length).to.equal(1);
    });

    it('when the query string and the body name the same portal account in different spellings (" 3", "03", 3), then they agree and the order is written once to it', async () => {
      const shop3 = (await createPortalAccount(seller.id, { name: 'Shop 3', platform: 'shop_g' })).id;
      for (const spelled of [` ${shop3}`, `0${shop3}`, `${shop3}`]) {
        const made = await call(`order/?portal_account_id=${encodeURIComponent(spelled)}`, {
          token: seller.token,
          body: { ...newOrder, portal_account_id: shop3 },
        });
        expect(made.status, `${JSON.stringify(spelled)}: ${made.text}`).to.equal(201);
        expect(await portalAccountOf(made.body.order_id as string)).to.equal(shop3);
      }
    });

    it('when a POST carries another query parameter, then 400 unknown_parameter names it and nothing is written', async () => {
      const res = await call('stock/?portal_acount_id=2&select[name]=', { token: seller.token, body: { stock: { name: 'Query typo', sku: 'QUERY-TYPO' } } });
      expect(res.status, res.text).to.equal(400);
      expect(res.body.error!.map((e) => [e.error, e.field])).to.deep.equal([['unknown_parameter', 'portal_acount_id']]);
      expect((await call('stock/SKU_QUERY-TYPO/', { token: seller.token })).status).to.equal(404);
    });
  });
});
