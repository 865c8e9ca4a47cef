import path from 'node:path';
import { config } from '../../config';
import { log } from '../log';
import { onShutdown } from '../shutdown';

const loopback = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/**
 * For `npm start` only (NODE_ENV development): when SMTP_URL points at this machine and nothing
 * listens there yet, the process starts the mail catcher, so the in-transit mails of send_mit
 * and the mails of event handlers land in tmp/mail/*.eml and are announced on the console.
 * The mail and events workers both offer; the first binds the port, the other says where mails
 * go. Production and tests never start it.
 */
export async function offerDevMailCatcher(): Promise<void> {
  const { env, smtpUrl } = config();
  if (env !== 'development') return;
  const url = new URL(smtpUrl);
  const where = `${url.hostname}:${url.port || '25'}`;
  if (!loopback.has(url.hostname)) return;
  const dir = path.join(__dirname, '..', '..', 'tmp', 'mail');
  try {
    // Loaded only here (npm start): smtp-server is a development tool. require, not import():
    // under tsx (npm start runs the workers from source) an import() stays native and cannot
    // resolve a .ts file, and the catcher never started (every in-transit mail was refused).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { startMailCatcher } = require('./mail-catcher') as typeof import('./mail-catcher');
    const catcher = await startMailCatcher({
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: Number(url.port || 25),
      dir,
      onMail: (m) => process.stdout.write(`kontor: mail to ${m.to}: "${m.subject}" -> ${m.file}\n`),
    });
    process.stdout.write(`kontor: development mail catcher on ${where}; mails are written to ${dir}\n`);
    onShutdown('mail catcher', () => catcher.close());
  } catch (err) {
    // Taken: by the other worker of this npm start (its catcher gets the mails), or by another
    // npm start or mail server on this machine, whose catcher or inbox then gets this one's mails
    // too. Said, so a developer running two knows to give the second its own SMTP_URL.
    if ((err as { code?: string }).code === 'EADDRINUSE') {
      process.stdout.write(`kontor: ${where} is taken already: mails go to whatever listens there (set SMTP_URL for a catcher of this process's own)\n`);
      return;
    }
    log.warn({ err: (err as Error).message, smtp: where }, 'development mail catcher not started');
  }
}
