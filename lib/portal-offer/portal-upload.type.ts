import { Joi, list } from '../http';
import type { PortalAccountRef } from '../portal-account';
import { PortalId, uploadPortals } from '../portals';
import type { UploadAction } from '../portals';

/** Stock_portal_upload_type (document 2): an entry per portal that takes uploads, with its own part type. */
export const portalUploadType = Joi.object(Object.fromEntries(uploadPortals.map((adapter) => [adapter.portal, list(adapter.uploadPart)])));

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
