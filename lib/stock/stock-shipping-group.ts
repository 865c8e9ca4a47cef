/** Stock_type.shipping.group_id[]: foreign keys to the account's shipping groups (admin/shipping_group/). */
import type { Knex } from 'knex';
import { shippingGroupRepository } from '../admin';
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
  const known = new Set(await shippingGroupRepository.existingIds(accountId, ids, trx));
  const errors = ids.flatMap((id, i) => (known.has(id) ? [] : [notFound(`shipping group ${id}`, f(`shipping.group_id[${i}]`))]));
  const [first, ...more] = errors;
  if (first) throw new DomainError(first.id, first.message, { field: first.field, as: first.kind, more: more.flatMap((e) => e.items()) });
}
