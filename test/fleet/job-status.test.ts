import { expect } from 'chai';
import { config, setConfig } from '../../config';
import { db } from '../../lib/db/knex';
import { sealCredentials } from '../../lib/secret/credentials';
import { call, newSeller, Seller } from '../support/api';
import { Fleet, Sandbox, startFleet, startSandbox, waitFor } from './support';

interface JobBody {
  job: { id: string; state: string; result?: Record<string, unknown>; error?: string; attempts: number; created_date: string; finished_date?: string };
}

async function createItem(seller: Seller, stock: Record<string, unknown>): Promise<number> {
  const res = await call('stock/', { token: seller.token, body: { stock } });
  expect(res.status, res.text).to.equal(201);
  return Number(res.body.stock_id);
}

const auctionItem = {
  name: 'Lamp',
  price: '19.90',
  barcode: '4006381333931',
  quantity: 4,
  // eBay lists through business policies and needs a category.
  auction_a: [
    {
      name: 'Desk lamp',
      price: '19.90',
      duration: 'GTC',
      category_1_id: '112581',
      seller_profile: { payment: [{ id: 101 }], refund: [{ id: 102 }], shipping: [{ id: 103 }] },
    },
  ],
};

async function upload(seller: Seller, stockId: number | string, portalUpload: Record<string, unknown>) {
  return call(`stock/${stockId}/portal_upload/`, { token: seller.token, body: { portal_upload: portalUpload } });
}

async function job(seller: Seller, jobId: string) {
  return call(`job/${jobId}/`, { token: seller.token });
}

describe('fleet: job status and portal uploads', () => {
  let seller: Seller;
  let sandbox: Sandbox;
  let fleet: Fleet | undefined;
  before(async () => {
    sandbox = await startSandbox();
  });
  after(async () => {
    await sandbox.close();
  });
  beforeEach(async () => {
    seller = await newSeller();
  });
  afterEach(async () => {
    await fleet?.stop();
    fleet = undefined;
  });

  it('when a portal upload is posted, then each part answers 202 with a job id that reads queued until the relay moves it', async () => {
    const stockId = await createItem(seller, auctionItem);
    const res = await upload(seller, stockId, { auction_a: [{ action: 'list' }], market_e: [{ action: 'delete' }] });
    expect(res.status, res.text).to.equal(207);
    const parts = res.body.response as { path: string; code: number; job_id: string }[];
    expect(parts.map((p) => [p.path, p.code])).to.deep.equal([
      ['portal_upload.auction_a[0]', 202],
      ['portal_upload.market_e[0]', 202],
    ]);
    const status = await job(seller, parts[0]!.job_id);
    expect(status.status).to.equal(200);
    expect((status.body as unknown as JobBody).job).to.include({ id: parts[0]!.job_id, state: 'queued', attempts: 0 });
  });

  it('when the workers run the job, then its status is completed with the result, the sandbox has the offer and CIA caps its quantity', async () => {
    fleet = await startFleet();
    const stockId = await createItem(seller, { ...auctionItem, cia: { auction_a: { is_active: true, max_quantity: 2 } } });
    const res = await upload(seller, stockId, { auction_a: [{ action: 'list' }] });
    const jobId = (res.body.response as { job_id: string }[])[0]!.job_id;
    const done = await waitFor('job completed', async () => {
      const body = (await job(seller, jobId)).body as unknown as JobBody;
      if (body.job.state === 'failed') throw new Error(JSON.stringify(body));
      return body.job.state === 'completed' ? body.job : undefined;
    });
    expect(done.result).to.include({ action: 'list', portal: 'auction_a' });
    expect(done.finished_date).to.be.a('string');
    const offers = [...sandbox.state.offers.values()].filter(
      (o) => o.portal === 'auction_a' && o.sku === String(stockId) && o.portalAccount === String(seller.portalAccountId),
    );
    expect(offers).to.have.length(1);
    const listing = offers[0]!.listing as { inventoryItem: { product: { title: string } }; offer: Record<string, unknown> };
    expect(listing.inventoryItem.product.title).to.equal('Desk lamp');
    expect(listing.offer).to.include({ format: 'FIXED_PRICE', listingDuration: 'GTC', categoryId: '112581', marketplaceId: 'EBAY_DE' });
    // The listing sent the item's 4; CIA's max_quantity has the last word.
    await waitFor('the capped quantity', () => sandbox.state.quantities(String(seller.portalAccountId)).auction_a?.[String(stockId)] === 2);

    // Revising the live offer by its AUCTIONA_ id reaches the same offer.
    const revise = await upload(seller, stockId, {
      auction_a: [{ action: 'revise', revise_values: ['price'], auction_a_live_id: `AUCTIONA_${done.result!.portal_item_id as string}` }],
    });
    expect((revise.body.response as { code: number }[])[0]!.code, revise.text).to.equal(202);
  });

  it('when another account asks for the job, or the id is malformed, then the answer is 404', async () => {
    const stockId = await createItem(seller, auctionItem);
    const res = await upload(seller, stockId, { market_e: [{ action: 'list' }] });
    const jobId = (res.body.response as { job_id: string }[])[0]!.job_id;
    const other = await newSeller();
    const foreign = await job(other, jobId);
    expect(foreign.status).to.equal(404);
    expect(foreign.body.error![0]!.error).to.equal('not_found');
    expect((await job(seller, 'not-a-job')).status).to.equal(404);
    expect((await job(seller, '6f1c2f0e-0000-4000-8000-000000000000')).status).to.equal(404);
  });

  it('when a portal answers 500 then 200, then the job is retried and its status shows the failure until it succeeds', async () => {
    const saved = config();
    setConfig({ ...saved, jobBackoffMs: 400 });
    try {
      fleet = await startFleet();
      sandbox.state.faults.push({
        portal: 'market_e',
        portalAccount: String(seller.portalAccountId),
        status: 500,
        remaining: 2,
        message: 'market_e is having a moment',
      });
      const stockId = await createItem(seller, { ...auctionItem, market_e: { ean: '4006381333931', price: '18.00' } });
      const res = await upload(seller, stockId, { market_e: [{ action: 'list' }] });
      const jobId = (res.body.response as { job_id: string }[])[0]!.job_id;
      const retrying = await waitFor('the failure visible', async () => {
        const body = (await job(seller, jobId)).body as unknown as JobBody;
        return body.job.error && body.job.state !== 'completed' ? body.job : undefined;
      });
      expect(retrying.error).to.contain('500');
      expect(retrying.state).to.be.oneOf(['queued', 'active']);
      const done = await waitFor('job completed', async () => {
        const body = (await job(seller, jobId)).body as unknown as JobBody;
        return body.job.state === 'completed' ? body.job : undefined;
      });
      expect(done.attempts).to.equal(3);
    } finally {
      setConfig({ ...config(), jobBackoffMs: saved.jobBackoffMs });
    }
  });

  it('when a portal answers 429 with Retry-After, then the retry waits that long', async () => {
    fleet = await startFleet();
    sandbox.state.faults.push({
      portal: 'market_e',
      portalAccount: String(seller.portalAccountId),
      status: 429,
      remaining: 1,
      retryAfter: '1',
      message: 'slow down',
    });
    const stockId = await createItem(seller, { ...auctionItem, market_e: { ean: '4006381333931', price: '18.00' } });
    const res = await upload(seller, stockId, { market_e: [{ action: 'list' }] });
    const jobId = (res.body.response as { job_id: string }[])[0]!.job_id;
    await waitFor('job completed', async () => ((await job(seller, jobId)).body as unknown as JobBody).job.state === 'completed');
    const calls = sandbox.state.requests.filter((r) => r.portal === 'market_e' && r.portalAccount === String(seller.portalAccountId));
    expect(calls.map((c) => c.status)).to.deep.equal([429, 201]);
    expect(Date.parse(calls[1]!.at) - Date.parse(calls[0]!.at)).to.be.at.least(900);
  });

  it("when a portal refuses with a 4xx, then the job fails at once with the portal's message", async () => {
    fleet = await startFleet();
    sandbox.state.faults.push({ portal: 'market_e', portalAccount: String(seller.portalAccountId), status: 422, remaining: 1, message: 'category missing' });
    const stockId = await createItem(seller, { ...auctionItem, market_e: { ean: '4006381333931', price: '18.00' } });
    const res = await upload(seller, stockId, { market_e: [{ action: 'list' }] });
    const jobId = (res.body.response as { job_id: string }[])[0]!.job_id;
    const failed = await waitFor('job failed', async () => {
      const body = (await job(seller, jobId)).body as unknown as JobBody;
      return body.job.state === 'failed' ? body.job : undefined;
    });
    expect(failed.error).to.contain('422').and.to.contain('category missing');
    expect(failed.attempts).to.equal(1);
  });

  it("when the item breaks a portal's own limits, then the job fails before anything is sent", async () => {
    fleet = await startFleet();
    const stockId = await createItem(seller, { name: 'No price yet', quantity: 1, auction_a: [{ name: 'Unpriced', duration: 'GTC' }] });
    const res = await upload(seller, stockId, { auction_a: [{ action: 'list' }] });
    const jobId = (res.body.response as { job_id: string }[])[0]!.job_id;
    const failed = await waitFor('job failed', async () => {
      const body = (await job(seller, jobId)).body as unknown as JobBody;
      return body.job.state === 'failed' ? body.job : undefined;
    });
    expect(failed.error).to.equal('auction_a: a price is required');
    expect(failed.attempts).to.equal(1);
    expect(sandbox.state.requests.filter((r) => r.portalAccount === String(seller.portalAccountId))).to.have.length(0);
  });

  it('when parts name an action the portal does not take, an unknown portal account or no live listing, then those parts are refused and the others accepted', async () => {
    const stockId = await createItem(seller, auctionItem);
    const res = await upload(seller, stockId, {
      auction_a: [
        { action: 'revise', revise_values: ['price'] },
        { action: 'list', portal_account_id: 999999 },
      ],
      market_f: [{ action: 'delete' }],
      shop_g: [{ action: 'list' }],
    });
    expect(res.status).to.equal(207);
    const parts = res.body.response as { path: string; code: number; job_id?: string }[];
    expect(parts.map((p) => [p.path, p.code])).to.deep.equal([
      ['portal_upload.auction_a[0]', 404],
      ['portal_upload.auction_a[1]', 404],
      ['portal_upload.market_f[0]', 400],
      ['portal_upload.shop_g[0]', 202],
    ]);
    expect(parts[3]!.job_id).to.be.a('string');
    expect(parts[0]!.job_id).to.equal(undefined);
  });

  it('when the body is malformed, then the answer is 400 naming the field and no job is written', async () => {
    const stockId = await createItem(seller, auctionItem);
    const res = await upload(seller, stockId, { auction_a: [{ action: 'sell' }] });
    expect(res.status).to.equal(400);
    expect(res.body.error![0]!.field).to.equal('portal_upload.auction_a[0].action');
    const unknown = await upload(seller, 'SKU_nothing-here', { shop_g: [{ action: 'list' }] });
    expect(unknown.status).to.equal(404);
  });
});

describe('fleet: portal accounts as targets', () => {
  let seller: Seller;
  let fallback: Sandbox;
  let own: Sandbox;
  let fleet: Fleet;
  before(async () => {
    own = await startSandbox();
    fallback = await startSandbox();
    fleet = await startFleet();
  });
  after(async () => {
    await fleet.stop();
    await own.close();
    await fallback.close();
  });
  beforeEach(async () => {
    seller = await newSeller();
  });

  it('when the portal account has a base URL and eBay OAuth2 credentials, then calls go there with a bearer token', async () => {
    // The sandbox's eBay consent hands out the account's client id, secret and refresh token.
    const consent = await fetch(`${own.url}/_sandbox/ebay/consent`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ portal_account: seller.portalAccountId }),
    });
    await db()('portal_account')
      .where({ account_id: seller.id, id: seller.portalAccountId })
      .update({ base_url: own.url, credentials: sealCredentials('portal_account', (await consent.json()) as Record<string, unknown>) });
    const stockId = await createItem(seller, auctionItem);
    const res = await upload(seller, stockId, { auction_a: [{ action: 'list' }], shop_g: [{ action: 'list' }] });
    const ids = (res.body.response as { job_id: string }[]).map((p) => p.job_id);
    for (const id of ids) await waitFor('job completed', async () => ((await job(seller, id)).body as unknown as JobBody).job.state === 'completed');
    const calls = own.state.requests.filter((r) => r.portalAccount === String(seller.portalAccountId));
    expect(calls.find((r) => r.portal === 'auction_a' && r.method === 'PUT')?.bearer).to.equal(true);
    // shop_g takes no OAuth2: the credentials are not used there.
    expect(calls.find((r) => r.portal === 'shop_g' && r.method === 'POST')?.bearer).to.equal(false);
    expect(fallback.state.requests.filter((r) => r.portalAccount === String(seller.portalAccountId))).to.have.length(0);
  });
});
