import { domainToASCII } from 'node:url';
import type { Transporter } from 'nodemailer';
import { config } from '../../config';

let transport: { key: string; transporter: Transporter } | undefined;

/**
 * The SMTP transport of config().smtpUrl with its timeouts (built again when they change, as in
 * tests). nodemailer is loaded at the first mail: every process reaches lib/mail through
 * lib/order's entry, and only the mail and events workers send (about 40 modules fewer in the
 * others). The timeouts (SMTP_CONNECTION_TIMEOUT_MS, SMTP_GREETING_TIMEOUT_MS,
 * SMTP_SOCKET_TIMEOUT_MS; 10, 10 and 15 s) end a try against a server that hangs well within the
 * stop bound (SHUTDOWN_TIMEOUT_MS, 25 s): with nodemailer's own (2 min, 30 s, 10 min) one server
 * holding its answer kept the job past it, and SIGTERM ended the process with the job abandoned. A
 * timeout in SMTP_URL's query (`?socketTimeout=`) still wins.
 */
async function transporter(): Promise<Transporter> {
  const c = config();
  const options = {
    url: transportUrl(c.smtpUrl),
    connectionTimeout: c.smtpConnectionTimeoutMs,
    greetingTimeout: c.smtpGreetingTimeoutMs,
    socketTimeout: c.smtpSocketTimeoutMs,
  };
  const key = JSON.stringify(options);
  if (!transport || transport.key !== key) {
    const { createTransport } = await import('nodemailer');
    transport?.transporter.close();
    transport = { key, transporter: createTransport(options) };
  }
  return transport.transporter;
}

/**
 * SMTP_URL as nodemailer gets it: `requireTLS=true` added when it logs in (user or password) over
 * smtp:// and says nothing of requireTLS. nodemailer upgrades with STARTTLS only when the server
 * offers it, and else sends AUTH PLAIN, the password readable, and every mail in clear: anyone on
 * the path who deletes the 250 STARTTLS line gets both (RFC 3207 section 6; RFC 8314 asks for TLS
 * whenever credentials are sent). Now such a server (or such an attacker) gets no password: the
 * mail fails and is retried, then reported (lib/event README). smtps:// (implicit TLS, RFC 8314)
 * is unchanged; a relay without TLS that must get a password says `?requireTLS=false` (decision).
 */
export function transportUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.protocol !== 'smtp:' || (!parsed.username && !parsed.password) || parsed.searchParams.has('requireTLS')) return url;
  const hash = url.indexOf('#');
  const [head, tail] = hash < 0 ? [url, ''] : [url.slice(0, hash), url.slice(hash)];
  return `${head}${parsed.search ? '&' : '?'}requireTLS=true${tail}`;
}

export interface OutgoingMail {
  /**
   * The mail's Message-ID, the caller's (messageIdOf): the same on every try of the one job or run
   * that sends it, so a mail sent again after a lost 250 or a lost mark is one message to the
   * receiver (RFC 5322 3.6.4), not two.
   */
  messageId: string;
  to: string;
  subject: string;
  text: string;
  /** Shown to the receiver as the sender's address for replies. */
  replyTo?: string;
  /**
   * The sender's name the receiver sees (a seller's mail to its buyer), with MAIL_FROM's address:
   * the address stays the service's, which its SPF and DKIM cover.
   */
  fromName?: string;
}

/**
 * Longest run of non-blank characters a Subject may carry as it is. A header line can be folded
 * only at blanks (RFC 5322 2.2.3) and must not pass 998 characters (2.1.1; 78 recommended):
 * nodemailer folds at blanks and encodes only non-ASCII words, so a longer blank-free ASCII run
 * (a handler's template filled from a record) went out as one line of its length, which servers
 * may refuse or cut. Such a subject is sent as RFC 2047 encoded words instead (each short, blanks
 * between them to fold at), which every reader decodes back to the same text.
 */
const FOLDABLE_RUN = 70;

/** The Subject header value that keeps every line within RFC 5322's limits (see FOLDABLE_RUN). */
async function subjectHeader(subject: string): Promise<string> {
  // One line: nodemailer turns line breaks into blanks too; done first so an encoded word carries none.
  const line = subject.replace(/\r\n|\r|\n/g, ' ');
  if (!new RegExp(`\\S{${FOLDABLE_RUN + 1}}`).test(line)) return line;
  const { encodeWord } = await import('nodemailer/lib/mime-funcs');
  return encodeWord(line, 'Q', 52);
}

/** The address of MAIL_FROM ("Kontor <no-reply@example.com>" or the address alone), as nodemailer parses a From. */
async function addressOf(from: string): Promise<string> {
  const { default: parse } = await import('nodemailer/lib/addressparser');
  const [first] = parse(from, { flatten: true });
  return first?.address || from;
}

/**
 * The Message-ID of the mail a job or run sends, `<key@MAIL_FROM's domain>` (as nodemailer's own
 * random ids take the domain). The key names the one message (`<job id>.in-transit`): every try
 * sends it under the same id, which mailbox providers recognise as one message (RFC 5322 3.6.4;
 * decision, README.md). Characters a Message-ID cannot carry (not RFC 5322 atext or a dot) become
 * `-`.
 */
export async function messageIdOf(key: string): Promise<string> {
  const left = key
    .replace(/[^A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]/g, '-')
    .replace(/^\.+|\.+$/g, '')
    .replace(/\.{2,}/g, '.');
  const address = await addressOf(config().mailFrom);
  const domain = address.includes('@') ? domainToASCII(address.slice(address.lastIndexOf('@') + 1)) : '';
  return `<${left || 'mail'}@${domain || 'localhost'}>`;
}

/** Sends one text mail through SMTP; resolves with the server's message id. A refused or unreachable server throws (see refusedForGood). */
export async function sendMail({ fromName, ...mail }: OutgoingMail): Promise<{ messageId: string }> {
  const from = fromName ? { name: fromName, address: await addressOf(config().mailFrom) } : config().mailFrom;
  const message = { from, ...mail, subject: await subjectHeader(mail.subject) };
  const info = (await (await transporter()).sendMail(message)) as { messageId: string };
  return { messageId: info.messageId };
}

/** The fields nodemailer sets on an SMTP error: the reply code and the command it answered. */
interface SmtpError {
  code?: string;
  responseCode?: number;
  command?: string;
  message?: string;
}

/**
 * Why the mail server refused this mail for good, or undefined when another try may pass.
 * RFC 5321 4.2.1: a 5yz reply is a permanent negative completion, the client "SHOULD NOT repeat
 * the exact request"; a 4yz one (greylisting, 421 busy, 452 storage) is transient. Decision:
 * permanent are 5yz replies to RCPT TO and DATA (this recipient or this message: 550 no such
 * user, 553 bad address, 554 refused content) and an address nodemailer cannot put in an
 * envelope at all (EENVELOPE before any command, e.g. a non-ASCII mailbox to a server without
 * SMTPUTF8). Retried: 4yz, no answer, connection and TLS errors, and a 5yz to the session's own
 * steps (greeting, EHLO, AUTH, MAIL FROM: our SMTP_URL or MAIL_FROM, the same for every mail,
 * which an operator fixes while the retries last). 503 (bad sequence) is no refusal either.
 */
export function refusedForGood(err: unknown): string | undefined {
  const e = (err ?? {}) as SmtpError;
  const code = e.responseCode;
  const refused =
    (e.code === 'EENVELOPE' || e.code === 'EMESSAGE') &&
    (code === undefined ? e.command === 'API' : code >= 500 && code < 600 && code !== 503 && (e.command === 'RCPT TO' || e.command === 'DATA'));
  return refused ? (e.message ?? 'refused by the mail server') : undefined;
}

/** Closes the SMTP connection pool (shutdown, tests). */
export function closeMailer(): void {
  transport?.transporter.close();
  transport = undefined;
}
