/**
 * send_mit's in-transit mail goes once per job: the step's mark is kept in the job's data in Redis
 * even when the outbox row (Postgres) refuses it, so the retry the failed save causes does not mail
 * the buyer again. Read at an SMTP server (what the buyer's mailbox provider receives) and through
 * the API (the job's result, the order's history).
 */
import crypto from 'node:crypto';
import { expect } from 'chai';
import { config } from '../../config';
import { db } from '../../lib/db/knex';
import { MailCatcher, startMailCatcher } from '../event/servers';
import { jobEnd } from '../fleet/support';
import { call, newSeller } from '../support/api';
import { MailWorker, startMailWorker } from '../support/mail-worker';

/** A header's value as the raw message carries it (unfolded). */
const headerOf = (raw: string, name: string): string | undefined =>
  raw
    .split('\r\n\r\n')[0]!
    .replace(/\r\n[ \t]/g, ' ')
    .split('\r\n')
    .find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`))
    ?.slice(name.length + 1)
    .trim();

describe('send_mit: the in-transit mail goes once per job', function () {
  this.timeout(60000);
  let mail: MailWorker;
  let smtp: MailCatcher;

  before(async () => {
    smtp = await startMailCatcher();
    mail = await startMailWorker(smtp.url);
  });

  after(async () => {
    await mail?.stop();
    await smtp?.close();
    await db().raw('DROP TRIGGER IF EXISTS test_fail_mail_mark ON outbox');
    await db().raw('DROP FUNCTION IF EXISTS test_fail_mail_mark()');
    await db().raw('DROP SEQUENCE IF EXISTS test_fail_mail_mark_once');
  });

  it('when keeping the mail step in the outbox row fails right after the server took the mail (Postgres refuses the save), then the retry mails the buyer no second time: one message, the job completed with its Message-ID, one history entry', async () => {
    const seller = await newSeller();
    const email = `buyer-${crypto.randomBytes(4).toString('hex')}@example.com`;
    const created = await call('order/', { token: seller.token, body: { order: { customer: { email } } } });
    expect(created.status, created.text).to.equal(201);
    const orderId = created.body.order_id as string;
    // Postgres refuses, once, the save that marks this seller's send_mit mail sent (a dropped
    // connection, a failover): the worker had the server's 250 already.
    await db().raw('CREATE SEQUENCE test_fail_mail_mark_once');
    await db().raw(`
      CREATE FUNCTION test_fail_mail_mark() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.account_id = ${Number(seller.id)} AND NEW.job_name = 'order.send_mit' AND NEW.payload->'progress'->'mail' IS NOT NULL THEN
          IF nextval('test_fail_mail_mark_once') = 1 THEN
            RAISE EXCEPTION 'terminating connection due to administrator command';
          END IF;
        END IF;
        RETURN NEW;
      END $$`);
    await db().raw('CREATE TRIGGER test_fail_mail_mark BEFORE UPDATE ON outbox FOR EACH ROW EXECUTE FUNCTION test_fail_mail_mark()');

    const res = await call(`order/${orderId}/send_mit/`, {
      token: seller.token,
      body: { send_mit: { deliverer: 'DHL', code: ['00340434161094042557'], mail_text: 'Thanks' } },
    });
    expect(res.status, res.text).to.equal(202);
    const jobId = res.body.job_id as string;
    const end = await jobEnd(seller.token, jobId);
    expect(end.state, end.error).to.equal('completed');
    // The save did fail once (the trigger fired): the job needed a second try.
    expect(
      Number(((await db().raw(`SELECT last_value FROM test_fail_mail_mark_once`)) as { rows: { last_value: string }[] }).rows[0]!.last_value),
    ).to.be.at.least(1);

    const received = smtp.mails.filter((m) => m.to === email);
    // Before: two messages, each with its own random Message-ID.
    expect(received).to.have.length(1);
    const domain = /@([^@>\s]+)>?\s*$/.exec(config().mailFrom)![1];
    expect(headerOf(received[0]!.raw, 'Message-ID')).to.equal(`<${jobId}.in-transit@${domain}>`);
    expect((end.result as { mail: Record<string, unknown> }).mail).to.deep.equal({ sent: true, to: email, message_id: `<${jobId}.in-transit@${domain}>` });
    const order = (await call(`order/${orderId}/`, { token: seller.token })).body.order as { history: string[] };
    expect(order.history.filter((h) => h.startsWith('send_mit '))).to.have.length(1);
  });
});
