import { expect } from 'chai';
import type { SandboxState } from '../../sandbox/sandbox.app';
import { ebayCallTo, sandboxForSuite } from './sandbox-server';

/**
 * The sandbox eBay itself, called as eBay's API is called: the documented behaviour the adapter
 * depends on (sandbox/ebay-inventory.sandbox.ts, sandbox/ebay-orders.sandbox.ts) and the
 * contract check in front of it.
 */
/** A multiple-variation group of two sizes (S, M) under `key`, with every field eBay asks before publishing. */
const shirtGroup = (key: string) => ({
  title: 'Shirt',
  description: 'A shirt in two sizes',
  imageUrls: ['https://pictures.example/shirt.jpg'],
  aspects: { Brand: ['Kontor'] },
  variantSKUs: [`${key}-S`, `${key}-M`],
  variesBy: { specifications: [{ name: 'size', values: ['S', 'M'] }] },
});

describe('the sandbox eBay plays the documented behaviour', function () {
  this.timeout(20000);
  let state: SandboxState;
  let url: string;
  let account = 7_000_000 + (process.pid % 1000) * 100;
  sandboxForSuite((sandbox) => ({ url, state } = sandbox));

  /** An eBay call as the account's seller. */
  const ebay = ebayCallTo(() => url);
  const control = async (path: string, body: unknown) =>
    (await fetch(`${url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })).json() as Promise<
      Record<string, unknown>
    >;
  const listings = async (id: number) =>
    (await (await fetch(`${url}/_sandbox/ebay/listings?portal_account=${id}`)).json()) as { sku: string; format: string; quantity: number; offerId: string }[];
  const offer = (sku: string, over: Record<string, unknown> = {}) => ({
    sku,
    marketplaceId: 'EBAY_DE',
    format: 'FIXED_PRICE',
    listingDuration: 'GTC',
    pricingSummary: { price: { value: '10.00', currency: 'EUR' } },
    merchantLocationKey: 'default',
    ...over,
  });
  async function listed(id: number, sku: string, itemQuantity: number, over: Record<string, unknown> = {}): Promise<string> {
    expect(
      (
        await ebay(id, 'PUT', `/sell/inventory/v1/inventory_item/${sku}`, {
          product: { title: sku },
          availability: { shipToLocationAvailability: { quantity: itemQuantity } },
        })
      ).status,
    ).to.equal(204);
    const created = await ebay(id, 'POST', '/sell/inventory/v1/offer', offer(sku, over));
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const offerId = created.body.offerId as string;
    expect((await ebay(id, 'POST', `/sell/inventory/v1/offer/${offerId}/publish`)).status).to.equal(200);
    return offerId;
  }
  const violations = async () => (await (await fetch(`${url}/_sandbox/violations?vendor=ebay`)).json()) as unknown[];

  it("when the offer has its own availableQuantity, then the listing shows the lower of it and the item's quantity; an item-only update leaves the listing at the offer's", async () => {
    const id = account++;
    await listed(id, 'Q-1', 5, { availableQuantity: 3 });
    expect((await listings(id))[0]!.quantity).to.equal(3);
    await ebay(id, 'POST', '/sell/inventory/v1/bulk_update_price_quantity', { requests: [{ sku: 'Q-1', shipToLocationAvailability: { quantity: 9 } }] });
    expect((await listings(id))[0]!.quantity).to.equal(3);
    expect(state.quantities(String(id)).auction_a).to.deep.equal({ 'Q-1': 3 });
    const offerId = (await listings(id))[0]!.offerId;
    await ebay(id, 'POST', '/sell/inventory/v1/bulk_update_price_quantity', {
      requests: [{ sku: 'Q-1', shipToLocationAvailability: { quantity: 9 }, offers: [{ offerId, availableQuantity: 9 }] }],
    });
    expect((await listings(id))[0]!.quantity).to.equal(9);
    await ebay(id, 'POST', '/sell/inventory/v1/bulk_update_price_quantity', { requests: [{ sku: 'Q-1', shipToLocationAvailability: { quantity: 2 } }] });
    expect((await listings(id))[0]!.quantity).to.equal(2);
  });

  it('when an inventory item’s SKU holds a character other than a letter, a digit or "-", or more than 50, then 25707 in the contract’s words and nothing is kept', async () => {
    const id = account++;
    const item = { product: { title: 'Lamp' }, availability: { shipToLocationAvailability: { quantity: 1 } } };
    for (const sku of ['L_1', 'L%201', 'L.1', 'X'.repeat(51)]) {
      const refused = await ebay(id, 'PUT', `/sell/inventory/v1/inventory_item/${sku}`, item);
      expect([refused.status, refused.body.errors![0]!.errorId, refused.body.errors![0]!.message]).to.deep.equal([
        400,
        25707,
        'This is an invalid value for a SKU.  Only alphanumeric characters can be used for SKUs, and their length must not exceed 50 characters.',
      ]);
    }
    expect((await ebay(id, 'PUT', '/sell/inventory/v1/inventory_item/L-1x', item)).status).to.equal(204);
    expect([...state.ebay.inventory.keys()].filter((k) => k.startsWith(`${id}|`))).to.deep.equal([`${id}|L-1x`]);
  });

  it('when an auction offer carries availableQuantity, then 25762; without it, an auction and a fixed-price offer of one SKU are two offers, a third of a format 25002', async () => {
    const id = account++;
    await ebay(id, 'PUT', '/sell/inventory/v1/inventory_item/A-1', {
      product: { title: 'Clock' },
      availability: { shipToLocationAvailability: { quantity: 4 } },
    });
    const auction = { format: 'AUCTION', listingDuration: 'DAYS_7', pricingSummary: { auctionStartPrice: { value: '1.00', currency: 'EUR' } } };
    const refused = await ebay(id, 'POST', '/sell/inventory/v1/offer', offer('A-1', { ...auction, availableQuantity: 1 }));
    expect([refused.status, refused.body.errors![0]!.errorId]).to.deep.equal([400, 25762]);
    expect((await ebay(id, 'POST', '/sell/inventory/v1/offer', offer('A-1', auction))).status).to.equal(201);
    expect((await ebay(id, 'POST', '/sell/inventory/v1/offer', offer('A-1'))).status).to.equal(201);
    const twice = await ebay(id, 'POST', '/sell/inventory/v1/offer', offer('A-1'));
    expect([twice.status, twice.body.errors![0]!.errorId]).to.deep.equal([400, 25002]);
    const found = await ebay(id, 'GET', '/sell/inventory/v1/offer?sku=A-1');
    expect((found.body.offers as { format: string }[]).map((o) => o.format).sort()).to.deep.equal(['AUCTION', 'FIXED_PRICE']);
  });

  it('when an offer has no merchantLocationKey, or names a location the seller lacks, then publishOffer is refused; the seller’s locations are listed', async () => {
    const id = account++;
    await ebay(id, 'PUT', '/sell/inventory/v1/inventory_item/L-1', {
      product: { title: 'Lamp' },
      availability: { shipToLocationAvailability: { quantity: 1 } },
    });
    const { merchantLocationKey: _none, ...noLocation } = offer('L-1');
    const created = await ebay(id, 'POST', '/sell/inventory/v1/offer', noLocation);
    const publish = await ebay(id, 'POST', `/sell/inventory/v1/offer/${created.body.offerId as string}/publish`);
    expect([publish.status, publish.body.errors![0]!.errorId]).to.deep.equal([400, 25002]);
    const locations = await ebay(id, 'GET', '/sell/inventory/v1/location');
    expect((locations.body.locations as { merchantLocationKey: string }[]).map((l) => l.merchantLocationKey)).to.deep.equal(['default']);
    const bare = account++;
    await control('/_sandbox/ebay/locations', { portal_account: bare });
    expect((await ebay(bare, 'GET', '/sell/inventory/v1/location')).body.total).to.equal(0);
  });

  it('when a multi-line order is shipped in two packages, then each package names its lines, a line is FULFILLED when its quantity is shipped, and bad packages are refused', async () => {
    const id = account++;
    await listed(id, 'M-1', 5);
    await listed(id, 'M-2', 5);
    const { order_id: orderId } = (await control('/_sandbox/ebay/orders', {
      portal_account: id,
      lines: [
        { sku: 'M-1', quantity: 2 },
        { sku: 'M-2', quantity: 1, discount: '2.00' },
      ],
    })) as { order_id: string };
    const order = (await ebay(id, 'GET', `/sell/fulfillment/v1/order/${orderId}`)).body as { lineItems: { lineItemId: string }[] };
    const [first, second] = order.lineItems.map((l) => l.lineItemId);
    const path = `/sell/fulfillment/v1/order/${orderId}/shipping_fulfillment`;
    const noCarrier = await ebay(id, 'POST', path, { lineItems: [{ lineItemId: first, quantity: 2 }], trackingNumber: 'T1' });
    const badDate = await ebay(id, 'POST', path, {
      lineItems: [{ lineItemId: first, quantity: 2 }],
      shippedDate: '2026-11-20',
      shippingCarrierCode: 'DHL',
      trackingNumber: 'T1',
    });
    const badCarrier = await ebay(id, 'POST', path, { lineItems: [{ lineItemId: first, quantity: 2 }], shippingCarrierCode: 'dhl', trackingNumber: 'T1' });
    expect([noCarrier.status, badDate.status, badCarrier.status]).to.deep.equal([400, 400, 400]);
    expect(
      (await ebay(id, 'POST', path, { lineItems: [{ lineItemId: first, quantity: 2 }], shippingCarrierCode: 'DHL', trackingNumber: 'T1' })).status,
    ).to.equal(201);
    expect((await ebay(id, 'GET', `/sell/fulfillment/v1/order/${orderId}`)).body.orderFulfillmentStatus).to.equal('IN_PROGRESS');
    expect(
      (await ebay(id, 'POST', path, { lineItems: [{ lineItemId: second, quantity: 1 }], shippingCarrierCode: 'Hermes', trackingNumber: 'H2' })).status,
    ).to.equal(201);
    expect((await ebay(id, 'GET', `/sell/fulfillment/v1/order/${orderId}`)).body.orderFulfillmentStatus).to.equal('FULFILLED');
    // eBay took the sold units off each listing.
    expect(state.quantities(String(id)).auction_a).to.deep.equal({ 'M-1': 3, 'M-2': 4 });
  });

  it('when a request breaks the contract, then it is refused before any route and recorded; the good ones above recorded nothing', async () => {
    expect(await violations()).to.deep.equal([]);
    const id = account++;
    const bad = await ebay(id, 'POST', '/sell/inventory/v1/bulk_update_price_quantity', {
      requests: [{ sku: 'X', shipToLocationAvailability: { quantity: '3' } }],
    });
    expect([bad.status, bad.body.errors![0]!.errorId]).to.deep.equal([400, 25709]);
    expect(state.quantities(String(id)).auction_a).to.equal(undefined);
    expect(await violations()).to.have.length(1);
  });

  it('when an inventory item group carries a quantity, then it is refused (InventoryItemGroup has none); a group of variant SKUs is kept and published, once it has its common aspects, a description and an image, as one listing with each variant’s own quantity', async () => {
    const id = account++;
    const group = shirtGroup('SH');
    const refused = await ebay(id, 'PUT', '/sell/inventory/v1/inventory_item_group/SH', { ...group, quantity: 7 });
    expect([refused.status, refused.body.errors?.[0]?.errorId]).to.deep.equal([400, 25709]);
    expect(JSON.stringify(refused.body)).to.contain('quantity');
    const unknown = await ebay(id, 'GET', '/sell/inventory/v1/inventory_item_group/SH');
    expect([unknown.status, unknown.body.errors?.[0]?.errorId]).to.deep.equal([400, 25705]);
    expect((await ebay(id, 'PUT', '/sell/inventory/v1/inventory_item_group/SH', { title: 'Shirt', variantSKUs: [] })).status).to.equal(400);

    expect((await ebay(id, 'PUT', '/sell/inventory/v1/inventory_item_group/SH', group)).status).to.equal(204);
    const publish = { inventoryItemGroupKey: 'SH', marketplaceId: 'EBAY_DE' };
    // A member without its inventory item and offer cannot be published.
    const early = await ebay(id, 'POST', '/sell/inventory/v1/offer/publish_by_inventory_item_group', publish);
    expect([early.status, early.body.errors?.[0]?.errorId]).to.deep.equal([400, 25002]);
    for (const [sku, quantity] of [
      ['SH-S', 4],
      ['SH-M', 3],
    ] as const) {
      const item = { product: { title: sku, aspects: { size: [sku.slice(3)] } }, availability: { shipToLocationAvailability: { quantity } } };
      expect((await ebay(id, 'PUT', `/sell/inventory/v1/inventory_item/${sku}`, item)).status).to.equal(204);
      expect((await ebay(id, 'POST', '/sell/inventory/v1/offer', offer(sku, { availableQuantity: quantity }))).status).to.equal(201);
    }
    // Common aspects "will be required before the first offer of the group is published" (InventoryItemGroup.aspects);
    // so are its description (InventoryItemGroup.description) and an image, the group's or every member item's (its imageUrls).
    for (const [field, named] of [
      ['aspects', undefined],
      ['description', 'description'],
      ['imageUrls', 'image'],
    ] as const) {
      const without: Record<string, unknown> = { ...group };
      delete without[field];
      expect((await ebay(id, 'PUT', '/sell/inventory/v1/inventory_item_group/SH', without)).status).to.equal(204);
      const refusedPublish = await ebay(id, 'POST', '/sell/inventory/v1/offer/publish_by_inventory_item_group', publish);
      expect([refusedPublish.status, refusedPublish.body.errors?.[0]?.errorId], field).to.deep.equal([400, 25002]);
      if (named) expect(JSON.stringify(refusedPublish.body)).to.contain(named);
    }
    expect((await ebay(id, 'PUT', '/sell/inventory/v1/inventory_item_group/SH', group)).status).to.equal(204);
    const published = await ebay(id, 'POST', '/sell/inventory/v1/offer/publish_by_inventory_item_group', publish);
    expect(published.status, JSON.stringify(published.body)).to.equal(200);
    const shown = (await listings(id)).map((l) => [l.sku, l.quantity, (l as unknown as { listingId: string }).listingId]).sort();
    expect(shown).to.deep.equal([
      ['SH-M', 3, published.body.listingId],
      ['SH-S', 4, published.body.listingId],
    ]);
    expect((await ebay(id, 'GET', '/sell/inventory/v1/inventory_item_group/SH')).body).to.deep.equal({ ...group, inventoryItemGroupKey: 'SH' });
  });

  it('when a multiple-variation listing is withdrawn by its group, then every member offer is unpublished (group and offers kept); an unknown or ended group is 400 25725; a withdrawOffer of a member is recorded', async () => {
    const id = account++;
    const group = shirtGroup('WG');
    expect((await ebay(id, 'PUT', '/sell/inventory/v1/inventory_item_group/WG', group)).status).to.equal(204);
    const withdraw = (groupKey: string) =>
      ebay(id, 'POST', '/sell/inventory/v1/offer/withdraw_by_inventory_item_group', { inventoryItemGroupKey: groupKey, marketplaceId: 'EBAY_DE' });
    const offerIds: string[] = [];
    for (const sku of ['WG-S', 'WG-M']) {
      const item = { product: { title: sku, aspects: { size: [sku.slice(3)] } }, availability: { shipToLocationAvailability: { quantity: 2 } } };
      expect((await ebay(id, 'PUT', `/sell/inventory/v1/inventory_item/${sku}`, item)).status).to.equal(204);
      offerIds.push((await ebay(id, 'POST', '/sell/inventory/v1/offer', offer(sku))).body.offerId as string);
    }
    // Nothing published yet: no offer found.
    const early = await withdraw('WG');
    expect([early.status, early.body.errors?.[0]?.errorId]).to.deep.equal([400, 25725]);
    const publish = () =>
      ebay(id, 'POST', '/sell/inventory/v1/offer/publish_by_inventory_item_group', { inventoryItemGroupKey: 'WG', marketplaceId: 'EBAY_DE' });
    expect((await publish()).status).to.equal(200);
    const unknown = await withdraw('NOPE');
    expect([unknown.status, unknown.body.errors?.[0]?.errorId]).to.deep.equal([400, 25725]);

    // A member offer withdrawn on its own: played (as the contract documents no refusal), recorded.
    expect((await ebay(id, 'POST', `/sell/inventory/v1/offer/${offerIds[0]!}/withdraw`)).status).to.equal(200);
    expect(state.ebay.memberWithdrawals).to.deep.include({ account: String(id), offerId: offerIds[0], sku: 'WG-S', groupKey: 'WG' });
    expect((await publish()).status).to.equal(200);
    const before = state.ebay.memberWithdrawals.length;

    const ended = await withdraw('WG');
    expect(ended.status, JSON.stringify(ended.body)).to.equal(204);
    expect(state.ebay.memberWithdrawals).to.have.length(before);
    const offers = [...state.ebay.offers.values()].filter((o) => o.account === String(id));
    expect(offers.map((o) => [o.sku, o.status]).sort()).to.deep.equal([
      ['WG-M', 'UNPUBLISHED'],
      ['WG-S', 'UNPUBLISHED'],
    ]);
    expect(state.quantities(String(id)).auction_a).to.deep.equal({ 'WG-S': 0, 'WG-M': 0 });
    expect((await ebay(id, 'GET', '/sell/inventory/v1/inventory_item_group/WG')).status).to.equal(200);
    const again = await withdraw('WG');
    expect([again.status, again.body.errors?.[0]?.errorId]).to.deep.equal([400, 25725]);
  });
});
