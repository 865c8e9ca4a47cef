/** The bank worker and the outbox relay in the test process, on queues of their own. */
import { bankProcessors } from '../../lib/bank/bank.processor';
import { startQueueWorker } from '../support/queue-worker';

export const startBankWorker = (name: string) => startQueueWorker('bank', bankProcessors, name);
