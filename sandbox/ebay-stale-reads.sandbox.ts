/**
 * The sandbox eBay's reads lagging its writes. sell_inventory_v1_oas3.json promises no read after
 * a write: getOffers' availableQuantity "indicates the quantity ... that will be available", and
 * nothing in the file says a getOffers made right after a bulkUpdatePriceQuantity (or while eBay
 * still applies one) answers what that call set. A strict eBay may answer the offer as it stood
 * before its latest quantity write, and this plays it, when a test asks (ours: the contract names
 * neither the lag nor its length, so the sandbox answers fresh unless told).
 *
 * Control: POST /_sandbox/ebay/stale_reads {portal_account, sku, count} makes the next `count`
 * getOffers and getOffer answers of the SKU show each offer as it was before its latest
 * bulkUpdatePriceQuantity; count 0 ends it. Cleared by a reset.
 */
import type express from 'express';
import type { SandboxState } from './sandbox.app';
import { Body, EbayOfferRecord, EbayState, key } from './ebay-state.sandbox';

/** Before a quantity write of the offer: what a lagging read still answers afterwards. */
export function keepForStaleReads(offer: EbayOfferRecord): void {
  offer.readBefore = offer.body;
}

/** The offers' bodies as this read answers them: the ones before their latest write while reads of the SKU lag (counted down once per read). */
export function readOffers(ebay: EbayState, account: string, sku: string, offers: EbayOfferRecord[]): EbayOfferRecord[] {
  const left = ebay.staleReads.get(key(account, sku)) ?? 0;
  if (left <= 0) return offers;
  if (left === 1) ebay.staleReads.delete(key(account, sku));
  else ebay.staleReads.set(key(account, sku), left - 1);
  return offers.map((o) => ({ ...o, body: o.readBefore ?? o.body }));
}

export function mountStaleReadControls(app: express.Express, state: SandboxState): void {
  app.post('/_sandbox/ebay/stale_reads', (req: express.Request, res: express.Response) => {
    const body = (req.body ?? {}) as Body;
    const count = Number(body.count);
    if (!body.portal_account || !body.sku || !Number.isInteger(count) || count < 0) {
      res.status(400).json({ message: 'portal_account, sku and count (0 or more) are required' });
      return;
    }
    const at = key(String(body.portal_account), String(body.sku));
    if (count === 0) state.ebay.staleReads.delete(at);
    else state.ebay.staleReads.set(at, count);
    res.json({ portal_account: String(body.portal_account), sku: String(body.sku), count });
  });
}
