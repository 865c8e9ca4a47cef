import type { Job } from 'bullmq';
import type { JobPayloads } from '../queue/jobs';
import type { Processor } from '../queue/worker';
import { pushQuantities } from './portal-push.service';
import { runPortalUpload } from './portal-upload.run';

/** Processors of the portal_upload queue. */
export const portalUploadProcessors: Record<string, Processor> = {
  'portal.set_quantity': async (job: Job) => {
    const data = job.data as JobPayloads['portal.set_quantity'];
    return pushQuantities(data.accountId, { portal: data.portal, portalAccountId: data.portalAccountId });
  },
  'portal.upload': async (job: Job) => runPortalUpload(job.data as JobPayloads['portal.upload'], String(job.id)),
};
