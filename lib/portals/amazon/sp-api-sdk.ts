/** The SP-API SDKs (generated clients and their usage-plan tables), loaded when first needed. */
import type { FeedsApi } from '@sp-api-sdk/feeds-api-2021-06-30';
import type { ListingsItemsApi } from '@sp-api-sdk/listings-items-api-2021-08-01';
import type { OrdersApi } from '@sp-api-sdk/orders-api-v0';

interface SpApiSdk {
  FeedsApi: typeof FeedsApi;
  ListingsItemsApi: typeof ListingsItemsApi;
  OrdersApi: typeof OrdersApi;
  limits: typeof import('@sp-api-sdk/orders-api-v0').clientRateLimits;
}

let loaded: SpApiSdk | undefined;

/**
 * The SP-API SDKs, loaded with the first session or usage plan (about 25 MB resident): the web process and the
 * cia worker load the portal registry for its facts and never call Amazon.
 */
export function spApiSdk(): SpApiSdk {
  if (loaded) return loaded;
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use, see above */
  const feeds = require('@sp-api-sdk/feeds-api-2021-06-30') as typeof import('@sp-api-sdk/feeds-api-2021-06-30');
  const listings = require('@sp-api-sdk/listings-items-api-2021-08-01') as typeof import('@sp-api-sdk/listings-items-api-2021-08-01');
  const orders = require('@sp-api-sdk/orders-api-v0') as typeof import('@sp-api-sdk/orders-api-v0');
  /* eslint-enable @typescript-eslint/no-require-imports */
  loaded = {
    FeedsApi: feeds.FeedsApi,
    ListingsItemsApi: listings.ListingsItemsApi,
    OrdersApi: orders.OrdersApi,
    limits: [...listings.clientRateLimits, ...feeds.clientRateLimits, ...orders.clientRateLimits],
  };
  return loaded;
}
