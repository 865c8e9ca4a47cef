import { defineProcessors } from '../queue';
import { matchImport, rematchAll } from './bank-match.service';
import { queueProviderSyncs, syncProviderAccount } from './provider/provider-sync.service';

/** Processors of the bank queue (workers/bank.ts): matching of imported records, the re-match, the payment provider sync. */
export const bankProcessors = defineProcessors('bank', {
  'bank.match': async (data, job) => matchImport(data.accountId, data.fromNumber, data.toNumber, String(job.id), data.portalAccountGrant ?? null),
  'bank.rematch': async () => rematchAll(),
  'bank.provider_sync': async (data, job) => syncProviderAccount(data.accountId, data.providerAccountId, String(job.id)),
  'bank.provider_sync_all': async (data) => queueProviderSyncs(data.tick),
});
