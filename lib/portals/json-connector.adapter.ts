import { Joi } from '../http';
import type { ChannelOrderPage } from './channel-order.type';
import { HttpPortalAdapter, portalInputError } from './portal-http';
import type { ListingItem, PortalAdapter, PortalTarget } from './portal.type';

const address = Joi.object().unknown(true).default({});

/** What the middleware answers to GET /<portal>/orders: a ChannelOrderPage (channel-order.type.ts), checked loosely. */
const pageType = Joi.object({
  orders: Joi.array()
    .items(
      Joi.object({
        external_order_id: Joi.string().min(1).max(255).required(),
        modified_at: Joi.string().isoDate().required(),
        created_at: Joi.string().isoDate().required(),
        currency_id: Joi.string().required(),
        customer: Joi.object({ address }).unknown(true).required(),
        shipping: Joi.object({ address }).unknown(true).required(),
        line: Joi.array().items(Joi.object().unknown(true)).max(1000).required(),
        paid_amount: Joi.string().required(),
        status: Joi.object({ is_paid: Joi.boolean().required(), is_shipped: Joi.boolean().required(), is_cancelled: Joi.boolean().required() }).required(),
      }).unknown(true),
    )
    .max(1000)
    .required(),
  next: Joi.string().allow(null).max(2000).default(null),
}).unknown(true);

/**
 * The generic JSON connector for a portal whose own adapter speaks its channel's real API
 * (auction_a, market_d, market_e, webshop): the portal's facts (upload actions, CIA group, batch size), the
 * neutral JSON dialect of portal-http.ts, and the item's field group of document 2 passed
 * through as it is, so a seller's own middleware maps it to whatever it speaks. Its orders
 * come from GET /<portal>/orders?modified_since=&cursor=, answered as a ChannelOrderPage.
 */
export class JsonConnectorAdapter extends HttpPortalAdapter {
  readonly portal: string;
  override readonly uploadActions: PortalAdapter['uploadActions'];
  override readonly uploadPart: PortalAdapter['uploadPart'];
  override readonly cia: PortalAdapter['cia'];
  override readonly categories: PortalAdapter['categories'];
  override readonly fieldGroup: PortalAdapter['fieldGroup'];
  override readonly maxQuantityBatch: number;
  // Client credentials of the account, when it holds them, give a bearer token (as before connectors).
  protected override readonly oauth = true;
  readonly rateBuyer?: PortalAdapter['rateBuyer'];

  constructor(facts: PortalAdapter) {
    super();
    this.portal = facts.portal;
    this.uploadActions = facts.uploadActions;
    this.uploadPart = facts.uploadPart;
    this.cia = facts.cia;
    this.categories = facts.categories;
    this.fieldGroup = facts.fieldGroup;
    this.maxQuantityBatch = facts.maxQuantityBatch;
    if (facts.rateBuyer) this.rateBuyer = (target, orderId, key) => this.rate(target, orderId, key);
  }

  protected mapListing(item: ListingItem): Record<string, unknown> {
    return { title: item.name, sku: item.sku, ean: item.ean, price: item.price, quantity: item.quantityAvailable, fields: item.group };
  }

  private async rate(target: PortalTarget, orderId: string, key: string): Promise<void> {
    await this.call(target, 'POST', `/${this.portal}/orders/${encodeURIComponent(orderId)}/rating`, { rating: 'positive' }, key);
  }

  async fetchOrders(target: PortalTarget, modifiedSince: Date, cursor: string | null): Promise<ChannelOrderPage> {
    const query = new URLSearchParams({ modified_since: modifiedSince.toISOString() });
    if (cursor !== null) query.set('cursor', cursor);
    const answer = await this.call(target, 'GET', `/${this.portal}/orders?${query.toString()}`, undefined, `orders-${modifiedSince.getTime()}-${cursor ?? ''}`);
    const { value, error } = pageType.validate(answer, { convert: true });
    if (error) throw portalInputError(this.portal, `the orders answer is not a ChannelOrderPage: ${error.message}`);
    return value as ChannelOrderPage;
  }
}
