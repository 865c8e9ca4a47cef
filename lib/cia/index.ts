/**
 * lib/cia, the one way in from other domains: the cross-channel quantity adjustment.
 * scripts/check-cycles.ts refuses imports of this folder's other files from outside it;
 * README.md beside this file has the decisions.
 */
export { channelCancelled, channelSold } from './cia-channel-sale';
export { eventOffer } from './cia-compute';
export { pushJob, queueWaitingPushes } from './cia-push-sweep';
export { triggerCia } from './cia-trigger.service';
export { ciaProcessors } from './cia.processor';
export { ciaActiveAt } from './cia.service';
export { ciaRepository } from './cia.repository';
export type { CiaStateRow, PushTarget, WaitingStateRow } from './cia.repository';
