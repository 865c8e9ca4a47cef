import { HttpPortalAdapter, pictures, portalInputError, str } from './portal-http';
import type { ListingItem } from './portal.type';

/** The second auction portal (Stock_auction_b_type). */
export class AuctionBAdapter extends HttpPortalAdapter {
  readonly portal = 'auction_b' as const;
  override readonly cia = { namedAccounts: false };
  override readonly categories = 'global' as const;
  override readonly fieldGroup = 'listers' as const;

  protected mapListing(item: ListingItem): Record<string, unknown> {
    const g = item.group;
    return {
      title: str(g, 'name', item.name),
      type: str(g, 'type_id', '9'),
      price: str(g, 'price', item.price),
      quantity: typeof g.quantity === 'number' ? g.quantity : item.quantityAvailable,
      description: str(g, 'description'),
      condition: str(g, 'condition_id', '0'),
      ean: item.ean,
      images: pictures(g),
    };
  }

  protected override checkLimits(p: Record<string, unknown>): void {
    if (!p.title || String(p.title).length > 80) throw portalInputError(this.portal, 'a title of at most 80 characters is required');
    if (p.description && String(p.description).length > 65000) throw portalInputError(this.portal, 'the description is longer than 65000 characters');
    if ((p.images as string[]).length > 12) throw portalInputError(this.portal, 'at most 12 pictures');
  }
}
