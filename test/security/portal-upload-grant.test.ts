/**
 * Document 1, Authentication 5, for POST stock/{stock_id}/portal_upload/: a client bound to one
 * portal account lists, revises and ends offers on that portal account only. A part naming another
 * of the seller's portal accounts is the 404 of a portal account that does not exist, and no
 * portal.upload job is queued; the seller's own token still lists there.
 */
import { expect } from 'chai';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { db } from '../../lib/db';
import { call, newSeller, Seller } from '../support/api';
import { clientToken } from '../support/bound-client';

describe('portal uploads under a portal-account grant', () => {
  let seller: Seller;
  let bound1: string;
  let account2: number;
  let stockId: number;

  before(async () => {
    seller = await newSeller();
    account2 = (await createPortalAccount(seller.id, { name: 'Shop 2', platform: 'shop_g' })).id;
    const item = await call('stock/', { token: seller.token, body: { stock: { name: 'Lamp', quantity: 3 } } });
    expect(item.status, item.text).to.equal(201);
    stockId = Number(item.body.stock_id);
    bound1 = await clientToken(seller, 'upload-one', seller.portalAccountId, 'stock_r stock_w');
  });

  const uploads = async () =>
    Number(((await db()('outbox').where({ account_id: seller.id, job_name: 'portal.upload' }).count('* as n')) as { n: string }[])[0]!.n);
  const upload = (token: string, portalAccountId: number) =>
    call(`stock/${stockId}/portal_upload/`, { token, body: { portal_upload: { shop_g: [{ action: 'list', portal_account_id: portalAccountId }] } } });

  type Part = { path: string; code: number; error?: { error: string }[] };
  const part = (res: { body: Record<string, unknown> }) => (res.body.response as Part[])[0]!;

  it('when a client bound to portal account 1 lists an item on portal account 2, then that part is a 404 unknown_portal_account (207), and nothing is queued', async () => {
    const res = await upload(bound1, account2);
    expect(res.status, res.text).to.equal(207);
    expect(part(res)).to.deep.include({ path: 'portal_upload.shop_g[0]', code: 404 });
    expect(part(res).error![0]).to.include({ error: 'unknown_portal_account' });
    expect(await uploads()).to.equal(0);
  });

  it('when it lists on its own portal account, or the seller lists on portal account 2, then each part is queued (202)', async () => {
    const own = await upload(bound1, seller.portalAccountId);
    const bySeller = await upload(seller.token, account2);
    expect([part(own).code, part(bySeller).code], `${own.text} ${bySeller.text}`).to.deep.equal([202, 202]);
    expect(await uploads()).to.equal(2);
  });
});
