import { EventEmitter } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import os from 'node:os';
import { expect } from 'chai';
import express from 'express';
import { contractGate, mountContractControls, violationsOf } from '../../sandbox/contract/contract-gate';
import { config, loadConfig, setConfig } from '../../config';
import { contractFolder, contractsRoot } from '../../sandbox/contract/contract-files';
import { OpenApiContract } from '../../sandbox/contract/openapi-contract';
import { ebayContractGate } from '../../sandbox/ebay-contract.sandbox';

/** Amazon's error list for the Swagger 2.0 case (SP-API ErrorList: code, message, details). */
const amazonError = (problems: { message: string; name: string }[]) => ({
  errors: problems.map((p) => ({ code: 'InvalidInput', message: p.message, details: p.name })),
});

describe('the sandbox contract checker (sandbox/contract)', function () {
  this.timeout(20000);
  let server: Server;
  let url: string;
  const state = { events: new EventEmitter() };
  const handled: string[] = [];

  before(async () => {
    const app = express();
    app.use(express.json());
    app.use(['/sell', '/commerce'], ebayContractGate(app, state));
    const listings = OpenApiContract.load('ebay-amazon', 'listingsItems_2021-08-01.json');
    app.use('/listings', contractGate({ vendor: 'amazon', contracts: [listings], log: violationsOf(state), format: amazonError }));
    app.use((req, res) => {
      handled.push(`${req.method} ${req.originalUrl.split('?')[0]}`);
      res.json({ handled: true });
    });
    mountContractControls(app, state);
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => server.close());
  beforeEach(() => {
    state.events.emit('reset');
    handled.length = 0;
  });

  const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${url}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  /** The requests that broke a contract (this suite's stub route answers anything, so its answers are not held to the contract here; see the last test). */
  const allViolations = async (vendor: string) => (await (await fetch(`${url}/_sandbox/violations?vendor=${vendor}`)).json()) as Record<string, unknown>[];
  const violations = async (vendor: string) => (await allViolations(vendor)).filter((v) => v.kind !== 'response');

  it('when the contract folder is missing, then the error names the folder it looked for', () => {
    expect(() => contractFolder('no-such-vendor', os.tmpdir())).to.throw(/no-such-vendor.*missing/);
  });

  it('when SANDBOX_CONTRACTS_DIR names another place, then the contracts are looked for there', () => {
    const before = config();
    setConfig(loadConfig({ ...process.env, SANDBOX_CONTRACTS_DIR: os.tmpdir() }));
    try {
      expect(contractsRoot()).to.equal(os.tmpdir());
      expect(() => contractFolder('ebay-amazon')).to.throw(new RegExp(`${os.tmpdir()}/ebay-amazon is missing`));
    } finally {
      setConfig(before);
    }
    expect(contractFolder('ebay-amazon')).to.match(/shared\/contracts\/ebay-amazon$/);
  });

  it("when an eBay createOffer breaks the contract (a string quantity, an unknown field, no Content-Language), then 400 in eBay's error shape, recorded, and the route is not reached", async () => {
    const res = await send('POST', '/sell/inventory/v1/offer', {
      sku: 'A',
      marketplaceId: 'EBAY_DE',
      format: 'FIXED_PRICE',
      availableQuantity: 'three',
      quantity: 3,
    });
    expect(res.status).to.equal(400);
    const body = (await res.json()) as { errors: Record<string, unknown>[] };
    expect(body.errors.map((e) => [e.errorId, e.domain, e.category])).to.deep.include.members([[25709, 'API_INVENTORY', 'REQUEST']]);
    expect(body.errors.map((e) => e.parameters)).to.deep.include.members([
      [{ name: 'header', value: 'Content-Language' }],
      [{ name: 'field', value: 'availableQuantity' }],
      [{ name: 'field', value: 'quantity' }],
    ]);
    expect(handled).to.deep.equal([]);
    const [violation] = await violations('ebay');
    expect(violation).to.deep.include({ vendor: 'ebay', contract: 'Inventory API 1.18.0', operationId: 'createOffer', method: 'POST', status: 400 });
  });

  it('when an eBay request keeps the contract (createOffer, getOffers, a shipping fulfillment), then it reaches the route and nothing is recorded', async () => {
    const offer = {
      sku: 'A',
      marketplaceId: 'EBAY_DE',
      format: 'FIXED_PRICE',
      availableQuantity: 3,
      pricingSummary: { price: { value: '1.00', currency: 'EUR' } },
    };
    expect((await send('POST', '/sell/inventory/v1/offer', offer, { 'Content-Language': 'de-DE' })).status).to.equal(200);
    expect((await send('GET', '/sell/inventory/v1/offer?sku=A&marketplace_id=EBAY_DE')).status).to.equal(200);
    const fulfilment = { lineItems: [{ lineItemId: '1', quantity: 1 }], shippingCarrierCode: 'DHL', trackingNumber: '123' };
    expect((await send('POST', '/sell/fulfillment/v1/order/12-34/shipping_fulfillment', fulfilment)).status).to.equal(200);
    expect(handled).to.deep.equal([
      'POST /sell/inventory/v1/offer',
      'GET /sell/inventory/v1/offer',
      'POST /sell/fulfillment/v1/order/12-34/shipping_fulfillment',
    ]);
    expect(await violations('ebay')).to.deep.equal([]);
  });

  it('when the item’s aspects are a map (SOURCES.md: typed string in the file, a map in the documentation), then they pass; a string list does not', async () => {
    const item = { product: { title: 'Lamp', aspects: { Marke: ['Bauhaus'] } }, availability: { shipToLocationAvailability: { quantity: 2 } } };
    expect((await send('PUT', '/sell/inventory/v1/inventory_item/A', item, { 'Content-Language': 'de-DE' })).status).to.equal(200);
    const bad = { ...item, product: { title: 'Lamp', aspects: { Marke: 'Bauhaus' } } };
    expect((await send('PUT', '/sell/inventory/v1/inventory_item/A', bad, { 'Content-Language': 'de-DE' })).status).to.equal(400);
  });

  it('when a path is not in any eBay contract, then 404 in eBay’s shape (405 for a known path with another method)', async () => {
    const res = await send('GET', '/sell/inventory/v1/offers');
    expect(res.status).to.equal(404);
    expect(((await res.json()) as { errors: { errorId: number }[] }).errors[0]!.errorId).to.equal(2002);
    expect((await send('PATCH', '/sell/inventory/v1/offer/5')).status).to.equal(405);
    expect((await violations('ebay')).map((v) => v.status)).to.deep.equal([404, 405]);
  });

  it("when a Swagger 2.0 operation (Amazon Listings Items) misses a required query parameter or an enum, then 400 in the vendor's shape; a good one passes", async () => {
    const path = '/listings/2021-08-01/items/A1SELLER/SKU-1';
    const missing = await send('GET', path);
    expect(missing.status).to.equal(400);
    expect(await missing.json()).to.deep.equal({
      errors: [{ code: 'InvalidInput', message: 'the query parameter marketplaceIds is required', details: 'marketplaceIds' }],
    });
    const patch = await send('PATCH', `${path}?marketplaceIds=A1PM5LWPCFZ9HZ`, { productType: 'LAMP', patches: [{ op: 'bump', path: '/attributes/x' }] });
    expect(patch.status).to.equal(400);
    expect(((await patch.json()) as { errors: { details: string }[] }).errors[0]!.details).to.equal('patches[0].op');
    const good = await send('PATCH', `${path}?marketplaceIds=A1PM5LWPCFZ9HZ`, {
      productType: 'LAMP',
      patches: [{ op: 'replace', path: '/attributes/x', value: [{ value: 1 }] }],
    });
    expect(good.status).to.equal(200);
    expect((await violations('amazon')).map((v) => v.operationId)).to.deep.equal(['getListingsItem', 'patchListingsItem']);
  });

  it('when the sandbox answers what the contract does not document (a status, a field, a wrong type, a missing required field), then its answer is recorded as a response violation', async () => {
    const path = '/listings/2021-08-01/items/A1SELLER/SKU-1?marketplaceIds=A1PM5LWPCFZ9HZ';
    const patch = { productType: 'LAMP', patches: [{ op: 'replace', path: '/attributes/x', value: [{ value: 1 }] }] };
    // The stub route answers {handled: true}: patchListingsItem's 200 is a ListingsItemSubmissionResponse (sku, status, submissionId required).
    expect((await send('PATCH', path, patch)).status).to.equal(200);
    // createOffer documents 201, not the stub's 200.
    const offer = { sku: 'A', marketplaceId: 'EBAY_DE', format: 'FIXED_PRICE', pricingSummary: { price: { value: '1.00', currency: 'EUR' } } };
    expect((await send('POST', '/sell/inventory/v1/offer', offer, { 'Content-Language': 'de-DE' })).status).to.equal(200);
    const answers = (await allViolations('amazon')).concat(await allViolations('ebay')).filter((v) => v.kind === 'response');
    expect(answers.map((v) => v.operationId)).to.deep.equal(['patchListingsItem', 'createOffer']);
    const [listings, ebay] = answers.map((v) => (v.problems as { message: string }[]).map((p) => p.message));
    expect(listings).to.include.members(["the body must have required property 'sku'", 'handled is not a field of the contract']);
    expect(ebay).to.deep.equal(['createOffer documents no 200 answer (201, 400, 500)']);
  });

  it('when an OAS 3.0 array query parameter (Kaufland GetOrderUnits status, explode by default) comes as a comma list, then it is one value and refused; repeated keys pass', async () => {
    const kaufland = OpenApiContract.load('kaufland', 'seller-api-v2.openapi.json');
    const check = (query: Record<string, unknown>) =>
      kaufland.check({ method: 'GET', path: '/v2/order-units', query, header: () => undefined, body: undefined }).map((p) => p.name);
    expect(check({ storefront: 'de', status: ['open', 'sent'] })).to.deep.equal([]);
    expect(check({ storefront: 'de', status: 'open' })).to.deep.equal([]);
    expect(check({ storefront: 'de', status: 'open,sent' })).to.deep.equal(['status[0]']);
  });
});
