import { expect } from 'chai';
import { AuctionAAdapter } from '../../lib/portals/auction-a.adapter';
import type { ListingItem, PortalTarget, VariationListing } from '../../lib/portals/portal.type';
import type { SandboxState } from '../../sandbox/sandbox.app';
import { failure } from '../support/failure';
import { ebayCallTo, sandboxForSuite } from './sandbox-server';

/**
 * The field rules sell_inventory_v1_oas3.json gives only in its descriptions ("Max Length", the
 * enumerations, "URLs must use the "HTTPS" protocol", the Content-Language header): the sandbox
 * eBay refuses what breaks them (sandbox/ebay-limits.sandbox.ts), and the adapter sends none of it.
 */
const adapter = new AuctionAAdapter();

const listable = {
  name: 'Desk lamp',
  price: '19.90',
  category_1_id: '112581',
  seller_profile: { payment: [{ id: 11 }], refund: [{ id: 12 }], shipping: [{ id: 13 }] },
};

describe('eBay’s documented field limits: the sandbox refuses them, the adapter keeps them', function () {
  this.timeout(20000);
  let state: SandboxState;
  let url: string;
  let account = 8_000_000 + (process.pid % 1000) * 100;
  sandboxForSuite((sandbox) => ({ url, state } = sandbox), 'ebay');
  const ebay = ebayCallTo(() => url);
  const target = (): PortalTarget => ({ portalAccountId: account++, baseUrl: url, credentials: {} });
  const calls = (t: PortalTarget) => state.requests.filter((r) => r.portalAccount === String(t.portalAccountId)).map((r) => `${r.method} ${r.path}`);
  const item = (stockId: number, sku: string, group: Record<string, unknown> = {}): ListingItem => ({
    stockId,
    name: 'Lamp',
    sku,
    ean: null,
    price: '19.90',
    quantityAvailable: 2,
    group: { ...listable, ...group },
  });
  /** Status, eBay's errorId and the field its error names (parameters[0], as eBay names a field). */
  const refusal = (answer: { status: number; body: { errors?: { errorId: number; parameters?: { value?: string }[] }[] } }) => [
    answer.status,
    answer.body.errors?.[0]?.errorId,
    answer.body.errors?.[0]?.parameters?.[0]?.value,
  ];
  const offer = (sku: string, over: Record<string, unknown> = {}) => ({
    sku,
    marketplaceId: 'EBAY_DE',
    format: 'FIXED_PRICE',
    listingDuration: 'GTC',
    pricingSummary: { price: { value: '10.00', currency: 'EUR' } },
    ...over,
  });

  it('when an inventory item breaks a field limit of the contract, then the sandbox answers 25709 naming the field and keeps nothing', async () => {
    const id = account++;
    const put = (body: Record<string, unknown>) => ebay(id, 'PUT', '/sell/inventory/v1/inventory_item/LIM-1', body);
    const cases: [Record<string, unknown>, string][] = [
      [{ product: { title: 'x'.repeat(81) } }, 'product.title'],
      [{ product: { title: 'Lamp', subtitle: 'x'.repeat(56) } }, 'product.subtitle'],
      [{ product: { title: 'Lamp', description: 'x'.repeat(4001) } }, 'product.description'],
      [{ product: { title: 'Lamp', aspects: { ['x'.repeat(41)]: ['a'] } } }, 'product.aspects'],
      [{ product: { title: 'Lamp', aspects: { Brand: ['x'.repeat(51)] } } }, 'product.aspects.Brand'],
      [{ product: { title: 'Lamp', imageUrls: ['http://pictures.example/lamp.jpg'] } }, 'product.imageUrls'],
      [{ product: { title: 'Lamp', imageUrls: Array.from({ length: 25 }, (_, i) => `https://p.example/${i}.jpg`) } }, 'product.imageUrls'],
      [{ product: { title: 'Lamp' }, conditionDescription: 'x'.repeat(1001) }, 'conditionDescription'],
      [{ product: { title: 'Lamp' }, availability: { shipToLocationAvailability: { quantity: -1 } } }, 'availability.shipToLocationAvailability.quantity'],
    ];
    for (const [body, field] of cases) expect(refusal(await put(body)), field).to.deep.equal([400, 25709, field]);
    expect(state.ebay.inventory.has(`${id}|LIM-1`)).to.equal(false);
    // At the limits it is taken.
    expect(
      (
        await put({
          product: { title: 'x'.repeat(80), subtitle: 'x'.repeat(55), description: 'x'.repeat(4000), aspects: { ['x'.repeat(40)]: ['y'.repeat(50)] } },
          availability: { shipToLocationAvailability: { quantity: 0 } },
        })
      ).status,
    ).to.equal(204);
    // Content-Language: a language such as en-US or de-DE (the header's examples).
    const res = await fetch(`${url}/sell/inventory/v1/inventory_item/LIM-2`, {
      method: 'PUT',
      headers: { Authorization: `Bearer sandbox-account-${id}`, 'Content-Language': 'german', 'Content-Type': 'application/json' },
      body: JSON.stringify({ product: { title: 'Lamp' } }),
    });
    expect(refusal({ status: res.status, body: (await res.json()) as { errors?: { errorId: number; parameters?: { value?: string }[] }[] } })).to.deep.equal([
      400,
      25709,
      'Content-Language',
    ]);
  });

  it('when an offer breaks a field limit of the contract, then the sandbox answers 25709 naming the field; updateOffer and bulkUpdatePriceQuantity too', async () => {
    const id = account++;
    expect((await ebay(id, 'PUT', '/sell/inventory/v1/inventory_item/LIM-3', { product: { title: 'Lamp' } })).status).to.equal(204);
    const cases: [Record<string, unknown>, string][] = [
      [offer('LIM-3', { marketplaceId: 'EBAY_XX' }), 'marketplaceId'],
      [offer('LIM-3', { format: 'CLASSIFIED' }), 'format'],
      [offer('LIM-3', { listingDuration: 'DAYS_7' }), 'listingDuration'],
      [offer('LIM-3', { format: 'AUCTION', listingDuration: 'GTC' }), 'listingDuration'],
      [offer('LIM-3', { availableQuantity: -2 }), 'availableQuantity'],
      [offer('LIM-3', { listingDescription: 'x'.repeat(500001) }), 'listingDescription'],
      [offer('LIM-3', { merchantLocationKey: 'x'.repeat(37) }), 'merchantLocationKey'],
      [offer('LIM-3', { tax: { vatPercentage: 19.12345 } }), 'tax.vatPercentage'],
    ];
    for (const [body, field] of cases) expect(refusal(await ebay(id, 'POST', '/sell/inventory/v1/offer', body)), field).to.deep.equal([400, 25709, field]);
    expect(state.ebay.offersOf(String(id), 'LIM-3')).to.deep.equal([]);
    const created = await ebay(id, 'POST', '/sell/inventory/v1/offer', offer('LIM-3', { availableQuantity: 3, merchantLocationKey: 'default' }));
    expect(created.status).to.equal(201);
    const offerId = created.body.offerId as string;
    const { sku: _s, marketplaceId: _m, format: _f, ...update } = offer('LIM-3', { availableQuantity: -1 });
    expect(refusal(await ebay(id, 'PUT', `/sell/inventory/v1/offer/${offerId}`, update))).to.deep.equal([400, 25709, 'availableQuantity']);
    expect((await ebay(id, 'POST', `/sell/inventory/v1/offer/${offerId}/publish`)).status).to.equal(200);
    const bulk = await ebay(id, 'POST', '/sell/inventory/v1/bulk_update_price_quantity', {
      requests: [{ sku: 'LIM-3', offers: [{ offerId, availableQuantity: -1 }] }],
    });
    expect((bulk.body.responses as { statusCode: number }[])[0]!.statusCode).to.equal(400);
    expect(state.ebay.offers.get(offerId)!.body.availableQuantity).to.equal(3);
  });

  it('when an inventory item group breaks a field limit, or a member item has more than 12 pictures, then the sandbox refuses it naming the field', async () => {
    const id = account++;
    const group = {
      title: 'Shirt',
      description: 'A shirt',
      aspects: { Brand: ['Kontor'] },
      imageUrls: ['https://pictures.example/shirt.jpg'],
      variantSKUs: ['GL-S', 'GL-M'],
      variesBy: { specifications: [{ name: 'size', values: ['S', 'M'] }] },
    };
    const put = (body: Record<string, unknown>) => ebay(id, 'PUT', '/sell/inventory/v1/inventory_item_group/GL', body);
    const cases: [Record<string, unknown>, string][] = [
      [{ ...group, title: 'x'.repeat(81) }, 'title'],
      [{ ...group, subtitle: 'x'.repeat(56) }, 'subtitle'],
      [{ ...group, imageUrls: ['http://pictures.example/shirt.jpg'] }, 'imageUrls'],
      [{ ...group, aspects: { Brand: ['x'.repeat(51)] } }, 'aspects.Brand'],
      [{ ...group, variesBy: { specifications: [{ name: 'x'.repeat(41), values: ['S', 'M'] }] } }, 'variesBy.specifications[0].name'],
      [{ ...group, variesBy: { specifications: [{ name: 'size', values: ['S', 'x'.repeat(51)] }] } }, 'variesBy.specifications[0].values'],
    ];
    for (const [body, field] of cases) expect(refusal(await put(body)), field).to.deep.equal([400, 25709, field]);
    expect(state.ebay.groups.has(`${id}|GL`)).to.equal(false);
    expect((await put(group)).status).to.equal(204);
    const pictures = Array.from({ length: 13 }, (_, i) => `https://p.example/${i}.jpg`);
    for (const sku of ['GL-S', 'GL-M']) {
      expect((await ebay(id, 'PUT', `/sell/inventory/v1/inventory_item/${sku}`, { product: { title: sku, imageUrls: pictures } })).status).to.equal(204);
      expect((await ebay(id, 'POST', '/sell/inventory/v1/offer', offer(sku, { merchantLocationKey: 'default' }))).status).to.equal(201);
    }
    const published = await ebay(id, 'POST', '/sell/inventory/v1/offer/publish_by_inventory_item_group', {
      inventoryItemGroupKey: 'GL',
      marketplaceId: 'EBAY_DE',
    });
    expect(refusal(published)).to.deep.equal([400, 25709, 'product.imageUrls']);
    expect(state.ebay.offersOf(String(id), 'GL-S')[0]!.status).to.equal('UNPUBLISHED');
  });

  it('when an item’s description is longer than the product’s 4000 characters, then the listing shows it whole (listingDescription) and the product carries its text cut within 4000', async () => {
    const t = target();
    const paragraph = '<p>A brass desk lamp with a <b>heavy</b> foot and a linen shade.</p>\n';
    const description = paragraph.repeat(120);
    expect(description.length).to.be.above(8000);
    const { portalItemId } = await adapter.list(t, item(1, 'DESC-1', { description }), 'k1');
    expect(portalItemId).to.match(/^\d{12}$/);
    const product = (state.ebay.inventory.get(`${t.portalAccountId}|DESC-1`) as { product: { description: string } }).product;
    expect(product.description.length).to.be.at.most(4000);
    expect(product.description).to.match(/^A brass desk lamp with a heavy foot and a linen shade\. A brass/);
    expect(product.description).to.not.contain('<');
    expect(product.description.endsWith('…')).to.equal(true);
    expect(state.ebay.offersOf(String(t.portalAccountId), 'DESC-1')[0]!.body.listingDescription).to.equal(description);
    // A description within 4000 goes to both as it is.
    await adapter.revise(t, item(1, 'DESC-1', { description: paragraph }), portalItemId, [], 'k2');
    expect((state.ebay.inventory.get(`${t.portalAccountId}|DESC-1`) as { product: { description: string } }).product.description).to.equal(paragraph);
  });

  it('when a description over 4000 characters has no space near the cut, then the product’s text ends on whole characters: no half of an emoji, no part of an entity', async () => {
    const t = target();
    const emoji = `${'x'.repeat(3998)}😀${'y'.repeat(100)}`;
    const entity = `${'x'.repeat(3995)}&amp;${'y'.repeat(100)}`;
    const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
    const productOf = async (sku: string, description: string) => {
      await adapter.list(t, item(1, sku, { description }), `k-${sku}`);
      return (state.ebay.inventory.get(`${t.portalAccountId}|${sku}`) as { product: { description: string } }).product.description;
    };
    const cutEmoji = await productOf('DESC-EMOJI', emoji);
    expect(lone.test(cutEmoji)).to.equal(false);
    expect(cutEmoji).to.equal(`${'x'.repeat(3998)}…`);
    expect(await productOf('DESC-AMP', entity)).to.equal(`${'x'.repeat(3995)}…`);
  });

  it('when an item has an http picture, a too long item specific or condition text, then list and revise fail naming it before anything is sent', async () => {
    const t = target();
    const cases: [Record<string, unknown>, string][] = [
      [{ picture: { url: ['http://pictures.example/lamp.jpg'] } }, 'eBay takes pictures over HTTPS only, not http://pictures.example/lamp.jpg (picture.url)'],
      [{ characteristics: { data: [{ type: 'x'.repeat(41), value: 'a' }] } }, "is longer than eBay's 40 characters (characteristics type)"],
      [{ characteristics: { data: [{ type: 'Brand', value: 'x'.repeat(51) }] } }, "of item specific Brand is longer than eBay's 50 characters"],
      [{ condition: { id: '3000', description: 'x'.repeat(1001) } }, "the condition description is longer than eBay's 1000 characters"],
    ];
    for (const [group, message] of cases) {
      expect((await failure(adapter.list(t, item(2, 'LIM-A', group), 'k'))).message).to.contain(message);
      expect((await failure(adapter.revise(t, item(2, 'LIM-A', group), '110000000001', [], 'k'))).message).to.contain(message);
    }
    expect(calls(t)).to.deep.equal([]);
  });

  it('when an item’s site_id is no eBay site, then list and revise fail naming it before anything is sent (it was listed on EBAY_DE)', async () => {
    const t = target();
    const message =
      'auction_a: SKU SITE-A: site_id 168 is not an eBay site Kontor lists on (0, 2, 3, 15, 16, 71, 77, 101, 186, 193; 77 Germany when none is given)';
    expect((await failure(adapter.list(t, item(3, 'SITE-A', { site_id: 168 }), 'k'))).message).to.equal(message);
    expect((await failure(adapter.revise(t, item(3, 'SITE-A', { site_id: '168' }), '110000000001', [], 'k'))).message).to.equal(message);
    expect(calls(t)).to.deep.equal([]);
    // A known site lists there, in its currency.
    await adapter.list(t, item(4, 'SITE-ES', { site_id: 186 }), 'k2');
    expect(
      state.ebay
        .offersOf(String(t.portalAccountId), 'SITE-ES')
        .map((o) => [o.body.marketplaceId, (o.body.pricingSummary as { price: { currency: string } }).price.currency, o.status]),
    ).to.deep.equal([['EBAY_ES', 'EUR', 'PUBLISHED']]);
  });

  it('when a variation main’s title, pictures or variation specifics break eBay’s limits, or a variant has more than 12 pictures, then listing it fails before anything is written', async () => {
    const t = target();
    const variation = (main: Record<string, unknown>, variant: Record<string, unknown> = {}, values = ['Red', 'Blue']): VariationListing => ({
      main: item(30, 'LAMP-V', {
        description: 'A lamp in two colours',
        picture: { url: ['https://pictures.example/lamp.jpg'] },
        characteristics: { data: [{ type: 'Brand', value: 'Kontor' }] },
        ...main,
      }),
      variesBy: [{ name: 'Colour', values }],
      variants: [item(31, 'LAMP-V-R', variant), item(32, 'LAMP-V-B', variant)],
    });
    const cases: [VariationListing, string][] = [
      [variation({ name: 'x'.repeat(81) }), 'stock item 30 (a variation main): the title is longer than 80 characters'],
      [variation({ description: 'x'.repeat(500001) }), 'stock item 30 (a variation main): the description is longer than 500000 characters'],
      [variation({ picture: { url: ['http://pictures.example/lamp.jpg'] } }), 'stock item 30 (a variation main): eBay takes pictures over HTTPS only'],
      [variation({}, {}, ['Red', 'x'.repeat(51)]), "of variation specific Colour is longer than eBay's 50 characters"],
      [
        variation({}, { picture: { url: Array.from({ length: 13 }, (_, i) => `https://p.example/${i}.jpg`) } }),
        "SKU LAMP-V-R: a variation's item takes at most 12 pictures at eBay",
      ],
    ];
    for (const [listing, message] of cases) expect((await failure(adapter.listVariations(t, listing, 'k'))).message).to.contain(message);
    expect(calls(t)).to.deep.equal([]);
    expect((await adapter.listVariations(t, variation({}), 'k')).portalItemId).to.match(/^\d{12}$/);
  });
});
