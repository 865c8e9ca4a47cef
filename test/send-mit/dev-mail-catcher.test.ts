import fs from 'node:fs';
import net from 'node:net';
import { expect } from 'chai';
import { config, setConfig } from '../../config';
import { closeMailer, sendMail } from '../../lib/mail/mailer';
import { freePort, runNode } from '../support/process';

/**
 * npm start runs the mail and events workers from source (node --require tsx/cjs, server/README.md)
 * in development mode, and the first of them starts the mail catcher (lib/mail/README.md). Under
 * tsx an import() of the catcher's .ts file failed ("Cannot find module"), so no catcher ran and
 * every in-transit mail of send_mit was refused (ECONNREFUSED) and retried.
 */
describe('the mail catcher offered under npm start', () => {
  it('when a process run from source in development mode offers it, then it listens and writes the mails sent to it', async () => {
    const port = await freePort();
    const smtpUrl = `smtp://127.0.0.1:${port}`;
    const catcher = runNode(['--require', 'tsx/cjs', '-e', "require('./lib/mail/dev-mail-catcher').offerDevMailCatcher()"], {
      NODE_ENV: 'development',
      SMTP_URL: smtpUrl,
      LOG_LEVEL: 'warn',
    });
    const original = config();
    try {
      await catcher.waitFor(/development mail catcher (on 127\.0\.0\.1:\d+|not started)/);
      expect(catcher.output()).not.to.contain('not started');
      setConfig({ ...original, smtpUrl });
      await sendMail({
        messageId: '<catcher-test.in-transit@kontor.localhost>',
        to: 'buyer@example.com',
        subject: 'Your order 1_2026_11 is on its way',
        text: 'Tracking: 123',
      });
      await catcher.waitFor(/mail to buyer@example\.com: "Your order 1_2026_11 is on its way" -> (\S+\.eml)/);
      const file = /-> (\S+\.eml)/.exec(catcher.output())![1]!;
      expect(fs.readFileSync(file, 'utf8')).to.contain('Tracking: 123');
      fs.rmSync(file, { force: true });
    } finally {
      closeMailer();
      setConfig(original);
      await catcher.stop();
    }
  });

  it('when the port is taken already (the other worker, or another npm start on this machine), then it says where the mails go instead of staying silent', async () => {
    const port = await freePort();
    const other = net.createServer((socket) => socket.end());
    await new Promise<void>((resolve) => other.listen(port, '127.0.0.1', resolve));
    const catcher = runNode(['--require', 'tsx/cjs', '-e', "require('./lib/mail/dev-mail-catcher').offerDevMailCatcher()"], {
      NODE_ENV: 'development',
      SMTP_URL: `smtp://127.0.0.1:${port}`,
      LOG_LEVEL: 'warn',
    });
    try {
      await catcher.waitFor(new RegExp(`127\\.0\\.0\\.1:${port} is taken already: mails go to whatever listens there`));
      expect(catcher.output()).not.to.contain('development mail catcher on');
    } finally {
      await catcher.stop();
      other.close();
    }
  });
});
