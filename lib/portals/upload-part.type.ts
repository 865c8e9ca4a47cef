import { Joi, portalAccountRef } from '../http';

/**
 * Stock_portal_upload_portal_type: one part of a portal's portal_upload entry, for portals
 * without a type of their own. The action a portal does not take is refused per part (207).
 */
export const portalUploadPart = Joi.object({
  action: Joi.string().valid('list', 'delete').required(),
  portal_account_id: portalAccountRef(),
});
