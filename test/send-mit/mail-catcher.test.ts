import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { config, setConfig } from '../../config';
import { startMailCatcher } from '../../lib/mail/mail-catcher';
import { closeMailer, sendMail } from '../../lib/mail/mailer';

describe('the developer mail catcher', () => {
  it('when a mail is sent to the catcher, then it is written as an .eml file and reported', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-mail-'));
    const seen: { to: string; subject: string; file: string }[] = [];
    const catcher = await startMailCatcher({ port: 0, dir, onMail: (m) => seen.push(m) });
    const original = config();
    setConfig({ ...original, smtpUrl: catcher.url });
    try {
      await sendMail({
        messageId: '<catcher-test.in-transit@kontor.localhost>',
        to: 'buyer@example.com',
        subject: 'Your order 1_2026_11 is on its way',
        text: 'Tracking: 123',
      });
      expect(seen).to.have.length(1);
      expect(seen[0]).to.deep.include({ to: 'buyer@example.com', subject: 'Your order 1_2026_11 is on its way' });
      expect(fs.readFileSync(seen[0]!.file, 'utf8')).to.contain('Tracking: 123');
      // The caller's Message-ID, not one of nodemailer's random ones (lib/mail README).
      expect(fs.readFileSync(seen[0]!.file, 'utf8')).to.match(/^Message-ID: <catcher-test\.in-transit@kontor\.localhost>\r?$/m);
      expect(path.dirname(seen[0]!.file)).to.equal(dir);
    } finally {
      closeMailer();
      setConfig(original);
      await catcher.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
