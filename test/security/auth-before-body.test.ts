/**
 * Issue 31, must deliver 5 (finding 5): the bearer token is resolved before a body is read. An
 * unauthenticated request with a 10 MiB JSON or XML body is answered 401 while its client is still
 * sending, and nothing of it is decoded (server/framework/body.ts counts decodes).
 */
import http from 'node:http';
import { expect } from 'chai';
import { bodyStats } from '../../server/framework/body';
import { apiBase, call, newSeller } from '../support/api';

const tenMiB = 10 * 1024 * 1024 - 4096;

/**
 * Announces a body of `length` bytes and sends only its first 64 KiB, then waits for an answer:
 * the status, or null when none came within ms (the server waits for the rest of the body).
 */
async function answerBeforeBodyEnds(path: string, headers: Record<string, string>, start: string, length: number, ms = 3000): Promise<number | null> {
  const base = new URL(await apiBase());
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: base.hostname,
      port: base.port,
      path: `/v1.1/${path}`,
      method: 'POST',
      headers: { ...headers, 'Content-Length': String(length) },
    });
    const timer = setTimeout(() => {
      req.destroy();
      resolve(null);
    }, ms);
    req.on('response', (res) => {
      clearTimeout(timer);
      res.resume();
      resolve(res.statusCode ?? 0);
      req.destroy();
    });
    req.on('error', (err) => {
      clearTimeout(timer);
      if ((err as NodeJS.ErrnoException).code === 'ECONNRESET' || (err as NodeJS.ErrnoException).code === 'EPIPE') resolve(null);
      else reject(err);
    });
    req.write(start.padEnd(64 * 1024, ' '));
  });
}

describe('authenticate before reading the body (issue 31)', function () {
  this.timeout(30000);

  const cases: [string, Record<string, string>, string][] = [
    ['no token, JSON', { 'Content-Type': 'application/json' }, '{"order":{"customer":{"email":"a@example.com"},"note":"'],
    ['a bad token, JSON', { 'Content-Type': 'application/json', Authorization: 'Bearer not-a-token' }, '{"order":{"note":"'],
    ['no token, XML', { 'Content-Type': 'application/xml' }, '<?xml version="1.0"?><request><order><note>'],
    ['a bad token, XML', { 'Content-Type': 'application/xml', Authorization: 'Bearer not-a-token' }, '<request><order><note>'],
  ];
  for (const [what, headers, start] of cases) {
    it(`when ${what} comes with a 10 MiB body, then 401 is answered before the client has sent it, and nothing is decoded`, async () => {
      const decoded = bodyStats.decoded;
      expect(await answerBeforeBodyEnds('order/', headers, start, tenMiB)).to.equal(401);
      expect(bodyStats.decoded).to.equal(decoded);
    });
  }

  it('when the whole 10 MiB JSON body is sent with a bad token, then 401 and the body is not parsed', async () => {
    const decoded = bodyStats.decoded;
    const body = `{"order":{"note":"${'x'.repeat(tenMiB - 30)}"}}`;
    const res = await call('order/', { token: 'not-a-token', body, headers: { 'Content-Type': 'application/json' } }).catch(() => undefined);
    // The server may close the connection after its answer, before the client finished sending: then no status reaches fetch.
    if (res) expect(res.status).to.equal(401);
    expect(bodyStats.decoded).to.equal(decoded);
  });

  it('when a token lacks the scope, then 403 before the body is read', async () => {
    const seller = await newSeller('order_r');
    const decoded = bodyStats.decoded;
    expect(
      await answerBeforeBodyEnds('order/', { 'Content-Type': 'application/json', Authorization: `Bearer ${seller.token}` }, '{"order":{', tenMiB),
    ).to.equal(403);
    expect(bodyStats.decoded).to.equal(decoded);
  });

  it('when the token is good, then the body is read and decoded as before', async () => {
    const seller = await newSeller();
    const decoded = bodyStats.decoded;
    const res = await call('order/', { token: seller.token, body: { order: { customer: { email: 'buyer@example.com' } } } });
    expect(res.status, res.text).to.equal(201);
    expect(bodyStats.decoded).to.equal(decoded + 1);
  });
});
