/** Worker process of the `portal_upload` queue (Procfile: portal_upload). */
import { portalUploadProcessors } from '../lib/portal-upload/portal-upload.processor';
import { runWorkerProcess } from './run';

runWorkerProcess('portal_upload', portalUploadProcessors);
