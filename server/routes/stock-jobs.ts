import { triggerCia } from '../../lib/cia';
import { accepted, endpoint, multiStatus, Joi, revisionNotes } from '../../lib/http';
import { maxPortalUploadParts, portalUpload, PortalUploadInput, portalUploadType } from '../../lib/portal-offer';

const stockParams = Joi.object({ stock_id: Joi.string().max(300) });

/** The async stock endpoints: CIA and portal uploads (work done by the cia and portal_upload workers). */
export const stockJobEndpoints = [
  endpoint<{ stock_id: string }>({
    method: 'POST',
    path: 'stock/{stock_id}/cia/',
    creates: true,
    summary: 'Trigger the cross-channel quantity adjustment of the item; 202 with the job id.',
    scope: 'stock_w',
    params: stockParams,
    response: ['stock_id', 'job_id'],
    async: true,
    handle: async ({ caller, params }) => accepted(await triggerCia(caller, params.stock_id)),
  }),

  endpoint<{ stock_id: string }, { portal_upload: PortalUploadInput }>({
    method: 'POST',
    path: 'stock/{stock_id}/portal_upload/',
    changes: [revisionNotes.portalUploadMultistatus, revisionNotes.mktdSkuPrefix],
    creates: true,
    summary: `List, revise or end offers at portals: up to ${maxPortalUploadParts} parts, all portals together, each weighing 1/10 of a call; one job per distinct part; 207 with a code and job_id per part.`,
    scope: 'stock_w',
    params: stockParams,
    body: Joi.object({ portal_upload: portalUploadType.required() }),
    parts: { field: 'portal_upload', max: maxPortalUploadParts },
    response: ['response'],
    async: true,
    handle: async ({ caller, params, body }) =>
      multiStatus((await portalUpload(caller, params.stock_id, body.portal_upload)) as unknown as Record<string, unknown>[]),
  }),
];
