/**
 * cia.<portal>.is_active false takes a channel out of CIA (document 2, Stock_cia_portal_type
 * is_active); turned on again, CIA keeps it right again: the channel shows the item's quantity,
 * whatever it was set to while CIA left it alone.
 */
import { expect } from 'chai';
import { call, newSeller, Seller } from '../support/api';
import { waitFor, withSandboxAndFleet } from '../fleet/support';

describe('cia: a portal taken out of CIA and put back', function () {
  this.timeout(30000);
  let seller: Seller;
  const running = withSandboxAndFleet();
  beforeEach(async () => {
    seller = await newSeller();
  });
  const shown = (stockId: number, portal: string) => running.sandbox.state.quantities(String(seller.portalAccountId))[portal]?.[String(stockId)];
  async function update(stockId: number, stock: Record<string, unknown>): Promise<void> {
    const res = await call(`stock/${stockId}/`, { token: seller.token, body: { stock } });
    expect(res.status, res.text).to.equal(200);
  }

  it('when shop_g is made inactive, set by hand at the channel, and made active again, then shop_g shows the item’s quantity again; auction_a, active throughout, is untouched', async () => {
    const res = await call('stock/', {
      token: seller.token,
      body: { stock: { name: 'Hand set', quantity: 5, cia: { shop_g: { is_active: true }, auction_a: { is_active: true } } } },
    });
    expect(res.status, res.text).to.equal(201);
    const stockId = Number(res.body.stock_id);
    await waitFor('offered', () => shown(stockId, 'shop_g') === 5 && shown(stockId, 'auction_a') === 5);

    await update(stockId, { cia: { shop_g: { is_active: false } } });
    // While CIA leaves shop_g alone, the seller sets it by hand at the channel.
    const offer = [...running.sandbox.state.offers.values()].find((o) => o.portal === 'shop_g' && o.sku === String(stockId));
    expect(offer, 'the shop_g offer').to.not.equal(undefined);
    offer!.quantity = 1;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(shown(stockId, 'shop_g')).to.equal(1);

    await update(stockId, { cia: { shop_g: { is_active: true } } });
    await waitFor('shop_g right again', () => shown(stockId, 'shop_g') === 5, 10000);
    expect(running.sandbox.state.quantitiesApplied('shop_g', String(stockId))).to.deep.equal([5, 5]);
    expect(running.sandbox.state.quantitiesApplied('auction_a', String(stockId))).to.deep.equal([5]);
  });
});
