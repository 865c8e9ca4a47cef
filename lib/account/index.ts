/**
 * lib/account, the one way in from other domains: seller accounts and their users.
 * scripts/check-cycles.ts refuses imports of this folder's other files from outside it;
 * README.md beside this file has the decisions.
 */
export { accountUseRepository } from './account-use.repository';
export { accountRepository } from './account.repository';
export { createSeller, LoginTakenError } from './account.service';
export { counterRepository } from './counter.repository';
export { decoyHash, disabledPasswordHash, hashPassword, isDisabledPasswordHash, verifyPassword } from './password';
export { personRepository } from './person.repository';
export type { PersonRow } from './person.repository';
export { sellerAsSender, sellerContactEmail, sellerLocale } from './seller-contact';
export { readUser, setAccountAddress, updateUser, userType } from './user';
export type { UserUpdate } from './user';
