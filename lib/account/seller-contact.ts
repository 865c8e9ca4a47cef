import type { AccountRow } from './account.repository';

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
