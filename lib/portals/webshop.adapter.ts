import { HttpPortalAdapter, pictures, portalInputError, str } from './portal-http';
import type { ListingItem } from './portal.type';

/** The service's own web shop (Stock_webshop_type): net prices, several shops by shop_id. */
export class WebshopAdapter extends HttpPortalAdapter {
  readonly portal = 'webshop' as const;
  override readonly cia = { namedAccounts: false };
  override readonly fieldGroup = 'list' as const;

  protected mapListing(item: ListingItem): Record<string, unknown> {
    const g = item.group;
    const prices = Array.isArray(g.price) ? g.price : [];
    return {
      shop_id: str(g, 'shop_id'),
      name: str(g, 'name', item.name),
      sku: str(g, 'sku', item.sku),
      ean: str(g, 'ean', item.ean),
      net_prices: prices,
      gross_price: item.price,
      quantity: item.quantityAvailable,
      active: g.is_active !== false,
      images: pictures(g),
    };
  }

  protected override checkLimits(p: Record<string, unknown>): void {
    if (!p.shop_id) throw portalInputError(this.portal, 'shop_id is required');
    if ((p.images as string[]).length > 12) throw portalInputError(this.portal, 'at most 12 pictures');
  }
}
