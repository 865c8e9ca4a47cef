import { portalInputError } from '../portal-http';

/**
 * The Amazon marketplaces Kontor's sellers reach (developer-docs "Marketplace IDs"): each one's
 * country, currency and the region of its FBA channel code. The contracts give neither a
 * marketplace's currency (purchasable_offer.currency is the seller's to name) nor its channel
 * code; this table is ours (lib/portals/README.md, "The mapping"), one for listings, orders and
 * the consent alike.
 */
export interface AmazonMarketplace {
  country: string;
  currency: string;
  fba: string;
}

const marketplaces: Record<string, AmazonMarketplace> = {
  A1PA6795UKMFR9: { country: 'DE', currency: 'EUR', fba: 'AMAZON_EU' },
  A13V1IB3VIYZZH: { country: 'FR', currency: 'EUR', fba: 'AMAZON_EU' },
  APJ6JRA9NG5V4: { country: 'IT', currency: 'EUR', fba: 'AMAZON_EU' },
  A1RKKUPIHCS9HS: { country: 'ES', currency: 'EUR', fba: 'AMAZON_EU' },
  A1805IZSGTT6HS: { country: 'NL', currency: 'EUR', fba: 'AMAZON_EU' },
  AMEN7PMS3EDWL: { country: 'BE', currency: 'EUR', fba: 'AMAZON_EU' },
  A28R8C7NBKEWEA: { country: 'IE', currency: 'EUR', fba: 'AMAZON_EU' },
  A1F83G8C2ARO7P: { country: 'GB', currency: 'GBP', fba: 'AMAZON_EU' },
  A1C3SOZRARQ6R3: { country: 'PL', currency: 'PLN', fba: 'AMAZON_EU' },
  A2NODRKZP88ZB9: { country: 'SE', currency: 'SEK', fba: 'AMAZON_EU' },
  A33AVAJ2PDY3EV: { country: 'TR', currency: 'TRY', fba: 'AMAZON_EU' },
  ATVPDKIKX0DER: { country: 'US', currency: 'USD', fba: 'AMAZON_NA' },
  A2EUQ1WTGCTBG2: { country: 'CA', currency: 'CAD', fba: 'AMAZON_NA' },
  A1AM78C64UM0Y8: { country: 'MX', currency: 'MXN', fba: 'AMAZON_NA' },
  A1VC38T7YXB528: { country: 'JP', currency: 'JPY', fba: 'AMAZON_JP' },
};

/** The marketplace of an id, or undefined for one Kontor does not know (never a silent EUR). */
export const knownMarketplace = (marketplaceId: string): AmazonMarketplace | undefined => marketplaces[marketplaceId];

/**
 * The marketplace of an id an offer goes to; one Kontor does not know is refused before any call,
 * naming it: the fallback EUR/AMAZON_EU priced a seller's offer in an unknown marketplace
 * (Australia, India ...) in euros with Europe's FBA channel, and so every listing of a seller in
 * two marketplaces, whose comma-joined marketplace_id is in no table (a US and Canada seller's FBA
 * offer went to AMAZON_EU in EUR).
 */
export function marketplaceOf(marketplaceId: string): AmazonMarketplace {
  const known = knownMarketplace(marketplaceId);
  if (!known) throw portalInputError('market_d', `Kontor knows no currency or FBA channel of Amazon marketplace ${marketplaceId}; the offer was not sent`);
  return known;
}
