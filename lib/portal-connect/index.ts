/**
 * lib/portal-connect, the one way in from other domains: what connecting a channel account does beyond the credentials.
 * scripts/check-cycles.ts refuses imports of this folder's other files from outside it;
 * README.md beside this file has the decisions.
 */
export { ebayChallenge, receiveEbayDeletion } from './ebay-deletion.service';
export { maxTakeOverListings, takeOverListings } from './ebay-take-over.service';
export { receiveShopifyWebhook, ShopifyWebhookRefused } from './shopify-webhook.service';
