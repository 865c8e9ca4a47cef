import { allScopes } from '../../lib/access';
import { ClientAccessRestriction, listClientAccesses, restrictClientAccess, revokeClientAccess } from '../../lib/auth';
import { endpoint, ok, Joi, list } from '../../lib/http';

const clientAccessId = Joi.object({ client_access_id: Joi.number().integer().min(1).max(2147483647) });

/**
 * Client accesses (document 1, Authentication 5: the seller edits or restricts active client
 * accesses in the account settings, hence admin_r/admin_w). A client's own token sees, restricts and
 * revokes only its own accesses; the seller's token all of them.
 */
export const adminClientAccessEndpoints = [
  endpoint({
    method: 'GET',
    path: 'admin/client_access/',
    summary: 'The active authorizations of third-party clients: client, scopes, portal account (or cross-account), created, last refreshed, expiry.',
    scope: 'admin_r',
    response: ['client_access'],
    handle: async ({ caller }) => ok({ client_access: await listClientAccesses(caller) }),
  }),

  endpoint<{ client_access_id: number }, { client_access: ClientAccessRestriction }>({
    method: 'POST',
    path: 'admin/client_access/{client_access_id}/',
    summary:
      'Restrict a client access: fewer rights (scope, a part of those granted) and a cross-account access bound to one portal account; its tokens change at once. Wider rights only through authorize.php.',
    scope: 'admin_w',
    params: clientAccessId,
    body: Joi.object({
      client_access: Joi.object({
        // list(): in XML one scope is one element, as a list of one is everywhere else.
        scope: list(Joi.string().valid(...allScopes))
          .min(1)
          .unique(),
        portal_account_id: Joi.number().integer().min(1).max(2147483647),
      })
        .min(1)
        .required(),
    }),
    response: ['client_access_id'],
    async handle({ caller, params, body }) {
      await restrictClientAccess(caller, params.client_access_id, body.client_access);
      return ok({ client_access_id: params.client_access_id });
    },
  }),

  endpoint<{ client_access_id: number }>({
    method: 'DELETE',
    path: 'admin/client_access/{client_access_id}/',
    summary: 'Revoke a client access: its refresh and access tokens stop working at once.',
    scope: 'admin_w',
    params: clientAccessId,
    response: [],
    async handle({ caller, params }) {
      await revokeClientAccess(caller, params.client_access_id);
      return ok();
    },
  }),
];
