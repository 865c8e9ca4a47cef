/**
 * lib/mail, the one way in from other domains: outgoing mail.
 * scripts/check-cycles.ts refuses imports of this folder's other files from outside it;
 * README.md beside this file has the decisions.
 */
export { offerDevMailCatcher } from './dev-mail-catcher';
export { mailAddress } from './mail-address';
export { messageIdOf, refusedForGood, sendMail } from './mailer';
export type { OutgoingMail } from './mailer';
