import { HttpPortalAdapter, pictures, portalInputError, str } from './portal-http';
import type { ListingItem } from './portal.type';

/** The fifth marketplace (Stock_market_e_type): offers by EAN. */
export class MarketEAdapter extends HttpPortalAdapter {
  readonly portal = 'market_e' as const;
  override readonly uploadActions = ['list', 'delete'] as const;
  override readonly cia = { namedAccounts: false };
  override readonly categories = 'global' as const;

  protected mapListing(item: ListingItem): Record<string, unknown> {
    const g = item.group;
    return {
      ean: str(g, 'ean', item.ean),
      price: str(g, 'price', item.price),
      price_min: str(g, 'price_min'),
      comment: str(g, 'comment'),
      delivery_time: str(g, 'delivery_time'),
      location: str(g, 'location'),
      category_id: str(g, 'category_id'),
      name: str(g, 'name', item.name),
      images: pictures(g),
      quantity: item.quantityAvailable,
    };
  }

  protected override checkLimits(p: Record<string, unknown>): void {
    if (!p.ean) throw portalInputError(this.portal, 'an EAN (or isbn:...) is required');
    if (p.delivery_time && !/^([a-i]|\d+-\d+)$/.test(String(p.delivery_time))) throw portalInputError(this.portal, 'delivery_time must be a to i or X-Y');
    if ((p.images as string[]).length > 12) throw portalInputError(this.portal, 'at most 12 pictures');
  }
}
