/**
 * What the sandbox's vendors refuse as the vendors do, from their contract files in
 * ../shared/contracts/ (never copied): requests an adapter could send wrongly without any other
 * test noticing, because the emulator used to take them.
 */
import { expect } from 'chai';
import { processingReportProblems } from '../../sandbox/amazon-contract';
import { sandboxForSuite } from '../portals/sandbox-server';

const DE = 'A1PA6795UKMFR9';

describe('the sandbox refuses what the vendors refuse', function () {
  this.timeout(20000);
  let url = '';
  sandboxForSuite((s) => {
    url = s.url;
  });

  describe('Amazon Feeds 2021-06-30 and the JSON_LISTINGS_FEED (listings-feed-schema-v2.json)', () => {
    const account = 'strict-feed';
    let token = '';
    before(async () => {
      const lwa = await fetch(`${url}/auth/o2/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: `Atzr|sandbox-${account}`, client_id: 'c', client_secret: 's' }),
      });
      token = ((await lwa.json()) as { access_token: string }).access_token;
      await fetch(`${url}/_sandbox/amazon/config`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ feed_ms: 20 }),
      });
    });
    const sp = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: { 'x-amz-access-token': token, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const contentType = 'application/json; charset=UTF-8';

    /** createFeedDocument, the upload, createFeed; then the processing report once the feed is DONE. */
    async function feedReport(document: unknown): Promise<{ issues: { messageId?: number; severity: string; message: string }[] }> {
      const doc = await sp('POST', '/feeds/2021-06-30/documents', { contentType });
      expect(
        (await fetch(doc.body.url as string, { method: 'PUT', headers: { 'Content-Type': contentType }, body: JSON.stringify(document) })).status,
      ).to.equal(200);
      const feed = await sp('POST', '/feeds/2021-06-30/feeds', {
        feedType: 'JSON_LISTINGS_FEED',
        marketplaceIds: [DE],
        inputFeedDocumentId: doc.body.feedDocumentId,
      });
      expect(feed.status).to.equal(202);
      for (let i = 0; i < 100; i++) {
        const got = await sp('GET', `/feeds/2021-06-30/feeds/${feed.body.feedId as string}`);
        if (got.body.processingStatus === 'DONE') {
          const report = await sp('GET', `/feeds/2021-06-30/documents/${got.body.resultFeedDocumentId as string}`);
          return (await (await fetch(report.body.url as string)).json()) as { issues: { messageId?: number; severity: string; message: string }[] };
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error('the feed did not finish');
    }
    const message = (messageId: number, sku: string, patch: Record<string, unknown>) => ({
      messageId,
      sku,
      operationType: 'PATCH',
      productType: 'PRODUCT',
      patches: [{ op: 'replace', path: '/attributes/fulfillment_availability', value: [{ fulfillment_channel_code: 'DEFAULT', quantity: 4 }], ...patch }],
    });
    const header = { sellerId: 'SANDBOXstrict', version: '2.0' };

    it('when one message breaks the feed schema (an unknown JSON Patch op), then that message is refused in the processing report and the others are applied', async () => {
      const report = await feedReport({ header, messages: [message(1, 'FEED-A', { op: 'set' }), message(2, 'FEED-B', {})] });
      const errors = report.issues.filter((i) => i.severity === 'ERROR');
      expect(errors.map((i) => i.messageId)).to.deep.equal([1]);
      expect(errors[0]!.message).to.match(/patches\/0\/op .*add, replace, merge, delete/);
      const quantities = (await (await fetch(`${url}/_sandbox/quantities?portal=market_d`)).json()) as Record<string, unknown>[];
      const shown = JSON.stringify(quantities);
      expect(shown).to.include('FEED-B');
      expect(shown).not.to.include('FEED-A');
    });

    it('when the document itself breaks the schema (a header without sellerId), then the whole feed is refused with an issue of no messageId', async () => {
      const report = await feedReport({ header: { version: '2.0' }, messages: [message(1, 'FEED-C', {})] });
      const errors = report.issues.filter((i) => i.severity === 'ERROR');
      expect(errors).to.have.length.greaterThan(0);
      expect(errors.every((i) => i.messageId === undefined)).to.equal(true);
      expect(JSON.stringify((await (await fetch(`${url}/_sandbox/quantities?portal=market_d`)).json()) as unknown)).not.to.include('FEED-C');
    });

    it('when the upload sends another Content-Type than createFeedDocument named, then the presigned URL answers 403 SignatureDoesNotMatch', async () => {
      const doc = await sp('POST', '/feeds/2021-06-30/documents', { contentType });
      const upload = await fetch(doc.body.url as string, { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body: '{}' });
      expect(upload.status).to.equal(403);
      expect(await upload.text()).to.include('SignatureDoesNotMatch');
    });

    it('the processing reports of these feeds keep listings-feed-processing-report-schema-v2.json, which refuses a report without its summary', async () => {
      const violations = (await (await fetch(`${url}/_sandbox/violations?vendor=amazon`)).json()) as { kind?: string; contract: string | null }[];
      expect(violations.filter((v) => v.contract === 'listings-feed-processing-report-schema-v2.json')).to.deep.equal([]);
      const report = { header: { sellerId: 'S', version: '2.0', feedId: '1' }, issues: [{ messageId: 1, severity: 'ERROR', message: 'x' }] };
      expect(processingReportProblems(report).map((p) => p.message)).to.deep.equal(["must have required property 'summary'"]);
      const summary = { errors: 1, warnings: 0, messagesProcessed: 1, messagesAccepted: 0, messagesInvalid: 1 };
      expect(processingReportProblems({ ...report, summary })).to.deep.equal([]);
    });
  });

  describe('eBay Fulfillment getOrders (sell_fulfillment_v1_oas3.json: its parameters and 400 errors)', () => {
    const orders = async (query: string) => {
      const res = await fetch(`${url}/sell/fulfillment/v1/order?${query}`, { headers: { Authorization: 'Bearer sandbox-account-990001' } });
      return { status: res.status, body: (await res.json()) as { errors?: { errorId: number; message: string }[]; orders?: unknown[] } };
    };
    const since = encodeURIComponent(`lastmodifieddate:[${new Date(Date.now() - 60000).toISOString()}..]`);

    it('when a test scripts a fault of a status the operation does not document (422), then the sandbox answers it and records no violation of its own answer', async () => {
      await fetch(`${url}/_sandbox/faults`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ portal: 'auction_a', portal_account: '990001', status: 422, count: 1, message: 'scripted' }),
      });
      expect((await orders(`filter=${since}`)).status).to.equal(422);
      expect((await (await fetch(`${url}/_sandbox/violations?vendor=ebay`)).json()) as unknown[]).to.deep.equal([]);
    });

    it('when the limit is above 200, then 400 with errorId 31100 ("If a requested limit is more than 200, the call fails")', async () => {
      expect((await orders(`filter=${since}&limit=200`)).status).to.equal(200);
      const over = await orders(`filter=${since}&limit=201`);
      expect([over.status, over.body.errors![0]!.errorId]).to.deep.equal([400, 31100]);
    });

    it('when the filter names an unknown criterion, a date not in UTC ISO 8601, no start or a start in the future, then 400 with its errorId', async () => {
      const errorOf = async (filter: string) => (await orders(`filter=${encodeURIComponent(filter)}`)).body.errors?.[0]?.errorId;
      expect(await errorOf('modifieddate:[2026-11-01T00:00:00.000Z..]')).to.equal(30700);
      expect(await errorOf('lastmodifieddate:[2026-11-01 00:00:00..]')).to.equal(30810);
      expect(await errorOf('lastmodifieddate:[2026-11-01T00:00:00+01:00..]')).to.equal(30810);
      expect(await errorOf('lastmodifieddate:[..2026-11-01T00:00:00.000Z]')).to.equal(30820);
      expect(await errorOf(`lastmodifieddate:[${new Date(Date.now() + 3600000).toISOString()}..]`)).to.equal(30850);
      expect(await errorOf('creationdate:[2026-11-02T00:00:00.000Z..2026-11-01T00:00:00.000Z]')).to.equal(30840);
      expect(await errorOf('lastmodifieddate:[2026-11-01T00:00:00Z..],orderfulfillmentstatus:{NOT_STARTED|IN_PROGRESS}')).to.equal(undefined);
    });
  });

  describe('Shopify Admin GraphQL 2025-01 inventorySetQuantities (admin_schema_2025-01.json InventorySetQuantitiesUserErrorCode)', () => {
    const mutation = `mutation Q($input: InventorySetQuantitiesInput!) { inventorySetQuantities(input: $input) { inventoryAdjustmentGroup { id } userErrors { field message code } } }`;
    const set = async (input: Record<string, unknown>) => {
      const res = await fetch(`${url}/admin/api/2025-01/graphql.json`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Shopify-Access-Token': 'shpat_sandbox_990002' },
        body: JSON.stringify({ query: mutation, variables: { input } }),
      });
      expect(res.status).to.equal(200);
      const body = (await res.json()) as { data: { inventorySetQuantities: { userErrors: { field: string[]; code: string }[] } } };
      return body.data.inventorySetQuantities.userErrors.map((e) => `${e.code} ${e.field.join('.')}`);
    };
    const item = 'gid://shopify/InventoryItem/1';
    const location = 'gid://shopify/Location/1';

    it('when the reason is not one of Shopify’s, a quantity is negative or an item and location come twice, then userErrors in a 200 name them', async () => {
      const errors = await set({
        name: 'available',
        reason: 'sync',
        ignoreCompareQuantity: true,
        quantities: [
          { inventoryItemId: item, locationId: location, quantity: -1 },
          { inventoryItemId: item, locationId: location, quantity: 2 },
        ],
      });
      expect(errors).to.include.members([
        'INVALID_REASON input.reason',
        'INVALID_QUANTITY_NEGATIVE input.quantities.0.quantity',
        'NO_DUPLICATE_INVENTORY_ITEM_ID_GROUP_ID_PAIR input.quantities.1',
      ]);
      expect(
        await set({
          name: 'available',
          reason: 'correction',
          ignoreCompareQuantity: true,
          quantities: [{ inventoryItemId: item, locationId: location, quantity: 2 }],
        }),
      ).not.to.include.members(['INVALID_REASON input.reason']);
    });
  });
});
