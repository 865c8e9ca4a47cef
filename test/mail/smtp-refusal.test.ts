/**
 * What goes over SMTP from send_mit and mail handlers, read at a real SMTP server (smtp-server):
 * a 5xx to the recipient is the mail server's last word (RFC 5321 4.2.1: a permanent negative
 * reply, the client "SHOULD NOT repeat the exact request"), a 4xx is asked again, and a Subject
 * keeps within RFC 5322's line limit (2.1.1: 998 characters) and RFC 2047's encoded words.
 */
import crypto from 'node:crypto';
import net, { type AddressInfo } from 'node:net';
import { expect } from 'chai';
import { SMTPServer } from 'smtp-server';
import { config, setConfig } from '../../config';
import { transportUrl } from '../../lib/mail/mailer';
import { call, newSeller, Seller } from '../support/api';
import { waitFor } from '../event/servers';
import { useEventsWorker } from '../event/events-worker';
import { runJobOf } from '../event/handlers';
import { MailWorker, startMailWorker } from '../support/mail-worker';

/**
 * An SMTP server answering RCPT TO as a real one does: 550 for a mailbox that does not exist
 * (local part `gone-...`), 451 the first time for a greylisted one (`grey-...`), else 250.
 * For `lost-...` the first message is taken whole and the connection then drops before the 250
 * (a server that may deliver it, a network that lost the answer). It counts every RCPT TO by
 * address and keeps the raw messages (a lost one too).
 */
async function startSmtp(
  options: { hideSMTPUTF8?: boolean } = {},
): Promise<{ url: string; rcpt: Map<string, number>; commands: string[]; mails: { to: string; smtpUtf8: boolean; raw: string }[]; close(): Promise<void> }> {
  const rcpt = new Map<string, number>();
  const commands: string[] = [];
  const mails: { to: string; smtpUtf8: boolean; raw: string }[] = [];
  const sockets = new Map<number | undefined, net.Socket>();
  const smtp = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    hideSMTPUTF8: options.hideSMTPUTF8 ?? false,
    authOptional: true,
    // The commands as the client sent them (the session's addresses are decoded to Unicode by smtp-server).
    logger: {
      debug: (meta: { tnx?: string }, _format: string, line: unknown) => {
        if (meta.tnx === 'command') commands.push(String(line));
      },
      info: () => undefined,
      warn: () => undefined,
      error: () => undefined,
      trace: () => undefined,
      fatal: () => undefined,
      level: 'debug',
    } as unknown as boolean,
    onRcptTo(address, _session, callback) {
      const count = (rcpt.get(address.address) ?? 0) + 1;
      rcpt.set(address.address, count);
      const refuse = (code: number, text: string) => callback(Object.assign(new Error(text), { responseCode: code }));
      if (address.address.startsWith('gone-')) return refuse(550, '5.1.1 <' + address.address + '>: Recipient address rejected: User unknown');
      if (address.address.startsWith('grey-') && count === 1) return refuse(451, '4.7.1 Greylisted, try again later');
      callback();
    },
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
      stream.on('end', () => {
        const to = session.envelope.rcptTo.map((r) => r.address).join(',');
        mails.push({ to, smtpUtf8: session.envelope.smtpUtf8 ?? false, raw });
        if (to.startsWith('lost-') && mails.filter((m) => m.to === to).length === 1) return void sockets.get(session.remotePort)?.destroy();
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  smtp.server.on('connection', (socket: net.Socket) => sockets.set(socket.remotePort, socket));
  return {
    url: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`,
    rcpt,
    commands,
    mails,
    close: () => new Promise<void>((resolve) => smtp.close(() => resolve())),
  };
}

/** A header's value unfolded (RFC 5322 2.2.3) and its RFC 2047 encoded words decoded (Q and B, UTF-8). */
function headerOf(raw: string, name: string): string | undefined {
  const head = raw.split('\r\n\r\n')[0]!.replace(/\r\n[ \t]/g, ' ');
  const line = head.split('\r\n').find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  if (line === undefined) return undefined;
  return line
    .slice(name.length + 1)
    .trim()
    .replace(/(=\?[^?]+\?[QqBb]\?[^?]*\?=)\s+(?==\?)/g, '$1') // blanks between encoded words are not text (RFC 2047 6.2)
    .replace(/=\?utf-8\?([QqBb])\?([^?]*)\?=/gi, (_all, enc: string, text: string) =>
      enc.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : Buffer.from(
            text.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_h, hex: string) => String.fromCharCode(parseInt(hex, 16))),
            'latin1',
          ).toString('utf8'),
    );
}

async function finished(seller: Seller, jobId: string): Promise<Record<string, unknown>> {
  return waitFor(async () => {
    const job = (await call(`job/${jobId}/`, { token: seller.token })).body.job as Record<string, unknown> | undefined;
    return job && (job.state === 'completed' || job.state === 'failed') && job.finished_date ? job : undefined;
  }, `job ${jobId}`);
}

async function createOrder(seller: Seller, customer: Record<string, unknown>): Promise<string> {
  const res = await call('order/', { token: seller.token, body: { order: { customer } } });
  expect(res.status, res.text).to.equal(201);
  return res.body.order_id as string;
}

/** The seller's tasks (GET task/). */
async function tasksOf(seller: Seller): Promise<Record<string, unknown>[]> {
  const res = await call('task/', { token: seller.token });
  expect(res.status, res.text).to.equal(200);
  return (res.body.task ?? []) as Record<string, unknown>[];
}

/** A port on this machine nothing listens on (an SMTP server that is down). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const mailbox = (kind: string) => `${kind}-${crypto.randomBytes(4).toString('hex')}@example.com`;

describe('send_mit mail over SMTP: a refused recipient, a greylisting server', function () {
  this.timeout(60000);
  let mail: MailWorker;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;

  before(async () => {
    smtp = await startSmtp();
    mail = await startMailWorker(smtp.url);
  });

  after(async () => {
    await mail?.stop();
    await smtp?.close();
  });

  it('when the mail server answers 550 to the buyer, then the job completes with mail.sent false and that answer after one try, the order shipped', async () => {
    const seller = await newSeller();
    const email = mailbox('gone');
    const orderId = await createOrder(seller, { email });
    const res = await call(`order/${orderId}/send_mit/`, { token: seller.token, body: { send_mit: { deliverer: 'DHL', code: ['0034'] } } });
    expect(res.status, res.text).to.equal(202);
    const job = await finished(seller, res.body.job_id as string);
    expect(job.state, String(job.error)).to.equal('completed');
    const mail = (job.result as { mail: Record<string, unknown> }).mail;
    expect(mail).to.include({ sent: false, to: email });
    expect(mail.error).to.match(/550 5\.1\.1/);
    // Asked once: before, every try of the job (3 here, 8 by default) sent RCPT TO again.
    expect(smtp.rcpt.get(email)).to.equal(1);
    expect(smtp.mails.filter((m) => m.to === email)).to.have.length(0);
    const order = (await call(`order/${orderId}/`, { token: seller.token })).body.order as { status: { is_shipped: boolean } };
    expect(order.status.is_shipped).to.equal(true);
  });

  it('when the mail server greylists the buyer (451), then the job asks again and the mail goes out once', async () => {
    const seller = await newSeller();
    const email = mailbox('grey');
    const orderId = await createOrder(seller, { email });
    const res = await call(`order/${orderId}/send_mit/`, { token: seller.token, body: {} });
    const job = await finished(seller, res.body.job_id as string);
    expect(job.state, String(job.error)).to.equal('completed');
    expect((job.result as { mail: Record<string, unknown> }).mail).to.include({ sent: true, to: email });
    expect(smtp.rcpt.get(email)).to.equal(2);
    expect(smtp.mails.filter((m) => m.to === email)).to.have.length(1);
  });

  it("when the connection drops after the server took the mail and before its 250, then the retry sends it again under the same Message-ID, the job's (RFC 5322 3.6.4: one message, one id; the buyer's mailbox keeps one)", async () => {
    const seller = await newSeller();
    const email = mailbox('lost');
    const orderId = await createOrder(seller, { email });
    const res = await call(`order/${orderId}/send_mit/`, {
      token: seller.token,
      body: { send_mit: { deliverer: 'DHL', code: ['00340434161094042557'], mail_text: 'Thanks' } },
    });
    expect(res.status, res.text).to.equal(202);
    const jobId = res.body.job_id as string;
    const job = await finished(seller, jobId);
    expect(job.state, String(job.error)).to.equal('completed');
    const sent = smtp.mails.filter((m) => m.to === email);
    expect(sent).to.have.length(2);
    // Before: nodemailer's random <uuid@domain> on each, two messages for the mailbox provider.
    const id = `<${jobId}.in-transit@${mailFromDomain()}>`;
    expect(sent.map((m) => headerOf(m.raw, 'Message-ID'))).to.deep.equal([id, id]);
    expect((job.result as { mail: Record<string, unknown> }).mail).to.deep.equal({ sent: true, to: email, message_id: id });
  });
});

/** The domain of MAIL_FROM's address, the right part of every Message-ID Kontor gives. */
const mailFromDomain = () => /@([^@>\s]+)>?\s*$/.exec(config().mailFrom)![1];

describe('mail handlers over SMTP: a refused recipient, a greylisting server, the Subject on the wire', function () {
  this.timeout(60000);
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  before(async () => {
    smtp = await startSmtp();
  });
  after(async () => {
    await smtp?.close();
  });
  useEventsWorker('mail', { settings: () => ({ smtpUrl: smtp.url, jobBackoffMs: 50, jobAttempts: 4 }) });

  async function mailHandler(seller: Seller, subject: string, template = 'Order {id}'): Promise<number> {
    const res = await call('admin/event/handler/', {
      token: seller.token,
      body: { event_handler: { type: { id: 'created' }, section: 'order', action: { id: 'mail', required: { to: '{customer.email}', subject, template } } } },
    });
    expect(res.status, res.text).to.equal(201);
    return res.body.event_handler_id as number;
  }

  it('when the mail server answers 550 to the buyer, then the run fails at once with that answer (GET job/{job_id}/), asked once, and the seller gets a task', async () => {
    const seller = await newSeller();
    const handlerId = await mailHandler(seller, 'Order {id}');
    const email = mailbox('gone');
    const orderId = await createOrder(seller, { email });
    const job = await finished(seller, await waitFor(() => runJobOf(seller, handlerId), 'the mail run'));
    expect(job.state).to.equal('failed');
    expect(job.error)
      .to.match(/550 5\.1\.1/)
      .and.to.contain(email);
    // Before: 4 tries (the job's attempts), each a RCPT TO the server had refused for good.
    expect(smtp.rcpt.get(email)).to.equal(1);
    // The seller hears of it: one task on the order naming the address and the server's answer.
    const [task, ...more] = await tasksOf(seller);
    expect(more).to.have.length(0);
    expect(task).to.deep.include({ priority: 'high', reference: { section: 'order', id: orderId } });
    expect(task!.title).to.equal(`Mail not sent: event handler ${handlerId} (order created), order ${orderId}`);
    expect(task!.text)
      .to.contain(email)
      .and.to.match(/refused it for good: .*550 5\.1\.1/);
  });

  it('when the mail server is down through every try, then the run fails and the seller gets one task naming the order, the address and why', async () => {
    const seller = await newSeller();
    const handlerId = await mailHandler(seller, 'Order {id}');
    const email = mailbox('down');
    const before = config().smtpUrl;
    setConfig({ ...config(), smtpUrl: `smtp://127.0.0.1:${await closedPort()}` });
    try {
      const orderId = await createOrder(seller, { email });
      const job = await finished(seller, await waitFor(() => runJobOf(seller, handlerId), 'the mail run'));
      expect(job.state).to.equal('failed');
      expect(job.error).to.match(/ECONNREFUSED/);
      const tasks = await tasksOf(seller);
      expect(tasks).to.have.length(1);
      expect(tasks[0]).to.deep.include({ priority: 'high', reference: { section: 'order', id: orderId } });
      expect(tasks[0]!.text)
        .to.contain(email)
        .and.to.contain('could not take it on any of the run')
        .and.to.match(/ECONNREFUSED/);
    } finally {
      setConfig({ ...config(), smtpUrl: before });
    }
  });

  it('when the mail server refuses at first (451) and takes the mail on a retry, then no task', async () => {
    const seller = await newSeller();
    const handlerId = await mailHandler(seller, 'Order {id}');
    await createOrder(seller, { email: mailbox('grey') });
    const job = await finished(seller, await waitFor(() => runJobOf(seller, handlerId), 'the mail run'));
    expect(job.state, String(job.error)).to.equal('completed');
    expect(await tasksOf(seller)).to.have.length(0);
  });

  it('when the mail server greylists the buyer (451), then the run is retried and the mail goes out once', async () => {
    const seller = await newSeller();
    const handlerId = await mailHandler(seller, 'Order {id}');
    const email = mailbox('grey');
    await createOrder(seller, { email });
    const job = await finished(seller, await waitFor(() => runJobOf(seller, handlerId), 'the mail run'));
    expect(job.state, String(job.error)).to.equal('completed');
    expect(smtp.rcpt.get(email)).to.equal(2);
    expect(smtp.mails.filter((m) => m.to === email)).to.have.length(1);
  });

  it("when the connection drops after the server took the mail and before its 250, then the run's retry sends it again under the same Message-ID, the run's", async () => {
    const seller = await newSeller();
    const handlerId = await mailHandler(seller, 'Order {id}');
    const email = mailbox('lost');
    await createOrder(seller, { email });
    const runId = await waitFor(() => runJobOf(seller, handlerId), 'the mail run');
    const job = await finished(seller, runId);
    expect(job.state, String(job.error)).to.equal('completed');
    const sent = smtp.mails.filter((m) => m.to === email);
    expect(sent).to.have.length(2);
    // Before: two random ids, two messages in the buyer's mailbox.
    const id = `<${runId}.event-mail@${mailFromDomain()}>`;
    expect(sent.map((m) => headerOf(m.raw, 'Message-ID'))).to.deep.equal([id, id]);
    expect(job.result).to.deep.include({ to: email, message_id: id });
    expect(await tasksOf(seller)).to.have.length(0);
  });

  it('when a Subject has a long run without blanks, then every line stays within 998 characters and the Subject reads back whole (RFC 2047 encoded words)', async () => {
    const seller = await newSeller();
    const token = `REF-${'7'.repeat(1200)}`;
    await mailHandler(seller, `Order {id} ${token}`);
    const email = mailbox('long');
    const orderId = await createOrder(seller, { email });
    const mail = await waitFor(async () => smtp.mails.find((m) => m.to === email), 'the mail');
    // Before: "Subject: Order <id> REF-777...", one line of 1,200 characters and more.
    expect(Math.max(...mail.raw.split('\r\n').map((l) => l.length))).to.be.at.most(998);
    expect(headerOf(mail.raw, 'Subject')).to.equal(`Order ${orderId} ${token}`);
    expect(headerOf(mail.raw, 'Message-ID')).to.match(/^<[^@\s]+@[^>\s]+>$/);
    expect(Number.isNaN(Date.parse(headerOf(mail.raw, 'Date')!))).to.equal(false);
  });

  it('when a Subject is filled with a non-ASCII buyer name holding a line break and a header, then it is one encoded Subject and no header more', async () => {
    const seller = await newSeller();
    await mailHandler(seller, 'Bestellung {id} für {customer.address.name}');
    const email = mailbox('name');
    const orderId = await createOrder(seller, { email, address: { name: 'Jörg\r\nBcc: spy@example.org' } });
    const mail = await waitFor(async () => smtp.mails.find((m) => m.to === email), 'the mail');
    expect(headerOf(mail.raw, 'Subject')).to.equal(`Bestellung ${orderId} für Jörg Bcc: spy@example.org`);
    expect(headerOf(mail.raw, 'Bcc')).to.equal(undefined);
    expect(mail.to).to.equal(email);
  });

  it("when the buyer's domain is not ASCII (IDN) and the server offers no SMTPUTF8, then RCPT TO and To name it in A-labels and the mail goes out", async () => {
    const plain = await startSmtp({ hideSMTPUTF8: true });
    const before = config().smtpUrl;
    setConfig({ ...config(), smtpUrl: plain.url });
    try {
      const seller = await newSeller();
      const handlerId = await mailHandler(seller, 'Order {id}');
      const local = `idn-${crypto.randomBytes(4).toString('hex')}`;
      await createOrder(seller, { email: `${local}@bücher.example` });
      const job = await finished(seller, await waitFor(() => runJobOf(seller, handlerId), 'the mail run'));
      expect(job.state, String(job.error)).to.equal('completed');
      // nodemailer puts the domain in A-labels in the envelope too (RFC 5321 2.3.1 without SMTPUTF8; RFC 5890).
      expect(plain.commands.filter((c) => c.startsWith('RCPT'))).to.deep.equal([`RCPT TO:<${local}@xn--bcher-kva.example>`]);
      const [mail] = plain.mails;
      expect(mail).to.include({ smtpUtf8: false });
      expect(headerOf(mail!.raw, 'To')).to.equal(`${local}@xn--bcher-kva.example`);
      // eslint-disable-next-line no-control-regex
      expect(/^[\x00-\x7f]*$/.test(mail!.raw)).to.equal(true);
    } finally {
      setConfig({ ...config(), smtpUrl: before });
      await plain.close();
    }
  });

  it('when SMTP_URL logs in over smtp:// and the server offers no STARTTLS (or someone on the path deleted it), then no password and no mail go out in clear; the run fails and the seller is told', async () => {
    const auths: { user: string; secure: boolean }[] = [];
    const plain = new SMTPServer({
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      logger: false,
      onAuth(auth, session, callback) {
        auths.push({ user: String(auth.username), secure: session.secure });
        callback(null, { user: auth.username });
      },
      onData(stream, _session, callback) {
        stream.resume();
        stream.on('end', () => callback());
      },
    });
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    const before = config().smtpUrl;
    setConfig({ ...config(), smtpUrl: `smtp://kontor:s3cret@127.0.0.1:${(plain.server.address() as AddressInfo).port}` });
    try {
      const seller = await newSeller();
      const handlerId = await mailHandler(seller, 'Order {id}');
      const email = mailbox('plain');
      await createOrder(seller, { email });
      const job = await finished(seller, await waitFor(() => runJobOf(seller, handlerId), 'the mail run'));
      // Before: AUTH PLAIN kontor/s3cret on the open connection, and the mail sent.
      expect(auths).to.deep.equal([]);
      expect(job.state).to.equal('failed');
      expect(job.error).to.match(/STARTTLS|TLS/i);
      expect((await tasksOf(seller))[0]!.text).to.contain(email);
    } finally {
      setConfig({ ...config(), smtpUrl: before });
      await new Promise<void>((resolve) => plain.close(() => resolve()));
    }
  });

  it('when SMTP_URL says requireTLS=false, then a relay without TLS still gets the login (the operator chose it)', async () => {
    expect(transportUrl('smtp://u:p@relay.internal:25?requireTLS=false')).to.equal('smtp://u:p@relay.internal:25?requireTLS=false');
    expect(transportUrl('smtp://u:p@relay.internal:25')).to.equal('smtp://u:p@relay.internal:25?requireTLS=true');
    expect(transportUrl('smtp://u:p@relay.internal:25?pool=true')).to.equal('smtp://u:p@relay.internal:25?pool=true&requireTLS=true');
    expect(transportUrl('smtps://u:p@relay.example:465')).to.equal('smtps://u:p@relay.example:465');
    expect(transportUrl('smtp://127.0.0.1:1025')).to.equal('smtp://127.0.0.1:1025');
  });
});
