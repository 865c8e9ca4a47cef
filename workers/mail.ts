/** Worker process of the `mail` queue (Procfile: mail): send_mit and other mails. */
import { offerDevMailCatcher } from '../lib/mail/dev-mail-catcher';
import { sendMitProcessors } from '../lib/order/send-mit.processor';
import { runWorkerProcess } from './run';

runWorkerProcess('mail', sendMitProcessors);
void offerDevMailCatcher();
