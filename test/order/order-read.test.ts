import { expect } from 'chai';
import { allOrdersOf } from '../../lib/access/caller';
import { db } from '../../lib/db/knex';
import { orderReadColumns, orderReadQuery, orderRepository } from '../../lib/order/order.repository';
import { newSeller } from '../support/api';
import { createOrder } from './helpers';

/**
 * The read of one order is a prepared statement with named columns (lib/order/order.repository):
 * it must return what the query builder's read returns, within the same scopes.
 */
describe('order: the read of one order', () => {
  it('names every column of sales_order (bill_date apart, read as text)', async () => {
    const columns = (await db()('information_schema.columns').select('column_name').where({ table_name: 'sales_order', table_schema: 'public' })) as {
      column_name: string;
    }[];
    expect([...orderReadColumns].sort()).to.deep.equal(
      columns
        .map((c) => c.column_name)
        .filter((c) => c !== 'bill_date')
        .sort(),
    );
  });

  it('when an order is read by id, then the row equals the query builder read, also within a portal account grant; outside the grant it is absent', async () => {
    const seller = await newSeller();
    const orderId = await createOrder(seller, { line: [{ id: 1, quantity: 2, price: '10.00', name: 'a' }], status: { is_paid: true } });
    const built = (scope: Parameters<typeof orderReadQuery>[1]) => orderReadQuery(db(), scope).where('sales_order.id', orderId).first();
    const all = allOrdersOf(seller.id);
    const read = await orderRepository.get(all, orderId);
    // The by-id read adds the order's version (its ETag, lib/order/README.md conditional updates).
    const { version, ...row } = read!;
    expect(version).to.match(/^[0-9a-f]{32}$/);
    expect(row).to.deep.equal(await built(all));
    expect(read!.lines).to.have.length(1);
    expect(read!.bill_date).to.be.a('string');
    const granted = { accountId: seller.id, portalAccountGrant: read!.portal_account_id! };
    expect(await orderRepository.get(granted, orderId)).to.deep.equal(read);
    const other = { accountId: seller.id, portalAccountGrant: read!.portal_account_id! + 100000 };
    expect(await orderRepository.get(other, orderId)).to.equal(undefined);
    expect(await orderRepository.get(allOrdersOf(seller.id + 100000), orderId)).to.equal(undefined);
    expect(await orderRepository.get(all, `${orderId}x`)).to.equal(undefined);
  });
});
