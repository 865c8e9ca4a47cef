import { HttpPortalAdapter, pictures, portalInputError, str } from './portal-http';
import type { ListingItem } from './portal.type';

const taxIds = [1, 2, 3, 4, 10, 11, 12];
const deliveryTimes = [0, 3, 5, 7, 10, 15, 20, 30, 40, 50, 60];

/** The seventh marketplace (Stock_market_i_type): exactly three pictures, coded tax and delivery times. */
export class MarketIAdapter extends HttpPortalAdapter {
  readonly portal = 'market_i' as const;
  override readonly categories = 'own' as const;

  protected mapListing(item: ListingItem): Record<string, unknown> {
    const g = item.group;
    return {
      title: str(g, 'name', item.name),
      price: str(g, 'price', item.price),
      reduced_price: str(g, 'reduced_price'),
      tax_id: typeof g.tax_id === 'number' ? g.tax_id : 1,
      ean: str(g, 'ean', item.ean),
      mpn: str(g, 'mpn'),
      manufacturer: str(g, 'manufacturer'),
      delivery_time: typeof g.delivery_time === 'number' ? g.delivery_time : 0,
      category_id: str(g, 'category_id'),
      images: pictures(g),
      quantity: item.quantityAvailable,
    };
  }

  protected override checkLimits(p: Record<string, unknown>): void {
    if ((p.images as string[]).length !== 3) throw portalInputError(this.portal, 'exactly 3 pictures are required');
    if (!taxIds.includes(Number(p.tax_id))) throw portalInputError(this.portal, `tax_id must be one of ${taxIds.join(', ')}`);
    if (!deliveryTimes.includes(Number(p.delivery_time))) throw portalInputError(this.portal, `delivery_time must be one of ${deliveryTimes.join(', ')}`);
    if (!p.price) throw portalInputError(this.portal, 'a price is required');
  }
}
