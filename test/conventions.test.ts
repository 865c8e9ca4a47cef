import { expect } from 'chai';
import iconv from 'iconv-lite';
import { XMLParser } from 'fast-xml-parser';
import { accountRepository } from '../lib/account/account.repository';
import { apiBase, call, newSeller, Seller } from './support/api';

const xml = new XMLParser({ parseTagValue: false, ignoreAttributes: true });

describe('request conventions (document 1, Endpoints)', () => {
  let seller: Seller;
  before(async () => {
    seller = await newSeller();
  });

  describe('envelope and headers', () => {
    it('when a currency is read with a token, then the envelope carries ack and the payload', async () => {
      const res = await call('system/currency/EUR/', { token: seller.token });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ ack: 'success', currency: { internal_id: 0, id: 'EUR' } });
    });

    it('when any answer is sent, then it carries the CORS, X-Powered-By and rate-limit headers', async () => {
      const res = await call('system/currency/', { token: seller.token });
      for (const header of [
        'access-control-allow-headers',
        'access-control-allow-methods',
        'access-control-allow-origin',
        'x-powered-by',
        'x-ratelimit-limit',
        'x-ratelimit-remaining',
        'x-ratelimit-reset',
        'x-request-id',
      ]) {
        expect(res.headers.get(header), header).to.be.a('string').and.not.equal('');
      }
      expect(Number(res.headers.get('x-ratelimit-remaining'))).to.be.below(Number(res.headers.get('x-ratelimit-limit')));
    });

    it('when the list of currencies is read, then EUR is first with internal id 0 and every id has 3 letters', async () => {
      const res = await call('system/currency/', { token: seller.token });
      const list = res.body.currency as { internal_id: number; id: string }[];
      expect(list[0]).to.deep.equal({ internal_id: 0, id: 'EUR' });
      expect(list.length).to.be.above(150);
      expect(list.every((c) => /^[A-Z]{3}$/.test(c.id))).to.equal(true);
    });

    it('when an error is answered, then it has error[], ack error and error_description, and no stack', async () => {
      const res = await call('system/currency/XYZ/', { token: seller.token });
      expect(res.status).to.equal(404);
      expect(res.body.ack).to.equal('error');
      expect(res.body.error).to.deep.equal([{ error: 'not_found', description: 'currency XYZ does not exist', code: 404, field: 'currency_id' }]);
      expect(res.body.error_description).to.equal('currency XYZ does not exist');
    });
  });

  describe('versions and paths', () => {
    for (const version of ['v0.5', 'v0.6', 'v1.0', 'v1.1']) {
      it(`when the path starts with ${version}, then the endpoint answers`, async () => {
        const res = await call('system/currency/EUR/', { token: seller.token, version });
        expect(res.status).to.equal(200);
        expect(res.body.currency).to.deep.equal({ internal_id: 0, id: 'EUR' });
      });
    }

    it('when the trailing slash is left out, then the same endpoint answers', async () => {
      const res = await call('system/currency/EUR', { token: seller.token });
      expect(res.status).to.equal(200);
    });

    it('when the version is unknown, then 404 in the envelope', async () => {
      const res = await call('system/currency/', { token: seller.token, version: 'v9.9' });
      expect(res.status).to.equal(404);
      expect(res.body.error![0]!.error).to.equal('unknown_path');
    });

    it('when a path does not exist, then 404 unknown_path', async () => {
      const res = await call('system/nothing/', { token: seller.token });
      expect(res.status).to.equal(404);
      expect(res.body.ack).to.equal('error');
    });

    it('when the base URL npm start prints is opened (a browser, no token), then the 404 says where the endpoints are listed', async () => {
      const res = await fetch(`${await apiBase()}/v1.1/`);
      expect(res.status).to.equal(404);
      expect(((await res.json()) as { error: unknown[] }).error).to.deep.equal([
        {
          error: 'unknown_path',
          description: '/v1.1/ is not an endpoint of this service; every endpoint is listed at /v1.1/openapi.json and shown at /v1.1/docs/',
          code: 404,
        },
      ]);
    });
  });

  describe('methods', () => {
    it('when a path is called with a method it does not have, then 405 with Allow', async () => {
      const res = await call('system/currency/', { token: seller.token, method: 'DELETE' });
      expect(res.status).to.equal(405);
      expect(res.headers.get('allow')).to.equal('GET, OPTIONS');
      expect(res.body.error![0]!.error).to.equal('method_not_allowed');
    });

    it('when a method a path does not have is called without a valid token, then 401 as its methods answer (document 1: 405 is for the authorized), and 405 once authorized', async () => {
      for (const [token, error] of [
        [undefined, 'missing_token'],
        ['not-a-token', 'invalid_token'],
      ] as const) {
        const res = await call('order/list/', { ...(token ? { token } : {}), method: 'PUT', body: { order: [] } });
        expect(res.status, res.text).to.equal(401);
        expect(res.body.error![0]!.error).to.equal(error);
        expect(res.headers.get('www-authenticate')).to.match(/^Bearer/);
        expect(res.headers.get('allow')).to.equal(null);
      }
      expect((await call('order/list/', { token: seller.token, method: 'PUT', body: { order: [] } })).status).to.equal(405);
      // token.php takes no token: its other methods are 405 to anyone.
      expect((await call('token.php', { method: 'GET' })).status).to.equal(405);
    });

    it('when OPTIONS is asked, then it lists the methods, scopes, request and response of the path, without a token', async () => {
      const res = await call('admin/user/', { method: 'OPTIONS' });
      expect(res.status).to.equal(200);
      const options = res.body.options as {
        path: string;
        methods: { method: string; scope: string; response: string[]; request?: Record<string, unknown> }[];
        versions: { current: string };
      };
      expect(options.path).to.equal('admin/user/');
      expect(options.methods.map((m) => m.method)).to.deep.equal(['GET', 'POST']);
      expect(options.methods[0]!.scope).to.equal('admin_r');
      expect(options.methods[1]!.request).to.have.property('user');
      expect(options.versions.current).to.equal('v1.1');
      expect(res.headers.get('allow')).to.equal('GET, POST, OPTIONS');
    });

    it('when OPTIONS is asked of an endpoint a revision note of document 1 concerns, then its method lists that version change (under every version prefix)', async () => {
      type Options = { methods: { method: string; changes?: { version: string; change: string }[] }[] };
      const changesOf = async (path: string, method: string, version?: string) => {
        const res = await call(path, { method: 'OPTIONS', version });
        expect(res.status, res.text).to.equal(200);
        expect(res.body.ack).to.equal('success');
        return (res.body.options as Options).methods.find((m) => m.method === method)!.changes?.map((c) => c.version) ?? [];
      };
      for (const version of ['v0.5', 'v1.0', 'v1.1']) {
        expect(await changesOf('order/', 'GET', version)).to.include.members(['v1.1.13', 'v1.1.18', 'v1.1.10']);
      }
      expect(await changesOf('order/1_2026_01/', 'GET')).to.include.members(['v1.1.18', 'v1.1.10']);
      expect(await changesOf('order/', 'POST')).to.deep.equal(['v1.1.13']);
      expect(await changesOf('order/1_2026_01/send_mit/', 'POST')).to.deep.equal(['v1.1.13']);
      expect(await changesOf('stock/MKTDSKU_A1/', 'GET')).to.include('v1.1.13');
      expect(await changesOf('stock/1/portal_upload/', 'POST')).to.include('v1.0.2');
      expect(await changesOf('token.php', 'POST')).to.deep.equal(['v1.1.10']);
      // A path no shown revision concerns lists none.
      expect(await changesOf('system/currency/', 'GET')).to.deep.equal([]);
    });
  });

  describe('XML and charsets', () => {
    it('when Accept asks for XML, then the answer is XML under <response>', async () => {
      const res = await call('system/currency/EUR/', { token: seller.token, headers: { Accept: 'application/xml' } });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^application\/xml; charset=UTF-8/);
      expect(xml.parse(res.text).response).to.deep.equal({ ack: 'success', currency: { internal_id: '0', id: 'EUR' } });
    });

    it('when an error is asked for in XML, then it is XML too', async () => {
      const res = await call('system/currency/', { headers: { Accept: 'text/xml' } });
      expect(res.status).to.equal(401);
      const parsed = xml.parse(res.text).response;
      expect(parsed.ack).to.equal('error');
      expect(parsed.error.error).to.equal('missing_token');
    });

    it('when an XML body in ISO-8859-15 is posted with "application/xml encoding=iso-8859-15", then it is decoded, and the answer honours Accept-Charset', async () => {
      const body = iconv.encode(
        '<?xml version="1.0" encoding="ISO-8859-15"?><request><user><settings><city>Köln €</city><ean>0012345678905</ean><flag>1</flag></settings></user></request>',
        'iso-8859-15',
      );
      const post = await call('admin/user/', { token: seller.token, body, headers: { 'Content-Type': 'application/xml encoding=iso-8859-15' } });
      expect(post.status).to.equal(200);
      expect(post.body.ack).to.equal('success');
      const row = await accountRepository.get(seller.id);
      expect(row!.settings).to.deep.include({ city: 'Köln €', ean: '0012345678905', flag: '1' });

      const res = await fetch(`${await apiBase()}/v1.1/admin/user/`, {
        headers: { Authorization: `Bearer ${seller.token}`, Accept: 'application/xml', 'Accept-Charset': 'ISO-8859-15' },
      });
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(res.headers.get('content-type')).to.equal('application/xml; charset=ISO-8859-15');
      expect(bytes.includes(Buffer.from([0x4b, 0xf6, 0x6c, 0x6e, 0x20, 0xa4]))).to.equal(true); // "Köln €" in latin-9
      expect(xml.parse(iconv.decode(bytes, 'iso-8859-15')).response.user.settings.city).to.equal('Köln €');
    });

    it('when JSON comes as "application/json encoding=utf-8", then it is read as JSON', async () => {
      const res = await call('admin/user/', {
        token: seller.token,
        body: JSON.stringify({ user: { settings: { mode: 'ü' } } }),
        headers: { 'Content-Type': 'application/json encoding=utf-8' },
      });
      expect(res.status).to.equal(200);
      expect((await accountRepository.get(seller.id))!.settings).to.deep.include({ mode: 'ü' });
    });

    it('when JSON comes in ISO-8859-15 (charset=iso-8859-15), then it is decoded', async () => {
      const body = iconv.encode(JSON.stringify({ user: { settings: { currency: '€' } } }), 'iso-8859-15');
      const res = await call('admin/user/', { token: seller.token, body, headers: { 'Content-Type': 'application/json; charset=iso-8859-15' } });
      expect(res.status).to.equal(200);
      expect((await accountRepository.get(seller.id))!.settings).to.deep.include({ currency: '€' });
    });

    it('when a charset is unknown, then 400 naming Content-Type', async () => {
      const res = await call('admin/user/', { token: seller.token, body: '{}', headers: { 'Content-Type': 'application/json; charset=klingon' } });
      expect(res.status).to.equal(400);
      expect(res.body.error![0]).to.include({ error: 'unsupported_charset', field: 'Content-Type' });
    });

    it('when XML carries a DOCTYPE or an entity, then 400 and nothing changes', async () => {
      const body = '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x "boom">]><request><user><settings><doctype>&x;</doctype></settings></user></request>';
      const res = await call('admin/user/', { token: seller.token, body, headers: { 'Content-Type': 'application/xml' } });
      expect(res.status).to.equal(400);
      expect(res.body.error![0]!.error).to.equal('xml_doctype_refused');
      expect((await accountRepository.get(seller.id))!.settings).not.to.have.property('doctype');
    });

    it('when the XML root is not <request>, or the XML is broken, then 400', async () => {
      const wrongRoot = await call('admin/user/', { token: seller.token, body: '<order><user/></order>', headers: { 'Content-Type': 'text/xml' } });
      expect(wrongRoot.status).to.equal(400);
      const broken = await call('admin/user/', { token: seller.token, body: '<request><user>', headers: { 'Content-Type': 'text/xml' } });
      expect(broken.status).to.equal(400);
      expect(broken.body.error![0]!.error).to.equal('malformed_xml');
    });

    it('when JSON is malformed, then 400 malformed_json', async () => {
      const res = await call('admin/user/', { token: seller.token, body: '{"user": ', headers: { 'Content-Type': 'application/json' } });
      expect(res.status).to.equal(400);
      expect(res.body.error![0]!.error).to.equal('malformed_json');
    });

    it('when a body is larger than the configured limit, then 413', async () => {
      const res = await call('admin/user/', { token: seller.token, body: `{"user":{"settings":{"x":"${'a'.repeat(11 * 1024 * 1024)}"}}}` });
      expect(res.status).to.equal(413);
      expect(res.body.error![0]!.error).to.equal('payload_too_large');
    });
  });

  describe('validation', () => {
    it('when a body has an unknown field, then 400 names it and nothing changes', async () => {
      const before = (await accountRepository.get(seller.id))!.settings;
      const res = await call('admin/user/', { token: seller.token, body: { user: { settings: { changed: 'yes' }, colour: 'red' } } });
      expect(res.status).to.equal(400);
      expect(res.body.error![0]).to.include({ error: 'invalid_field', field: 'user.colour', code: 400 });
      expect((await accountRepository.get(seller.id))!.settings).to.deep.equal(before);
    });

    it('when read-only fields are sent, then they are ignored with a warning each and the rest is written', async () => {
      const res = await call('admin/user/', { token: seller.token, body: { user: { id: 999, email: 'x@example.com', settings: { ro: 'ok' } } } });
      expect(res.status).to.equal(200);
      expect(res.body.ack).to.equal('warning');
      expect(res.body.warning!.map((w) => w.field)).to.deep.equal(['user.id', 'user.email']);
      const row = (await accountRepository.get(seller.id))!;
      expect(row.id).to.equal(seller.id);
      expect(row.email).to.equal(null);
      expect(row.settings).to.deep.include({ ro: 'ok' });
    });

    it('when a GET carries an unknown parameter, then 400 names it', async () => {
      const res = await call('system/currency/?colour=red', { token: seller.token });
      expect(res.status).to.equal(400);
      expect(res.body.error![0]!.field).to.equal('colour');
    });
  });
});
