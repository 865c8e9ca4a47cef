import { endpoint, ok, Joi } from '../../lib/http';
import { getShippingGroup, listShippingGroups } from '../../lib/admin';

/** Administration (document 1, Admin): shipping groups, read only (support creates them with kontor shipping-group create). */
export const adminShippingGroupEndpoints = [
  endpoint({
    method: 'GET',
    path: 'admin/shipping_group/',
    summary: 'All shipping groups of the account (a client bound to one portal account: its own and those of all accounts).',
    scope: 'admin_r',
    response: ['shipping_group'],
    handle: async ({ caller }) => ok({ shipping_group: await listShippingGroups(caller) }),
  }),

  endpoint<{ shipping_group_id: number }>({
    method: 'GET',
    path: 'admin/shipping_group/{shipping_group_id}/',
    summary: 'One shipping group.',
    scope: 'admin_r',
    params: Joi.object({ shipping_group_id: Joi.number().integer().min(1).max(2147483647) }),
    response: ['shipping_group'],
    handle: async ({ caller, params }) => ok({ shipping_group: await getShippingGroup(caller, params.shipping_group_id) }),
  }),
];
