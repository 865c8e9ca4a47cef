import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import nock from 'nock';
import zlib from 'node:zlib';
import { changesByMethod, mayLandAnswered, mayLandUnanswered, portalRequest } from '../../lib/portals/portal-request';

/** A server answering each request with what `answer` does; it records what it was sent. */
async function portal(answer: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void) {
  const seen: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      answer(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, seen, server, close: () => new Promise((resolve) => server.close(resolve)) };
}

describe('portal requests: what the portal clients rely on, without fetch', function () {
  const closers: (() => Promise<unknown>)[] = [];
  // nock's interceptor opens a connection per request: the kept-alive connections are seen only without it.
  before(() => nock.restore());
  after(() => nock.activate());
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  it('when a JSON body is sent, then the portal gets method, headers, body and its length, and the answer comes back whole with its headers', async () => {
    const p = await portal((_req, res) => {
      res.setHeader('Retry-After', '7');
      res.setHeader('Set-Cookie', ['a=1', 'b=2']);
      res.writeHead(429, 'Too Many Requests').end('{"message":"slow down"}');
    });
    closers.push(p.close);
    const body = JSON.stringify({ items: [{ reference: '1', quantity: 3 }], note: 'größe' });
    const answer = await portalRequest(new URL('/market_c/offers/quantities?x=1', p.base), {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'k1' },
      body,
      timeoutMs: 5000,
    });
    expect(p.seen).to.have.length(1);
    expect(p.seen[0]).to.deep.include({ method: 'PUT', url: '/market_c/offers/quantities?x=1', body });
    expect(p.seen[0]!.headers).to.deep.include({
      'content-type': 'application/json',
      'idempotency-key': 'k1',
      'content-length': String(Buffer.byteLength(body)),
    });
    expect(p.seen[0]!.headers['accept-encoding']).to.equal(undefined);
    expect(answer).to.deep.include({ status: 429, ok: false, statusText: 'Too Many Requests', text: '{"message":"slow down"}' });
    expect(answer.headers.get('Retry-After')).to.equal('7');
    expect(answer.headers.get('set-cookie')).to.equal('a=1, b=2');
    expect(answer.headers.get('x-none')).to.equal(null);
  });

  it('when the answer starts with a byte order mark, then the text is decoded as UTF-8 without it, as fetch does', async () => {
    const p = await portal((_req, res) => res.end(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"name":"Kühlschrank"}')])));
    closers.push(p.close);
    const answer = await portalRequest(new URL('/', p.base), { method: 'GET', headers: {}, timeoutMs: 5000 });
    expect(answer.ok).to.equal(true);
    expect(JSON.parse(answer.text)).to.deep.equal({ name: 'Kühlschrank' });
  });

  it('when the portal compresses its answer although none was asked for, then the text is decoded (gzip and br)', async () => {
    const json = JSON.stringify({ orders: [{ id: 'A-1', buyer: 'Jürgen' }] });
    const p = await portal((req, res) => {
      const br = req.url === '/br';
      res.setHeader('Content-Encoding', br ? 'br' : 'gzip');
      res.end(br ? zlib.brotliCompressSync(json) : zlib.gzipSync(json));
    });
    closers.push(p.close);
    for (const path of ['/gz', '/br']) {
      const answer = await portalRequest(new URL(path, p.base), { method: 'GET', headers: {}, timeoutMs: 5000 });
      expect(answer.text).to.equal(json);
    }
  });

  it('when the portal does not finish its answer in time, then the request fails with a TimeoutError', async () => {
    const p = await portal((_req, res) => {
      res.writeHead(200);
      res.write('{"partial":');
    });
    closers.push(async () => {
      p.server.closeAllConnections();
      await p.close();
    });
    const err = (await portalRequest(new URL('/', p.base), { method: 'GET', headers: {}, timeoutMs: 150 }).catch((e: unknown) => e)) as Error;
    expect(err).to.be.instanceOf(Error);
    expect(err.name).to.equal('TimeoutError');
  });

  it('when the portal answers with a redirect, then it is not followed: the caller sees the 3xx', async () => {
    const p = await portal((req, res) => {
      if (req.url === '/old') res.writeHead(301, { Location: '/new' }).end();
      else res.end('{}');
    });
    closers.push(p.close);
    const answer = await portalRequest(new URL('/old', p.base), { method: 'POST', headers: {}, body: '{}', timeoutMs: 5000 });
    expect([answer.status, answer.ok, answer.headers.get('location')]).to.deep.equal([301, false, '/new']);
    expect(p.seen.map((s) => s.url)).to.deep.equal(['/old']);
  });

  it('when a kept-alive connection is reset before the answer, then the request goes once more on a new connection and is answered', async () => {
    // As when a portal closes a connection it found idle just as the next request is sent on it.
    let first: unknown;
    const p = await portal((req, res) => {
      if (p.seen.length === 1) first = req.socket;
      if (p.seen.length > 1 && req.socket === first) return void req.socket.resetAndDestroy();
      res.end(JSON.stringify({ n: p.seen.length }));
    });
    closers.push(p.close);
    const answers = [await portalRequest(new URL('/a', p.base), { method: 'GET', headers: {}, timeoutMs: 5000 })];
    await new Promise((resolve) => setTimeout(resolve, 20)); // the connection back in the pool
    answers.push(await portalRequest(new URL('/b', p.base), { method: 'POST', headers: {}, body: '{}', timeoutMs: 5000 }));
    expect(answers.map((a) => a.text)).to.deep.equal(['{"n":1}', '{"n":3}']);
    expect(p.seen.map((s) => s.url)).to.deep.equal(['/a', '/b', '/b']);
  });

  it('when a connection is reset twice, then the error reaches the caller', async () => {
    const p = await portal((req) => void req.socket.resetAndDestroy());
    closers.push(p.close);
    const err = (await portalRequest(new URL('/', p.base), { method: 'GET', headers: {}, timeoutMs: 5000 }).catch((e: unknown) => e)) as NodeJS.ErrnoException;
    expect(err.code).to.equal('ECONNRESET');
  });

  it('when the portal cannot be reached, then the error is the connection error, not a timeout', async () => {
    const p = await portal((_req, res) => res.end());
    await p.close();
    const err = (await portalRequest(new URL('/', p.base), { method: 'GET', headers: {}, timeoutMs: 5000 }).catch((e: unknown) => e)) as NodeJS.ErrnoException;
    expect(err.code).to.equal('ECONNREFUSED');
    expect(err.name).to.not.equal('TimeoutError');
  });

  it('when a change fails after the portal read it (no answer in time, a reset) or with a 5xx, then it may still land; refused, a 429 or a read, then not', async () => {
    const silent = await portal(() => undefined);
    closers.push(async () => {
      silent.server.closeAllConnections();
      await silent.close();
    });
    const reset = await portal((req) => void req.socket.resetAndDestroy());
    closers.push(reset.close);
    const gone = await portal((_req, res) => res.end());
    await gone.close();
    const fail = (base: string, method: string) =>
      portalRequest(new URL('/offers/quantities', base), { method, headers: {}, body: method === 'GET' ? undefined : '{"quantity":3}', timeoutMs: 300 }).then(
        () => expect.fail('answered'),
        (e: unknown) => e as NodeJS.ErrnoException,
      );
    const late = await fail(silent.base, 'PUT');
    expect(late.name).to.equal('TimeoutError');
    expect(mayLandUnanswered(changesByMethod('PUT'), late), 'a PUT the portal read and did not answer in time').to.equal(true);
    expect(mayLandUnanswered(changesByMethod('GET'), await fail(silent.base, 'GET')), 'a GET asks for nothing').to.equal(false);
    const cut = await fail(reset.base, 'POST');
    expect(cut.code).to.equal('ECONNRESET');
    expect(mayLandUnanswered(changesByMethod('POST'), cut), 'a POST reset after the portal read it').to.equal(true);
    const refused = await fail(gone.base, 'PUT');
    expect(refused.code).to.equal('ECONNREFUSED');
    expect(mayLandUnanswered(changesByMethod('PUT'), refused), 'a PUT whose connection was refused').to.equal(false);
    expect([503, 500, 429, 408].map((status) => mayLandAnswered(changesByMethod('PUT'), status))).to.deep.equal([true, true, false, false]);
    expect(mayLandAnswered(changesByMethod('GET'), 503)).to.equal(false);
  });
});
