import { ClientCredentials, AccessToken } from 'simple-oauth2';
import { config } from '../../config';
import { DomainError, invalidField, portalRefused, portalUnavailable } from '../errors';
import { portalCalls } from '../metrics';
import type { ListingItem, PortalAdapter, PortalFacts, PortalTarget, QuantityOutcome, QuantityUpdate, Shipment, UploadAction } from './portal.type';
import { changesByMethod, mayLandAnswered, mayLandUnanswered, PortalAnswer, portalRequest } from './portal-request';
import { portalUploadPart } from './upload-part.type';

/** Data a portal would refuse (its own limits), found before sending: fails the job at once. */
export function portalInputError(portal: string, message: string): DomainError {
  return portalRefused(`${portal}: ${message}`);
}

/**
 * The channel says, as a shipment is reported, that it ships the order itself from its own
 * warehouse (fulfilled by Kaufland, Amazon FBA, eBay's fulfilment program): nothing is sent. A
 * 400 status_conflict naming order_id, as POST order/{order_id}/send_mit/ answers for an order
 * Kontor knows to be such; send_mit's job
 * fails for good with it before the order is marked shipped or the buyer mailed (lib/order).
 */
export function shippedByChannelAtPortal(message: string): DomainError {
  return invalidField('order_id', message, 'status_conflict');
}

/** An adapter's shippedByChannelAtPortal. */
export const isShippedByChannelAtPortal = (err: unknown): err is DomainError =>
  err instanceof DomainError && err.id === 'status_conflict' && err.field === 'order_id';

/** Retry-After as seconds or an HTTP date, in ms. */
export function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  if (/^\d+(\.\d+)?$/.test(header.trim())) return Math.round(Number(header) * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

const tokens = new Map<string, AccessToken>();

/** One item's answer in a bulk quantity call. */
interface ItemResult {
  reference?: unknown;
  status?: unknown;
  message?: unknown;
}

function itemOutcome(portal: string, stockId: number, result: ItemResult | undefined): QuantityOutcome {
  // Missing from an answered call: whether the portal applied it is not known.
  if (!result) return { stockId, outcome: 'retry', message: `${portal} did not answer for item ${stockId}`, mayHaveLanded: true };
  const status = Number(result.status);
  if (status >= 200 && status < 300) return { stockId, outcome: 'accepted' };
  const message = `${portal} answered ${status} for item ${stockId}: ${typeof result.message === 'string' ? result.message : 'no reason given'}`;
  if (status >= 500) return { stockId, outcome: 'retry', message, mayHaveLanded: true };
  return { stockId, outcome: status === 429 || status === 408 ? 'retry' : 'refused', message };
}

/**
 * The common HTTP behaviour of every adapter: JSON over HTTP to the portal account's base URL,
 * an Idempotency-Key on every call, OAuth2 client credentials where the portal needs them,
 * a timeout, and the mapping of answers to retryable and permanent failures. A portal adapter
 * supplies its payload mapping and its own limits.
 */
export abstract class HttpPortalAdapter implements PortalAdapter {
  abstract readonly portal: string;
  // Facts (PortalFacts): the defaults of a portal that declares nothing.
  readonly uploadActions: readonly UploadAction[] = [];
  readonly uploadPart = portalUploadPart;
  readonly cia: PortalFacts['cia'] = null;
  readonly categories: PortalFacts['categories'] = 'none';
  readonly fieldGroup: PortalFacts['fieldGroup'] = 'object';
  /** Items per bulk quantity call; a portal with a tighter limit says so. */
  readonly maxQuantityBatch: number = 100;
  /** Portals whose API takes an OAuth2 bearer token (client credentials of the portal account). */
  protected readonly oauth: boolean = false;

  /** The portal's listing payload from the item's field group. */
  protected abstract mapListing(item: ListingItem): Record<string, unknown>;

  /** Throws portalInputError when the payload breaks the portal's own limits. */
  protected checkLimits(_payload: Record<string, unknown>): void {
    /* no limits beyond the mapping */
  }

  /** The quantity payload (some portals cap it or end the offer at 0). */
  protected quantityPayload(quantity: number): Record<string, unknown> {
    return { quantity };
  }

  async list(target: PortalTarget, item: ListingItem, key: string): Promise<{ portalItemId: string }> {
    const payload = this.mapListing(item);
    this.checkLimits(payload);
    const answer = await this.call(target, 'POST', `/${this.portal}/offers`, { ...payload, reference: String(item.stockId) }, key);
    return { portalItemId: String(answer.item_id ?? item.stockId) };
  }

  async revise(target: PortalTarget, item: ListingItem, portalItemId: string, values: string[], key: string): Promise<void> {
    const payload = this.mapListing(item);
    this.checkLimits(payload);
    await this.call(
      target,
      'PUT',
      `/${this.portal}/offers/${encodeURIComponent(portalItemId)}`,
      { ...payload, reference: String(item.stockId), revise: values },
      key,
    );
  }

  async end(target: PortalTarget, stockId: number, portalItemId: string | null, key: string): Promise<void> {
    await this.call(target, 'DELETE', `/${this.portal}/offers/${encodeURIComponent(portalItemId ?? String(stockId))}`, undefined, key);
  }

  async setQuantities(target: PortalTarget, updates: QuantityUpdate[], key: string): Promise<QuantityOutcome[]> {
    const answer = await this.call(
      target,
      'PUT',
      `/${this.portal}/offers/quantities`,
      {
        items: updates.map((u) => ({ reference: String(u.stockId), idempotency_key: u.key, ...this.quantityPayload(u.quantity) })),
      },
      key,
    );
    const results = new Map((Array.isArray(answer.results) ? (answer.results as ItemResult[]) : []).map((r) => [String(r.reference), r]));
    return updates.map((u) => itemOutcome(this.portal, u.stockId, results.get(String(u.stockId))));
  }

  async markShipped(target: PortalTarget, shipment: Shipment, key: string): Promise<void> {
    await this.call(
      target,
      'POST',
      `/${this.portal}/orders/${encodeURIComponent(shipment.orderId)}/shipment`,
      {
        transaction_id: shipment.transactionId,
        carrier: shipment.carrier,
        tracking_code: shipment.trackingCode,
      },
      key,
    );
  }

  /** One call; answers 2xx with the parsed JSON body. */
  protected async call(target: PortalTarget, method: string, path: string, body: unknown, key: string): Promise<Record<string, unknown>> {
    // A portal account without a base URL is not connected: in production its calls are refused here, never sent to a default host (config unconnectedPortalUrl).
    if (!target.baseUrl) throw portalInputError(this.portal, `portal account ${target.portalAccountId} is not connected: it has no base URL to call`);
    const headers: Record<string, string> = { 'Idempotency-Key': key, Accept: 'application/json', 'X-Portal-Account': String(target.portalAccountId) };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const bearer = await this.bearer(target);
    if (bearer) headers.Authorization = `Bearer ${bearer}`;
    let res: PortalAnswer;
    try {
      res = await portalRequest(new URL(path, target.baseUrl), {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        timeoutMs: config().portalTimeoutMs,
      });
    } catch (err) {
      portalCalls.inc({ portal: this.portal, outcome: 'failed' });
      throw portalUnavailable(
        `${this.portal}: ${(err as Error).name === 'TimeoutError' ? 'no answer in time' : (err as Error).message}`,
        undefined,
        mayLandUnanswered(changesByMethod(method), err),
      );
    }
    const { text } = res;
    let parsed: Record<string, unknown> = {};
    try {
      parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      /* not JSON */
    }
    const transient = res.status === 429 || res.status >= 500 || res.status === 408;
    portalCalls.inc({ portal: this.portal, outcome: res.ok ? 'ok' : transient ? 'unavailable' : 'refused' });
    if (res.ok) return parsed;
    const message = typeof parsed.message === 'string' ? parsed.message : text.slice(0, 300) || res.statusText;
    if (transient) {
      throw portalUnavailable(
        `${this.portal} answered ${res.status}: ${message}`,
        retryAfterMs(res.headers.get('retry-after')),
        mayLandAnswered(changesByMethod(method), res.status),
      );
    }
    if (res.status === 401) tokens.delete(this.tokenKey(target));
    throw portalRefused(`${this.portal} answered ${res.status}: ${message}`);
  }

  private tokenKey(target: PortalTarget): string {
    return `${this.portal}:${target.portalAccountId}`;
  }

  /** An OAuth2 access token for portals that need one and accounts that have client credentials. */
  private async bearer(target: PortalTarget): Promise<string | undefined> {
    const { client_id: id, client_secret: secret } = target.credentials as { client_id?: unknown; client_secret?: unknown };
    if (!this.oauth || typeof id !== 'string' || typeof secret !== 'string') return undefined;
    const cached = tokens.get(this.tokenKey(target));
    if (cached && !cached.expired(30)) return String(cached.token.access_token);
    const client = new ClientCredentials({
      client: { id, secret },
      auth: { tokenHost: target.baseUrl, tokenPath: `/${this.portal}/oauth/token` },
    });
    try {
      const token = await client.getToken({});
      tokens.set(this.tokenKey(target), token);
      return String(token.token.access_token);
    } catch (err) {
      const status = (err as { output?: { statusCode?: number } }).output?.statusCode;
      if (status && status >= 400 && status < 500)
        throw portalRefused(`${this.portal}: OAuth2 token refused (${status}); check the portal account's credentials`);
      throw portalUnavailable(`${this.portal}: OAuth2 token request failed`);
    }
  }
}

/** Helpers for mappings: a string field of the group, or a fallback. */
export function str(group: Record<string, unknown>, key: string, fallback: string | null = null): string | null {
  const value = group[key];
  return typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : fallback;
}

/** The pictures of a group: picture[] or picture.url[]. */
export function pictures(group: Record<string, unknown>): string[] {
  const picture = group.picture;
  if (Array.isArray(picture)) return picture.filter((p): p is string => typeof p === 'string');
  const urls = (picture as { url?: unknown } | undefined)?.url;
  return Array.isArray(urls) ? urls.filter((p): p is string => typeof p === 'string') : [];
}
