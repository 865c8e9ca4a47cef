/**
 * A seller's cancellation in Kontor told to the order's channel (issue 33): an imported order of
 * a Shopify store (webshop, connector shopify) is cancelled there with `orderCancel`, one of
 * Kaufland (market_e, connector kaufland) has its order units cancelled. The update that cancels
 * writes the job in its own transaction (outbox): the channel hears of it once the cancellation
 * is committed, and only then. Cancellations that came from the channel (the order import) are
 * not sent back (the job: order-channel-cancel.run.ts). Other channels (eBay, Amazon, the JSON dialect) are told nothing: document 2
 * sends no cancellation to a channel, and theirs are not built (lib/portals/README.md).
 */
import type { Knex } from 'knex';
import { addToOutbox } from '../queue';
import type { OrderRow } from './order.repository';

/** The platforms whose channel takes a seller's cancellation: the order must have come from there. */
const cancelledAt: Readonly<Record<string, string>> = { webshop: 'shopify', market_e: 'kaufland' };

/** Whether an order is one the channel cancel is sent for: imported from a platform above, through a portal account. */
export function cancelsAtChannel(order: Pick<OrderRow, 'platform' | 'portal_account_id' | 'external_order_id'>): boolean {
  return order.platform !== null && cancelledAt[order.platform] !== undefined && order.portal_account_id !== null && order.external_order_id !== null;
}

/** Queues the channel's cancellation of an order in the caller's transaction (the update that cancelled it). */
export async function queueChannelCancel(trx: Knex.Transaction, accountId: number, orderId: string): Promise<void> {
  await addToOutbox(trx, accountId, 'order.channel_cancel', { accountId, orderId });
}
