/**
 * The tracking company a send_mit gives Shopify: Kontor's deliverer by its name in Shopify's list
 * (FulfillmentTrackingInput.company in admin_schema_2025-01.json: "Send the tracking company name
 * exactly as written in the list (capitalization matters)"), none for a deliverer the list lacks,
 * the number keeping the tracking URL Kontor knows. The sandbox takes any text, as the schema does,
 * and records whether Shopify would know the name (its list, read from the schema).
 */
import { expect } from 'chai';
import type { PortalTarget, Shipment } from '../../lib/portals/portal.type';
import { shopifyCompanyNames, shopifyTrackingCompany } from '../../lib/portals/shopify/tracking-company';
import { WebshopAdapter } from '../../lib/portals/webshop.adapter';
import type { SandboxTracking } from '../../sandbox/shopify.sandbox';
import { shopifySchema } from '../../sandbox/shopify.sandbox';
import { listedTrackingCompanies } from '../../sandbox/shopify-tracking.sandbox';
import type { Sandbox } from '../fleet/support';
import { failure } from '../support/failure';
import { postToSandbox, shopifyStoreForEach } from './shopify-support';

const adapter = new WebshopAdapter();

describe("webshop at Shopify: the tracking company by its name in Shopify's list", () => {
  it("document 2's common deliverers go by names of the schema's list, exactly as written; one the list lacks goes without a company", () => {
    const listed = listedTrackingCompanies(shopifySchema());
    const common = ['DHL', 'Post', 'Deutsche Post', 'UPS', 'Hermes', 'DPD', 'DPDP', 'TNT', 'GLS', 'GLSP'];
    expect(common.map((d) => [d, shopifyTrackingCompany(d)])).to.deep.equal([
      ['DHL', 'DHL'],
      ['Post', 'Deutsche Post'],
      ['Deutsche Post', 'Deutsche Post'],
      ['UPS', 'UPS'],
      ['Hermes', 'Hermes'],
      ['DPD', 'DPD'],
      ['DPDP', 'DPD'],
      ['TNT', 'TNT'],
      ['GLS', 'GLS'],
      ['GLSP', 'GLS'],
    ]);
    expect(shopifyTrackingCompany('dhl')).to.equal('DHL');
    expect(shopifyTrackingCompany(' dpdp ')).to.equal('DPD');
    for (const name of shopifyCompanyNames) expect(listed.has(name), name).to.equal(true);
    expect(listed.has('dhl')).to.equal(false);
    for (const unlisted of ['iloxx', 'Spedition Müller', '', undefined]) expect(shopifyTrackingCompany(unlisted)).to.equal(undefined);
  });
});

describe('webshop at Shopify: the tracking a send_mit gives the store, against the sandbox', () => {
  let sandbox: Sandbox;
  let account: number;
  let target: PortalTarget;
  shopifyStoreForEach((store) => ({ sandbox, account, target } = store));

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) => postToSandbox(sandbox, path, body, headers);
  const place = async (sku: string) => {
    const placed = await post('/_sandbox/shopify/orders', { portal_account: account, lines: [{ sku, quantity: 2 }] });
    expect(placed.status, JSON.stringify(placed.body)).to.equal(201);
    return String(placed.body.id).split('/').pop()!;
  };
  const fulfilments = async (id: string) =>
    ((await (await fetch(`${sandbox.url}/_sandbox/shopify/orders/${id}`)).json()) as { fulfillments: { id: string; tracking: SandboxTracking }[] })
      .fulfillments;
  /** The trackingInfo of each fulfillmentCreate and fulfillmentTrackingInfoUpdate the store received. */
  const received = () =>
    sandbox.state.requests
      .filter((r) => r.portal === 'webshop' && r.portalAccount === String(account))
      .map((r) => r.body as { query: string; variables: { fulfillment?: { trackingInfo?: unknown }; trackingInfoInput?: unknown } })
      .filter((b) => /mutation KontorFulfillment(Tracking)?\(/.test(b.query))
      .map((b) => b.variables.fulfillment?.trackingInfo ?? b.variables.trackingInfoInput);
  const dpdUrl = 'https://tracking.dpd.de/status/de_DE/parcel/01234567890123';
  const ship = (id: string, fields: Partial<Shipment>): Shipment => ({ orderId: '1', externalOrderId: id, ...fields });

  it("send_mit with Kontor's deliverer DPDP: fulfillmentCreate names DPD, a company Shopify knows (it links the buyer's number), with Kontor's tracking URL", async () => {
    const id = await place('TR-DPDP');
    await adapter.markShipped(target, ship(id, { carrier: 'DPDP', trackingCode: '01234567890123', trackingUrl: dpdUrl }), 's1');
    expect(received()).to.deep.equal([{ number: '01234567890123', company: 'DPD', url: dpdUrl }]);
    expect((await fulfilments(id)).map((f) => f.tracking)).to.deep.equal([
      { number: '01234567890123', company: 'DPD', urls: [dpdUrl], companyRecognised: true },
    ]);
  });

  it('send_mit with a deliverer Shopify does not list: no company, the number with the tracking URL Kontor knows; without a URL the number alone', async () => {
    const withUrl = await place('TR-OWN-1');
    const url = 'https://kurier.example.de/sendung/K-4711';
    await adapter.markShipped(target, ship(withUrl, { carrier: 'Spedition Müller', trackingCode: 'K-4711', trackingUrl: url }), 's1');
    const bare = await place('TR-OWN-2');
    await adapter.markShipped(target, ship(bare, { carrier: 'iloxx', trackingCode: 'IL-0815' }), 's2');
    expect(received()).to.deep.equal([{ number: 'K-4711', url }, { number: 'IL-0815' }]);
    expect((await fulfilments(withUrl))[0]!.tracking).to.deep.equal({ number: 'K-4711', company: null, urls: [url] });
    expect((await fulfilments(bare))[0]!.tracking).to.deep.equal({ number: 'IL-0815', company: null });
  });

  it("a later number of the same carrier joins the fulfilment under the listed name, also where an earlier Kontor left its own code ('dpdp') there", async () => {
    const id = await place('TR-LATER');
    // A fulfilment made before Kontor sent listed names: Shopify kept the text and knows no such company.
    const [fo] = (
      (
        await post(
          '/admin/api/2025-01/graphql.json',
          { query: `{ order(id: "gid://shopify/Order/${id}") { fulfillmentOrders(first: 1) { nodes { id } } } }` },
          { 'X-Shopify-Access-Token': `shpat_sandbox_${account}` },
        )
      ).body.data as { order: { fulfillmentOrders: { nodes: { id: string }[] } } }
    ).order.fulfillmentOrders.nodes;
    const made = await post(
      '/admin/api/2025-01/graphql.json',
      {
        query: 'mutation C($f: FulfillmentInput!) { fulfillmentCreate(fulfillment: $f) { fulfillment { id } userErrors { message } } }',
        variables: { f: { lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: fo!.id }], trackingInfo: { number: '01234567890123', company: 'dpdp' } } },
      },
      { 'X-Shopify-Access-Token': `shpat_sandbox_${account}` },
    );
    expect((made.body.data as { fulfillmentCreate: { userErrors: unknown[] } }).fulfillmentCreate.userErrors).to.deep.equal([]);
    expect((await fulfilments(id))[0]!.tracking).to.deep.include({ company: 'dpdp', companyRecognised: false });

    await adapter.markShipped(target, ship(id, { carrier: 'DPDP', trackingCode: '01234567890124', trackingUrl: dpdUrl }), 's2');
    expect(received().at(-1)).to.deep.equal({ numbers: ['01234567890124', '01234567890123'], urls: [dpdUrl], company: 'DPD' });
    expect((await fulfilments(id))[0]!.tracking).to.deep.equal({
      number: '01234567890124',
      numbers: ['01234567890124', '01234567890123'],
      urls: [dpdUrl],
      company: 'DPD',
      companyRecognised: true,
    });
    // Another carrier is still refused rather than put under DPD.
    const ups = await failure(adapter.markShipped(target, ship(id, { carrier: 'ups', trackingCode: '1Z999AA10123456784' }), 's3'));
    expect(ups.message).to.match(/of DPD; .* so UPS 1Z999AA10123456784 is not added/);
  });
});
