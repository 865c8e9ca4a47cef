/**
 * lib/portals, the one way in from other domains: one adapter per portal.
 * scripts/check-cycles.ts refuses imports of this folder's other files from outside it;
 * README.md beside this file has the decisions.
 */
export { participatingMarketplaces, spApiConsentGrant, spApiConsentUrl } from './amazon/sp-api-consent';
export type { SpApiApplication } from './amazon/sp-api-consent';
export { AuctionAAdapter } from './auction-a.adapter';
export type { Warehouse } from './auction-a.adapter';
export type { ChannelFulfilledOffer, ChannelOrder, ChannelOrderAddress, ChannelOrderPage } from './channel-order.type';
export { connectorCredentials, connectors, defaultConnector, realConnectors } from './connector';
export type { Connector } from './connector';
export { ebayChallengeResponse, EbayNotificationRefused, readEbayDeletion } from './ebay/ebay-account-deletion';
export { ebayConsentGrant, ebayConsentUrl } from './ebay/ebay-consent';
export type { EbayApplication } from './ebay/ebay-consent';
export { ebaySku, ebaySkuRefusal } from './ebay/ebay-listing.mapping';
export { ebayOffersOfSku } from './ebay/ebay-offers';
export { ebayScopes } from './ebay/ebay-token';
export { fieldGroupEntry, quantityPushFields } from './field-group';
export { kauflandApiUrl, kauflandStorefronts } from './kaufland/kaufland-credentials';
export { MarketEAdapter } from './market-e.adapter';
export { isShippedByChannelAtPortal, retryAfterMs, str } from './portal-http';
export { partialListingOf } from './partial-listing';
export type { PartialListing } from './partial-listing';
export { PortalSlotLater, portalSlotSleep, waitForPortalSlot } from './portal-rate-limit';
export type { PortalSlot, SlotTurn } from './portal-rate-limit';
export {
  adapterFor,
  ciaPortals,
  globalCategoryPlatforms,
  importsOrders,
  listerGroups,
  objectGroups,
  ownCategoryPlatforms,
  portalIds,
  portalOf,
  uploadPortals,
} from './portal.registry';
export type { CiaPortal, ListerGroup, PortalId, RegisteredAdapter } from './portal.registry';
export type {
  ChannelFulfilment,
  ListingCheck,
  ListingItem,
  PortalTarget,
  PushAids,
  QuantityOutcome,
  RevisionLedger,
  Revisions,
  UploadAction,
  VariationListing,
} from './portal.type';
export { shopifyDomainPattern } from './shopify/shopify-credentials';
export { installQueryValid, isShopDomain, shopifyInstallGrant, shopifyInstallUrl, storeOrigin } from './shopify/shopify-install';
export type { ShopifyApp } from './shopify/shopify-install';
export { shopifyStoreRepository } from './shopify/shopify-store.repository';
export type { ShopifyStoreRow } from './shopify/shopify-store.repository';
export { ensureWebhooks, forgetSubscribed, subscribeOnce, webhookSignatureValid } from './shopify/shopify-webhooks';
export { WebshopAdapter } from './webshop.adapter';
