/**
 * A push whose outcome is unknown is sent once more after its late call can no longer land
 * (lib/portal-offer README "A push whose outcome is unknown"), and only once per episode: a portal
 * that stays down gets the push job's tries and the one push again's tries, then nothing until the
 * reconcile, as before that push again existed. A failure that cannot have been applied (a 429)
 * is not pushed again at all. Through the API, the workers and the sandbox's shop_g, which answers
 * every call with the status given.
 */
import { expect } from 'chai';
import { config, setConfig } from '../../config';
import { db } from '../../lib/db/knex';
import { channelLoopForSuite, Sandbox, waitFor } from '../fleet/support';
import { sandboxPost } from '../portals/channel-support';
import { createItem } from '../stock/helpers';
import { call, newSeller, Seller } from '../support/api';

describe('cia: the push again of an unknown outcome is bounded', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  channelLoopForSuite((loop) => ({ sandbox } = loop));
  let seller: Seller;
  let original: ReturnType<typeof config>;
  beforeEach(async () => {
    seller = await newSeller();
    original = config();
    // A late call can land for 1 s after a failure (timeout plus margin); no sweep in between.
    setConfig({ ...original, portalTimeoutMs: 300, ciaLateCallMarginMs: 700, ciaPushSweepMs: 3_600_000 });
  });
  afterEach(() => {
    setConfig(original);
    sandbox.state.faults = [];
  });

  /** The calls shop_g got from this seller's portal account. */
  const calls = () => sandbox.state.requests.filter((r) => r.portal === 'shop_g' && r.portalAccount === String(seller.portalAccountId)).length;
  const pushAgainRows = async () =>
    Number(
      ((await db()('outbox').where({ account_id: seller.id, job_name: 'portal.push_again' }).count<{ count: string }[]>('* as count'))[0] ?? { count: 0 })
        .count,
    );
  /**
   * What comes of the down portal over a quiet window: several times the time after which a late
   * call can no longer land (1 s, and 1 s of rounding to the second), so a push again every
   * deadline, as the loop made, shows as calls. A window and not a wait: nothing is to happen.
   */
  async function quietWindow(): Promise<{ calls: number; pushAgainRows: number }> {
    await new Promise((resolve) => setTimeout(resolve, 5000));
    return { calls: calls(), pushAgainRows: await pushAgainRows() };
  }

  const ciaState = (id: number) => db()('cia_portal_state').where({ account_id: seller.id, stock_id: id }).first('acked_quantity', 'last_error');

  /**
   * An item whose push to shop_g fails with `status` (`takenFirst`: shop_g took its first quantity
   * before it went down), and the calls shop_g had got before.
   */
  async function downItem(status: number, takenFirst = false): Promise<{ id: number; before: number }> {
    const down = () => sandboxPost(sandbox, '/_sandbox/faults', { portal: 'shop_g', portal_account: seller.portalAccountId, status, count: 100000 });
    let before = 0;
    if (!takenFirst) await down();
    const id = await createItem(seller, { name: 'Pan', sku: `PAN-${seller.id}`, quantity: 5, cia: { shop_g: { is_active: true } } });
    if (takenFirst) {
      await waitFor('shop_g to take 5', async () => (await ciaState(id))?.acked_quantity === 5 || undefined, 15000);
      before = calls();
      await down();
      const res = await call(`stock/${id}/`, { token: seller.token, body: { stock: { quantity: 4 } } });
      expect(res.status, res.text).to.equal(200);
    }
    await waitFor('the first push to fail', async () => ((await ciaState(id))?.last_error ? true : undefined), 15000);
    return { id, before };
  }

  for (const takenFirst of [false, true])
    it(`when shop_g answers 503 to every call${takenFirst ? ' after it took the item' : ''}, then it gets the push job’s tries and the one push again’s tries, and then no more calls or push_again rows`, async () => {
      const { id, before } = await downItem(503, takenFirst);
      const tries = config().jobAttempts;
      // A 503 may have been applied: the item goes once more after the deadline, that push's tries too.
      await waitFor('the push job’s tries and the push again’s', () => calls() >= before + 2 * tries || undefined, 15000);
      const settled = { calls: calls(), pushAgainRows: await pushAgainRows() };
      expect(settled.calls, 'calls once the push again was tried').to.equal(before + 2 * tries);
      expect(settled.pushAgainRows, 'push_again rows: at most one per failed try of the first push').to.be.within(1, tries);
      expect(await quietWindow(), 'the down portal kept being called').to.deep.equal(settled);
      expect(await ciaState(id), 'the state waits for the reconcile')
        .to.have.property('last_error')
        .that.is.a('string');
    });

  it('when shop_g answers 429 to every call, then nothing is pushed again: it gets the push job’s tries alone and no push_again is written', async () => {
    await downItem(429);
    const tries = config().jobAttempts;
    await waitFor('the push job’s tries', () => calls() >= tries || undefined, 15000);
    expect(await quietWindow(), 'a refused call (429) is not pushed again').to.deep.equal({ calls: tries, pushAgainRows: 0 });
  });
});
