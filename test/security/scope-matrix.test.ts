/**
 * Document 1, Authentication 5: "A token lacking the scope for the command gets 403", for every
 * endpoint the service serves, walked from the openapi.json it publishes (so a new endpoint is
 * covered the day it is declared): without a token 401, with a token holding every scope but the
 * endpoint's own 403 insufficient_scope naming that scope, and nothing is done.
 */
import { expect } from 'chai';
import { allScopes } from '../../lib/access';
import { apiBase, call, newSeller, Seller, tokenFor } from '../support/api';

type Operation = { security: Record<string, string[]>[] };
type Document = { paths: Record<string, Record<string, Operation>> };

/** A value each path parameter takes syntactically, so the request reaches the endpoint's handler. */
const sample: Record<string, string> = { order_id: '1_2026_01', currency_id: 'EUR', country_id: 'DE' };
const concrete = (path: string) => path.replace(/\{(\w+)\}/g, (_, name: string) => sample[name] ?? '1');

interface Guarded {
  method: string;
  path: string;
  /** Every scope the endpoint declares (openapi.json's security: all of them required). */
  scopes: string[];
}

async function guardedOperations(): Promise<Guarded[]> {
  const doc = (await (await fetch(`${await apiBase()}/v1.1/openapi.json`)).json()) as Document;
  const out: Guarded[] = [];
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(operations)) {
      const oauth = op.security?.find((s) => s.oauth2)?.oauth2;
      if (oauth) out.push({ method: method.toUpperCase(), path: concrete(path).replace(/^\//, ''), scopes: oauth });
    }
  }
  return out;
}

describe('every endpoint refuses a token without its scope (document 1, Authentication 5)', function () {
  this.timeout(120000);
  let seller: Seller;
  let operations: Guarded[];
  const tokens = new Map<string, string>();

  before(async () => {
    seller = await newSeller();
    operations = await guardedOperations();
    for (const scope of new Set(operations.flatMap((o) => o.scopes))) {
      tokens.set(scope, await tokenFor(seller.login, seller.password, allScopes.filter((s) => s !== scope).join(' ')));
    }
  });

  it('when openapi.json is walked, then it lists the scoped endpoints of every domain', () => {
    expect(operations.length).to.be.greaterThan(60);
    const scoped = new Set(operations.flatMap((o) => o.scopes));
    for (const scope of ['stock_r', 'stock_w', 'order_r', 'order_w', 'customer_r', 'bank_r', 'bank_w', 'task_r', 'task_w', 'admin_r', 'admin_w'])
      expect(scoped, scope).to.include(scope);
  });

  it('when an endpoint that needs a token is called without one, then 401 with the Bearer challenge', async () => {
    const wrong: string[] = [];
    for (const o of operations) {
      const res = await call(o.path, { method: o.method, ...(o.method === 'POST' ? { body: {} } : {}) });
      const challenge = res.headers.get('www-authenticate') ?? '';
      if (res.status !== 401 || !challenge.startsWith('Bearer')) wrong.push(`${o.method} ${o.path}: ${res.status} ${challenge}`);
    }
    expect(wrong).to.deep.equal([]);
  });

  it("when a token holds every scope but one of the endpoint's, then 403 insufficient_scope naming that scope, and nothing is created", async () => {
    const wrong: string[] = [];
    for (const o of operations) {
      for (const scope of o.scopes) {
        const res = await call(o.path, { method: o.method, token: tokens.get(scope)!, ...(o.method === 'POST' ? { body: {} } : {}) });
        const challenge = res.headers.get('www-authenticate') ?? '';
        const ok = res.status === 403 && res.body.error?.[0]?.error === 'insufficient_scope' && challenge.includes(`scope="${scope}"`);
        if (!ok) wrong.push(`${o.method} ${o.path} (${scope}): ${res.status} ${res.body.error?.[0]?.error ?? ''} ${challenge}`);
      }
    }
    expect(wrong).to.deep.equal([]);
    const stock = await call('stock/', { token: seller.token });
    expect(stock.body.stock).to.deep.equal([]);
    const events = await call('admin/event/handler/', { token: seller.token });
    expect(events.body.event_handler).to.deep.equal([]);
  });
});
