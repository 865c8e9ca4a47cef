import { runChannelCancel } from '../order';
import { defineProcessors } from '../queue';
import { importOrders } from './order-import.service';
import { queueOrderImports } from './order-import.request';

/**
 * Processors of the order_import queue (run by the portal_upload worker process, workers/portal_upload.ts):
 * the channels' orders in, and a seller's cancellation of one out to its channel (portal I/O as the fetch is).
 */
export const orderImportProcessors = defineProcessors('order_import', {
  'order.import': async (data, job) => importOrders(data, String(job.id)),
  'order.import_all': async (data) => queueOrderImports(data.tick),
  'order.channel_cancel': async (data) => runChannelCancel(data),
});
