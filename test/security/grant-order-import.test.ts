/**
 * Document 1, Authentication 5: "Orders can be read or written only if the user authorization
 * covers the order's portal account or permits cross-account requests". An order import writes
 * the orders of the portal account it names (new ones, and payment, cancellation and shipment of
 * known ones), so a client bound to another portal account may not start it.
 */
import { expect } from 'chai';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { connectPortalAccount } from '../../lib/admin/portal-account-connect.service';
import { db } from '../../lib/db/knex';
import { call, newSeller, Seller } from '../support/api';
import { clientToken } from '../support/bound-client';

describe('order import and portal-account grants (document 1, Authentication 5)', () => {
  let seller: Seller;
  let auction: number;
  let boundDefault: string;
  let boundAuction: string;
  let everything: string;

  before(async () => {
    seller = await newSeller();
    auction = (await createPortalAccount(seller.id, { name: 'Auction', platform: 'auction_a' })).id;
    await connectPortalAccount(seller.id, { portalAccountId: auction, connector: 'json', baseUrl: 'https://channel.example.com', credentials: {} });
    boundDefault = await clientToken(seller, 'import-default', seller.portalAccountId, 'order_r order_w');
    boundAuction = await clientToken(seller, 'import-auction', auction, 'order_r order_w');
    everything = await clientToken(seller, 'import-all', 'all', 'order_r order_w');
  });

  const imports = async () =>
    Number(((await db()('outbox').where({ account_id: seller.id, job_name: 'order.import' }).count('* as n')) as { n: string }[])[0]!.n);

  it("when a client bound to the seller's default portal account asks to import the auction account's orders, then 404 as for an absent account and nothing is queued", async () => {
    const before = await imports();
    const foreign = await call(`admin/portal_account/${auction}/order_import/`, { token: boundDefault, body: {} });
    const absent = await call('admin/portal_account/999999/order_import/', { token: boundDefault, body: {} });
    expect(foreign.status, foreign.text).to.equal(404);
    expect(foreign.body.error![0]).to.include({ error: absent.body.error![0]!.error, field: 'portal_account_id' });
    expect(await imports()).to.equal(before);
  });

  it('when a client bound to the auction account, one granted all, or the seller asks, then 202 and the import is queued', async () => {
    for (const token of [boundAuction, everything, seller.token]) {
      const before = await imports();
      const res = await call(`admin/portal_account/${auction}/order_import/`, { token, body: {} });
      expect(res.status, res.text).to.equal(202);
      expect(await imports()).to.equal(before + 1);
    }
  });
});
