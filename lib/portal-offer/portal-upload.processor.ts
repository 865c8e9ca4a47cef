import { defineProcessors } from '../queue';
import { runListingCheck } from './portal-listing-check.service';
import { pushAgainDue } from './portal-push-again.service';
import { pushQuantities, PushSoFar } from './portal-push.service';
import { inSlotTurn } from './portal-slot-turn';
import { runPortalUpload } from './portal-upload-run.service';

/**
 * Processors of the portal_upload queue. A job that calls a portal takes its portal account's
 * call slot in a turn (portal-slot-turn.ts): a far slot gives the worker back instead of holding it.
 */
export const portalUploadProcessors = defineProcessors('portal_upload', {
  'portal.set_quantity': async (data, job, token) =>
    inSlotTurn<PushSoFar, unknown>(job, token, (turn) => pushQuantities(data.accountId, { portal: data.portal, portalAccountId: data.portalAccountId }, turn)),
  'portal.upload': async (data, job, token) => inSlotTurn(job, token, (turn) => runPortalUpload(data, String(job.id), turn)),
  'portal.listing_check': async (data, job, token) => inSlotTurn(job, token, (turn) => runListingCheck(data, turn)),
  'portal.push_again': async (data) => pushAgainDue(data),
});
