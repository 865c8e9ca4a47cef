import crypto from 'node:crypto';
import type { Worker } from 'bullmq';
import { expect } from 'chai';
import { config, setConfig } from '../../config';
import { allOrdersOf } from '../../lib/access/caller';
import { bankProcessors } from '../../lib/bank/bank.processor';
import { db } from '../../lib/db/knex';
import { inTransaction } from '../../lib/db/transaction';
import { createOrderIn } from '../../lib/order/order.service';
import { closeQueues } from '../../lib/queue/queue.registry';
import { startWorker } from '../../lib/queue/worker';
import { call, newSeller } from '../support/api';
import { killChild, spawnWorker } from '../support/process';
import { waitFor } from '../fleet/support';

/** A CAMT.053 statement of one entry per order id, each paying its order in full. */
function statement(orders: { id: string; amount: string }[]): Buffer {
  const entries = orders
    .map(
      (o, i) => `<Ntry><Amt Ccy="EUR">${o.amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>
<BookgDt><Dt>2026-11-20</Dt></BookgDt><AcctSvcrRef>KILL${i}</AcctSvcrRef><NtryDtls><TxDtls><RltdPties><Dbtr><Pty><Nm>Buyer ${i}</Nm></Pty></Dbtr></RltdPties>
<RmtInf><Ustrd>Order ${o.id}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>`,
    )
    .join('\n');
  return Buffer.from(`<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt>
<GrpHdr><MsgId>K</MsgId><CreDtTm>2026-11-21T07:00:00Z</CreDtTm></GrpHdr><Stmt><Id>K1</Id><Acct><Id><IBAN>DE02120300000000202051</IBAN></Id></Acct>
${entries}</Stmt></BkToCstmrStmt></Document>`);
}

describe('bank: faults of the bank worker', () => {
  it('when the bank worker is killed in the middle of matching a large import, then after a restart every entry is stored once and no order is paid twice', async function () {
    this.timeout(180000);
    const shared = config().queuePrefix;
    await closeQueues();
    setConfig({ ...config(), queuePrefix: `${shared}-bank-kill-${crypto.randomBytes(3).toString('hex')}` });
    const s = await newSeller();
    const count = 1000;
    const orders = await inTransaction(async (trx) => {
      const made: { id: string; amount: string }[] = [];
      for (let i = 0; i < count; i++) {
        const amount = `${10 + (i % 50)}.00`;
        made.push({
          id: (
            await createOrderIn(
              trx,
              { ...allOrdersOf(s.id), portalAccountId: null },
              { customer: { email: 'b@example.com' }, line: [{ id: 1, price: amount, quantity: 1 }] },
            )
          ).id,
          amount,
        });
      }
      return made;
    });
    // Small batches, so that the kill lands between commits.
    const child = spawnWorker('workers/bank.ts', { WORKER_LOCK_MS: '1500', BANK_MATCH_BATCH: '20' });
    let restarted: Worker | undefined;
    const assigned = async () => Number((await db()('bank').where({ account_id: s.id }).whereNotNull('order_id').count({ n: '*' }))[0]!.n);
    try {
      const res = await call('bank/statement/', { token: s.token, body: statement(orders), headers: { 'Content-Type': 'application/xml' } });
      expect(res.status, res.text).to.equal(202);
      await waitFor('a first batch matched', async () => (await assigned()) > 0, 60000, 10);
      await killChild(child);
      const atKill = await assigned();
      expect(atKill, 'the worker was killed before it finished').to.be.below(count);
      restarted = await startWorker('bank', bankProcessors, { skipEvictionCheck: true, registerShutdown: false, lockDuration: 1500, stalledInterval: 1500 });
      await waitFor('every entry matched', async () => (await assigned()) === count, 60000, 100);
      const again = await call('bank/statement/', { token: s.token, body: statement(orders), headers: { 'Content-Type': 'application/xml' } });
      expect(again.status, again.text).to.equal(200);
      expect(again.body.statement).to.include({ stored: 0, duplicates: count });
      expect(Number((await db()('bank').where({ account_id: s.id }).count({ n: '*' }))[0]!.n)).to.equal(count);
      const paid = await db()('sales_order')
        .where({ account_id: s.id })
        .select<{ id: string; paid: string; invoice: string }[]>('id', db().raw('paid_amount::text AS paid'), db().raw('invoice_amount::text AS invoice'));
      expect(paid.filter((o) => o.paid !== o.invoice)).to.deep.equal([]);
      const payments = await db()('sales_order_history as h')
        .join('sales_order as o', 'o.internal_id', 'h.order_internal_id')
        .where('o.account_id', s.id)
        .andWhere('h.text', 'like', 'payment %')
        .count('* as n');
      expect(Number(payments[0]!.n)).to.equal(count);
    } finally {
      await killChild(child);
      await restarted?.close();
      await closeQueues();
      setConfig({ ...config(), queuePrefix: shared });
    }
  });
});
