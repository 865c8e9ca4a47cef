/**
 * lib/portal-offer, the one way in from other domains: offers at portals, listed and given their quantities.
 * scripts/check-cycles.ts refuses imports of this folder's other files from outside it;
 * README.md beside this file has the decisions.
 */
export { readMarkedWhole, recordChannelFulfilledOffers } from './channel-fulfilled';
export { provideEbayListings } from './ebay-listings.provide';
export { itemsListedUnder } from './listed-items';
export { portalUploadProcessors } from './portal-upload.processor';
export { portalUpload } from './portal-upload.service';
export { maxPortalUploadParts, portalUploadType } from './portal-upload.type';
export { recordTakenOverVariation } from './taken-over-variation';
export type { PortalUploadInput } from './portal-upload.type';
