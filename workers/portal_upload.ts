/**
 * Worker process of the `portal_upload` queue (Procfile: portal_upload), and of `order_import`:
 * both only talk to portals, so the order fetches of the real channels need no process of their own.
 */
import { orderImportProcessors } from '../lib/order-import';
import { portalUploadProcessors } from '../lib/portal-offer';
import { runWorkerProcess } from './run';

runWorkerProcess('portal_upload', portalUploadProcessors, { queue: 'order_import', processors: orderImportProcessors });
