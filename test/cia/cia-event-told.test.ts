/**
 * What a stock item's cia.event notification targets are told (document 2, Stock_cia_portal_type:
 * is_active, max_quantity "-1 ends the offer", target[]; document 1, Events 5: cia.event "activates
 * the quantity adjustment for notifications"): the quantity a portal with cia.event's settings is
 * offered (lib/cia computeOffers' rule), never negative. Before, the receiver was told the raw
 * quantity_available: 5 under max_quantity -1 or 2, and -2 for an oversold item.
 */
import type { Worker } from 'bullmq';
import { expect } from 'chai';
import { ciaProcessors } from '../../lib/cia/cia.processor';
import { startWorker } from '../../lib/queue/worker';
import { call, newSeller, Seller } from '../support/api';
import { useEventsWorker } from '../event/events-worker';
import { waitFor } from '../event/servers';
import { createOrder } from '../order/helpers';

describe('cia: what a cia.event notification target is told', function () {
  this.timeout(60000);
  let cia: Worker | undefined;
  // Registered before the events worker's hooks, so it closes before its queues do.
  after(async () => {
    await cia?.close();
  });
  const setting = useEventsWorker('ciatold');
  before(async () => {
    // The cia worker turns an item's quantity change into the cia event of its targets.
    cia = await startWorker('cia', ciaProcessors, { skipEvictionCheck: true, registerShutdown: false, concurrency: 2 });
  });

  /** A stock cia notification handler posting to the receiver at `path`; its id names it in target[]. */
  async function notificationHandler(seller: Seller, path: string): Promise<string> {
    const res = await call('admin/event/handler/', {
      token: seller.token,
      body: {
        event_handler: {
          type: { id: 'cia' },
          section: 'stock',
          action: { id: 'notification', required: { url: `${setting.receiver.base}${path}`, format: 'post', target_name: `told-${path.slice(1)}` } },
        },
      },
    });
    expect(res.status, res.text).to.equal(201);
    return String(res.body.event_handler_id);
  }
  async function createItem(seller: Seller, stock: Record<string, unknown>): Promise<number> {
    const res = await call('stock/', { token: seller.token, body: { stock: { name: 'Lamp', ...stock } } });
    expect(res.status, res.text).to.equal(201);
    return Number(res.body.stock_id);
  }
  /** The quantities the receiver got at `path`, in the order it got them. */
  const told = (path: string) => setting.receiver.received.filter((r) => r.path === path).map((r) => (JSON.parse(r.body) as { quantity: number }).quantity);
  const toldAtLeast = (path: string, n: number) => waitFor(async () => told(path).length >= n || undefined, `notification ${n} at ${path}`);

  it('when cia.event has max_quantity -1 (the offer ended), then its target is told 0, not the 5 in stock', async () => {
    const seller = await newSeller();
    const path = `/ended-${seller.id}`;
    const target = await notificationHandler(seller, path);
    await createItem(seller, { quantity: 5, cia: { event: { is_active: true, max_quantity: -1, target: [target] } } });
    await toldAtLeast(path, 1);
    expect(told(path)).to.deep.equal([0]);
  });

  it('when cia.event has max_quantity 2, then its target is told 2 of the 5 in stock, and 1 once only 1 is left', async () => {
    const seller = await newSeller();
    const path = `/capped-${seller.id}`;
    const target = await notificationHandler(seller, path);
    const stockId = await createItem(seller, { quantity: 5, cia: { event: { is_active: true, max_quantity: 2, target: [target] } } });
    await toldAtLeast(path, 1);
    const res = await call(`stock/${stockId}/`, { token: seller.token, body: { stock: { quantity: 1 } } });
    expect(res.status, res.text).to.equal(200);
    await toldAtLeast(path, 2);
    expect(told(path)).to.deep.equal([2, 1]);
  });

  it('when an order oversells the item to -2, then its target is told 0, as every portal is offered', async () => {
    const seller = await newSeller();
    const path = `/oversold-${seller.id}`;
    const target = await notificationHandler(seller, path);
    const stockId = await createItem(seller, { quantity: 1, cia: { shop_g: { is_active: true }, event: { target: [target] } } });
    await toldAtLeast(path, 1);
    await createOrder(seller, { line: [{ id: 1, name: 'Lamp', quantity: 3, price: '5.00', stock_align_id: `ID_${stockId}` }] });
    await toldAtLeast(path, 2);
    const item = await call(`stock/${stockId}/`, { token: seller.token });
    expect((item.body.stock as { quantity_available: number }).quantity_available).to.equal(-2);
    expect(told(path)).to.deep.equal([1, 0]);
  });
});
