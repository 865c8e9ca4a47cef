/**
 * The developer's mail catcher: `npx tsx scripts/mail-catcher.ts` listens on SMTP_URL's port
 * (default 1025, the default SMTP_URL), writes every mail to tmp/mail/*.eml and prints a line
 * per mail, so a newcomer sees the in-transit mails of send_mit without a real mail server.
 */
import path from 'node:path';
import { config } from '../config';
import { startMailCatcher } from '../lib/mail/mail-catcher';

const url = new URL(config().smtpUrl);
const dir = path.join(__dirname, '..', 'tmp', 'mail');
startMailCatcher({
  host: url.hostname,
  port: Number(url.port || 1025),
  dir,
  onMail: (m) => process.stdout.write(`mail: to ${m.to}: ${m.subject}\n      ${m.file}\n`),
})
  .then((catcher) => {
    process.stdout.write(`mail catcher: ${catcher.url}, mails are written to ${catcher.dir}\n`);
    const stop = () => {
      void catcher.close().then(() => process.exit(0));
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  })
  .catch((err: Error) => {
    process.stderr.write(`mail catcher: could not listen on ${config().smtpUrl}: ${err.message}\n`);
    process.exit(1);
  });
