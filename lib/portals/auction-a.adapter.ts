import { Joi, list, portalAccountRef, text } from '../http/schema';
import { HttpPortalAdapter, pictures, portalInputError, str } from './portal-http';
import type { ListingItem, PortalTarget } from './portal.type';

const durations = ['1', '3', '5', '7', '10', '30', 'GTC'];
const reviseValues = ['price', 'title', 'desc', 'sku', 'specs', 'widerruf', 'subtitle', 'pic', 'shipping', 'quantity', 'cat'] as const;

/** Stock_portal_upload_auction_a_type. */
const uploadPart = Joi.object({
  action: Joi.string().valid('list', 'revise').required(),
  portal_account_id: portalAccountRef(),
  lister_id: Joi.alternatives(
    Joi.number()
      .integer()
      .min(0)
      .custom((v: number) => String(v)),
    text(32),
  ),
  start: text(64),
  revise_values: list(Joi.string().valid(...reviseValues)),
  auction_a_live_id: Joi.alternatives(
    Joi.number()
      .integer()
      .min(1)
      .custom((v: number) => String(v)),
    Joi.string().trim().max(64),
  ),
});

/** The first auction portal (Stock_auction_a_type); OAuth2 with the portal account's client credentials. */
export class AuctionAAdapter extends HttpPortalAdapter {
  readonly portal = 'auction_a' as const;
  override readonly uploadActions = ['list', 'revise'] as const;
  override readonly uploadPart = uploadPart;
  override readonly cia = { namedAccounts: false };
  override readonly categories = 'global' as const;
  override readonly fieldGroup = 'listers' as const;
  protected override readonly oauth = true;
  // The bulk price and quantity call of the large auction portals takes 25 offers.
  override readonly maxQuantityBatch = 25;

  protected mapListing(item: ListingItem): Record<string, unknown> {
    const g = item.group;
    return {
      title: str(g, 'name', item.name),
      subtitle: str(g, 'subtitle'),
      listing_type: str(g, 'type_id', '9'),
      duration: str(g, 'duration', 'GTC'),
      quantity: typeof g.quantity === 'number' ? g.quantity : item.quantityAvailable,
      start_price: str(g, 'start_price'),
      price: str(g, 'price', item.price),
      description: str(g, 'description'),
      category_id: str(g, 'category_1_id'),
      site_id: str(g, 'site_id', '77'),
      sku: str(g, 'sku', item.sku),
      ean: item.ean,
      pictures: pictures(g),
    };
  }

  /** The automatic rating (document 1, order rule 5): a positive rating once the order is shipped. */
  async rateBuyer(target: PortalTarget, orderId: string, key: string): Promise<void> {
    await this.call(
      target,
      'POST',
      `/${this.portal}/orders/${encodeURIComponent(orderId)}/rating`,
      { rating: 'positive', text: 'Thank you for your purchase.' },
      key,
    );
  }

  protected override checkLimits(p: Record<string, unknown>): void {
    if (!p.title) throw portalInputError(this.portal, 'a title (name) is required');
    if (String(p.title).length > 80) throw portalInputError(this.portal, 'the title is longer than 80 characters');
    if (p.subtitle && String(p.subtitle).length > 80) throw portalInputError(this.portal, 'the subtitle is longer than 80 characters');
    if (!durations.includes(String(p.duration))) throw portalInputError(this.portal, `duration must be one of ${durations.join(', ')}`);
    if ((p.pictures as string[]).length > 12) throw portalInputError(this.portal, 'at most 12 pictures');
    if (!p.price && !p.start_price) throw portalInputError(this.portal, 'a price is required');
  }
}
