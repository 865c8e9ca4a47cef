/**
 * eBay replaces a whole record on every update (sell_inventory_v1_oas3.json: updateOffer "does a
 * complete replacement of the existing offer object, so all fields that make up the current offer
 * object are required"; createOrReplaceInventoryItem "all fields that are currently defined for the
 * inventory item record are required ... run a getInventoryItem call" first; packageWeightAndSize
 * "required if an inventory item is being updated and shipping package data already exists").
 * Kontor's list and revise send eBay's record with Kontor's mapping over it, so what the seller set
 * at eBay and Kontor does not hold stays (lib/portals/ebay/ebay-replacement.ts). What eBay holds is
 * read back as getInventoryItem and getOffer answer it.
 */
import { expect } from 'chai';
import { AuctionAAdapter } from '../../lib/portals/auction-a.adapter';
import { inventoryItemGroupOver, inventoryItemOver, offerOver } from '../../lib/portals/ebay/ebay-replacement';
import type { PortalTarget } from '../../lib/portals/portal.type';
import type { SandboxState } from '../../sandbox/sandbox.app';
import { ebayListable } from './channel-support';
import { ebayCallTo, sandboxForSuite } from './sandbox-server';

const adapter = new AuctionAAdapter();
let nextAccount = 9_700_000 + (process.pid % 1000) * 100;

describe('auction_a: a revise keeps what eBay holds and Kontor does not map (sandbox)', function () {
  this.timeout(20000);
  let url: string;
  let state: SandboxState;
  // Every call kept eBay's published contracts: nothing read-only sent back (sku, locale, offerId, status, listing).
  sandboxForSuite((sandbox) => ({ url, state } = sandbox), 'ebay');
  const ebay = ebayCallTo(() => url);
  const target = (): PortalTarget => ({ portalAccountId: nextAccount++, baseUrl: url, credentials: {} });
  const getInventoryItem = async (t: PortalTarget, sku: string) => (await ebay(t.portalAccountId, 'GET', `/sell/inventory/v1/inventory_item/${sku}`)).body;
  const getOffer = async (t: PortalTarget, sku: string) => {
    const offer = [...state.ebay.offers.values()].find((o) => o.account === String(t.portalAccountId) && o.sku === sku)!;
    return (await ebay(t.portalAccountId, 'GET', `/sell/inventory/v1/offer/${offer.offerId}`)).body;
  };

  it('when a listing taken over from Seller Hub is revised from Kontor (a price, then everything, then listed again), then eBay shows Kontor’s price and title and keeps its package, product safety data, store category and best offer', async () => {
    const t = target();
    const listingId = (
      (await (
        await fetch(`${url}/_sandbox/ebay/legacy_listings`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({
            portal_account: t.portalAccountId,
            sku: 'LAMP-HUB',
            quantity: 3,
            price: '40.00',
            title: 'Lamp',
            pictures: ['https://i.ebayimg.example/1.jpg'],
          }),
        })
      ).json()) as { listing_id: string }
    ).listing_id;
    const [taken] = await adapter.takeOver(t, [listingId]);
    expect(taken).to.deep.include({ listingId });
    const itemBefore = await getInventoryItem(t, 'LAMP-HUB');
    const offerBefore = await getOffer(t, 'LAMP-HUB');
    // Kontor holds little of it: a name, a price, the policies (no pictures, no description).
    const lamp = {
      stockId: 1,
      name: 'Lamp',
      sku: 'LAMP-HUB',
      ean: null,
      price: '35.00',
      quantityAvailable: 3,
      group: { name: 'Lamp', price: '35.00', category_1_id: '20697', seller_profile: ebayListable.seller_profile },
    };

    await adapter.revise(t, lamp, listingId, ['price'], 'k1');
    const offer = await getOffer(t, 'LAMP-HUB');
    expect(offer.pricingSummary).to.deep.equal({ price: { value: '35.00', currency: 'EUR' } });
    for (const field of ['regulatory', 'storeCategoryNames', 'quantityLimitPerBuyer', 'merchantLocationKey', 'listingDescription'])
      expect(offer[field], field).to.deep.equal(offerBefore[field]);
    expect(offer.listingPolicies).to.deep.include({ bestOfferTerms: (offerBefore.listingPolicies as Record<string, unknown>).bestOfferTerms });

    await adapter.revise(t, { ...lamp, group: { ...lamp.group, name: 'Brass lamp' } }, listingId, [], 'k2');
    const item = await getInventoryItem(t, 'LAMP-HUB');
    expect(item.product).to.deep.include({ title: 'Brass lamp', brand: 'Leuchtenwerk', imageUrls: ['https://i.ebayimg.example/1.jpg'] });
    expect(item.packageWeightAndSize).to.deep.equal(itemBefore.packageWeightAndSize).and.to.be.an('object');
    expect(item.condition).to.equal('NEW');

    expect((await adapter.list(t, { ...lamp, price: '30.00', group: { ...lamp.group, price: '30.00' } }, 'k3')).portalItemId).to.equal(listingId);
    const listed = await getOffer(t, 'LAMP-HUB');
    expect(listed.pricingSummary).to.deep.equal({ price: { value: '30.00', currency: 'EUR' } });
    expect(listed.regulatory).to.deep.equal(offerBefore.regulatory).and.to.be.an('object');
    expect(listed.storeCategoryNames).to.deep.equal(['/Leuchten/Tischleuchten']);
    expect((await getInventoryItem(t, 'LAMP-HUB')).packageWeightAndSize).to.deep.equal(itemBefore.packageWeightAndSize);
  });

  it('when the seller gave a Kontor-made listing package data, a store category and an item specific in Seller Hub, then Kontor’s revise keeps them (eBay refuses an item update without its package: 25020)', async () => {
    const t = target();
    const account = String(t.portalAccountId);
    const lamp = { stockId: 2, name: 'Lamp', sku: 'LAMP-K', ean: null, price: '19.90', quantityAvailable: 4, group: ebayListable };
    const { portalItemId } = await adapter.list(t, lamp, 'k1');
    // Seller Hub writes eBay's records itself (no call of Kontor's).
    const held = state.ebay.inventory.get(`${account}|LAMP-K`)!;
    const packageWeightAndSize = { weight: { value: 2.5, unit: 'KILOGRAM' }, dimensions: { height: 10, length: 40, width: 30, unit: 'CENTIMETER' } };
    const product = held.product as { aspects: Record<string, string[]> };
    state.ebay.inventory.set(`${account}|LAMP-K`, {
      ...held,
      packageWeightAndSize,
      product: { ...product, aspects: { ...product.aspects, Material: ['Brass'] } },
    });
    const record = [...state.ebay.offers.values()].find((o) => o.account === account && o.sku === 'LAMP-K')!;
    record.body = { ...record.body, storeCategoryNames: ['/Lamps'], lotSize: 2 };

    await adapter.revise(t, { ...lamp, group: { ...ebayListable, price: '17.50', name: 'Brass desk lamp' } }, portalItemId, [], 'k2');
    const item = await getInventoryItem(t, 'LAMP-K');
    expect(item.packageWeightAndSize).to.deep.equal(packageWeightAndSize);
    expect(item.product).to.deep.include({ title: 'Brass desk lamp', aspects: { Brand: ['Kontor'], Material: ['Brass'] } });
    const offer = await getOffer(t, 'LAMP-K');
    expect(offer).to.deep.include({ storeCategoryNames: ['/Lamps'], lotSize: 2, pricingSummary: { price: { value: '17.50', currency: 'EUR' } } });
  });

  it('when Kontor switches best offer off that eBay has on, then eBay’s listing has it off (an explicit value is Kontor’s)', async () => {
    const t = target();
    const lamp = {
      stockId: 3,
      name: 'Lamp',
      sku: 'LAMP-B',
      ean: null,
      price: '19.90',
      quantityAvailable: 4,
      group: { ...ebayListable, best_offer: { is_active: true, min_price: '15.00' } },
    };
    const { portalItemId } = await adapter.list(t, lamp, 'k1');
    expect((await getOffer(t, 'LAMP-B')).listingPolicies).to.deep.include({
      bestOfferTerms: { bestOfferEnabled: true, autoDeclinePrice: { value: '15.00', currency: 'EUR' } },
    });
    await adapter.revise(t, { ...lamp, group: { ...lamp.group, best_offer: { is_active: false } } }, portalItemId, ['price'], 'k2');
    expect((await getOffer(t, 'LAMP-B')).listingPolicies).to.deep.include({ bestOfferTerms: { bestOfferEnabled: false } });
  });
});

describe('eBay replacements: Kontor’s mapping over eBay’s record (the rule, no calls)', () => {
  it('a field Kontor maps is Kontor’s, one it leaves out (or an empty list) eBay’s, containers one level down; read-only fields are dropped', () => {
    const current = {
      sku: 'A',
      locale: 'de_DE',
      groupIds: ['G'],
      inventoryItemGroupKeys: ['G'],
      condition: 'USED_GOOD',
      conditionDescription: 'scratched',
      packageWeightAndSize: { weight: { value: 1, unit: 'KILOGRAM' } },
      product: { title: 'Old', brand: 'B', imageUrls: ['https://x/1.jpg'], aspects: { Farbe: ['Rot'], Marke: ['B'] } },
      availability: {
        shipToLocationAvailability: { quantity: 9, allocationByFormat: { fixedPrice: 9 } },
        pickupAtLocationAvailability: [{ merchantLocationKey: 'shop', quantity: 1 }],
      },
    };
    expect(
      inventoryItemOver(current, {
        product: { title: 'New', imageUrls: [], aspects: { Farbe: ['Blau'] } },
        availability: { shipToLocationAvailability: { quantity: 4 } },
      }),
    ).to.deep.equal({
      condition: 'USED_GOOD',
      conditionDescription: 'scratched',
      packageWeightAndSize: { weight: { value: 1, unit: 'KILOGRAM' } },
      product: { title: 'New', brand: 'B', imageUrls: ['https://x/1.jpg'], aspects: { Farbe: ['Blau'], Marke: ['B'] } },
      availability: { shipToLocationAvailability: { quantity: 4 }, pickupAtLocationAvailability: [{ merchantLocationKey: 'shop', quantity: 1 }] },
    });
    const offer = {
      offerId: '1',
      sku: 'A',
      marketplaceId: 'EBAY_DE',
      format: 'FIXED_PRICE',
      status: 'PUBLISHED',
      listing: { listingId: '11' },
      merchantLocationKey: 'migrated-11',
      pricingSummary: { price: { value: '1.00', currency: 'EUR' }, minimumAdvertisedPrice: { value: '0.90', currency: 'EUR' } },
      listingPolicies: { fulfillmentPolicyId: 'f', shippingCostOverrides: [{ priority: 1, shippingServiceType: 'DOMESTIC' }] },
      storeCategoryNames: ['/S'],
    };
    expect(
      offerOver(offer, {
        sku: 'A',
        marketplaceId: 'EBAY_DE',
        format: 'FIXED_PRICE',
        merchantLocationKey: 'default',
        pricingSummary: { price: { value: '2.00', currency: 'EUR' } },
        listingPolicies: { fulfillmentPolicyId: 'g' },
      } as Parameters<typeof offerOver>[1]),
    ).to.deep.equal({
      merchantLocationKey: 'migrated-11',
      pricingSummary: { price: { value: '2.00', currency: 'EUR' }, minimumAdvertisedPrice: { value: '0.90', currency: 'EUR' } },
      listingPolicies: { fulfillmentPolicyId: 'g', shippingCostOverrides: [{ priority: 1, shippingServiceType: 'DOMESTIC' }] },
      storeCategoryNames: ['/S'],
    });
    // Nothing held (a new offer or group): Kontor's alone, without updateOffer's keys.
    expect(offerOver(undefined, { sku: 'A', availableQuantity: 1 } as Parameters<typeof offerOver>[1])).to.deep.equal({ availableQuantity: 1 });
    expect(
      inventoryItemGroupOver(
        { inventoryItemGroupKey: 'G', videoIds: ['v'], variantSKUs: ['A', 'B'], aspects: { Marke: ['B'] } },
        { variantSKUs: ['A'], aspects: { Stil: ['x'] } },
      ),
    ).to.deep.equal({ videoIds: ['v'], variantSKUs: ['A'], aspects: { Marke: ['B'], Stil: ['x'] } });
  });
});
