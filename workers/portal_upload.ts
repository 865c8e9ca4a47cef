/** Worker process of the `portal_upload` queue (Procfile: portal_upload). */
import { portalUploadProcessors } from '../lib/portals/portal-upload.worker';
import { runWorkerProcess } from './run';

runWorkerProcess('portal_upload', portalUploadProcessors);
