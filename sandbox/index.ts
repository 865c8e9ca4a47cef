/** The sandbox portal process (Procfile: sandbox): every portal's API on one port, for npm start, tests and bench. */
import { config } from '../config';
import { log } from '../lib/log';
import { handleSignals, onShutdown } from '../lib/shutdown';
import { createSandbox } from './sandbox.app';

const { app } = createSandbox();
const server = app.listen(config().sandboxPort, config().host, () => {
  log.info({ url: `http://${config().host}:${config().sandboxPort}/` }, 'sandbox portal listening');
});
onShutdown('sandbox', () => new Promise<void>((resolve) => { server.close(() => resolve()); server.closeIdleConnections(); }));
handleSignals();
