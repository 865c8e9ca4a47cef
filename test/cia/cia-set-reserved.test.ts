/**
 * CIA offers a set what it has available (document 2, quantity_available: "quantity minus
 * reserved quantities ... basis for CIA"): the units reserved on the set main are not offered.
 * A set of one part with 5 and 3 sets reserved was offered 5 at shop_g. Through the API, the
 * workers and the sandbox channel.
 */
import { expect } from 'chai';
import { call, newSeller, Seller } from '../support/api';
import { waitFor, withSandboxAndFleet } from '../fleet/support';
import { createItem } from '../stock/helpers';

describe('cia: a set main with units reserved', function () {
  this.timeout(30000);
  let seller: Seller;
  const running = withSandboxAndFleet();
  beforeEach(async () => {
    seller = await newSeller();
  });
  const shown = (stockId: number) => running.sandbox.state.quantities(String(seller.portalAccountId)).shop_g?.[String(stockId)];
  async function update(stockId: number, stock: Record<string, unknown>): Promise<void> {
    const res = await call(`stock/${stockId}/`, { token: seller.token, body: { stock } });
    expect(res.status, res.text).to.equal(200);
  }

  it('when a set of one part with 5 has 3 reserved, then shop_g is offered 2; a change of the reservation or of the part moves the offer', async () => {
    const part = await createItem(seller, { name: 'Cup', quantity: 5 });
    const set = await createItem(seller, {
      name: 'Cup set',
      quantity: 0,
      quantity_reserved: 3,
      set: { sub: [{ id: String(part), quantity: 1 }] },
      cia: { shop_g: { is_active: true } },
    });
    await waitFor('offered', () => shown(set) !== undefined);
    expect(shown(set)).to.equal(2);

    await update(set, { quantity_reserved: 1 });
    await waitFor('the reservation lowered', () => shown(set) === 4);
    await update(set, { quantity_reserved_2: 4 });
    await waitFor('more reserved than the parts give', () => shown(set) === 0);
    await update(part, { quantity: 8 });
    await waitFor('the part raised', () => shown(set) === 3);
    expect(running.sandbox.state.quantitiesApplied('shop_g', String(set))).to.deep.equal([2, 4, 0, 3]);
  });
});
