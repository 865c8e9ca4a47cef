import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface MailCatcher {
  /** The SMTP_URL that sends to this catcher. */
  url: string;
  /** Where each mail is written as an .eml file. */
  dir: string;
  close(): Promise<void>;
}

/**
 * A local SMTP server for developers (npm start): accepts every mail without TLS or login,
 * writes it to dir as <time>-<n>.eml (open it with any mail program) and reports each one
 * through onMail. Never for production: it accepts anything from anyone who can reach it.
 */
export async function startMailCatcher(options: {
  host?: string;
  port?: number;
  dir: string;
  onMail?: (mail: { to: string; subject: string; file: string }) => void;
}): Promise<MailCatcher> {
  fs.mkdirSync(options.dir, { recursive: true });
  let count = 0;
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    logger: false,
    size: 10 * 1024 * 1024,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        const file = path.join(options.dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${++count}.eml`);
        fs.writeFile(file, raw, (err) => {
          if (err) {
            callback(err);
            return;
          }
          const subject = /^Subject: (.*)$/m.exec(raw.toString('utf8'))?.[1]?.trim() ?? '';
          options.onMail?.({ to: session.envelope.rcptTo.map((r) => r.address).join(', '), subject, file });
          callback();
        });
      });
    },
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 1025, host, () => resolve());
  });
  return {
    url: `smtp://${host}:${(server.server.address() as AddressInfo).port}`,
    dir: options.dir,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
