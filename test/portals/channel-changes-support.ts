/**
 * What the channel-change suites (channel-line-changes, channel-refund-restock) share: a seller
 * with a channel's portal account and an eBay one whose items CIA offers on eBay, calls to the
 * sandbox's controls, and the Kontor order an import made of a channel order.
 */
import { expect } from 'chai';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { db } from '../../lib/db/knex';
import type { Sandbox } from '../fleet/support';
import { call, newSeller, Seller } from '../support/api';
import { movements, readOrder } from '../order/helpers';

export function channelChangeHelpers(sandbox: () => Sandbox) {
  /** A sandbox control, answered with one of `status`. */
  const post = async (path: string, body: unknown, status: number[] = [200, 201]) => {
    const res = await fetch(`${sandbox().url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    const json = (await res.json()) as Record<string, unknown>;
    expect(res.status, JSON.stringify(json)).to.be.oneOf(status);
    return json;
  };

  /** A seller with the channel's account (and an eBay account, unless the channel is eBay), and items in stock offered on eBay by CIA. */
  async function sellerWith(platform: 'webshop' | 'market_d' | 'auction_a', items: Record<string, number>) {
    const seller = await newSeller();
    const { id: channelId } = await createPortalAccount(seller.id, { name: 'the channel', platform });
    const { id: ebayId } = platform === 'auction_a' ? { id: channelId } : await createPortalAccount(seller.id, { name: 'eBay shop', platform: 'auction_a' });
    const stock: Record<string, number> = {};
    for (const [sku, quantity] of Object.entries(items)) {
      const created = await call('stock/', {
        token: seller.token,
        body: { stock: { name: `item ${sku}`, sku, quantity, price: '10.00', cia: { auction_a: { is_active: true } } } },
      });
      expect(created.status, created.text).to.equal(201);
      stock[sku] = Number(created.body.stock_id);
    }
    const atEbay = (sku: string) => sandbox().state.quantities(String(ebayId)).auction_a?.[sku];
    return { seller, channelId: Number(channelId), stock, atEbay };
  }

  /** The one Kontor order the import made of a channel order. */
  async function kontorOrder(seller: Seller, externalOrderId: string) {
    const rows = (await db()('sales_order').select('id').where({ account_id: seller.id, external_order_id: externalOrderId })) as { id: string }[];
    expect(rows, `one Kontor order of ${externalOrderId}`).to.have.length(1);
    return readOrder(seller, rows[0]!.id);
  }
  const quantities = (order: { line: Record<string, unknown>[] }) => order.line.map((l) => [l.sku, l.quantity]);
  const lastMove = async (seller: Seller, stockId: number) => (await movements(seller, stockId)).at(-1)!.quantity;

  return { post, sellerWith, kontorOrder, quantities, lastMove };
}
