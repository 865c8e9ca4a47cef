/** Worker process of the `cia` queue (Procfile: cia). */
import { ciaProcessors } from '../lib/cia';
import { runWorkerProcess } from './run';

runWorkerProcess('cia', ciaProcessors);
