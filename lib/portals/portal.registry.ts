import { AuctionAAdapter } from './auction-a.adapter';
import { AuctionBAdapter } from './auction-b.adapter';
import { MarketCAdapter } from './market-c.adapter';
import { MarketDAdapter } from './market-d.adapter';
import { MarketEAdapter } from './market-e.adapter';
import { MarketFAdapter } from './market-f.adapter';
import { MarketIAdapter } from './market-i.adapter';
import { Connector, realConnectors } from './connector';
import { JsonConnectorAdapter } from './json-connector.adapter';
import type { PortalAdapter } from './portal.type';
import { ShopAdapter } from './shop.adapter';
import { ShopGAdapter } from './shop-g.adapter';
import { ShopHAdapter } from './shop-h.adapter';
import { WebshopAdapter } from './webshop.adapter';

/**
 * One adapter per portal of document 2, in the order lists of portals are answered. Every
 * list below is derived from the adapters' facts: a new portal is its adapter and its line here.
 */
const adapters = [
  new AuctionAAdapter(),
  new AuctionBAdapter(),
  new MarketCAdapter(),
  new MarketDAdapter(),
  new MarketEAdapter(),
  new MarketFAdapter(),
  new ShopGAdapter(),
  new ShopHAdapter(),
  new MarketIAdapter(),
  new WebshopAdapter(),
  new ShopAdapter(),
] as const;

type Adapter = (typeof adapters)[number];

/** Every adapter, in registry order. */
export const portalAdapters: readonly PortalAdapter[] = adapters;

/** Portal identifiers of document 1's naming table (the neutral words), as used in platform fields. */
export type PortalId = Adapter['portal'];
export const portalIds: readonly PortalId[] = adapters.map((a) => a.portal);

/** An adapter of the registry: its portal is one of portalIds. */
export type RegisteredAdapter = PortalAdapter & { readonly portal: PortalId };

/** The portals with a cia.<portal> group on a stock item (Stock_type cia.*). */
export type CiaPortal = Extract<Adapter, { cia: object }>['portal'];
export const ciaPortals: readonly CiaPortal[] = adapters.filter((a): a is Extract<Adapter, { cia: object }> => a.cia !== null).map((a) => a.portal);

/** The portals whose Stock_type group is a list of listers (entries carry lister_id). */
export type ListerGroup = Extract<Adapter, { fieldGroup: 'listers' }>['portal'];
export const listerGroups: readonly ListerGroup[] = adapters
  .filter((a): a is Extract<Adapter, { fieldGroup: 'listers' }> => a.fieldGroup === 'listers')
  .map((a) => a.portal);

/** The portals whose Stock_type group is one object or a list of its own (not listers). */
export const objectGroups: readonly PortalId[] = adapters.filter((a) => a.fieldGroup !== 'listers').map((a) => a.portal);

/**
 * Platforms whose categories are account independent (document 2, Category_type): answered by
 * GET system/stock/category/.
 */
export const globalCategoryPlatforms: readonly PortalId[] = adapters.filter((a) => a.categories === 'global').map((a) => a.portal);

/** The own portals, whose categories are per account (stock/category/). */
export const ownCategoryPlatforms: readonly PortalId[] = adapters.filter((a) => a.categories === 'own').map((a) => a.portal);

/** The portals of Stock_portal_upload_type (POST stock/{stock_id}/portal_upload/), with the actions each takes. */
export const uploadPortals: readonly RegisteredAdapter[] = adapters.filter((a) => a.uploadActions.length > 0);

const byId = new Map<string, RegisteredAdapter>(adapters.map((a) => [a.portal, a]));

/** The generic JSON connector of each portal whose own adapter speaks a real channel's API. */
const jsonAdapters = new Map<string, RegisteredAdapter>(
  adapters.filter((a) => realConnectors[a.portal] !== undefined).map((a) => [a.portal, new JsonConnectorAdapter(a) as RegisteredAdapter]),
);

/**
 * The adapter that speaks to a portal through a portal account's connector: the portal's own
 * adapter when the connector is its real one (or left out: facts only), else the generic JSON
 * connector with the portal's facts. A portal account connected to one channel and used as the
 * fallback for another portal (the default account) reaches that portal in JSON.
 */
export function adapterFor(portal: PortalId, connector?: Connector): RegisteredAdapter {
  const own = byId.get(portal)!;
  if (connector === undefined || connector === realConnectors[portal]) return own;
  return jsonAdapters.get(portal) ?? own;
}

/** The portals whose orders Kontor imports (an adapter that fetches orders), by connector. */
export function importsOrders(portal: PortalId, connector: Connector | null | undefined): boolean {
  return typeof adapterFor(portal, connector ?? undefined).fetchOrders === 'function' && realConnectors[portal] !== undefined;
}

/** The portal of a platform field (order.platform, ...), or null when it names none. */
export function portalOf(platform: string | null | undefined): PortalId | null {
  return portalIds.find((id) => id === platform) ?? null;
}
