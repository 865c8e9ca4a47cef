/**
 * Issue 31, must deliver 2, for the bank domain: a client bound to portal account 1 pays, through
 * a transfer or a statement import, only orders of portal account 1 — also in the matching job
 * and in the re-match that runs long after its request — and searches only its own records and
 * those assigned to its orders.
 */
import { expect } from 'chai';
import { config, setConfig } from '../../config';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { rematchAll } from '../../lib/bank/bank-match.service';
import { waitFor } from '../event/servers';
import { createOrder, readOrder } from '../order/helpers';
import { ApiResponse, call, newSeller, query, Seller } from '../support/api';
import { clientToken } from '../support/bound-client';
import { bankTransfers, importStatement, orderPaidBy, startBankWorker } from './bank-worker';
import { fixture } from './fixtures';

const jobState = (res: ApiResponse) => (res.body.job as { state?: string } | undefined)?.state;

describe('bank: a client bound to one portal account (issue 31)', () => {
  let seller: Seller;
  let bound1: string;
  let order1: string;
  let order2: string;
  let bankWorker: { stop(): Promise<void> } | undefined;
  const saved = config();

  before(async () => {
    setConfig({ ...saved, orderSearchMinAgeSeconds: 0 });
    bankWorker = await startBankWorker('bank-grant');
    seller = await newSeller();
    const account2 = (await createPortalAccount(seller.id, { name: 'Shop 2', platform: 'shop_g' })).id;
    const customer = { email: 'buyer@example.com', address: { name: 'Jürgen Müller' } };
    order1 = await createOrder(seller, { customer, line: [{ id: 1, price: '49.90', quantity: 1 }] });
    const res = await call('order/', {
      token: seller.token,
      body: { order: { customer, line: [{ id: 1, price: '24.50', quantity: 1 }] }, portal_account_id: account2 },
    });
    expect(res.status, res.text).to.equal(201);
    order2 = res.body.order_id as string;
    bound1 = await clientToken(seller, 'bank-shop-one', seller.portalAccountId, 'bank_r bank_w order_r');
  });
  after(async () => {
    setConfig(saved);
    await bankWorker?.stop();
  });

  it('when a bound client posts a transfer naming another portal account order, then that order is not paid', async () => {
    const res = await call('bank/transfer/', { token: bound1, body: { bank: { transfer_date: '2026-11-20T10:00:00Z', subject: order2, amount: '24.50' } } });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.is_order_paid).to.equal('0');
    expect((await readOrder(seller, order2)).paid_amount).to.equal(null);
  });

  it('when a bound client imports a statement naming orders of both portal accounts, then the job and the re-match pay only its own', async () => {
    const res = await call('bank/statement/', {
      token: bound1,
      body: fixture('camt053.001.08.xml', { ORDER_1: order1, ORDER_2: order2 }),
      headers: { 'Content-Type': 'application/octet-stream' },
    });
    expect(res.status, res.text).to.equal(202);
    const jobId = res.body.job_id as string;
    await waitFor(async () => (jobState(await call(`job/${jobId}/`, { token: seller.token })) === 'completed' ? true : undefined), `job ${jobId}`);
    expect((await readOrder(seller, order1)).paid_amount).to.equal('49.90');
    expect((await readOrder(seller, order2)).paid_amount).to.equal(null);
    await rematchAll(new Date());
    expect((await readOrder(seller, order2)).paid_amount).to.equal(null);
  });

  it('when the bound client searches transfers, then it finds only its records; the seller finds every one', async () => {
    await call('bank/transfer/', {
      token: seller.token,
      body: { bank: { transfer_date: '2026-11-20T10:00:00Z', sender: 'Seller Own', subject: 'own', amount: '3.00' } },
    });
    const mine = await call(`bank/transfer/?${query({ pagination: { limit: 100 } })}`, { token: bound1 });
    const all = await call(`bank/transfer/?${query({ pagination: { limit: 100 } })}`, { token: seller.token });
    expect(mine.status, mine.text).to.equal(200);
    const senders = (rows: unknown) => (rows as { sender: string }[]).map((r) => r.sender);
    expect(senders(mine.body.bank)).to.not.include('Seller Own');
    expect(senders(all.body.bank)).to.include('Seller Own');
    expect((mine.body.bank as unknown[]).length).to.equal((all.body.bank as unknown[]).length - 1);
  });

  it('when a bound client imports a statement reversing credits the seller imported, then it takes nothing off another portal account order and marks none of the seller transfers reversed', async () => {
    const s = await newSeller();
    const shop2 = (await createPortalAccount(s.id, { name: 'Shop 2', platform: 'shop_g' })).id;
    const bound = await clientToken(s, 'bank-shop-one-reversal', s.portalAccountId, 'bank_r bank_w order_r');
    const res = await call('order/', {
      token: s.token,
      body: {
        order: { customer: { email: 'anna@example.com', address: { name: 'Anna Schmidt' } }, line: [{ id: 1, price: '49.90', quantity: 1 }] },
        portal_account_id: shop2,
      },
    });
    expect(res.status, res.text).to.equal(201);
    const anna = res.body.order_id as string;
    // Bernd's transfer names no order: it stays unassigned, stored under the seller's (all) grant.
    const other = await orderPaidBy(s, '99.00', 'Otto Anders');
    await importStatement(s, fixture('mt940-reversal-credits.sta', { ORDER_1: anna, ORDER_2: 'keine' }));
    expect((await readOrder(s, anna)).paid_amount).to.equal('49.90');
    const seen = (await bankTransfers<{ sender: string; order_id?: string; status: string | null }>(s)).map((r) => [r.sender, r.order_id ?? null, r.status]);
    expect(seen.sort()).to.deep.equal([
      ['Anna Schmidt', anna, null],
      ['Bernd Bauer', null, null],
    ]);

    const answer = await call('bank/statement/', {
      token: bound,
      body: fixture('mt940-reversal.sta', { ORDER_1: anna, ORDER_2: 'keine' }),
      headers: { 'Content-Type': 'application/octet-stream' },
    });
    expect(answer.status, answer.text).to.equal(200);
    expect((await readOrder(s, anna)).paid_amount).to.equal('49.90');
    expect((await readOrder(s, other)).paid_amount).to.equal(null);
    const after = (await bankTransfers<{ sender: string; order_id?: string; status: string | null }>(s)).map((r) => [r.sender, r.order_id ?? null, r.status]);
    expect(after.sort()).to.deep.equal(seen);
    // Its tasks say what becomes of the reversals: not kept (a task saying "Kontor keeps the
    // reversal" left the seller waiting for a tie that never came).
    const tasks = await call(`task/?${query({ pagination: { limit: 100 } })}`, { token: s.token });
    const untied = (tasks.body.task as { title: string; text: string }[]).filter((t) => /not tied to a transfer/.test(t.title));
    expect(untied.length, tasks.text).to.be.greaterThan(0);
    for (const t of untied) {
      expect(t.text).to.not.match(/Kontor keeps the reversal/);
      expect(t.text).to.match(/Kontor does not keep it/);
    }

    // Nor does the bound client's file leave a reversal behind that the seller's next import applies.
    await importStatement(s, fixture('mt940-reversal-credits.sta', { ORDER_1: anna, ORDER_2: 'keine' }));
    expect((await readOrder(s, anna)).paid_amount).to.equal('49.90');
    const later = (await bankTransfers<{ sender: string; order_id?: string; status: string | null }>(s)).map((r) => [r.sender, r.order_id ?? null, r.status]);
    expect(later.sort()).to.deep.equal(seen);
  });

  it('when the seller and a client bound to portal account 2 each import a statement that leaves records unassigned, then the client bound to 1 sees neither task, the one bound to 2 its own alone, the seller both', async () => {
    const s = await newSeller();
    const shop2 = (await createPortalAccount(s.id, { name: 'Shop 2', platform: 'shop_g' })).id;
    const [one, two] = [
      await clientToken(s, 'bank-task-one', s.portalAccountId, 'bank_r bank_w task_r'),
      await clientToken(s, 'bank-task-two', shop2, 'bank_r bank_w task_r'),
    ];
    await importStatement(s, fixture('camt053.001.08.xml', { ORDER_1: 'none-1', ORDER_2: 'none-2' }));
    await importStatement(s, fixture('mt940-reversal-credits.sta', { ORDER_1: 'keine', ORDER_2: 'keine' }), two);
    const bankTasks = async (token: string) => {
      const res = await call(`task/?${query({ pagination: { limit: 100 } })}`, { token });
      expect(res.status, res.text).to.equal(200);
      return (res.body.task as { title: string; text: string; reference: { section: string } }[])
        .filter((t) => t.reference.section === 'bank')
        .map((t) => t.text);
    };
    const all = await bankTasks(s.token);
    expect(all, 'one task per import').to.have.length(2);
    expect(await bankTasks(one), 'the client bound to portal account 1').to.deep.equal([]);
    const own = await bankTasks(two);
    expect(own).to.have.length(1);
    expect(all).to.include(own[0]);
  });
});
