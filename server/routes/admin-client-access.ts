import { listClientAccesses, revokeClientAccess } from '../../lib/auth';
import { endpoint, ok, Joi } from '../../lib/http';

/**
 * Client accesses (document 1, Authentication 5: the seller edits or restricts active client
 * accesses in the account settings, hence admin_r/admin_w). A client's own token sees and revokes
 * only its own accesses; the seller's token all of them.
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

  endpoint<{ client_access_id: number }>({
    method: 'DELETE',
    path: 'admin/client_access/{client_access_id}/',
    summary: 'Revoke a client access: its refresh and access tokens stop working at once.',
    scope: 'admin_w',
    params: Joi.object({ client_access_id: Joi.number().integer().min(1).max(2147483647) }),
    response: [],
    async handle({ caller, params }) {
      await revokeClientAccess(caller, params.client_access_id);
      return ok();
    },
  }),
];
