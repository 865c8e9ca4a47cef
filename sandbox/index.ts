/** The sandbox portal process (Procfile: sandbox): every portal's API on one port, for npm start, tests and bench. */
import { config } from '../config';
import { log } from '../lib/log';
import { handleSignals, serve } from '../lib/shutdown';
import { createSandbox } from './sandbox.app';

const { app } = createSandbox();
serve('sandbox', app, config().sandboxPort, config().host, () => {
  log.info({ url: `http://${config().host}:${config().sandboxPort}/` }, 'sandbox portal listening');
});
handleSignals();
