/**
 * lib/order-import, the one way in from other domains: orders come in from the real channels.
 * scripts/check-cycles.ts refuses imports of this folder's other files from outside it;
 * README.md beside this file has the decisions.
 */
export { orderImportProcessors } from './order-import.processor';
export { requestOrderImport } from './order-import.request';
export { provideChannelFulfilment } from './channel-fulfilment.provide';
