import { readUser, updateUser, UserUpdate, userType } from '../../lib/account';
import { endpoint, ok, Joi, portalAccountRef } from '../../lib/http';
import { portalAccountOf, portalAccountsOf, PortalAccountRef, portalAccountToApi } from '../../lib/portal-account';

/** Administration (document 1, Admin): the API account and its portal accounts. */
export const adminEndpoints = [
  endpoint({
    method: 'GET',
    path: 'admin/user/',
    summary: "The API account (settings: a client's own keys and the seller's); email needs email_r, address account_address_r, is_banking_active bank_r.",
    scope: 'admin_r',
    response: ['user'],
    handle: async ({ caller, request }) => ok({ user: await readUser(caller, request.warnings) }),
  }),

  endpoint<Record<string, never>, { user: UserUpdate }>({
    method: 'POST',
    path: 'admin/user/',
    summary:
      "Change account settings (free client settings): the keys sent replace the stored ones, each key its writer's: a client changes its own keys and new ones, not another client's (nor reads them) nor the seller's (settings.invoice, the seller on its invoices, among them), which it may send back unchanged; settings holds at most 65536 bytes as JSON.",
    scope: 'admin_w',
    body: Joi.object({ user: userType.required() }),
    example: { user: { settings: { erp_last_sync: '2026-11-29T10:00:00Z' } } },
    response: [],
    async handle({ caller, body }) {
      await updateUser(caller, body.user);
      return ok();
    },
  }),

  endpoint({
    method: 'GET',
    path: 'admin/portal_account/',
    summary: 'All portal accounts of the API account (a client bound to one: that one, its default).',
    scope: 'admin_r',
    response: ['portal_account'],
    handle: async ({ caller }) => ok({ portal_account: (await portalAccountsOf(caller)).map(portalAccountToApi) }),
  }),

  endpoint<{ portal_account_id: PortalAccountRef }>({
    method: 'GET',
    path: 'admin/portal_account/{portal_account_id}/',
    summary: 'One portal account; the word default gives the default account of the access (a client bound to one: that one).',
    scope: 'admin_r',
    params: Joi.object({ portal_account_id: portalAccountRef() }),
    response: ['portal_account'],
    handle: async ({ caller, params }) => ok({ portal_account: portalAccountToApi(await portalAccountOf(caller, params.portal_account_id)) }),
  }),
];
