/** What the channel order tests share: the sandbox's controls and the order an import made. */
import { expect } from 'chai';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { connectPortalAccount } from '../../lib/admin/portal-account-connect.service';
import { db } from '../../lib/db/knex';
import type { Sandbox } from '../fleet/support';
import { OrderView, readOrder } from '../order/helpers';
import { call, type Seller } from '../support/api';

/** Sends a control to the sandbox (POST /_sandbox/...) and answers its JSON; anything but 200 or 201 fails the test. */
export async function sandboxPost(sandbox: Sandbox, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${sandbox.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await res.json()) as Record<string, unknown>;
  expect(res.status, JSON.stringify(json)).to.be.oneOf([200, 201]);
  return json;
}

/** The Kontor order the import made of a channel order, or undefined. */
export async function kontorOrder(seller: Seller, externalOrderId: string): Promise<OrderView | undefined> {
  const row = (await db()('sales_order').first('id').where({ account_id: seller.id, external_order_id: externalOrderId })) as { id: string } | undefined;
  return row ? readOrder(seller, row.id) : undefined;
}

/** An eBay order placed at the sandbox's eBay (POST /_sandbox/ebay/orders) for a new eBay account of the seller: the account's id, the order's id and the order as eBay serves it. */
export async function ebaySandboxOrder(sandbox: Sandbox, seller: Seller, body: Record<string, unknown>) {
  const { id: ebayId } = await createPortalAccount(seller.id, { name: 'eBay shop', platform: 'auction_a' });
  const { order_id: id } = (await sandboxPost(sandbox, '/_sandbox/ebay/orders', { portal_account: ebayId, ...body })) as { order_id: string };
  return { ebayId: Number(ebayId), id, order: sandbox.state.ebay.orders.get(id)!.order };
}

/** A market_d account of the seller connected to the sandbox's Amazon (its development identity) in one marketplace: its id. */
export async function sandboxAmazonAccount(sandbox: Sandbox, seller: Seller, marketplaceId: string): Promise<number> {
  const amazonId = Number((await createPortalAccount(seller.id, { name: 'Amazon', platform: 'market_d' })).id);
  await connectPortalAccount(seller.id, {
    portalAccountId: amazonId,
    connector: 'amazon_sp',
    baseUrl: sandbox.url,
    credentials: { client_id: 'c', client_secret: 's', refresh_token: `Atzr|sandbox-${amazonId}`, seller_id: `S${amazonId}`, marketplace_id: marketplaceId },
  });
  return amazonId;
}

/**
 * A market_d account of the seller connected to the sandbox's Amazon (its development identity),
 * and an order placed there (`pending_ms` 0: UNSHIPPED at once; `body` adds to or overrides the
 * sandbox's order fields). Answers the account's id and the order's Amazon id.
 */
export async function amazonSandboxOrder(
  sandbox: Sandbox,
  seller: Seller,
  marketplaceId: string,
  body: Record<string, unknown>,
): Promise<{ amazonId: number; orderId: string }> {
  const amazonId = await sandboxAmazonAccount(sandbox, seller, marketplaceId);
  const placed = await sandboxPost(sandbox, '/_sandbox/amazon/orders', { portal_account: amazonId, marketplace_id: marketplaceId, pending_ms: 0, ...body });
  return { amazonId, orderId: placed.order_id as string };
}

/** An auction_a lister entry eBay takes for a fixed-price listing (category, business policies, a picture, the brand). */
export const ebayListable = {
  name: 'Desk lamp',
  description: 'A brass desk lamp',
  picture: { url: ['https://pictures.example/lamp.jpg'] },
  category_1_id: '112581',
  seller_profile: { payment: [{ id: 101 }], refund: [{ id: 102 }], shipping: [{ id: 103 }] },
  characteristics: { data: [{ type: 'Brand', value: 'Kontor' }] },
};

/** The seller's tasks as `title\ntext`, the way a seller reads why an order or a line waits for it. */
export async function taskTexts(seller: Seller): Promise<string[]> {
  const res = await call('task/?pagination[limit]=100', { token: seller.token });
  expect(res.status, res.text).to.equal(200);
  return (res.body.task as { title: string; text: string }[]).map((t) => `${t.title}\n${t.text}`);
}
