/**
 * Stock_portal_upload_type against document 2 ("Portal upload"): the auction part's start is a
 * date (for list), and a listing sent with one is scheduled at eBay, not started at once.
 */
import { expect } from 'chai';
import { AuctionAAdapter } from '../../lib/portals/auction-a.adapter';
import type { PortalTarget } from '../../lib/portals/portal.type';
import type { SandboxState } from '../../sandbox/sandbox.app';
import { sandboxForSuite } from '../portals/sandbox-server';
import { call, newSeller, Seller } from '../support/api';
import { createItem } from './helpers';

describe('stock/{id}/portal_upload/ fields tried from outside (document 2)', () => {
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });

  for (const start of ['never', '2026-02-30 10:00:00', 'tomorrow']) {
    it(`when auction_a[].start is '${start}', not a date, then 400 names portal_upload.auction_a[0].start and no part is planned`, async () => {
      const id = await createItem(seller, { name: 'Lamp', auction_a: [{ name: 'Lamp' }] });
      const res = await call(`stock/${id}/portal_upload/`, { token: seller.token, body: { portal_upload: { auction_a: [{ action: 'list', start }] } } });
      expect(res.status, res.text).to.equal(400);
      expect((res.body.error ?? []).map((e) => e.field)).to.deep.equal(['portal_upload.auction_a[0].start']);
      expect(res.body).not.to.have.property('response');
    });
  }

  it('when every part is refused, then each error names its part and field, in response[] and in the root error[] of ack error, and no job is planned', async () => {
    const id = await createItem(seller, { name: 'Lamp', auction_a: [{ name: 'Lamp' }] });
    const body = {
      portal_upload: {
        auction_a: [
          { action: 'list', lister_id: 'NO_77' },
          { action: 'revise', auction_a_live_id: 'AUCTIONA_123' },
          { action: 'revise', revise_values: ['price'] },
        ],
        market_e: [{ action: 'list', portal_account_id: 999999 }],
        market_f: [{ action: 'delete' }],
      },
    };
    const res = await call(`stock/${id}/portal_upload/`, { token: seller.token, body });
    expect(res.status, res.text).to.equal(207);
    expect(res.body.ack).to.equal('error');
    const expected = [
      ['portal_upload.auction_a[0]', 404, 'unknown_lister', 'portal_upload.auction_a[0].lister_id'],
      ['portal_upload.auction_a[1]', 404, 'unknown_live_listing', 'portal_upload.auction_a[1].auction_a_live_id'],
      ['portal_upload.auction_a[2]', 404, 'no_live_listing', 'portal_upload.auction_a[2].auction_a_live_id'],
      ['portal_upload.market_e[0]', 404, 'unknown_portal_account', 'portal_upload.market_e[0].portal_account_id'],
      ['portal_upload.market_f[0]', 400, 'unsupported_action', 'portal_upload.market_f[0].action'],
    ];
    const parts = res.body.response as { path: string; code: number; job_id?: string; error: { error: string; field?: string }[] }[];
    expect(parts.map((p) => [p.path, p.code, p.error[0]!.error, p.error[0]!.field])).to.deep.equal(expected);
    expect(parts.filter((p) => p.job_id !== undefined)).to.deep.equal([]);
    expect((res.body.error ?? []).map((e) => e.field)).to.deep.equal(expected.map((e) => e[3]));
  });

  it('when auction_a[].start is a datetime, then the part is planned (202 with a job id)', async () => {
    const id = await createItem(seller, { name: 'Lamp', auction_a: [{ name: 'Lamp' }] });
    const res = await call(`stock/${id}/portal_upload/`, {
      token: seller.token,
      body: { portal_upload: { auction_a: [{ action: 'list', start: '2026-12-07T09:00:00Z' }] } },
    });
    expect(res.status, res.text).to.equal(207);
    expect(res.body.response).to.have.length(1);
    expect((res.body.response as { code: number; job_id?: string }[])[0])
      .to.include({ code: 202 })
      .and.to.have.property('job_id');
  });
});

describe('a listing with a start, at the sandbox eBay', function () {
  this.timeout(20000);
  let state: SandboxState;
  let url: string;
  sandboxForSuite((sandbox) => ({ url, state } = sandbox), 'ebay');
  const adapter = new AuctionAAdapter();
  const group = {
    name: 'Desk lamp',
    price: '19.90',
    category_1_id: '112581',
    seller_profile: { payment: [{ id: 11 }], refund: [{ id: 12 }], shipping: [{ id: 13 }] },
  };

  it("when the item carries portal_upload's start, then the offer eBay gets has it as listingStartDate; without one it has none", async () => {
    const target: PortalTarget = { portalAccountId: 9_500_000 + (process.pid % 1000), baseUrl: url, credentials: {} };
    const item = { stockId: 1, name: 'Lamp', sku: 'LAMP-START', ean: null, price: '19.90', quantityAvailable: 2, group };
    await adapter.list(target, { ...item, start: '2026-12-07T09:00:00.000Z' }, 'start-1');
    await adapter.list(target, { ...item, stockId: 2, sku: 'LAMP-NOW' }, 'start-2');
    const created = state.requests.filter(
      (r) => r.portalAccount === String(target.portalAccountId) && r.method === 'POST' && r.path === '/sell/inventory/v1/offer',
    );
    expect(created.map((r) => (r.body as { sku: string; listingStartDate?: string }).listingStartDate ?? null)).to.deep.equal([
      '2026-12-07T09:00:00.000Z',
      null,
    ]);
  });
});
