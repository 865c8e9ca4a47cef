import type { PortalTarget } from '../portals/portal.types';
import { config } from '../../config';

/**
 * The automatic rating of the first auction portal (document 1, rule 5): a positive rating of
 * the buyer once the order is reported shipped. The PortalAdapter interface has no rating call
 * yet, so this one call is made here with the adapters' conventions (Idempotency-Key, timeout);
 * it belongs in AuctionAAdapter once the interface gains it.
 */
export async function rateAuctionBuyer(target: PortalTarget, orderId: string, key: string): Promise<{ ok: boolean; detail: string }> {
  try {
    const res = await fetch(new URL(`/auction_a/orders/${encodeURIComponent(orderId)}/rating`, target.baseUrl), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'Idempotency-Key': key, 'X-Portal-Account': String(target.portalAccountId) },
      body: JSON.stringify({ rating: 'positive', text: 'Thank you for your purchase.' }),
      signal: AbortSignal.timeout(config().portalTimeoutMs),
    });
    await res.body?.cancel().catch(() => undefined);
    return { ok: res.ok, detail: `HTTP ${res.status}` };
  } catch (err) {
    return { ok: false, detail: (err as Error).message };
  }
}
