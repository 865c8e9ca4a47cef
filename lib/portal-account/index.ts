/**
 * lib/portal-account, the one way in from other domains.
 * scripts/check-cycles.ts refuses imports of this folder's other files from outside it;
 * README.md beside this file has the decisions.
 */
export { portalAccountFetchRepository, portalAccountRefRepository } from './portal-account-use.repository';
export type { ImportAccountRow, PendingFetch } from './portal-account-use.repository';
export { portalAccountCredentialsRepository, portalAccountRepository } from './portal-account.repository';
export type { PortalAccountRow } from './portal-account.repository';
export {
  checkMentionedPortalAccounts,
  getPortalAccount,
  mentionRefusals,
  ownPortalAccountId,
  portalAccountOf,
  portalAccountsOf,
  portalAccountToApi,
  resolveRequestPortalAccount,
} from './portal-account.service';
export type { PortalAccountRef } from './portal-account.service';
export { portalTargetRepository } from './portal-target.repository';
