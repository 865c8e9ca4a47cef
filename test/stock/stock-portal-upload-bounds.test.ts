/**
 * POST stock/{stock_id}/portal_upload/ is bounded and weighed as document 1's bulk requests are
 * ("Items in one order/list/ or stock/list/ request: up to 200"; "Weight of bulk requests: 1/10
 * per item (200 items count as 20 requests)"), over all its portal lists together, and identical
 * parts share one job. Before, 10,000 parts per portal list were planned as 10,000 jobs, weighed
 * one call, and starved every other seller's uploads on the portal_upload queue.
 */
import { expect } from 'chai';
import { config, setConfig } from '../../config';
import { db } from '../../lib/db/knex';
import { call, newSeller, Seller } from '../support/api';
import { createItem } from './helpers';

type Part = { path: string; code: number; job_id?: string };

describe('stock/{id}/portal_upload/ bounds, weight and merged parts', () => {
  let seller: Seller;
  let stockId: number;
  const saved = config();
  beforeEach(async () => {
    // A window length no other test uses: this account's rate counter starts empty even when a
    // parallel test database reuses its id in the shared Redis.
    setConfig({ ...saved, rateLimitWindowSeconds: 7907 });
    seller = await newSeller();
    stockId = await createItem(seller, { name: 'Mug', quantity: 3 });
  });
  afterEach(() => setConfig(saved));

  const upload = (portalUpload: Record<string, unknown>) =>
    call(`stock/${stockId}/portal_upload/`, { token: seller.token, body: { portal_upload: portalUpload } });
  const parts = (n: number, part: Record<string, unknown>) => Array.from({ length: n }, () => ({ ...part }));
  const jobRows = async () => db()('outbox').where({ account_id: seller.id, job_name: 'portal.upload' }).select('job_id', 'payload');
  const remaining = (res: Awaited<ReturnType<typeof upload>>) => Number(res.headers.get('x-ratelimit-remaining'));
  /** The quota left after a one-call read of the item. */
  const remainingNow = async () => remaining(await call(`stock/${stockId}/`, { token: seller.token }));

  it('when 201 parts are sent over two portals, then 400 naming portal_upload and the bound 200, nothing queued and nothing counted', async () => {
    const before = await remainingNow();
    const res = await upload({
      shop_g: parts(101, { action: 'list', portal_account_id: seller.portalAccountId }),
      market_e: parts(100, { action: 'list', portal_account_id: seller.portalAccountId }),
    });
    expect(res.status, res.text.slice(0, 300)).to.equal(400);
    const error = (res.body.error as { field?: string; description: string; error: string }[])[0]!;
    expect(error.field).to.equal('portal_upload');
    expect(error.error).to.equal('too_many_items');
    expect(error.description).to.contain('at most 200');
    expect(await jobRows()).to.have.length(0);
    // Refused before it is counted, as a body too large is: the quota stands as before.
    expect(remaining(res)).to.equal(before);
  });

  it('when 10,000 parts are sent in one portal list, then 400 at once and nothing queued', async () => {
    const res = await upload({ shop_g: parts(10_000, { action: 'list', portal_account_id: seller.portalAccountId }) });
    expect(res.status, res.text.slice(0, 300)).to.equal(400);
    expect((res.body.error as { field?: string }[])[0]!.field).to.equal('portal_upload');
    expect(await jobRows()).to.have.length(0);
  });

  it('when 200 parts are sent, then 207 with a 202 each, and the request weighs 20 calls', async () => {
    const before = await remainingNow();
    const res = await upload({
      shop_g: parts(100, { action: 'list', portal_account_id: seller.portalAccountId }),
      market_e: [...parts(50, { action: 'list' }), ...parts(50, { action: 'delete' })],
    });
    expect(res.status, res.text.slice(0, 300)).to.equal(207);
    const answered = res.body.response as Part[];
    expect(answered).to.have.length(200);
    expect(answered.every((p) => p.code === 202 && typeof p.job_id === 'string')).to.equal(true);
    expect(answered.map((p) => p.path)).to.have.members([
      ...Array.from({ length: 100 }, (_, i) => `portal_upload.shop_g[${i}]`),
      ...Array.from({ length: 100 }, (_, i) => `portal_upload.market_e[${i}]`),
    ]);
    expect(before - remaining(res)).to.equal(20);
  });

  it('when parts plan the same job (same portal, action and portal account), then they share one job and each answers its id', async () => {
    const res = await upload({
      // The default portal account named three ways: by id, as default, and left out.
      shop_g: [{ action: 'list', portal_account_id: seller.portalAccountId }, { action: 'list', portal_account_id: 'default' }, { action: 'list' }],
      market_e: [{ action: 'list' }, { action: 'delete' }, { action: 'list' }],
    });
    expect(res.status, res.text.slice(0, 300)).to.equal(207);
    const answered = res.body.response as Part[];
    expect(answered.map((p) => p.code)).to.deep.equal([202, 202, 202, 202, 202, 202]);
    const id = (path: string) => answered.find((p) => p.path === `portal_upload.${path}`)!.job_id!;
    const shopList = id('shop_g[0]');
    expect([id('shop_g[1]'), id('shop_g[2]')]).to.deep.equal([shopList, shopList]);
    expect(id('market_e[2]')).to.equal(id('market_e[0]'));
    const distinct = [shopList, id('market_e[0]'), id('market_e[1]')];
    expect(new Set(distinct).size).to.equal(3);
    const rows = await jobRows();
    expect(rows.map((r: { job_id: string }) => r.job_id).sort()).to.deep.equal(distinct.sort());
    // A merged part's job reads as any other through the API.
    const status = await call(`job/${id('shop_g[2]')}/`, { token: seller.token });
    expect(status.status, status.text).to.equal(200);
    expect((status.body.job as { id: string }).id).to.equal(shopList);
  });
});
