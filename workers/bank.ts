/** Worker process of the `bank` queue (Procfile: bank): statement matching and the re-match. */
import { bankProcessors } from '../lib/bank';
import { runWorkerProcess } from './run';

runWorkerProcess('bank', bankProcessors);
