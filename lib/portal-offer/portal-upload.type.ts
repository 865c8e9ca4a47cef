import { Joi, list } from '../http';
import type { PortalAccountRef } from '../portal-account';
import { PortalId, uploadPortals } from '../portals';
import type { UploadAction } from '../portals';

/**
 * Parts of one POST stock/{stock_id}/portal_upload/, all portals together (decision: document 1
 * says nothing of its size; it is bounded as its bulk requests are, "up to 200" items, and
 * weighs as they do, 1/10 of a call per part: the route's `parts` declaration). Each accepted
 * part was a job: 10,000 parts per portal were planned for seconds and queued as many jobs.
 */
export const maxPortalUploadParts = 200;

/** Stock_portal_upload_type (document 2): an entry per portal that takes uploads, with its own part type. */
export const portalUploadType = Joi.object(
  Object.fromEntries(uploadPortals.map((adapter) => [adapter.portal, list(adapter.uploadPart).max(maxPortalUploadParts)])),
).description(
  `At most ${maxPortalUploadParts} parts in all portals' lists together (more is a 400 too_many_items naming portal_upload); ` +
    'each weighs 1/10 of a call, as a bulk item does. Parts that plan the same job (same portal, action and portal account, ' +
    'and for auction_a the same lister, start, revise values and live listing) share it: each answers its job_id.',
);

export interface PortalUploadPart {
  action: UploadAction;
  portal_account_id?: PortalAccountRef;
  lister_id?: string;
  /** A datetime (validated by the adapter's part type). */
  start?: Date;
  revise_values?: string[];
  auction_a_live_id?: string;
}

export type PortalUploadInput = Partial<Record<PortalId, PortalUploadPart[]>>;
