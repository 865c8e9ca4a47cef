import { defineProcessors } from '../queue';
import { runListingCheck } from './portal-listing-check.service';
import { pushAgainDue } from './portal-push-again.service';
import { pushQuantities } from './portal-push.service';
import { runPortalUpload } from './portal-upload-run.service';

/** Processors of the portal_upload queue. */
export const portalUploadProcessors = defineProcessors('portal_upload', {
  'portal.set_quantity': async (data) => pushQuantities(data.accountId, { portal: data.portal, portalAccountId: data.portalAccountId }),
  'portal.upload': async (data, job) => runPortalUpload(data, String(job.id)),
  'portal.listing_check': async (data) => runListingCheck(data),
  'portal.push_again': async (data) => pushAgainDue(data),
});
