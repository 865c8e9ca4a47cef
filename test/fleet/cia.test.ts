import { expect } from 'chai';
import { computeOffers, dependents } from '../../lib/cia/cia-compute';
import { queues } from '../../lib/queue/queue.registry';
import type { CiaInput } from '../../lib/stock/cia-input';
import { call, newSeller, Seller } from '../support/api';
import { stockCiaHandler } from '../stock/helpers';
import { waitFor, withSandboxAndFleet } from './support';

const input = (over: Partial<CiaInput>): CiaInput => ({
  accountId: 1,
  stockId: 10,
  variationType: 'none',
  variationParentId: null,
  setType: 'none',
  setMainIds: [],
  quantityAvailable: 7,
  variants: [],
  cia: {},
  eventTargets: [],
  eventMaxQuantity: null,
  ...over,
});
const active = (max: number | null = null, accounts: number[] = []) => ({ is_active: true, max_quantity: max, portal_account_id: accounts });

describe('fleet: CIA quantities (pure)', () => {
  it('when a portal is active, then it offers quantity_available; inactive portals are left alone', () => {
    const offers = computeOffers(input({ cia: { auction_a: active(), shop_g: { ...active(), is_active: false } } }));
    expect(offers).to.deep.equal([{ portal: 'auction_a', quantity: 7, portalAccountIds: [] }]);
  });

  it('when max_quantity is set, then it caps the offer, and -1 ends it', () => {
    const offers = computeOffers(input({ cia: { auction_a: active(3), market_e: active(-1), webshop: active(10), market_c: active(0) } }));
    expect(offers.map((o) => [o.portal, o.quantity])).to.deep.equal([
      ['auction_a', 3],
      ['market_e', 0],
      ['webshop', 7],
      ['market_c', 0],
    ]);
  });

  it('when the item is a variation main with variants, then it offers nothing whatever its own cia says (its variants are offered); negatives count as 0', () => {
    const offers = computeOffers(
      input({
        variationType: 'main',
        quantityAvailable: 0,
        variants: [
          { stockId: 11, quantityAvailable: 4 },
          { stockId: 12, quantityAvailable: -2 },
          { stockId: 13, quantityAvailable: 5 },
        ],
        cia: { shop_g: active() },
      }),
    );
    expect(offers).to.deep.equal([]);
    expect(computeOffers(input({ quantityAvailable: -3, cia: { shop_g: active() } }))[0]!.quantity).to.equal(0);
  });

  it('when an item holds more than a portal takes, then the offer is capped at the portal’s maximum', () => {
    const offers = computeOffers(input({ quantityAvailable: 3000000000, cia: { webshop: active(), shop_g: active() } }));
    expect(offers.map((o) => [o.portal, o.quantity])).to.deep.equal([
      ['webshop', 1000000000],
      ['shop_g', 2147483647],
    ]);
  });

  it('when an item holds more than market_f shows (document 2: quantity 1 to 9999), then the offer, and so the state, is 9999', () => {
    const offers = computeOffers(input({ quantityAvailable: 20000, cia: { market_f: active() } }));
    expect(offers.map((o) => [o.portal, o.quantity])).to.deep.equal([['market_f', 9999]]);
  });

  it('when market_d names portal accounts, then the offer carries them', () => {
    expect(computeOffers(input({ cia: { market_d: active(null, [5, 6]) } }))[0]!.portalAccountIds).to.deep.equal([5, 6]);
  });

  it('when an item is a set sub, then its set mains are adjusted after it; a variant’s main is not (it offers nothing of its own)', () => {
    expect(dependents(input({ variationType: 'sub', variationParentId: 3, setMainIds: [4, 5] })).sort()).to.deep.equal([4, 5]);
    expect(dependents(input({}))).to.deep.equal([]);
  });
});

describe('fleet: CIA through the workers and the sandbox', () => {
  let seller: Seller;
  const running = withSandboxAndFleet();
  beforeEach(async () => {
    seller = await newSeller();
  });

  const shown = (stockId: number) => {
    const all = running.sandbox.state.quantities(String(seller.portalAccountId));
    return Object.fromEntries(
      Object.entries(all)
        .filter(([, skus]) => String(stockId) in skus)
        .map(([portal, skus]) => [portal, skus[String(stockId)]]),
    );
  };
  const cia = { auction_a: { is_active: true }, market_e: { is_active: true, max_quantity: 2 }, shop_g: { is_active: true }, market_c: { is_active: false } };

  async function createItem(stock: Record<string, unknown>): Promise<number> {
    const res = await call('stock/', { token: seller.token, body: { stock } });
    expect(res.status, res.text).to.equal(201);
    return Number(res.body.stock_id);
  }
  async function setQuantity(stockId: number, quantity: number): Promise<void> {
    const res = await call(`stock/${stockId}/`, { token: seller.token, body: { stock: { quantity } } });
    expect(res.status, res.text).to.equal(200);
  }

  it('when an item with active portals is created and changed, then each active portal shows the capped quantity, and only changes are pushed', async () => {
    const stockId = await createItem({ name: 'Mug', quantity: 5, cia });
    await waitFor('quantities at the sandbox', () => {
      const q = shown(stockId);
      return q.auction_a === 5 && q.shop_g === 5 && q.market_e === 2 ? q : undefined;
    });
    expect(shown(stockId)).to.not.have.property('market_c');
    await setQuantity(stockId, 4);
    await waitFor('the new quantity', () => shown(stockId).auction_a === 4 && shown(stockId).shop_g === 4);
    // market_e stays capped at 2: nothing to send there.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(running.sandbox.state.quantitiesApplied('market_e', String(stockId))).to.deep.equal([2]);
    expect(running.sandbox.state.quantitiesApplied('auction_a', String(stockId))).to.deep.equal([5, 4]);
  });

  it('when an item changes many times in a burst, then each portal ends on the latest quantity, never gets an older one after a newer, and gets fewer pushes than changes', async () => {
    const stockId = await createItem({ name: 'Burst', quantity: 30, cia: { auction_a: { is_active: true }, shop_g: { is_active: true } } });
    await waitFor('first quantities', () => shown(stockId).auction_a === 30 && shown(stockId).shop_g === 30);
    running.sandbox.state.delays.set('auction_a', 250);
    try {
      for (let q = 20; q >= 6; q--) await setQuantity(stockId, q);
      await waitFor('the last quantity', () => shown(stockId).auction_a === 6 && shown(stockId).shop_g === 6, 15000);
      await new Promise((resolve) => setTimeout(resolve, 300));
    } finally {
      running.sandbox.state.delays.delete('auction_a');
    }
    for (const portal of ['auction_a', 'shop_g']) {
      const sent = running.sandbox.state.quantitiesApplied(portal, String(stockId));
      expect(sent[sent.length - 1], portal).to.equal(6);
      // Quantities only went down: any rise in what was sent would be an older quantity after a newer one.
      expect(sent, portal).to.deep.equal([...sent].sort((a, b) => b - a));
    }
    expect(running.sandbox.state.quantitiesApplied('auction_a', String(stockId)).length).to.be.below(16);
  });

  it('when an item is deleted, then every portal it was offered on goes to 0', async () => {
    const stockId = await createItem({ name: 'Gone', quantity: 4, cia: { shop_g: { is_active: true }, auction_b: { is_active: true } } });
    await waitFor('offered', () => shown(stockId).shop_g === 4 && shown(stockId).auction_b === 4);
    expect((await call(`stock/${stockId}/`, { token: seller.token, method: 'DELETE' })).status).to.equal(200);
    await waitFor('ended', () => shown(stockId).shop_g === 0 && shown(stockId).auction_b === 0);
  });

  it('when max_quantity is -1, then the offer is ended with quantity 0', async () => {
    const stockId = await createItem({ name: 'Ended', quantity: 9, cia: { shop_g: { is_active: true, max_quantity: -1 } } });
    await waitFor('quantity 0', () => shown(stockId).shop_g === 0);
  });

  it('when the cap is lifted (max_quantity null in JSON, an empty element in XML), then the channel offers the full quantity again; -1 then 0 ends and resumes the offer', async () => {
    const stockId = await createItem({
      name: 'Capped',
      quantity: 7,
      cia: { shop_g: { is_active: true, max_quantity: 2 }, auction_a: { is_active: true, max_quantity: 3 } },
    });
    await waitFor('capped', () => shown(stockId).shop_g === 2 && shown(stockId).auction_a === 3);
    const lifted = await call(`stock/${stockId}/`, { token: seller.token, body: { stock: { cia: { shop_g: { max_quantity: null } } } } });
    expect(lifted.status, lifted.text).to.equal(200);
    const xml = await call(`stock/${stockId}/`, {
      token: seller.token,
      headers: { 'Content-Type': 'application/xml' },
      body: '<request><stock><cia><auction_a><max_quantity/></auction_a></cia></stock></request>',
    });
    expect(xml.status, xml.text).to.equal(200);
    await waitFor('7 at both', () => shown(stockId).shop_g === 7 && shown(stockId).auction_a === 7);
    expect(((await call(`stock/${stockId}/`, { token: seller.token })).body.stock as { cia: unknown }).cia).to.deep.include({
      shop_g: { is_active: true, max_quantity: null },
      auction_a: { is_active: true, max_quantity: null },
    });
    await setCap(stockId, -1);
    await waitFor('ended', () => shown(stockId).shop_g === 0);
    await setCap(stockId, null);
    await waitFor('offered again', () => shown(stockId).shop_g === 7);
  });

  async function setCap(stockId: number, max: number | null): Promise<void> {
    const res = await call(`stock/${stockId}/`, { token: seller.token, body: { stock: { cia: { shop_g: { max_quantity: max } } } } });
    expect(res.status, res.text).to.equal(200);
  }

  it("when POST stock/{stock_id}/cia/ is called, then it answers 202 with the job id, and the job completes with each portal's quantity", async () => {
    const stockId = await createItem({ name: 'Triggered', quantity: 3, cia: { shop_g: { is_active: true } } });
    const res = await call(`stock/${stockId}/cia/`, { token: seller.token, method: 'POST' });
    expect(res.status, res.text).to.equal(202);
    expect(res.body.stock_id).to.equal(stockId);
    const jobId = res.body.job_id as string;
    const done = await waitFor('job completed', async () => {
      const body = (await call(`job/${jobId}/`, { token: seller.token })).body as {
        job: { state: string; result?: { portals: { portal: string; quantity: number }[] } };
      };
      return body.job.state === 'completed' ? body.job : undefined;
    });
    expect(done.result!.portals.map((p) => [p.portal, p.quantity])).to.deep.equal([['shop_g', 3]]);
    expect((await call('stock/999999999/cia/', { token: seller.token, method: 'POST' })).status).to.equal(404);
  });

  it('when cia.event names targets and the quantity changes, then an event job goes to the events queue for them', async () => {
    // A target names a stock cia handler of the seller (here a task action, named by its id).
    const target = String(await stockCiaHandler(seller));
    const stockId = await createItem({ name: 'Evented', quantity: 2, cia: { shop_g: { is_active: true }, event: { is_active: true, target: [target] } } });
    const event = await waitFor('the event job', async () => {
      const jobs = await queues().get('events').getJobs(['waiting', 'active', 'completed', 'failed', 'delayed']);
      return jobs.find((j) => j.name === 'event.emit' && j.data.section === 'stock' && j.data.recordId === String(stockId));
    });
    expect(event.data).to.deep.include({ accountId: seller.id, type: 'cia' });
    expect(event.data.data.target).to.deep.equal([target]);
  });

  it("when cia.event is an item's only target, or its portals' offers stay capped, then a quantity change still notifies the targets", async () => {
    const eventJobs = async (stockId: number) =>
      (await queues().get('events').getJobs(['waiting', 'active', 'completed', 'failed', 'delayed'])).filter(
        (j) => j.name === 'event.emit' && j.data.section === 'stock' && j.data.recordId === String(stockId),
      );
    // A seller feeding a shop Kontor has no portal for through the notification: no portal state to change.
    const ownShop = String(await stockCiaHandler(seller));
    const only = await createItem({ name: 'Own shop only', quantity: 5, cia: { event: { is_active: true, target: [ownShop] } } });
    await waitFor('the event of the new item', async () => ((await eventJobs(only)).length >= 1 ? true : undefined));
    // market_e stays at its cap of 2 from 5 to 4: its state does not change, the item's quantity does.
    const capped = await createItem({
      name: 'Capped',
      quantity: 5,
      cia: { market_e: { is_active: true, max_quantity: 2 }, event: { is_active: true, target: [ownShop] } },
    });
    await waitFor('the event of the capped item', async () => ((await eventJobs(capped)).length >= 1 ? true : undefined));
    const before = { only: (await eventJobs(only)).length, capped: (await eventJobs(capped)).length };
    await setQuantity(only, 4);
    await setQuantity(capped, 4);
    await waitFor('an event per change', async () =>
      (await eventJobs(only)).length > before.only && (await eventJobs(capped)).length > before.capped ? true : undefined,
    );
  });
});
