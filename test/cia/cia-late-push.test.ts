/**
 * A quantity push whose outcome Kontor does not know (no answer in time, a reset connection, a
 * 5xx) may still take effect at the channel after a newer push was taken: the items of that call
 * get one more push of their latest quantity once the late call can no longer land
 * (lib/portal-offer README "A push whose outcome is unknown"). Through the API, the workers and
 * the sandbox's Kaufland, which answers the call late while it takes effect.
 */
import { expect } from 'chai';
import { config, setConfig } from '../../config';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { db } from '../../lib/db/knex';
import { channelLoopForSuite, jobEnd, Sandbox, waitFor } from '../fleet/support';
import { stockQuantity } from '../order/helpers';
import { createItem } from '../stock/helpers';
import { call, newSeller, Seller } from '../support/api';

describe('cia: a push that timed out and lands late', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  channelLoopForSuite((loop) => ({ sandbox } = loop));
  let seller: Seller;
  let original: ReturnType<typeof config>;
  beforeEach(async () => {
    seller = await newSeller();
    original = config();
    // Kontor gives a call 800 ms; the late call below takes effect 3 s after it arrived, within the
    // timeout plus the margin (3.5 s) after which the items are pushed once more.
    setConfig({ ...original, portalTimeoutMs: 800, ciaLateCallMarginMs: 3500 });
  });
  afterEach(() => {
    setConfig(original);
    sandbox.state.delays.clear();
  });

  const ciaState = (stockId: number) =>
    db()('cia_portal_state').where({ account_id: seller.id, stock_id: stockId }).first('desired_quantity', 'acked_quantity', 'last_error') as Promise<
      { desired_quantity: number; acked_quantity: number | null; last_error: string | null } | undefined
    >;
  async function update(stockId: number, quantity: number): Promise<void> {
    const res = await call(`stock/${stockId}/`, { token: seller.token, body: { stock: { quantity } } });
    expect(res.status, res.text).to.equal(200);
  }

  it('when Kaufland takes a timed-out push of 5 after the newer 3 was acknowledged, then Kaufland ends on 3', async () => {
    const kl = Number((await createPortalAccount(seller.id, { name: 'Kaufland.de', platform: 'market_e' })).id);
    const sku = `POT-${seller.id}`;
    const id = await createItem(seller, {
      name: 'Pot',
      sku,
      quantity: 6,
      market_e: { ean: '4006381333931', price: '24.90', delivery_time: '1-2' },
      cia: { market_e: { is_active: true } },
    });
    const up = await call(`stock/${id}/portal_upload/`, {
      token: seller.token,
      body: { portal_upload: { market_e: [{ action: 'list', portal_account_id: kl }] } },
    });
    expect(up.status, up.text).to.equal(207);
    const listed = await jobEnd(seller.token, (up.body.response as { job_id: string }[])[0]!.job_id);
    expect(listed.state, listed.error).to.equal('completed');
    const shown = () => sandbox.state.quantities(String(kl)).market_e?.[sku];
    await waitFor('Kaufland offering 6', async () => shown() === 6 && (await ciaState(id))?.acked_quantity === 6, 15000);
    /** The quantities Kaufland took of the SKU, in order, from now on. */
    const from = sandbox.state.ackCount;
    const taken = () => sandbox.state.acks.filter((a) => a.seq > from && a.portal === 'market_e' && a.sku === sku).map((a) => a.quantity);

    // Kaufland answers this one bulk call only after 3 s, and takes its amount then.
    sandbox.state.delays.set('market_e POST /v2/units/bulk', 3000);
    await update(id, 5);
    await waitFor('the push of 5 to reach Kaufland', () => sandbox.state.inFlight > 0);
    sandbox.state.delays.clear();
    await update(id, 3);
    await waitFor('3 acknowledged', async () => (await ciaState(id))?.acked_quantity === 3, 10000);
    await waitFor('the late 5 to land after the 3', () => taken().join(',').includes('3,5') || undefined, 10000);

    await waitFor('Kaufland to take 3 again after the late 5', () => /3,5(,\d+)*,3$/.test(taken().join(',')) || undefined, 15000);
    await waitFor('the state acknowledged at 3', async () => (await ciaState(id))?.acked_quantity === 3 || undefined, 10000);
    expect({ kaufland: shown(), state: await ciaState(id), stock: await stockQuantity(seller, id) }).to.deep.equal({
      kaufland: 3,
      state: { desired_quantity: 3, acked_quantity: 3, last_error: null },
      stock: 3,
    });
  });
});
