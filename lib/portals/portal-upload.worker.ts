import type { Job } from 'bullmq';
import type { JobPayloads } from '../queue/jobs';
import type { Processor } from '../queue/worker';
import type { PortalId } from './portal.types';
import { pushQuantity } from './portal-push.service';
import { runPortalUpload } from './portal-upload.run';

/** Processors of the portal_upload queue. */
export const portalUploadProcessors: Record<string, Processor> = {
  'portal.set_quantity': async (job: Job) => {
    const data = job.data as JobPayloads['portal.set_quantity'];
    return pushQuantity(data.accountId, data.stockId, data.portal as PortalId, data.portalAccountId);
  },
  'portal.upload': async (job: Job) => runPortalUpload(job.data as JobPayloads['portal.upload'], String(job.id)),
};
