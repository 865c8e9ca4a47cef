import { expect } from 'chai';
import crypto from 'node:crypto';
import iconv from 'iconv-lite';
import { apiBase, newSeller, plainGet as plainGetOf, Seller } from '../support/api';

/**
 * The answer of an endpoint is written by the framework (server/framework/respond.ts), not by
 * Express's res.send: the headers it gave stay, Express's weak ETag included, and a conditional
 * request still gets 304 when the answer has not changed.
 */
describe('answers: the headers res.send gave', () => {
  let seller: Seller;
  before(async () => {
    seller = await newSeller();
  });

  const get = async (path: string, headers: Record<string, string> = {}) =>
    fetch(`${await apiBase()}/v1.1/${path}`, { headers: { Authorization: `Bearer ${seller.token}`, ...headers } });

  /** Express's weak ETag (the etag package): W/"<length in hex>-<27 characters of the SHA-1 in base64>". */
  const weakTag = (body: Buffer) => `W/"${body.length.toString(16)}-${crypto.createHash('sha1').update(body).digest('base64').slice(0, 27)}"`;

  it('when a JSON answer is sent, then Content-Type, Content-Length and the weak ETag match its bytes', async () => {
    const res = await get('system/currency/EUR/');
    const body = Buffer.from(await res.arrayBuffer());
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/json; charset=UTF-8');
    expect(Number(res.headers.get('content-length'))).to.equal(body.length);
    expect(res.headers.get('etag')).to.equal(weakTag(body));
  });

  it('when an answer is asked for in ISO-8859-15, then its length and ETag are of the encoded bytes', async () => {
    const res = await get('system/currency/EUR/', { 'Accept-Charset': 'ISO-8859-15' });
    const body = Buffer.from(await res.arrayBuffer());
    expect(res.headers.get('content-type')).to.equal('application/json; charset=ISO-8859-15');
    expect(JSON.parse(iconv.decode(body, 'iso-8859-15'))).to.deep.equal({ ack: 'success', currency: { internal_id: 0, id: 'EUR' } });
    expect(Number(res.headers.get('content-length'))).to.equal(body.length);
    expect(res.headers.get('etag')).to.equal(weakTag(body));
  });

  const plainGet = (path: string, headers: Record<string, string>) => plainGetOf(seller.token, path, headers);

  it('when the ETag of the last answer is sent in If-None-Match, then 304 without a body; another tag gets the answer', async () => {
    const first = await get('system/currency/EUR/');
    const tag = first.headers.get('etag')!;
    const again = await plainGet('system/currency/EUR/', { 'If-None-Match': tag });
    expect(again.status).to.equal(304);
    expect(again.body).to.equal('');
    const other = await plainGet('system/currency/EUR/', { 'If-None-Match': 'W/"1-x"' });
    expect(other.status).to.equal(200);
    expect(JSON.parse(other.body)).to.deep.equal({ ack: 'success', currency: { internal_id: 0, id: 'EUR' } });
  });

  it('when an error is answered, then it is written with its status, headers and a matching length', async () => {
    const res = await get('system/currency/XYZ/');
    const body = Buffer.from(await res.arrayBuffer());
    expect(res.status).to.equal(404);
    expect(Number(res.headers.get('content-length'))).to.equal(body.length);
    expect(res.headers.get('x-request-id')).to.be.a('string');
    expect(res.headers.get('access-control-allow-origin')).to.equal('*');
  });
});
