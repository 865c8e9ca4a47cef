/**
 * lib/order's send_mit asks whether the channel ships an order itself (lib/order
 * channel-fulfilment.ts); this folder keeps what the channel said (channel_order) and answers.
 * Provided at startup by the web process's entry (server/app.ts).
 */
import { provideChannelFulfilmentQuery } from '../order';
import { orderImportRepository } from './order-import.repository';

export function provideChannelFulfilment(): void {
  provideChannelFulfilmentQuery({
    fulfilledByChannel: (trx, accountId, orderInternalId) => orderImportRepository.fulfilledByChannel(trx, accountId, orderInternalId),
  });
}
