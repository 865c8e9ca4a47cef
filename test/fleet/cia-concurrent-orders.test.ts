/**
 * A best-seller sold several times at the same moment: orders posted together, each taking units
 * of one item, and what every channel shows at the end (the sandbox's own state, not Kontor's
 * tables). No channel may offer more than the item has left, and none may end on an older
 * quantity after a newer one.
 */
import { expect } from 'chai';
import { call, newSeller, Seller, withConcurrentCalls } from '../support/api';
import { createOrder } from '../order/helpers';
import { waitFor, withSandboxAndFleet } from './support';

describe('fleet: CIA of one item under orders posted at the same moment', function () {
  this.timeout(60000);
  let seller: Seller;
  const running = withSandboxAndFleet();
  beforeEach(async () => {
    seller = await newSeller();
  });

  const portals = ['auction_a', 'shop_g', 'market_e'] as const;
  const shown = (stockId: number) => {
    const all = running.sandbox.state.quantities(String(seller.portalAccountId));
    return portals.map((portal) => all[portal]?.[String(stockId)]);
  };

  it('when eight orders of one item are posted together, then the stock is 12 less and every channel ends on it, each having been sent only falling quantities', async () => {
    const created = await call('stock/', {
      token: seller.token,
      body: { stock: { name: 'Best-seller', quantity: 20, cia: Object.fromEntries(portals.map((p) => [p, { is_active: true }])) } },
    });
    expect(created.status, created.text).to.equal(201);
    const stockId = Number(created.body.stock_id);
    await waitFor('20 at every channel', () => shown(stockId).every((q) => q === 20));

    // 1 + 2 + 1 + 2 + ... : twelve units in eight orders, all in flight at once (document 1 lets
    // an account run one call at a time by default: a second at once is a 429, so it is raised).
    const units = [1, 2, 1, 2, 1, 2, 1, 2];
    await withConcurrentCalls(units.length, () =>
      Promise.all(
        units.map((quantity, i) => createOrder(seller, { line: [{ id: 1, name: `Sale ${i}`, quantity, price: '9.90', stock_align_id: String(stockId) }] })),
      ),
    );
    const item = await call(`stock/${stockId}/`, { token: seller.token });
    expect((item.body.stock as { quantity: number; quantity_available: number }).quantity).to.equal(8);

    await waitFor('8 at every channel', () => shown(stockId).every((q) => q === 8), 20000);
    for (const portal of portals) {
      const sent = running.sandbox.state.quantitiesApplied(portal, String(stockId));
      expect(sent[0], portal).to.equal(20);
      expect(sent[sent.length - 1], portal).to.equal(8);
      // Only falling: a rise would be an older quantity after a newer one, offering units sold.
      expect(sent, portal).to.deep.equal([...sent].sort((a, b) => b - a));
      expect(Math.min(...sent), portal).to.equal(8);
    }
  });
});
