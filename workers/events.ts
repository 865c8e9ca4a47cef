/** Worker process of the `events` queue (Procfile: events). */
import { runWorkerProcess } from './run';

runWorkerProcess('events', {});
