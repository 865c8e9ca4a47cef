/**
 * Worker process of the `events` queue (Procfile: events): event.emit finds the handlers,
 * event.run runs one; the webhook sweep retries deliveries from Postgres.
 */
import { eventProcessors, WebhookSweeper } from '../lib/event';
import { offerDevMailCatcher } from '../lib/mail';
import { onShutdown } from '../lib/shutdown';
import { runWorkerProcess } from './run';

runWorkerProcess('events', eventProcessors);
const sweeper = new WebhookSweeper();
sweeper.start();
onShutdown('webhook sweeper', () => sweeper.stop());
void offerDevMailCatcher();
