import type { Transporter } from 'nodemailer';
import { config } from '../../config';

let transport: { url: string; transporter: Transporter } | undefined;

/**
 * The SMTP transport of config().smtpUrl (built again when the URL changes, as in tests).
 * nodemailer is loaded at the first mail: every process reaches lib/mail through lib/order's
 * entry, and only the mail and events workers send (about 40 modules fewer in the others).
 */
async function transporter(): Promise<Transporter> {
  const url = config().smtpUrl;
  if (!transport || transport.url !== url) {
    const { createTransport } = await import('nodemailer');
    transport?.transporter.close();
    transport = { url, transporter: createTransport(url) };
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
  const info = (await (await transporter()).sendMail({ from: config().mailFrom, ...mail })) as { messageId: string };
  return { messageId: info.messageId };
}

/** Closes the SMTP connection pool (shutdown, tests). */
export function closeMailer(): void {
  transport?.transporter.close();
  transport = undefined;
}
