/** Worker process of the `mail` queue (Procfile: mail). */
import { runWorkerProcess } from './run';

runWorkerProcess('mail', {});
