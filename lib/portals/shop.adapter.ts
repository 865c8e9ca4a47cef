import { HttpPortalAdapter } from './portal-http';
import type { ListingItem } from './portal.type';

/** The external lister shop (Stock_shop_type: only lister_id is known); master data is sent. */
export class ShopAdapter extends HttpPortalAdapter {
  readonly portal = 'shop' as const;
  override readonly categories = 'own' as const;
  override readonly fieldGroup = 'listers' as const;

  protected mapListing(item: ListingItem): Record<string, unknown> {
    return { lister_id: item.group.lister_id ?? null, name: item.name, sku: item.sku, ean: item.ean, price: item.price, quantity: item.quantityAvailable };
  }
}
