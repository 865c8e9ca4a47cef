import { now } from '../clock';
import { idempotencyRepository } from '../http';
import { defineProcessors } from '../queue';
import { adjustItem, adjustParts, resultSeenBy } from './cia.service';
import { triggeredReason } from './cia-trigger.service';
import { cleanupOutbox, reconcileAll } from './cia-reconcile.service';

/** Processors of the cia queue. */
export const ciaProcessors = defineProcessors('cia', {
  // A reconcile re-queues pushes still pending (ids with the tick), e.g. after a failed push.
  // POST stock/{id}/cia/ of a variation main adjusts its variants with it (cia.service).
  'cia.adjust': async (data, job) =>
    resultSeenBy(
      await adjustItem(data.accountId, data.stockId, { tick: data.reason === 'reconcile' ? String(job.id) : undefined }, data.reason === triggeredReason),
      data.portalAccountGrant,
    ),
  // Several cia.adjust rows of one account relayed together (lib/queue/merged-jobs.ts).
  'cia.adjust_many': async (data) => adjustParts(data.accountId, data.parts),
  'cia.reconcile': async (data) => reconcileAll(data.tick),
  'outbox.cleanup': async () => cleanupOutbox(),
  // The cia queue is the scheduler's housekeeping queue: expired secrets go with the outbox rows.
  // lib/auth is required here, hourly, not at load: lib/cia's entry exports these processors, so a
  // static import put the whole auth domain (authorize, tokens, clients) in every worker process.
  'expired.cleanup': async () => {
    // require, not import(): under tsx an import() stays native and cannot resolve a .ts file.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { tokenRepository } = require('../auth') as typeof import('../auth');
    return {
      tokens: await tokenRepository.deleteExpired(),
      idempotency_keys: await idempotencyRepository.deleteExpired(new Date(now())),
    };
  },
});
