import { defineProcessors } from '../queue/processors';
import { matchRange, rematchAll } from './bank-match.service';

/** Processors of the bank queue (workers/bank.ts): matching of imported records, and the re-match. */
export const bankProcessors = defineProcessors('bank', {
  'bank.match': async (data) => matchRange(data.accountId, data.fromNumber, data.toNumber),
  'bank.rematch': async () => rematchAll(),
});
