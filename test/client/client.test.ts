import fs from 'node:fs';
import { expect } from 'chai';
import { clientTypes, clientTypesFile } from '../../scripts/client-generate';
import { apiBase, call, newSeller } from '../support/api';
import { integrate } from './integrator';

/**
 * The typed client (issue 36): its types are generated from the served document with
 * openapi-typescript, and the integrator's script of lib/http/README.md runs against the service.
 */
describe('typed client generated from openapi.json', () => {
  it('when the types are generated from the served openapi.json, then they are the committed test/client/kontor-api.d.ts (else run npm run client:generate)', async () => {
    const res = await fetch(`${await apiBase()}/v1.1/openapi.json`);
    expect(res.status).to.equal(200);
    const generated = await clientTypes((await res.json()) as Record<string, unknown>);
    const committed = fs.readFileSync(clientTypesFile, 'utf8');
    const lines = [generated.split('\n'), committed.split('\n')] as const;
    const first = lines[0].findIndex((line, i) => line !== lines[1][i]);
    expect(
      generated === committed,
      `test/client/kontor-api.d.ts differs from the document at line ${first + 1} (${lines[0][first]?.trim()}): run npm run client:generate`,
    ).to.equal(true);
  });

  it("when the integrator's script runs (token, stock item, order, read back), then the order it reads holds the line of the item it created", async () => {
    const seller = await newSeller();
    const result = await integrate(`${await apiBase()}/v1.1`, seller.login, seller.password);
    expect(result.orderId).to.match(/^\d+_\d{4}_\d{2}$/);
    expect(result.order.id).to.equal(result.orderId);
    expect(result.order.currency_id).to.equal('EUR');
    expect(result.order.customer?.email).to.equal('buyer@example.com');
    const line = result.order.line?.[0];
    expect(line?.name).to.equal('Enamel mug');
    // Document 2 types a line's quantity as a string.
    expect(line?.quantity).to.equal('2');
    expect(String(line?.stock_align_id)).to.equal(result.stockId);
    // The stock item exists for this seller as the script created it.
    const stock = await call(`stock/${result.stockId}/`, { token: seller.token });
    expect(stock.status, stock.text).to.equal(200);
    expect((stock.body.stock as { name: string }).name).to.equal('Enamel mug');
  });
});
