/**
 * Stock_portal_upload_auction_a_type.auction_a_live_id (document 2: "for revise: id in the
 * live-listing table, or AUCTIONA_<portal item id>"): both forms name a live listing of the item.
 * A listing that has ended (a main's eBay listing withdrawn, a variant off its group) keeps its
 * eBay listing id in Kontor's record, so AUCTIONA_ of that id names no live listing.
 */
import { expect } from 'chai';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { db } from '../../lib/db/knex';
import { stockPortalRepository } from '../../lib/stock/stock-portal.repository';
import { call, newSeller, Seller } from '../support/api';
import { createItem } from './helpers';

describe('stock/{id}/portal_upload/ revise by auction_a_live_id', () => {
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });

  /** The item's auction_a listing record, as a list (listed) or an end (ended, the id kept) leaves it. */
  async function recordListing(stockId: number, portalItemId: string, status: 'listed' | 'ended', portalAccountId = seller.portalAccountId) {
    const listerId = (await stockPortalRepository.listerIds(db(), seller.id, stockId, 'auction_a'))[0] ?? '';
    await db()('portal_listing')
      .insert({
        account_id: seller.id,
        stock_id: stockId,
        portal: 'auction_a',
        portal_account_id: portalAccountId,
        lister_id: listerId,
        portal_item_id: portalItemId,
        status,
      })
      .onConflict(['account_id', 'stock_id', 'portal', 'portal_account_id', 'lister_id'])
      .merge(['portal_item_id', 'status']);
  }

  const revise = (stockId: number, live: string, portalAccountId?: number) =>
    call(`stock/${stockId}/portal_upload/`, {
      token: seller.token,
      body: {
        portal_upload: {
          auction_a: [
            { action: 'revise', revise_values: ['price'], auction_a_live_id: live, ...(portalAccountId ? { portal_account_id: portalAccountId } : {}) },
          ],
        },
      },
    });
  const partErrors = (res: Awaited<ReturnType<typeof revise>>) =>
    (res.body.response as { code: number; error?: { error: string }[] }[]).map((p) => [p.code, ...(p.error ?? []).map((e) => e.error)]);

  const jobsOf = async () => (await db()('outbox').where({ account_id: seller.id, job_name: 'portal.upload' }).select('id')).length;

  it('when AUCTIONA_<id> names the item’s ended listing, then the part is 404 unknown_live_listing and no job is planned; while it was live the part was planned', async () => {
    const id = await createItem(seller, { name: 'Lamp', auction_a: [{ name: 'Lamp', price: '19.90' }] });
    const listingId = `1100${String(seller.id).padStart(8, '0')}`;
    await recordListing(id, listingId, 'listed');
    const live = await revise(id, `AUCTIONA_${listingId}`);
    expect(live.status, live.text).to.equal(207);
    expect((live.body.response as { code: number }[])[0], live.text).to.include({ code: 202 });
    expect(await jobsOf()).to.equal(1);

    await recordListing(id, listingId, 'ended');
    const ended = await revise(id, `AUCTIONA_${listingId}`);
    expect(ended.status, ended.text).to.equal(207);
    const part = (ended.body.response as { code: number; error?: { error: string }[] }[])[0]!;
    expect(part.code, ended.text).to.equal(404);
    expect(
      part.error?.map((e) => e.error),
      ended.text,
    ).to.deep.equal(['unknown_live_listing']);
    expect(await jobsOf()).to.equal(1);
  });

  it('when the live id names the item’s listing at another portal account, by AUCTIONA_ or by its table id, then the part is 404 unknown_live_listing and no job is planned; at that account it is planned', async () => {
    const id = await createItem(seller, { name: 'Vase', auction_a: [{ name: 'Vase', price: '29.90' }] });
    const second = Number((await createPortalAccount(seller.id, { name: 'eBay 2', platform: 'auction_a' })).id);
    const listingId = `1200${String(seller.id).padStart(8, '0')}`;
    await recordListing(id, listingId, 'listed', second);
    const { id: tableId } = (await db()('portal_listing').where({ account_id: seller.id, stock_id: id, portal_account_id: second }).first('id')) as {
      id: string;
    };
    for (const live of [`AUCTIONA_${listingId}`, String(tableId)]) {
      const other = await revise(id, live);
      expect(other.status, other.text).to.equal(207);
      expect(partErrors(other), other.text).to.deep.equal([[404, 'unknown_live_listing']]);
    }
    expect(await jobsOf()).to.equal(0);
    const own = await revise(id, `AUCTIONA_${listingId}`, second);
    expect(partErrors(own), own.text).to.deep.equal([[202]]);
    expect(await jobsOf()).to.equal(1);
  });
});
