/**
 * The contract between lib/order and lib/order-import, which keeps what a channel said of its
 * orders (table channel_order): whether the channel ships an order from its own warehouse (Amazon
 * FBA, eBay's fulfilment program, fulfilled by Kaufland). send_mit refuses such an order
 * (send-mit.service.ts). lib/order-import sits above lib/order (it creates orders through it), so
 * lib/order cannot import it: lib/order-import implements this and the web process's entry
 * provides it at startup (provideChannelFulfilment of lib/order-import in server/app.ts).
 */
import type { Knex } from 'knex';

export interface ChannelFulfilmentQuery {
  /** Whether the channel said it ships the order (its internal id) itself; once said, never unset. */
  fulfilledByChannel(trx: Knex.Transaction, accountId: number, orderInternalId: string): Promise<boolean>;
}

let provided: ChannelFulfilmentQuery | undefined;

/** lib/order-import gives its implementation (once per process, at startup). */
export function provideChannelFulfilmentQuery(query: ChannelFulfilmentQuery): void {
  provided = query;
}

/** lib/order-import's implementation; throws when the process's entry did not provide it. */
export function channelFulfilmentQuery(): ChannelFulfilmentQuery {
  if (!provided) throw new Error('lib/order-import has not provided its channel fulfilment query: call provideChannelFulfilment (lib/order-import) at startup');
  return provided;
}
