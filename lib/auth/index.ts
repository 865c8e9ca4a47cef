/**
 * lib/auth, the one way in from other domains: tokens, clients, authorize.
 * scripts/check-cycles.ts refuses imports of this folder's other files from outside it;
 * README.md beside this file has the decisions.
 */
export { AuthorizeFormError, AuthorizePageError, confirm, consentStep, readAuthorizationRequest, signIn, tickedScopes } from './authorize.service';
export type { AuthorizationRequest, AuthorizeOutcome, ConsentStep } from './authorize.service';
export { presentedCredentials } from './client-credentials';
export type { CredentialReading } from './client-credentials';
export { provideClientAccessGoing } from './client-access-going';
export type { NarrowedClientAccess } from './client-access-going';
export { clientAccessRights, listClientAccesses, restrictClientAccess, revokeClientAccess } from './client-access.service';
export type { ClientAccessRestriction } from './client-access.service';
export { ClientRegistrationError, createClient } from './client.service';
export { disableClient, disableLogin, enableClient, LockoutError, setPassword } from './credential-lockout.service';
export { tokenRepository } from './token.repository';
export { grantAuthorizationCode, grantClientCredentials, grantOfAccessToken, grantRefreshToken } from './token.service';
export type { TokenAnswer } from './token.service';
