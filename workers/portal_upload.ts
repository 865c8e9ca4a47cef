/** Worker process of the `portal_upload` queue (Procfile: portal_upload). */
import { runWorkerProcess } from './run';

runWorkerProcess('portal_upload', {});
