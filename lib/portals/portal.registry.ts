import { AuctionAAdapter } from './auction-a.adapter';
import { AuctionBAdapter } from './auction-b.adapter';
import { MarketCAdapter } from './market-c.adapter';
import { MarketDAdapter } from './market-d.adapter';
import { MarketEAdapter } from './market-e.adapter';
import { MarketFAdapter } from './market-f.adapter';
import { MarketIAdapter } from './market-i.adapter';
import type { PortalAdapter, PortalId } from './portal.types';
import { ShopAdapter } from './shop.adapter';
import { ShopGAdapter } from './shop-g.adapter';
import { ShopHAdapter } from './shop-h.adapter';
import { WebshopAdapter } from './webshop.adapter';

/** One adapter per portal of document 2. */
const adapters: Record<PortalId, PortalAdapter> = {
  auction_a: new AuctionAAdapter(),
  auction_b: new AuctionBAdapter(),
  market_c: new MarketCAdapter(),
  market_d: new MarketDAdapter(),
  market_e: new MarketEAdapter(),
  market_f: new MarketFAdapter(),
  shop_g: new ShopGAdapter(),
  shop_h: new ShopHAdapter(),
  market_i: new MarketIAdapter(),
  webshop: new WebshopAdapter(),
  shop: new ShopAdapter(),
};

/** The adapter of a portal. */
export function adapterFor(portal: PortalId): PortalAdapter {
  return adapters[portal];
}
