/** Worker process of the `events` queue (Procfile: events): event.emit finds the handlers, event.run runs one. */
import { eventProcessors } from '../lib/event/event.processor';
import { offerDevMailCatcher } from '../lib/mail/dev-mail-catcher';
import { runWorkerProcess } from './run';

runWorkerProcess('events', eventProcessors);
void offerDevMailCatcher();
