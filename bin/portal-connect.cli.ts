/**
 * Support's side of connecting a seller's channel account (issue 30 point 3):
 *   kontor portal-account consent --login L --portal-account ID --connector ebay|amazon_sp|shopify [--shop-domain S.myshopify.com]
 *     prints {url}: the consent (Shopify: install) link to hand to the seller (good once, for 10 minutes), as
 *     POST admin/portal_account/{id}/consent/ answers it;
 *   kontor portal-account take-over --login L --portal-account ID [--listing-id X ...] [--sku S ...]
 *     migrates the seller's Seller Hub / Trading API listings (--listing-id), confirms Inventory API
 *     listings (--sku), and links each to the stock item of its SKU, as POST
 *     admin/portal_account/{id}/take_over/; prints the report per listing.
 */
import { parseArgs } from 'node:util';
import { startConsent } from '../lib/admin';
import { takeOverListings } from '../lib/portal-connect';
import { accountOf, AdminCommandError, explain, read } from './admin.cli';

export const portalConnectUsage = [
  'kontor portal-account consent --login L --portal-account ID --connector ebay|amazon_sp|shopify [--shop-domain S.myshopify.com]',
  'kontor portal-account take-over --login L --portal-account ID [--listing-id X ...] [--sku S ...]',
];

function portalAccountId(value: unknown): number {
  if (!/^\d{1,10}$/.test(String(value)) || Number(value) < 1 || Number(value) > 2147483647)
    throw new AdminCommandError('--portal-account must be a portal account id');
  return Number(value);
}

export async function runPortalConnectCommand(command: string | undefined, sub: string | undefined, rest: string[]): Promise<unknown> {
  if (command !== 'portal-account') return undefined;
  if (sub === 'consent') {
    const v = read(rest, ['login', 'portal-account', 'connector'], ['shop-domain']);
    const accountId = await accountOf(String(v.login));
    const shop = typeof v['shop-domain'] === 'string' ? v['shop-domain'] : undefined;
    return explain(() => startConsent(accountId, portalAccountId(v['portal-account']), String(v.connector), undefined, shop));
  }
  if (sub === 'take-over') {
    let parsed;
    try {
      parsed = parseArgs({
        args: rest,
        strict: true,
        options: {
          login: { type: 'string' },
          'portal-account': { type: 'string' },
          'listing-id': { type: 'string', multiple: true },
          sku: { type: 'string', multiple: true },
        },
      });
    } catch (err) {
      throw new AdminCommandError((err as Error).message);
    }
    const v = parsed.values;
    if (!v.login) throw new AdminCommandError('--login is required');
    if (!v['listing-id']?.length && !v.sku?.length) throw new AdminCommandError('--listing-id or --sku is required');
    const accountId = await accountOf(v.login);
    const id = portalAccountId(v['portal-account']);
    return explain(async () => ({ take_over: await takeOverListings(accountId, id, v['listing-id'] ?? [], v.sku ?? []) }));
  }
  return undefined;
}
