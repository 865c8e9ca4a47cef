/** Worker process of the `bank` queue (Procfile: bank). */
import { defineProcessors } from '../lib/queue/processors';
import { runWorkerProcess } from './run';

// No job of the catalog runs on the bank queue yet (lib/queue/jobs.ts).
runWorkerProcess('bank', defineProcessors('bank', {}));
