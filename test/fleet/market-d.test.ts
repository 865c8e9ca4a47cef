import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { queues } from '../../lib/queue/queue.registry';
import { amazonOf, sellerCentralListing } from '../../sandbox/amazon.sandbox';
import { call, newSeller, Seller } from '../support/api';
import { waitFor, withSandboxAndFleet } from './support';

describe('fleet: CIA quantities reach market_d by patchListingsItem, or as JSON_LISTINGS_FEED feeds when many change at once', () => {
  let seller: Seller;
  const running = withSandboxAndFleet();
  beforeEach(async () => {
    seller = await newSeller();
  });

  const account = () => String(seller.portalAccountId);
  const shown = () => running.sandbox.state.quantities(account()).market_d ?? {};
  const feedsOf = () => [...amazonOf(running.sandbox.state).feeds.values()].filter((f) => f.account === account());
  const patchesOf = () => running.sandbox.state.requests.filter((r) => r.portal === 'market_d' && r.portalAccount === account() && r.method === 'PATCH');
  // The seller's SKUs at Amazon: listed in Seller Central (Amazon.de, the sandbox account's marketplace), Kontor recorded no listing of them.
  const atAmazon = (...skus: string[]) => skus.forEach((sku) => sellerCentralListing(running.sandbox.state, account(), sku, ['A1PA6795UKMFR9']));
  /** The item's CIA state at market_d once its latest quantity is refused. */
  const refusedState = (stockId: number) =>
    waitFor('the refusal recorded', async () => {
      const row = (await db()('cia_portal_state').where({ account_id: seller.id, stock_id: stockId, portal: 'market_d' }).first()) as
        { last_error: string | null; refused_seq: string; desired_seq: string } | undefined;
      return row && row.refused_seq === row.desired_seq ? row : undefined;
    });

  it("when a few items with a market_d group change, then the seller's SKUs at Amazon end on their quantities through patches, and a sale lowers them", async () => {
    atAmazon('AMZ-1', 'AMZ-OWN-2');
    const res = await call('stock/list/', {
      token: seller.token,
      body: {
        stock: [
          { name: 'Amazon 1', sku: 'AMZ-1', quantity: 6, cia: { market_d: { is_active: true } } },
          { name: 'Amazon 2', sku: 'AMZ-2', quantity: 4, market_d: { sku: 'AMZ-OWN-2' }, cia: { market_d: { is_active: true } } },
        ],
      },
    });
    expect(res.status, res.text).to.equal(207);
    const ids = (res.body.response as { stock_id: number }[]).map((r) => Number(r.stock_id));
    await waitFor('both quantities at Amazon', () => shown()['AMZ-1'] === 6 && shown()['AMZ-OWN-2'] === 4, 15000);
    expect(
      patchesOf()
        .map((r) => r.path.split('/').pop())
        .sort(),
    ).to.deep.equal(['AMZ-1', 'AMZ-OWN-2']);
    expect(feedsOf()).to.deep.equal([]);

    const order = await call('order/', {
      token: seller.token,
      body: { order: { customer: { email: 'buyer@example.com' }, line: [{ id: 1, quantity: 2, price: '9.90', stock_align_id: String(ids[0]) }] } },
    });
    expect(order.status, order.text).to.equal(201);
    await waitFor('the sale at Amazon', () => shown()['AMZ-1'] === 4, 15000);
    expect(patchesOf()).to.have.length(3);
  });

  it('when more items change at once than the patch plan carries (5 a second after a burst of 5), then the rest go as a feed', async () => {
    const stock = Array.from({ length: 20 }, (_, i) => ({ name: `Amazon ${i}`, sku: `AMZ-F${i}`, quantity: i + 1, cia: { market_d: { is_active: true } } }));
    atAmazon(...stock.map((s) => s.sku));
    // The pushes wait until CIA has wanted all 20 quantities: "at once" as a test means it, on
    // however slow a machine (spread over seconds, the patch plan alone would carry them).
    const uploads = queues().get('portal_upload');
    await uploads.pause();
    try {
      const res = await call('stock/list/', { token: seller.token, body: { stock } });
      expect(res.status, res.text).to.equal(207);
      await waitFor(
        'CIA wanting all 20 quantities at Amazon',
        async () => {
          const { rows } = (await db().raw(
            "SELECT count(*)::int AS n FROM cia_portal_state WHERE account_id = ? AND portal = 'market_d' AND acked_seq < desired_seq",
            [seller.id],
          )) as { rows: { n: number }[] };
          return rows[0]!.n === 20;
        },
        15000,
      );
    } finally {
      await uploads.resume();
    }
    await waitFor('all 20 quantities at Amazon', () => stock.every((s) => shown()[s.sku] === s.quantity), 15000);
    expect(feedsOf().length).to.be.at.least(1);
    expect(feedsOf().every((f) => f.processingStatus === 'DONE')).to.equal(true);
    expect(patchesOf().length).to.be.below(20);
  });

  it('when Amazon refuses one SKU, then that item is refused with Amazon’s message and the other reaches its quantity', async () => {
    atAmazon('AMZ-BAD', 'AMZ-GOOD');
    running.sandbox.state.faults.push({
      portal: 'market_d',
      portalAccount: account(),
      reference: 'AMZ-BAD',
      status: 400,
      remaining: 1,
      message: 'SKU AMZ-BAD is blocked',
    });
    const res = await call('stock/list/', {
      token: seller.token,
      body: {
        stock: [
          { name: 'Bad', sku: 'AMZ-BAD', quantity: 3, cia: { market_d: { is_active: true } } },
          { name: 'Good', sku: 'AMZ-GOOD', quantity: 3, cia: { market_d: { is_active: true } } },
        ],
      },
    });
    expect(res.status, res.text).to.equal(207);
    const bad = Number((res.body.response as { stock_id: number }[])[0]!.stock_id);
    await waitFor('the good one at Amazon', () => shown()['AMZ-GOOD'] === 3, 15000);
    expect(shown()['AMZ-BAD']).to.equal(0);
    const state = await refusedState(bad);
    expect(state.last_error).to.match(/market_d refused the quantity of item \d+ \(SKU AMZ-BAD\): 400: SKU AMZ-BAD is blocked/);
  });

  it('when an item has no listing at Amazon (none in Seller Central, none by Kontor), then its quantity is refused naming the SKU and none is sent, where Amazon would take it and sell nothing', async () => {
    atAmazon('AMZ-THERE');
    const res = await call('stock/list/', {
      token: seller.token,
      body: {
        stock: [
          { name: 'Nowhere', sku: 'AMZ-NONE', quantity: 5, cia: { market_d: { is_active: true } } },
          { name: 'There', sku: 'AMZ-THERE', quantity: 2, cia: { market_d: { is_active: true } } },
        ],
      },
    });
    expect(res.status, res.text).to.equal(207);
    const none = Number((res.body.response as { stock_id: number }[])[0]!.stock_id);
    await waitFor('the listed one at Amazon', () => shown()['AMZ-THERE'] === 2, 15000);
    const state = await refusedState(none);
    expect(state.last_error).to.contain('Amazon holds no listing of SKU AMZ-NONE').and.contain('was not sent').and.contain('portal_upload market_d');
    expect(patchesOf().map((r) => r.path.split('/').pop())).to.deep.equal(['AMZ-THERE']);
    expect(shown()['AMZ-NONE']).to.equal(undefined);
  });

  it('when items beyond the patch plan go as a feed and some have no listing at Amazon, then those are refused naming the SKU as by a patch, and the feed carries none of them', async () => {
    const listed = Array.from({ length: 20 }, (_, i) => ({ name: `Amazon ${i}`, sku: `AMZ-L${i}`, quantity: i + 1, cia: { market_d: { is_active: true } } }));
    // Last in the batch: the patches take the first SKUs, so these fall to the feed.
    const unlisted = Array.from({ length: 3 }, (_, i) => ({ name: `Nowhere ${i}`, sku: `AMZ-N${i}`, quantity: 5, cia: { market_d: { is_active: true } } }));
    atAmazon(...listed.map((s) => s.sku));
    const uploads = queues().get('portal_upload');
    await uploads.pause();
    let ids: number[];
    try {
      const res = await call('stock/list/', { token: seller.token, body: { stock: [...listed, ...unlisted] } });
      expect(res.status, res.text).to.equal(207);
      ids = (res.body.response as { stock_id: number }[]).map((r) => Number(r.stock_id));
      await waitFor(
        'CIA wanting all 23 quantities at Amazon',
        async () => {
          const { rows } = (await db().raw(
            "SELECT count(*)::int AS n FROM cia_portal_state WHERE account_id = ? AND portal = 'market_d' AND acked_seq < desired_seq",
            [seller.id],
          )) as { rows: { n: number }[] };
          return rows[0]!.n === 23;
        },
        15000,
      );
    } finally {
      await uploads.resume();
    }
    await waitFor('all 20 listed quantities at Amazon', () => listed.every((s) => shown()[s.sku] === s.quantity), 20000);
    for (const [i, s] of unlisted.entries()) {
      const state = await refusedState(ids[20 + i]!);
      expect(state.last_error, s.sku).to.contain(`Amazon holds no listing of SKU ${s.sku}`).and.contain('was not sent').and.contain('portal_upload market_d');
      expect(shown()[s.sku], s.sku).to.equal(undefined);
    }
    const amazon = amazonOf(running.sandbox.state);
    expect(feedsOf().length).to.be.at.least(1);
    const fed = feedsOf().flatMap((f) =>
      (JSON.parse(amazon.documents.get(f.inputFeedDocumentId)!.content!) as { messages: { sku: string }[] }).messages.map((m) => m.sku),
    );
    expect(fed.filter((sku) => sku.startsWith('AMZ-N'))).to.deep.equal([]);
    expect(patchesOf().filter((r) => r.path.split('/').pop()!.startsWith('AMZ-N'))).to.deep.equal([]);
  });
});
