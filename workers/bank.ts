/** Worker process of the `bank` queue (Procfile: bank). */
import { runWorkerProcess } from './run';

runWorkerProcess('bank', {});
