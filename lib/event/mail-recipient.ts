import { accountRepository } from '../account';
import { invalidField, invalidInput } from '../errors';

/**
 * Who a mail action may write to (issue 31, finding 6: no open relay from MAIL_FROM): the event
 * record's own buyer, named as the field that holds the address ({customer.email} of an order,
 * {email} of a customer), or one of the account's own addresses (its e-mail, GET admin/user/).
 * Stock events have no buyer: only the account's own addresses.
 */
export const buyerAddressField: Record<string, string> = { order: '{customer.email}', customer: '{email}' };

async function ownAddresses(accountId: number): Promise<Set<string>> {
  const account = await accountRepository.get(accountId);
  return new Set(account?.email ? [account.email.trim().toLowerCase()] : []);
}

const rule = (section: string) =>
  `the buyer of the record${buyerAddressField[section] ? ` (${buyerAddressField[section]})` : ' (none for this section)'} or an address of the account (GET admin/user/ email)`;

/** At creation: 400 naming the field unless `to` is the buyer's field or an own address. */
export async function checkMailRecipient(accountId: number, section: string, to: string, field: string): Promise<void> {
  if (await mayWriteTo(accountId, section, to)) return;
  throw invalidField(field, `${field} must be ${rule(section)}`);
}

/** At run time again (the account's address may have changed): a permanent failure of the run otherwise. */
export async function assertMailRecipient(accountId: number, section: string, to: string): Promise<void> {
  if (await mayWriteTo(accountId, section, to)) return;
  throw invalidInput('invalid_field', `mail: the recipient ${to} is not ${rule(section)}; nothing was sent`);
}

async function mayWriteTo(accountId: number, section: string, to: string): Promise<boolean> {
  const value = to.trim();
  if (value.startsWith('{')) return value === buyerAddressField[section];
  return (await ownAddresses(accountId)).has(value.toLowerCase());
}
