/** Worker process of the `cia` queue (Procfile: cia). */
import { runWorkerProcess } from './run';

runWorkerProcess('cia', {});
