import type { OrderScope } from '../access';
import { transaction } from '../db';
import { notFound } from '../errors';
import { channelFulfilmentQuery } from './channel-fulfilment';
import { cancelledNotShipped, shippedByChannel } from './send-mit-run.service';
import { addToOutbox } from '../queue';
import { orderRepository } from './order.repository';
import type { SendMitInput } from './send-mit.type';

/**
 * POST order/{order_id}/send_mit/: checks the order exists in the caller's scope, is not
 * cancelled (a 400 status_conflict, as an update shipping it would be) and is not one the
 * channel ships from its own warehouse (a 400 status_conflict: decision in README.md), and queues the
 * order.send_mit job in the same transaction; answers its job id (202). Defaults are resolved
 * here, so the job does what the request said even if the order changes meanwhile.
 */
export async function requestSendMit(scope: OrderScope, orderId: string, input: SendMitInput): Promise<string> {
  const { accountId } = scope;
  return transaction(async (trx) => {
    const order = await orderRepository.getForUpdate(trx, scope, orderId);
    if (!order) throw notFound(`order ${orderId}`, 'order_id');
    if (order.is_cancelled) throw cancelledNotShipped('order_id');
    if (order.shipping.market_d_fba || (await channelFulfilmentQuery().fulfilledByChannel(trx, accountId, order.internal_id)))
      throw shippedByChannel('order_id');
    const shipping = order.shipping as { deliverer?: unknown; code?: unknown };
    const codes = input.code ?? (typeof shipping.code === 'string' ? shipping.code.split(/[\s,;]+/).filter(Boolean) : []);
    return addToOutbox(trx, accountId, 'order.send_mit', {
      accountId,
      orderId,
      sendMit: {
        deliverer: input.deliverer || (typeof shipping.deliverer === 'string' && shipping.deliverer) || null,
        code: codes,
        date: input.date ?? new Date().toISOString().slice(0, 10),
        isMail: input.is_mail,
        mailText: input.mail_text,
      },
    });
  }, scope.requestId);
}
