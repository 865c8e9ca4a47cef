import { expect } from 'chai';
import { config, setConfig } from '../../config';
import { db } from '../../lib/db/knex';
import { queues } from '../../lib/queue/queue.registry';
import { call, newSeller, Seller } from '../support/api';
import { waitFor, withSandboxAndFleet } from './support';

interface BulkBody {
  items: { reference: string; quantity: number; idempotency_key: string }[];
}

/** eBay's bulkUpdatePriceQuantity request (auction_a). */
interface EbayBulkBody {
  requests: { sku: string; shipToLocationAvailability: { quantity: number } }[];
}

describe('fleet: bulk quantity pushes per portal account', () => {
  let seller: Seller;
  const running = withSandboxAndFleet();
  const window = config().ciaPushWindowMs;
  after(() => {
    setConfig({ ...config(), ciaPushWindowMs: window });
  });
  beforeEach(async () => {
    seller = await newSeller();
  });

  const account = () => String(seller.portalAccountId);
  const shown = (portal: string) => running.sandbox.state.quantities(account())[portal] ?? {};
  /** The bulk quantity calls this seller's portal account got at a portal, as sent. */
  const bulkCalls = (portal: string) =>
    running.sandbox.state.requests
      .filter((r) => r.portal === portal && r.portalAccount === account() && r.path === `/${portal}/offers/quantities`)
      .map((r) => ({ status: r.status, items: (r.body as BulkBody).items }));

  async function createItems(stock: Record<string, unknown>[]): Promise<number[]> {
    const res = await call('stock/list/', { token: seller.token, body: { stock } });
    expect(res.status, res.text).to.equal(207);
    return (res.body.response as { code: number; stock_id: number }[]).map((r) => {
      expect(r.code).to.equal(201);
      return Number(r.stock_id);
    });
  }
  async function setQuantities(changes: [number, number][]): Promise<void> {
    const res = await call('stock/list/', { token: seller.token, body: { stock: changes.map(([id, quantity]) => ({ id, quantity })) } });
    expect(res.status, res.text).to.equal(207);
  }

  it("when many items of one portal account change at once, then they go in fewer bulk calls than items, none above the portal's batch size, and each ends on its quantity", async () => {
    const ids = await createItems(Array.from({ length: 30 }, (_, i) => ({ name: `Bulk ${i}`, quantity: 100 + i, cia: { market_e: { is_active: true } } })));
    await waitFor('every item shown', () => ids.every((id, i) => shown('market_e')[String(id)] === 100 + i), 15000);
    const calls = bulkCalls('market_e');
    expect(calls.length).to.be.below(ids.length);
    // Every item was sent exactly once, with its own idempotency key.
    const sent = calls.flatMap((c) => c.items.map((item) => item.reference)).sort();
    expect(sent).to.deep.equal(ids.map(String).sort());
    const keys = calls.flatMap((c) => c.items.map((item) => item.idempotency_key));
    expect(new Set(keys).size).to.equal(keys.length);
  });

  it("when 30 items change at auction_a, then eBay's bulkUpdatePriceQuantity gets them in calls of at most 25 SKUs, each SKU once with its quantity", async () => {
    const ids = await createItems(Array.from({ length: 30 }, (_, i) => ({ name: `Bulk ${i}`, quantity: 100 + i, cia: { auction_a: { is_active: true } } })));
    await waitFor('every item shown', () => ids.every((id, i) => shown('auction_a')[String(id)] === 100 + i), 15000);
    const calls = running.sandbox.state.requests
      .filter((r) => r.portal === 'auction_a' && r.portalAccount === account() && r.path === '/sell/inventory/v1/bulk_update_price_quantity')
      .map((r) => (r.body as EbayBulkBody).requests);
    expect(calls.length).to.be.within(2, ids.length - 1);
    for (const requests of calls) expect(requests.length).to.be.within(1, 25);
    // Items without a SKU of their own go to eBay under their stock id.
    const sent = calls.flat().map((r) => [r.sku, r.shipToLocationAvailability.quantity]);
    expect(sent.sort()).to.deep.equal(ids.map((id, i) => [String(id), 100 + i]).sort());
  });

  it('when the portal refuses one item of a batch, then the others are acknowledged, the refusal is recorded and fails the job, and the item is sent again only once its quantity changes', async () => {
    const ids = await createItems([1, 2, 3].map((n) => ({ name: `Refusal ${n}`, quantity: 10, cia: { shop_g: { is_active: true } } })));
    await waitFor('first quantities', () => ids.every((id) => shown('shop_g')[String(id)] === 10));
    const refused = ids[1]!;
    running.sandbox.state.faults.push({
      portal: 'shop_g',
      portalAccount: account(),
      reference: String(refused),
      status: 422,
      remaining: 1,
      message: 'offer is blocked',
    });
    await setQuantities(ids.map((id) => [id, 7]));
    await waitFor('the other two at 7', () => shown('shop_g')[String(ids[0])] === 7 && shown('shop_g')[String(ids[2])] === 7);
    const state = await waitFor('the refusal recorded', async () => {
      const row = (await db()('cia_portal_state').where({ account_id: seller.id, stock_id: refused, portal: 'shop_g' }).first()) as {
        last_error: string | null;
        refused_seq: string;
        desired_seq: string;
        acked_quantity: number;
      };
      return row.refused_seq === row.desired_seq ? row : undefined;
    });
    expect(state.last_error).to.contain('422').and.to.contain('offer is blocked');
    expect(state.acked_quantity).to.equal(10);
    // The push job fails for good with the portal's message, once the other items are through.
    const failed = await waitFor('the failed push job', async () =>
      (await queues().get('portal_upload').getFailed()).find((j) => j.data.accountId === seller.id && j.data.portal === 'shop_g'),
    );
    expect(failed.failedReason).to.contain('1 quantity refused (2 taken)').and.to.contain('offer is blocked');
    expect(failed.attemptsMade).to.equal(1);
    expect(shown('shop_g')[String(refused)]).to.equal(10);

    // Another item's change makes a new batch: the refused quantity is not in it.
    const before = bulkCalls('shop_g').length;
    await setQuantities([[ids[0]!, 6]]);
    await waitFor('the next batch', () => shown('shop_g')[String(ids[0])] === 6);
    const later = bulkCalls('shop_g').slice(before);
    expect(later.flatMap((c) => c.items.map((i) => i.reference))).to.not.include(String(refused));

    // Its own change sends it again, and the portal takes it now.
    await setQuantities([[refused, 5]]);
    await waitFor('the refused item at 5', () => shown('shop_g')[String(refused)] === 5);
    // The portal shows it before the push commits its acknowledgement: wait for the row.
    const row = await waitFor('the acknowledgement', async () => {
      const current = (await db()('cia_portal_state').where({ account_id: seller.id, stock_id: refused, portal: 'shop_g' }).first()) as {
        last_error: string | null;
        acked_seq: string;
        desired_seq: string;
        acked_quantity: number;
      };
      return current.acked_seq === current.desired_seq ? current : undefined;
    });
    expect(row.last_error).to.equal(null);
    expect(row.acked_quantity).to.equal(5);
  });

  it('when changes come within a push window and after it, then each window ends in one call with the latest quantity, and the change after the window still reaches the portal', async () => {
    setConfig({ ...config(), ciaPushWindowMs: 300 });
    try {
      const [id] = await createItems([{ name: 'Windowed', quantity: 20, cia: { market_e: { is_active: true } } }]);
      await waitFor('first quantity', () => shown('market_e')[String(id)] === 20);
      const before = bulkCalls('market_e').length;
      await setQuantities([[id!, 19]]);
      await setQuantities([[id!, 18]]);
      await setQuantities([[id!, 17]]);
      await waitFor("the window's latest quantity", () => shown('market_e')[String(id)] === 17, 5000);
      // After the window: the next change must not be taken as covered by the finished push.
      await setQuantities([[id!, 16]]);
      await waitFor('the change after the window', () => shown('market_e')[String(id)] === 16, 5000);
      const sent = bulkCalls('market_e')
        .slice(before)
        .flatMap((c) => c.items.map((i) => i.quantity));
      expect(sent[sent.length - 1]).to.equal(16);
      expect(sent).to.deep.equal([...sent].sort((a, b) => b - a));
      expect(sent.length).to.be.below(4);
    } finally {
      setConfig({ ...config(), ciaPushWindowMs: window });
    }
  });
});
