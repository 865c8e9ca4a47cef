import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import express, { NextFunction, Request, Response } from 'express';
import { PathTable } from '../../server/framework/path-table';
import { endpoints } from '../../server/routes';

/**
 * The API's paths are found by a PathTable instead of Express's routers. Judged against Express
 * itself: every declared path becomes a route of an Express router as the framework declared
 * them before (strict: false, caseSensitive: true, literal segments first), and every probe must
 * find the same path with the same parameters, or nothing, or the same 400.
 */
describe('path table: the API paths are matched as Express matched them', () => {
  const declared = [...new Set(endpoints.map((e) => e.path))];
  const table = new PathTable<string>();
  for (const path of declared) table.add(path, path);

  let server: http.Server;
  let port: number;
  before(async () => {
    const router = express.Router({ strict: false, caseSensitive: true });
    const literalFirst = (a: string, b: string) => {
      const as = a.split('/');
      const bs = b.split('/');
      for (let i = 0; i < Math.min(as.length, bs.length); i++) {
        const d = (as[i]!.startsWith('{') ? 1 : 0) - (bs[i]!.startsWith('{') ? 1 : 0);
        if (d) return d;
      }
      return 0;
    };
    for (const path of [...declared].sort(literalFirst)) {
      router.all('/' + path.replace(/\/$/, '').replace(/\{(\w+)\}/g, ':$1'), (req: Request, res: Response) => {
        res.json({ path, params: req.params });
      });
    }
    const app = express();
    app.use(router);
    app.use((_req: Request, res: Response) => res.json({ path: null }));
    app.use((err: { status?: number }, _req: Request, res: Response, _next: NextFunction) => res.json({ status: err.status }));
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  /** Express's answer for a raw request path (no client normalises it). */
  function express_(path: string): Promise<unknown> {
    return new Promise((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path }, (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve(JSON.parse(text)));
        })
        .on('error', reject);
    });
  }

  function table_(path: string): unknown {
    try {
      const found = table.match(path);
      return found ? { path: found.value, params: found.params } : { path: null };
    } catch (err) {
      return { status: (err as { status?: number }).status };
    }
  }

  /** Each declared path with sample values, and the shapes clients get wrong. */
  function probes(): string[] {
    const out = new Set<string>(['/', '/order', '/ORDER/', '/nothing/here/', '/order//', '/stock//history/']);
    for (const path of declared) {
      const filled = '/' + path.replace(/\{\w+\}/g, '42');
      out.add(filled);
      out.add(filled.replace(/\/$/, ''));
      out.add(filled + '/');
      out.add(filled + 'extra/');
      out.add(filled.toUpperCase());
      out.add('/' + path.replace(/\{\w+\}/g, 'a%20b%2Fc'));
      out.add('/' + path.replace(/\{\w+\}/g, '%E0%A4%A'));
      out.add('/' + path.replace(/\{\w+\}/g, ''));
      out.add('/' + path.replace(/\{\w+\}/g, 'category'));
    }
    return [...out];
  }

  it('when each declared path and its variants are asked, then the table finds what Express found, parameters and 400s included', async () => {
    const list = probes();
    expect(list.length).to.be.greaterThan(declared.length * 5);
    let matched = 0;
    for (const path of list) {
      const expected = await express_(path);
      expect(table_(path), path).to.deep.equal(expected);
      if ((expected as { path: string | null }).path) matched++;
    }
    // Not a comparison of misses only: most probes find a path.
    expect(matched).to.be.greaterThan(declared.length * 2);
  });

  it('when a literal and a parameter could both take a segment, then the literal wins', () => {
    const stock = declared.filter((p) => p.startsWith('stock/'));
    expect(stock).to.include.members(['stock/category/', 'stock/{stock_id}/']);
    expect(table.match('/stock/category/')?.value).to.equal('stock/category/');
    expect(table.match('/stock/17/')).to.deep.equal({ value: 'stock/{stock_id}/', params: { stock_id: '17' } });
  });
});
