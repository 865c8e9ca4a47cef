import { allOrdersOf, OrderScope } from '../access';
import { db } from '../db';
import { invalidField, notFound } from '../errors';
import { validate } from '../http';
import { portalAccountRepository } from '../portal-account';
import { currencyRepository } from '../reference';
import { shippingGroupRepository, ShippingGroupRow } from './shipping-group.repository';
import { shippingGroupInput, ShippingGroupInput, shipsToFlags } from './shipping-group.type';

/** Admin_shipping_group_type: every flag of ships_to present (false when not set); portal_account_id 0 = all accounts. */
export function shippingGroupToApi(row: ShippingGroupRow) {
  const shipsTo: Record<string, boolean | string> = {};
  for (const flag of shipsToFlags) shipsTo[flag] = row.ships_to[flag] === true;
  for (const more of ['eu_more', 'europe_more', 'worldwide_more']) shipsTo[more] = String(row.ships_to[more] ?? '');
  return {
    id: row.id,
    name: row.name,
    portal_account_id: row.portal_account_id ?? 0,
    type_id: row.type_id,
    ships_to: shipsTo,
    price: { first: row.price_first, more: row.price_more },
    cash_surcharge: row.cash_surcharge,
    currency: row.currency,
  };
}

/**
 * The portal account whose groups a caller sees: none for the seller's tokens and clients granted
 * all; a client bound to one portal account (document 1, Authentication 5) sees the groups of its
 * portal account and those of all accounts (0), and another portal account's answer as absent,
 * as that account's orders and the account itself do (lib/portal-account portalAccountsOf).
 * Before, such a client read every group of the seller, the names, prices and destinations of
 * the seller's other channels included.
 */
const groupsOf = (scope: OrderScope): number | undefined => (scope.portalAccountGrant === 'all' ? undefined : scope.portalAccountGrant);

/** GET admin/shipping_group/: the groups the caller sees (groupsOf). */
export async function listShippingGroups(scope: OrderScope) {
  return (await shippingGroupRepository.list(scope.accountId, groupsOf(scope))).map(shippingGroupToApi);
}

/** One shipping group the caller sees (groupsOf), or 404 as an absent one. */
export async function getShippingGroup(scope: OrderScope, id: number) {
  const row = await shippingGroupRepository.get(scope.accountId, id, groupsOf(scope));
  if (!row) throw notFound(`shipping group ${id}`, 'shipping_group_id');
  return shippingGroupToApi(row);
}

/** Creates a shipping group (kontor shipping-group create); a foreign portal account is a 400. */
export async function createShippingGroup(accountId: number, input: unknown) {
  const group = validate<ShippingGroupInput>(shippingGroupInput, input);
  if (group.portal_account_id && !(await portalAccountRepository.get(accountId, group.portal_account_id))) {
    throw invalidField('portal_account_id', `portal_account_id ${group.portal_account_id} is not a portal account of this account`);
  }
  if (!(await currencyRepository.get(group.currency))) throw invalidField('currency', `currency ${group.currency} is not a currency of system/currency/`);
  const shipsTo = Object.fromEntries(Object.entries(group.ships_to).map(([k, v]) => [k, typeof v === 'string' ? v.toUpperCase() : v]));
  const id = await db().transaction((trx) =>
    shippingGroupRepository.insert(trx, {
      account_id: accountId,
      portal_account_id: group.portal_account_id || null,
      name: group.name,
      type_id: group.type_id,
      ships_to: shipsTo,
      price_first: group.price.first ?? '0.00',
      price_more: group.price.more ?? '0.00',
      cash_surcharge: group.cash_surcharge ?? '0.00',
      currency: group.currency,
    }),
  );
  return getShippingGroup(allOrdersOf(accountId), id);
}
