import { expect } from 'chai';
import { queues } from '../../lib/queue/queue.registry';
import { schedules, tickId } from '../../lib/queue/schedules';
import { call, newSeller, Seller } from '../support/api';
import { waitFor, withSandboxAndFleet } from './support';

describe('fleet: scheduler and CIA reconcile', () => {
  let seller: Seller;
  const running = withSandboxAndFleet();
  before(async () => {
    seller = await newSeller();
  });

  const reconcile = () => schedules().find((s) => s.name === 'cia-reconcile')!;

  it('when the reconcile ticks twice in one minute, then one reconcile job is queued', async () => {
    const tick = new Date('2026-11-21T10:15:07Z');
    await reconcile().enqueue(tick);
    await reconcile().enqueue(new Date('2026-11-21T10:15:42Z'));
    const job = await queues()
      .get('cia')
      .getJob(`cia-reconcile-${tickId(tick)}`);
    expect(job?.name).to.equal('cia.reconcile');
    await waitFor('the reconcile done', async () => (await job!.getState()) === 'completed');
  });

  it('when a push failed for good, then the next reconcile pushes that item again, and an item in sync gets nothing', async () => {
    const account = String(seller.portalAccountId);
    const synced = await call('stock/', { token: seller.token, body: { stock: { name: 'In sync', quantity: 3, cia: { shop_g: { is_active: true } } } } });
    const syncedId = String(synced.body.stock_id);
    await waitFor('the synced item shown', () => running.sandbox.state.quantities(account).shop_g?.[syncedId] === 3);

    running.sandbox.state.faults.push({ portal: 'market_c', portalAccount: account, status: 400, remaining: 1, message: 'refused once' });
    const broken = await call('stock/', { token: seller.token, body: { stock: { name: 'Refused', quantity: 8, cia: { market_c: { is_active: true } } } } });
    const brokenId = String(broken.body.stock_id);
    await waitFor('the refused push', () =>
      running.sandbox.state.requests.some((r) => r.portal === 'market_c' && r.status === 400 && r.portalAccount === account),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(running.sandbox.state.quantities(account).market_c?.[brokenId]).to.equal(undefined);

    await reconcile().enqueue(new Date());
    await waitFor('the reconciled quantity', () => running.sandbox.state.quantities(account).market_c?.[brokenId] === 8);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(running.sandbox.state.quantitiesApplied('shop_g', syncedId)).to.have.length(1);
  });
});
