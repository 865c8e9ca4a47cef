import { config } from '../../config';

/**
 * The page size of an order fetch: the channel's own (Kaufland 100, Shopify 100, eBay 200), or
 * ORDER_FETCH_PAGE_SIZE where that is lower (an operator's smaller pages; the tests' way to cut a
 * fetch at its page cap with a few orders, lib/order-import).
 */
export const fetchPageSize = (channelOwn: number): number => Math.min(channelOwn, config().orderFetchPageSize ?? channelOwn);
