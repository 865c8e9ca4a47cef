import { HttpPortalAdapter, portalInputError, str } from './portal-http';
import type { ListingItem } from './portal.type';

const idTypes = ['ASIN', 'ISBN', 'UPC', 'EAN'];

/** The fourth marketplace (Stock_market_d_type): offers by seller SKU; OAuth2 per portal account. */
export class MarketDAdapter extends HttpPortalAdapter {
  readonly portal = 'market_d' as const;
  override readonly uploadActions = ['list'] as const;
  // CIA pushes to the portal accounts its cia.market_d group names (else the account's default).
  override readonly cia = { namedAccounts: true };
  protected override readonly oauth = true;

  protected mapListing(item: ListingItem): Record<string, unknown> {
    const g = item.group;
    return {
      seller_sku: str(g, 'sku', item.sku ?? String(item.stockId)),
      product_id: str(g, 'id', item.ean),
      product_id_type: str(g, 'id_type', 'EAN'),
      price: str(g, 'price', item.price),
      handling_time: typeof g.delivery_time === 'number' ? g.delivery_time : null,
      fulfillment: g.is_fba === true ? 'fba' : 'merchant',
      condition_note: str(g, 'comment'),
      quantity: item.quantityAvailable,
    };
  }

  protected override checkLimits(p: Record<string, unknown>): void {
    if (!p.product_id) throw portalInputError(this.portal, 'a product id (market_d.id or the barcode) is required');
    if (!idTypes.includes(String(p.product_id_type))) throw portalInputError(this.portal, `id_type must be one of ${idTypes.join(', ')}`);
    if (!p.price) throw portalInputError(this.portal, 'a price is required');
  }
}
