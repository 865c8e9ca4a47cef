import nodemailer, { Transporter } from 'nodemailer';
import { config } from '../../config';

let transport: { url: string; transporter: Transporter } | undefined;

/** The SMTP transport of config().smtpUrl (built again when the URL changes, as in tests). */
function transporter(): Transporter {
  const url = config().smtpUrl;
  if (!transport || transport.url !== url) {
    transport?.transporter.close();
    transport = { url, transporter: nodemailer.createTransport(url) };
  }
  return transport.transporter;
}

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  /** Shown to the receiver as the sender's address for replies. */
  replyTo?: string;
}

/** Sends one text mail through SMTP; resolves with the server's message id. A refused or unreachable server throws. */
export async function sendMail(mail: OutgoingMail): Promise<{ messageId: string }> {
  const info = (await transporter().sendMail({ from: config().mailFrom, ...mail })) as { messageId: string };
  return { messageId: info.messageId };
}

/** Closes the SMTP connection pool (shutdown, tests). */
export function closeMailer(): void {
  transport?.transporter.close();
  transport = undefined;
}
