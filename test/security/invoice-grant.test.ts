/**
 * Document 1, Authentication 5, for the invoice endpoints (issue 35, not in the grant matrix): a
 * client bound to one portal account neither issues nor downloads the invoice of another portal
 * account's order; both are the 404 of an absent order, and nothing is issued.
 */
import { expect } from 'chai';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { db } from '../../lib/db';
import { call, newSeller, Seller } from '../support/api';
import { clientToken } from '../support/bound-client';
import { giveInvoiceDetails } from '../support/invoicing';

describe('invoices under a portal-account grant', () => {
  let seller: Seller;
  let bound1: string;
  let order2: string;

  before(async () => {
    seller = await giveInvoiceDetails(await newSeller());
    const account2 = (await createPortalAccount(seller.id, { name: 'Shop 2', platform: 'shop_g' })).id;
    const res = await call('order/', {
      token: seller.token,
      body: {
        order: { customer: { email: 'b@example.com' }, line: [{ id: 1, name: 'Cup', price: '5.00', quantity: 1, tax: '19' }] },
        portal_account_id: account2,
      },
    });
    expect(res.status, res.text).to.equal(201);
    order2 = res.body.order_id as string;
    bound1 = await clientToken(seller, 'invoice-one', seller.portalAccountId, 'order_r order_w');
  });

  it("when a client bound to portal account 1 asks to issue portal account 2's invoice, then 404 on order_id and no invoice number is given", async () => {
    const res = await call(`order/${order2}/invoice/`, { token: bound1, body: {} });
    expect(res.status, res.text).to.equal(404);
    expect(res.body.error![0]!.field).to.equal('order_id');
    const row = (await db()('sales_order').where({ account_id: seller.id }).first('invoice_number')) as { invoice_number: string | null };
    expect(row.invoice_number).to.equal(null);
  });

  it("when it asks for the download link of portal account 2's issued invoice, then 404 as for an absent order; the seller gets its link", async () => {
    const issued = await call(`order/${order2}/invoice/`, { token: seller.token, body: {} });
    expect(issued.status, issued.text).to.equal(202);
    const foreign = await call(`order/${order2}/invoice/`, { token: bound1 });
    const absent = await call('order/999999_2026_11/invoice/', { token: bound1 });
    expect([foreign.status, foreign.body.error![0]!.field]).to.deep.equal([absent.status, absent.body.error![0]!.field]);
    expect(foreign.status).to.equal(404);
  });
});
