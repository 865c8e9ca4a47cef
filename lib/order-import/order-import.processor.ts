import { defineProcessors } from '../queue/processors';
import { importOrders } from './order-import.service';
import { queueOrderImports } from './order-import.request';

/** Processors of the order_import queue (run by the portal_upload worker process, workers/portal_upload.ts). */
export const orderImportProcessors = defineProcessors('order_import', {
  'order.import': async (data, job) => importOrders(data, String(job.id)),
  'order.import_all': async (data) => queueOrderImports(data.tick),
});
