/**
 * Warning_type code (document 1, Errors): "HTTP code that would result", i.e. the status the
 * answer leaves with, on every endpoint; a 207's part warnings carry their part's code.
 * server/framework/respond.ts.
 */
import { expect } from 'chai';
import { call, newSeller, tokenFor } from '../support/api';
import { orderBody } from '../order/helpers';

type Coded = { warning: string; code: number; field?: string };
const codes = (warnings: unknown) => ((warnings ?? []) as Coded[]).map((w) => [w.warning, w.field, w.code]);

describe('Warning_type code: the HTTP code of the answer', () => {
  it('when a create (201), an update (200) and a refused request (400) carry warnings, then each warning says the status answered', async () => {
    const seller = await newSeller();
    const created = await call('task/', { token: seller.token, body: { task: { title: 'x', modified_date: '2026-01-01' } } });
    expect(created.status, created.text).to.equal(201);
    expect(codes(created.body.warning)).to.deep.equal([['read_only_field', 'task.modified_date', 201]]);

    const updated = await call(`task/${String(created.body.task_id)}/`, { token: seller.token, body: { task: { title: 'y', modified_date: '2026-01-01' } } });
    expect(updated.status, updated.text).to.equal(200);
    expect(codes(updated.body.warning)).to.deep.equal([['read_only_field', 'task.modified_date', 200]]);

    const refused = await call('task/', { token: seller.token, body: { task: { priority: 'urgent', modified_date: '2026-01-01' } } });
    expect(refused.status, refused.text).to.equal(400);
    expect(codes(refused.body.warning)).to.deep.equal([['read_only_field', 'task.modified_date', 400]]);

    const order = await call('order/', { token: seller.token, body: { order: orderBody({ invoice_amount: '9' }) } });
    expect(order.status, order.text).to.equal(201);
    expect(codes(order.body.warning)).to.deep.equal([['read_only_field', 'order.invoice_amount', 201]]);
  });

  it('when a read leaves fields out for lack of a scope, then its warnings say 200', async () => {
    const seller = await newSeller();
    const res = await call('admin/user/', { token: await tokenFor(seller.login, seller.password, 'admin_r') });
    expect(res.status, res.text).to.equal(200);
    expect((res.body.warning as Coded[]).map((w) => w.code)).to.deep.equal([200, 200, 200]);
  });

  it("when a 207 has parts with warnings, then each part's warning says its part's code and part_failed the failed part's", async () => {
    const seller = await newSeller();
    const res = await call('order/list/', {
      token: seller.token,
      body: { order: [orderBody({ invoice_amount: '9' }), orderBody({ currency_id: 'XYZ', invoice_amount: '9' })] },
    });
    expect(res.status, res.text).to.equal(207);
    const parts = res.body.response as { code: number; warning?: Coded[] }[];
    expect(parts.map((p) => [p.code, codes(p.warning)])).to.deep.equal([
      [201, [['read_only_field', 'order[0].invoice_amount', 201]]],
      [400, [['read_only_field', 'order[1].invoice_amount', 400]]],
    ]);
    expect(codes(res.body.warning).filter(([w]) => w === 'part_failed')).to.deep.equal([['part_failed', 'order[1]', 400]]);
  });
});
