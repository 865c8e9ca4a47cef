/**
 * lib/secret, the one way in from other domains: credentials sealed at rest.
 * scripts/check-cycles.ts refuses imports of this folder's other files from outside it;
 * README.md beside this file has the decisions.
 */
export { CredentialsError, developmentKeyWarning, isBoundToRow, openCredentials, sealCredentials, sealedKeyId, whereNeedsResealing } from './credentials';
export type { CredentialsPurpose, SealPurpose } from './credentials';
