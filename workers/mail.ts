/** Worker process of the `mail` queue (Procfile: mail): send_mit and other mails; beside it the `invoice` queue (lib/invoice). */
import { offerDevMailCatcher } from '../lib/mail';
import { invoiceProcessors } from '../lib/invoice';
import { sendMitProcessors } from '../lib/order';
import { provideChannelFulfilment } from '../lib/order-import';
import { runWorkerProcess } from './run';

// lib/order-import's record of orders a channel ships itself, which a send_mit job checks again before it reports (lib/order/channel-fulfilment.ts).
provideChannelFulfilment();

runWorkerProcess('mail', sendMitProcessors, { queue: 'invoice', processors: invoiceProcessors });
void offerDevMailCatcher();
