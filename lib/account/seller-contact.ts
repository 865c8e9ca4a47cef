import { mailAddress, type OutgoingMail } from '../mail';
import { accountRepository, type AccountRow } from './account.repository';

/**
 * The address a seller's buyers write to: settings.invoice.email (POST admin/user/), else the
 * account's own e-mail (given by support). Invoices state it as the seller's contact; the
 * in-transit mail answers to it (Reply-To), so a buyer's reply reaches the seller and not the
 * service's no-reply sender. '' when the seller has given none.
 */
export function sellerContactEmail(account: Pick<AccountRow, 'email' | 'settings'> | undefined): string {
  const invoice = (account?.settings ?? {}).invoice as Record<string, unknown> | undefined;
  const given = typeof invoice?.email === 'string' ? invoice.email : '';
  return given || (account?.email ?? '');
}

/**
 * The language and formats of what the seller's buyers receive (invoices, the in-transit mail):
 * settings.invoice.locale, a BCP 47 tag, 'de-DE' when the seller has set none.
 */
export function sellerLocale(account: Pick<AccountRow, 'settings'> | undefined): string {
  const invoice = (account?.settings ?? {}).invoice as Record<string, unknown> | undefined;
  return typeof invoice?.locale === 'string' && invoice.locale.trim() ? invoice.locale.trim() : 'de-DE';
}

/** The name the seller's buyers know: the account address's name (Admin_user_type: the company); '' when none is given. */
export function sellerName(account: Pick<AccountRow, 'address'> | undefined): string {
  const name = account?.address?.name;
  return typeof name === 'string' ? name.trim() : '';
}

/**
 * How a mail the seller's buyers receive names its sender (send_mit's in-transit mail, an event
 * handler's mail action): under the seller's name (sellerName), answered to the seller's contact
 * (sellerContactEmail) instead of the service's no-reply address, each left out when not given;
 * and the seller's locale and name, for the text.
 */
export async function sellerAsSender(accountId: number): Promise<{ sender: Pick<OutgoingMail, 'fromName' | 'replyTo'>; locale: string; name: string }> {
  const account = await accountRepository.get(accountId);
  const name = sellerName(account);
  const replyTo = sellerContactEmail(account);
  return { sender: { ...(name ? { fromName: name } : {}), ...(mailAddress.test(replyTo) ? { replyTo } : {}) }, locale: sellerLocale(account), name };
}
