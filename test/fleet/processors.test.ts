import { expect } from 'chai';
import type { Job } from 'bullmq';
import { bankProcessors } from '../../lib/bank/bank.processor';
import { ciaProcessors } from '../../lib/cia/cia.processor';
import { eventProcessors } from '../../lib/event/event.processor';
import { invoiceProcessors } from '../../lib/invoice';
import { sendMitProcessors } from '../../lib/order/send-mit.processor';
import { portalUploadProcessors } from '../../lib/portal-offer/portal-upload.processor';
import { JobName, jobQueues } from '../../lib/queue/jobs';
import { defineProcessors } from '../../lib/queue/processors';
import type { QueueName } from '../../lib/queue/queues';

const namesOf = (queue: QueueName) => (Object.keys(jobQueues) as JobName[]).filter((name) => jobQueues[name] === queue).sort();
const noop = async () => undefined;

/**
 * Compiled by `npm run typecheck`, never run: each @ts-expect-error fails the type check if the
 * line below it were accepted.
 */
export function typeChecks(): void {
  // @ts-expect-error a job of another queue (event.emit runs on events) is refused
  defineProcessors('cia', { 'cia.adjust': noop, 'cia.reconcile': noop, 'outbox.cleanup': noop, 'event.emit': noop });
  // @ts-expect-error a job name the catalog does not know is refused
  defineProcessors('cia', { 'cia.adjust': noop, 'cia.reconcile': noop, 'outbox.cleanup': noop, 'cia.unknown': noop });
  // @ts-expect-error a queue's job without a processor is refused
  defineProcessors('cia', { 'cia.adjust': noop, 'cia.reconcile': noop });
  // @ts-expect-error the bank queue takes no foreign job either
  defineProcessors('bank', { 'order.send_mit': noop });
  defineProcessors('portal_upload', {
    // @ts-expect-error the data is the job's payload: portal.upload carries no orderId
    'portal.upload': async (data) => data.orderId,
    'portal.set_quantity': async (data) => data.portalAccountId,
    'portal.listing_check': async (data) => data.uploadJobId,
    'portal.push_again': async (data) => data.due,
  });
}

describe('fleet: processors declared against the job catalog', () => {
  it('when the processors of each queue are listed, then they are exactly the job names the catalog puts on that queue', () => {
    expect(Object.keys(ciaProcessors).sort()).to.deep.equal(namesOf('cia'));
    expect(Object.keys(eventProcessors).sort()).to.deep.equal(namesOf('events'));
    expect(Object.keys(sendMitProcessors).sort()).to.deep.equal(namesOf('mail'));
    expect(Object.keys(portalUploadProcessors).sort()).to.deep.equal(namesOf('portal_upload'));
    expect(Object.keys(bankProcessors).sort()).to.deep.equal(namesOf('bank'));
    expect(Object.keys(invoiceProcessors).sort()).to.deep.equal(namesOf('invoice'));
  });

  it('when a declared processor runs a job, then its handler gets the job data and the job', async () => {
    const seen: unknown[] = [];
    const processors = defineProcessors('mail', {
      'order.send_mit': async (data, job) => {
        seen.push(data.orderId, job.id);
        return 'done';
      },
    });
    const job = {
      id: 'j1',
      name: 'order.send_mit',
      data: { accountId: 1, orderId: '1_2026_11', sendMit: { deliverer: null, code: [], date: '2026-11-23', isMail: false, mailText: '' } },
    };
    expect(await processors['order.send_mit'](job as unknown as Job)).to.equal('done');
    expect(seen).to.deep.equal(['1_2026_11', 'j1']);
  });
});
