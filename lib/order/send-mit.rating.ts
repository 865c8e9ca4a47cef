import { adapterFor } from '../portals';
import type { PortalTarget } from '../portals';

/**
 * The automatic rating of the first auction portal (document 1, rule 5), through its adapter.
 * A refused or failed rating is recorded in the job's result; it does not undo the shipment.
 */
export async function rateAuctionBuyer(target: PortalTarget, orderId: string, key: string): Promise<{ ok: boolean; detail: string }> {
  try {
    await adapterFor('auction_a', target.connector).rateBuyer?.(target, orderId, key);
    return { ok: true, detail: 'rated positive' };
  } catch (err) {
    return { ok: false, detail: (err as Error).message };
  }
}
