/**
 * lib/admin, the one way in from other domains: administration by support.
 * scripts/check-cycles.ts refuses imports of this folder's other files from outside it;
 * README.md beside this file has the decisions.
 */
export { accountOf, AdminCommandError, adminUsage, explain, read, runAdminCommand } from './admin.cli';
export { resealTables } from './credentials-reseal';
export type { SealedCredentialsTable } from './credentials-reseal';
export { personToApi } from './person.service';
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
export { getShippingGroup, shippingGroupToApi } from './shipping-group.service';
export { secretFromStdin } from './stdin-secret';
