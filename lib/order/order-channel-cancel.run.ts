/** order.channel_cancel (queue order_import, run by the portal_upload worker process): a seller's cancellation sent to the order's channel (order-channel-cancel.service.ts). */
import { allOrdersOf } from '../access';
import { db } from '../db';
import { MarketEAdapter, WebshopAdapter } from '../portals';
import { portalTargetRepository } from '../portal-account';
import type { JobPayloads } from '../queue';
import { cancelsAtChannel } from './order-channel-cancel.service';
import { orderRepository } from './order.repository';

/** What the job did; the outbox row keeps it (GET job/{job_id}/). */
export interface ChannelCancelResult {
  sent: boolean;
  channel?: string;
  detail?: string;
}

/**
 * order.channel_cancel: the order read again (a cancellation undone meanwhile is not sent), its
 * portal account's target, then the channel's call. A channel's refusal fails the job for good
 * with the channel's words; a 429 or 5xx is retried by the portal backoff.
 */
export async function runChannelCancel(data: JobPayloads['order.channel_cancel']): Promise<ChannelCancelResult> {
  const order = await orderRepository.get(allOrdersOf(data.accountId), data.orderId);
  if (!order) return { sent: false, detail: 'the order no longer exists' };
  if (!order.is_cancelled) return { sent: false, detail: 'the cancellation was undone before it was sent' };
  if (!cancelsAtChannel(order)) return { sent: false, detail: 'the order is no channel order whose cancellation is sent' };
  const target = await portalTargetRepository.target(db(), data.accountId, order.portal_account_id!);
  if (!target) return { sent: false, detail: `portal account ${order.portal_account_id} no longer exists` };
  if (order.platform === 'webshop' && target.connector === 'shopify') {
    await new WebshopAdapter().cancelOrder(target, order.external_order_id!, `Cancelled in Kontor (order ${order.id})`);
    return { sent: true, channel: 'webshop' };
  }
  if (order.platform === 'market_e' && target.connector === 'kaufland') {
    const units = order.lines.map((l) => l.transaction_id).filter((id): id is string => !!id);
    await new MarketEAdapter().cancelOrderUnits(target, units);
    return { sent: true, channel: 'market_e' };
  }
  return { sent: false, detail: `portal account ${order.portal_account_id} speaks ${target.connector ?? 'no connector'}: nothing to send` };
}
