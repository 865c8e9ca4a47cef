import { accepted, endpoint, datetime, Joi, portalAccountRef } from '../../lib/http';
import { requestOrderImport } from '../../lib/order-import';
import { portalAccountOf, PortalAccountRef } from '../../lib/portal-account';

/**
 * Ours, beside the documented endpoints (issue 15): fetch a real channel's orders now instead
 * of at the next scheduled fetch (lib/order-import).
 */
export const orderImportEndpoints = [
  endpoint<{ portal_account_id: PortalAccountRef }, { order_import?: { modified_since?: Date } }>({
    method: 'POST',
    path: 'admin/portal_account/{portal_account_id}/order_import/',
    summary:
      "Fetch the orders of the portal account's channel (auction_a, market_d, market_e, webshop: eBay, Amazon, Kaufland, Shopify) now: each new channel order becomes one order, known ones take the channel's payment, cancellation and shipment; 202 with job_id. order_import.modified_since fetches from then instead of the last fetch.",
    scope: 'order_w',
    params: Joi.object({ portal_account_id: portalAccountRef() }),
    body: Joi.object({ order_import: Joi.object({ modified_since: datetime() }).default({}) }),
    response: ['job_id'],
    async: true,
    async handle({ caller, params, body }) {
      // An import writes that portal account's orders: a grant bound to another one sees it as
      // absent (document 1, Authentication 5), as portal-account-connect's routes do.
      const account = await portalAccountOf(caller, params.portal_account_id);
      const jobId = await requestOrderImport(caller, account.id, body.order_import?.modified_since);
      return accepted({ job_id: jobId });
    },
  }),
];
