/**
 * Local servers of the event and send_mit tests: an HTTP receiver that records what it gets and
 * answers per request, and a real SMTP server that keeps the mails it receives.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  base: string;
  received: Received[];
  close(): Promise<void>;
}

/** One answer of a receiver: status, JSON body, headers, and a delay before it (a slow receiver). */
export interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  delayMs?: number;
}

/** An HTTP server on 127.0.0.1; answer(request) gives the status and JSON body of each answer. */
export async function startReceiver(answer: (r: Received) => Answer): Promise<Receiver> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    req.on('end', () => {
      const entry = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
      received.push(entry);
      const { status, body: out, headers = {}, delayMs = 0 } = answer(entry);
      const send = () => {
        if (res.destroyed) return;
        res.statusCode = status;
        for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
        if (out !== undefined) res.setHeader('Content-Type', 'application/json');
        res.end(out === undefined ? undefined : JSON.stringify(out));
      };
      if (delayMs > 0) setTimeout(send, delayMs).unref();
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface CaughtMail {
  to: string;
  raw: string;
}

/** A real SMTP server without TLS or AUTH on 127.0.0.1 that keeps every mail. */
/** A real SMTP server keeping what it receives. */
export interface MailCatcher {
  url: string;
  mails: CaughtMail[];
  close(): Promise<void>;
}

export async function startMailCatcher(): Promise<MailCatcher> {
  const mails: CaughtMail[] = [];
  const smtp = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    logger: false,
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (chunk: Buffer) => {
        raw += chunk.toString('utf8');
      });
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address).join(','), raw });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  return {
    url: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`,
    mails,
    close: () => new Promise<void>((resolve) => smtp.close(() => resolve())),
  };
}

/** Polls until the check returns a value (not undefined/false), or fails after ms. */
export async function waitFor<T>(check: () => Promise<T | undefined | false>, what: string, ms = 15000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
