/**
 * lib/admin, the one way in from other domains: administration by support.
 * scripts/check-cycles.ts refuses imports of this folder's other files from outside it;
 * README.md beside this file has the decisions.
 */
export { resealTables } from './credentials-reseal';
export type { SealedCredentialsTable } from './credentials-reseal';
export { createPerson, personToApi } from './person.service';
export { createPortalAccount } from './portal-account-admin.service';
export { connectPortalAccount } from './portal-account-connect.service';
export {
  completeAmazonConsent,
  completeEbayConsent,
  completeShopifyInstall,
  ConsentFailed,
  ebayApplication,
  startConsent,
} from './portal-account-consent.service';
export type { ConsentOutcome } from './portal-account-consent.service';
export { shippingGroupRepository } from './shipping-group.repository';
export { createShippingGroup, getShippingGroup, listShippingGroups, shippingGroupToApi } from './shipping-group.service';
