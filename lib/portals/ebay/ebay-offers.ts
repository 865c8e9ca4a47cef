/**
 * The offers eBay holds for a seller's SKU (Inventory API getOffers by sku): how a take-over of
 * listings made through the Inventory API (by another tool) finds that the SKU is live at eBay.
 * Such listings need no migration: Kontor reaches them by SKU.
 */
import type { components as Inventory } from 'ebay-api/lib/types/restful/specs/sell_inventory_v1_oas3';
import { ebayCall, ebayErrorText } from './ebay-http';
import type { PortalTarget } from '../portal.type';
import { portalRefused } from '../../errors';

type Offer = Inventory['schemas']['EbayOfferDetailsWithAll'];

/** The SKU's offers (none: eBay answers 404, or 400 with errorId 25713). */
export async function ebayOffersOfSku(target: PortalTarget, sku: string): Promise<Offer[]> {
  const answer = await ebayCall<{ offers?: Offer[]; errors?: [] }>(target, {
    method: 'GET',
    path: '/sell/inventory/v1/offer',
    query: { sku },
    accept: [404, 400],
  });
  if (answer.status === 400 && !/25713|not available/i.test(ebayErrorText(answer.body.errors) ?? ''))
    throw portalRefused(`auction_a getOffers for SKU ${sku}: ${ebayErrorText(answer.body.errors) ?? 'bad request'}`);
  return answer.status >= 400 ? [] : (answer.body.offers ?? []);
}
