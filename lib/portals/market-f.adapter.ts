import { HttpPortalAdapter, portalInputError, str } from './portal-http';
import type { ListingItem } from './portal.type';

/**
 * The sixth marketplace (Stock_market_f_type): quantities 1 to 9999; 0 deactivates the offer.
 * `maxQuantity` makes CIA's wanted quantity (and the state a seller reads) the 9999 it sends.
 */
export class MarketFAdapter extends HttpPortalAdapter {
  readonly portal = 'market_f' as const;
  readonly maxQuantity = 9999;
  override readonly uploadActions = ['list'] as const;
  override readonly cia = { namedAccounts: false };

  protected mapListing(item: ListingItem): Record<string, unknown> {
    const g = item.group;
    const quantity = typeof g.quantity === 'number' ? g.quantity : item.quantityAvailable;
    return { ean: str(g, 'ean', item.ean), price: str(g, 'price', item.price), quantity: Math.min(quantity, this.maxQuantity), active: g.is_active !== false };
  }

  protected override checkLimits(p: Record<string, unknown>): void {
    if (!p.ean) throw portalInputError(this.portal, 'an EAN is required');
    if (!p.price) throw portalInputError(this.portal, 'a price is required');
    if (Number(p.quantity) < 1) throw portalInputError(this.portal, 'the quantity must be 1 to 9999');
  }

  protected override quantityPayload(quantity: number): Record<string, unknown> {
    return { quantity: Math.max(1, Math.min(quantity, this.maxQuantity)), active: quantity > 0 };
  }
}
