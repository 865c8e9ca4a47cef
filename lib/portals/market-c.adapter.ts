import { HttpPortalAdapter, pictures, portalInputError, str } from './portal-http';
import type { ListingItem } from './portal.type';

/** The third marketplace (Stock_market_c_type). */
export class MarketCAdapter extends HttpPortalAdapter {
  readonly portal = 'market_c' as const;
  override readonly cia = { namedAccounts: false };
  override readonly categories = 'global' as const;
  override readonly fieldGroup = 'listers' as const;

  protected mapListing(item: ListingItem): Record<string, unknown> {
    const g = item.group;
    return {
      name: str(g, 'name', item.name),
      price: str(g, 'price', item.price),
      vat: str(g, 'vat'),
      quantity: typeof g.quantity === 'number' ? g.quantity : item.quantityAvailable,
      description: str(g, 'description'),
      short_description: str(g, 'short_description'),
      sku: str(g, 'sku', item.sku),
      category: str(g, 'category_1_id'),
      images: pictures(g),
    };
  }

  protected override checkLimits(p: Record<string, unknown>): void {
    if (!p.name || String(p.name).length > 80) throw portalInputError(this.portal, 'a name of at most 80 characters is required');
    if (p.description && String(p.description).length > 65000) throw portalInputError(this.portal, 'the description is longer than 65000 characters');
    if (!p.price) throw portalInputError(this.portal, 'a price is required');
  }
}
