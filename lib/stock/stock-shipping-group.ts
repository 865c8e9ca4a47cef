/** Stock_type.shipping.group_id[]: foreign keys to the account's shipping groups (admin/shipping_group/). */
import type { Knex } from 'knex';
import { DomainError, notFound } from '../errors';
import type { StockInput } from './stock.type';

/**
 * Refuses group ids that are not shipping groups of the account (another seller's answers as
 * none): 404 with one error item per id, each naming `<field>.shipping.group_id[i]` (document 1:
 * a contained object with a given id does not exist). A group of any portal account of the
 * account, or of all (portal_account_id 0), is accepted: the item serves every portal account.
 */
export async function checkShippingGroups(trx: Knex.Transaction, accountId: number, input: StockInput, f: (name: string) => string): Promise<void> {
  const ids = (input.shipping as { group_id?: number[] } | undefined)?.group_id;
  if (!ids?.length) return;
  // lib/admin is required at the first item with shipping groups, not at load: lib/stock's entry
  // loads this file, and every worker reaches lib/stock, so a static import put the admin domain
  // (consent, portal-account connect) in every worker process for a check only the API makes.
  // require, not import(): under tsx an import() stays native and cannot resolve a .ts file.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { shippingGroupRepository } = require('../admin') as typeof import('../admin');
  const known = new Set(await shippingGroupRepository.existingIds(accountId, ids, trx));
  const errors = ids.flatMap((id, i) => (known.has(id) ? [] : [notFound(`shipping group ${id}`, f(`shipping.group_id[${i}]`))]));
  const [first, ...more] = errors;
  if (first) throw new DomainError(first.id, first.message, { field: first.field, as: first.kind, more: more.flatMap((e) => e.items()) });
}
