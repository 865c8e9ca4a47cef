/** Worker process of the `mail` queue (Procfile: mail): send_mit and other mails; beside it the `invoice` queue (lib/invoice). */
import { offerDevMailCatcher } from '../lib/mail';
import { invoiceProcessors } from '../lib/invoice';
import { sendMitProcessors } from '../lib/order';
import { runWorkerProcess } from './run';

runWorkerProcess('mail', sendMitProcessors, { queue: 'invoice', processors: invoiceProcessors });
void offerDevMailCatcher();
