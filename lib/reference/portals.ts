/** Portal identifiers of document 1's naming table (the neutral words), as used in platform fields. */
export const portalIds = [
  'auction_a', 'auction_b', 'market_c', 'market_d', 'market_e', 'market_f', 'shop_g', 'shop_h', 'market_i', 'webshop', 'shop',
] as const;

export type PortalId = (typeof portalIds)[number];

/**
 * Platforms whose categories are account independent (document 2, Category_type): answered by
 * GET system/stock/category/. The own portals (shop_g, market_i, shop) keep their categories
 * per account under stock/category/.
 */
export const globalCategoryPlatforms = ['auction_a', 'auction_b', 'market_c', 'market_e'] as const;

/** The own portals, whose categories are per account (stock/category/). */
export const ownCategoryPlatforms = ['shop_g', 'market_i', 'shop'] as const;
