import type { FeedsApi } from '@sp-api-sdk/feeds-api-2021-06-30';
import type { ListingsItemsApi } from '@sp-api-sdk/listings-items-api-2021-08-01';
import type { OrdersApi } from '@sp-api-sdk/orders-api-v0';
import { config } from '../../../config';
import { DomainError, portalUnavailable } from '../../errors';
import { portalCalls } from '../../metrics';
import { retryAfterMs } from '../portal-http';
import { changesByMethod, mayLandAnswered, mayLandUnanswered } from '../portal-request';
import type { PortalTarget } from '../portal.type';
import { accessToken, forgetAccessToken } from './lwa';
import { SpApiCredentials, spApiCredentials } from './sp-api-credentials';
import { learnRate, reserveSpApiTokens, takeSpApiToken, usagePlan } from './sp-api-limits';
import { spApiRequester } from './sp-api-http';
import { spApiSdk } from './sp-api-sdk';

/**
 * Amazon's refusal of a call (a 4xx other than 408 and 429, a 403 after a new access token):
 * portal_refused, with the HTTP status Amazon answered (`answered`; `status` is the error
 * kind's), so that a caller can tell a refusal of one SKU (getListingsItem's 400) from the
 * account's.
 */
export class SpApiRefusal extends DomainError {
  constructor(
    readonly answered: number,
    message: string,
  ) {
    super('portal_refused', message);
  }
}

/** The request options every generated API method takes (headers, timeout). */
export type CallOptions = NonNullable<Parameters<OrdersApi['getOrders']>[1]>;

/** What an answer, or the `response` of an error, carries that we read (sp-api-http.ts). */
interface Answer<T> {
  data: T;
  status?: number;
  headers?: Record<string, unknown>;
}

/**
 * The longest wait for an operation's token: 2 s by default, as pushes wait holding the target's
 * lock (a longer wait fails the job for a retry then); callers that hold nothing pass more.
 */
const defaultTokenWaitMs = 2000;

/** One portal account's SP-API: the generated clients pointed at its base URL, and its identity. */
export class SpApiSession {
  readonly creds: SpApiCredentials;
  readonly listings: ListingsItemsApi;
  readonly feeds: FeedsApi;
  readonly orders: OrdersApi;
  /** The account's marketplaces: marketplace_id, several separated by commas (searchOrders takes up to 50). */
  readonly marketplaceIds: string[];

  constructor(readonly target: PortalTarget) {
    this.creds = spApiCredentials(target);
    this.marketplaceIds = this.creds.marketplaceId
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean);
    const basePath = target.baseUrl.replace(/\/+$/, '');
    const sdk = spApiSdk();
    this.listings = new sdk.ListingsItemsApi(undefined, basePath, spApiRequester);
    this.feeds = new sdk.FeedsApi(undefined, basePath, spApiRequester);
    this.orders = new sdk.OrdersApi(undefined, basePath, spApiRequester);
  }

  /**
   * One SP-API call (method and path name its usage plan): waits for the operation's token, sends
   * the LWA access token, and maps Amazon's answers: 429 (its Retry-After, else the plan's
   * interval), 5xx, timeouts and network errors are retried later; a 403 is tried once more with
   * a new access token; any other error fails the job with Amazon's {errors: [{code, message,
   * details}]} in its message.
   */
  async call<T>(method: string, path: string, run: (options: CallOptions) => Promise<Answer<T>>, maxWaitMs = defaultTokenWaitMs): Promise<T> {
    const wait = await takeSpApiToken(this.target.portalAccountId, method, path, maxWaitMs);
    if (wait > 0) throw portalUnavailable(`market_d: ${method.toUpperCase()} ${path} waits ${Math.ceil(wait / 1000)} s for Amazon's rate limit`, wait);
    return this.send(method, path, run);
  }

  /**
   * Tokens for up to `count` calls of one operation, as many as come within maxWaitMs: each
   * taken call's delay from now (see reserveSpApiTokens). The calls then go by `send`.
   */
  reserve(method: string, path: string, count: number, maxWaitMs = defaultTokenWaitMs): Promise<number[]> {
    return reserveSpApiTokens(this.target.portalAccountId, method, path, count, maxWaitMs);
  }

  /** The Listings Items API's path of one of the seller's SKUs. */
  listingPath(sku: string): string {
    return `/listings/2021-08-01/items/${encodeURIComponent(this.creds.sellerId)}/${encodeURIComponent(sku)}`;
  }

  /** One SP-API call whose token was taken (`call` or `reserve`), its answers mapped as `call` says. */
  async send<T>(method: string, path: string, run: (options: CallOptions) => Promise<Answer<T>>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const token = await accessToken(this.target, this.creds);
      try {
        const answer = await run({
          headers: { 'x-amz-access-token': token, 'user-agent': 'Kontor/1.0 (Language=TypeScript)' },
          timeout: config().portalTimeoutMs,
        });
        portalCalls.inc({ portal: 'market_d', outcome: 'ok' });
        learnRate(this.target.portalAccountId, usagePlan(method, path).operation, answer.headers?.['x-amzn-ratelimit-limit']);
        return answer.data;
      } catch (err) {
        const response = (err as { response?: Answer<unknown> }).response;
        if (response?.status === 403 && attempt === 1) {
          forgetAccessToken(this.target, this.creds);
          continue;
        }
        throw this.failure(method, path, err as Error, response);
      }
    }
  }

  private failure(method: string, path: string, err: Error, response: Answer<unknown> | undefined): Error {
    const status = response?.status;
    if (status === undefined) {
      portalCalls.inc({ portal: 'market_d', outcome: 'failed' });
      const timeout = err.name === 'TimeoutError';
      return portalUnavailable(
        `market_d: ${timeout ? 'no answer in time' : err.message} (${method.toUpperCase()} ${path})`,
        undefined,
        mayLandUnanswered(changesByMethod(method), err),
      );
    }
    const message = `market_d answered ${status} to ${method.toUpperCase()} ${path} for portal account ${this.target.portalAccountId}: ${spApiErrors(response?.data)}`;
    const transient = status === 429 || status === 408 || status >= 500;
    portalCalls.inc({ portal: 'market_d', outcome: transient ? 'unavailable' : 'refused' });
    if (!transient) return new SpApiRefusal(status, message);
    const plan = usagePlan(method, path);
    if (status === 429) learnRate(this.target.portalAccountId, plan.operation, response?.headers?.['x-amzn-ratelimit-limit']);
    const retryAfter = response?.headers?.['retry-after'];
    return portalUnavailable(
      message,
      retryAfterMs(typeof retryAfter === 'string' ? retryAfter : null) ?? (status === 429 ? Math.ceil(1000 / plan.rate) : undefined),
      mayLandAnswered(changesByMethod(method), status),
    );
  }
}

/** SP-API's error body ({errors: [{code, message, details}]}) as one line. */
export function spApiErrors(data: unknown): string {
  const errors = (data as { errors?: unknown } | undefined)?.errors;
  if (!Array.isArray(errors) || errors.length === 0) return typeof data === 'string' && data ? data.slice(0, 300) : 'no reason given';
  return errors
    .map(
      (e: { code?: unknown; message?: unknown; details?: unknown }) =>
        `${String(e.code ?? 'Error')}: ${String(e.message ?? '')}${e.details ? ` (${String(e.details)})` : ''}`,
    )
    .join('; ')
    .slice(0, 1000);
}
