import { expect } from 'chai';
import { ebayListing, ebaySku } from '../../lib/portals/ebay/ebay-listing.mapping';
import type { ListingItem } from '../../lib/portals/portal.type';

const item = (group: Record<string, unknown>, over: Partial<ListingItem> = {}): ListingItem => ({
  stockId: 42,
  name: 'Master name',
  sku: null,
  ean: null,
  price: '12.50',
  quantityAvailable: 7,
  group,
  ...over,
});

describe('eBay listing mapping (Stock_auction_a_type -> inventory item and offer)', () => {
  it('when title, subtitle and description are given, then they go to product.title, product.subtitle, product.description and the offer listingDescription', () => {
    const { inventoryItem, offer } = ebayListing(item({ name: 'Desk lamp', subtitle: 'brass, 1950s', description: '<p>Lamp</p>' }));
    expect(inventoryItem.product).to.include({ title: 'Desk lamp', subtitle: 'brass, 1950s', description: '<p>Lamp</p>' });
    expect(offer.listingDescription).to.equal('<p>Lamp</p>');
    expect(ebayListing(item({})).inventoryItem.product.title).to.equal('Master name');
  });

  it('when type_id is 9 (fixed price), then the offer is FIXED_PRICE, GTC, priced from price (else the stock price), with rrp as originalRetailPrice', () => {
    const { offer } = ebayListing(item({ type_id: '9', duration: '7', price: '19.90', rrp: '29.90' }));
    expect(offer).to.deep.include({
      format: 'FIXED_PRICE',
      listingDuration: 'GTC',
      pricingSummary: { price: { value: '19.90', currency: 'EUR' }, originalRetailPrice: { value: '29.90', currency: 'EUR' } },
    });
    expect(ebayListing(item({})).offer.pricingSummary).to.deep.equal({ price: { value: '12.50', currency: 'EUR' } });
  });

  // issue 30: this test asserted availableQuantity 1, which eBay refuses for auctions (createOffer error 25762), and an
  // item quantity of 1, which would cut a fixed-price offer of the same SKU (they share the inventory item) to one unit.
  it('when type_id is 1 (auction), then the offer is AUCTION for DAYS_<duration> with start, reserve and buy-it-now prices, no availableQuantity, and the item keeps the stock', () => {
    const { offer, inventoryItem } = ebayListing(item({ type_id: '1', duration: '5', start_price: '1.00', min_price: '15.00', price: '40.00', quantity: 3 }));
    expect(offer).to.not.have.property('availableQuantity');
    expect(offer).to.deep.include({
      format: 'AUCTION',
      listingDuration: 'DAYS_5',
      pricingSummary: {
        auctionStartPrice: { value: '1.00', currency: 'EUR' },
        auctionReservePrice: { value: '15.00', currency: 'EUR' },
        price: { value: '40.00', currency: 'EUR' },
      },
    });
    expect(inventoryItem.availability).to.deep.equal({ shipToLocationAvailability: { quantity: 7 } });
  });

  it('when the entry names a quantity, then it is the starting quantity; else what is available', () => {
    expect(ebayListing(item({ quantity: 3 })).inventoryItem.availability).to.deep.equal({ shipToLocationAvailability: { quantity: 3 } });
    expect(ebayListing(item({})).offer.availableQuantity).to.equal(7);
    expect(ebayListing(item({}, { quantityAvailable: -2 })).offer.availableQuantity).to.equal(0);
  });

  it('when pictures are given, then the gallery picture comes first and picture.url[] follows, without repeats', () => {
    const { inventoryItem } = ebayListing(item({ picture: { url: ['https://img/a.jpg', 'https://img/b.jpg'], gallery: { url: 'https://img/b.jpg' } } }));
    expect(inventoryItem.product.imageUrls).to.deep.equal(['https://img/b.jpg', 'https://img/a.jpg']);
  });

  it('when categories are given, then category_1_id and category_2_id are the offer categoryId and secondaryCategoryId', () => {
    expect(ebayListing(item({ category_1_id: '112581', category_2_id: '20728' })).offer).to.include({ categoryId: '112581', secondaryCategoryId: '20728' });
  });

  it("when condition.id is eBay's number or name, then it is the Inventory API condition, with condition.description", () => {
    expect(ebayListing(item({ condition: { id: '3000', description: 'scratches' } })).inventoryItem).to.include({
      condition: 'USED_EXCELLENT',
      conditionDescription: 'scratches',
    });
    expect(ebayListing(item({ condition: { id: 'new' } })).inventoryItem.condition).to.equal('NEW');
    expect(ebayListing(item({})).inventoryItem).to.not.have.property('condition');
  });

  it('when characteristics are given, then they become item specifics (aspects: name -> values)', () => {
    const { inventoryItem } = ebayListing(
      item({
        characteristics: {
          data: [
            { type: 'Marke', value: 'Bauhaus' },
            { type: 'Farbe', value: ['Messing', 'Gold'] },
          ],
        },
      }),
    );
    expect(inventoryItem.product.aspects).to.deep.equal({ Marke: ['Bauhaus'], Farbe: ['Messing', 'Gold'] });
  });

  it('when seller profiles and best offer are given, then they are the listing policies (business policy ids, bestOfferTerms)', () => {
    const { offer } = ebayListing(
      item({
        seller_profile: { payment: [{ id: 11 }], refund: [{ id: 12 }], shipping: [{ id: 13 }] },
        best_offer: { is_active: true, auto_accept_price: '18.00', min_price: '10.00' },
      }),
    );
    expect(offer.listingPolicies).to.deep.equal({
      fulfillmentPolicyId: '13',
      paymentPolicyId: '11',
      returnPolicyId: '12',
      bestOfferTerms: { bestOfferEnabled: true, autoAcceptPrice: { value: '18.00', currency: 'EUR' }, autoDeclinePrice: { value: '10.00', currency: 'EUR' } },
    });
  });

  it('when site_id and vat are given, then the marketplace, currency, language and vatPercentage follow; the merchant location key comes from the account', () => {
    const listing = ebayListing(item({ site_id: 3, vat: '20.00', price: '5.00' }), 'warehouse-1');
    expect(listing.offer).to.deep.include({ marketplaceId: 'EBAY_GB', tax: { vatPercentage: 20 }, merchantLocationKey: 'warehouse-1' });
    expect(listing.offer.pricingSummary!.price).to.deep.equal({ value: '5.00', currency: 'GBP' });
    expect(listing.language).to.equal('en-GB');
    expect(ebayListing(item({})).offer.marketplaceId).to.equal('EBAY_DE');
  });

  it("when sku, barcode and catalog are given, then the SKU is the entry's sku, else the master SKU, else the stock id, and the identifiers go to ean/isbn/mpn/epid/upc", () => {
    expect(ebaySku({ sku: 'LAMP-1' }, 'MASTER', 42)).to.equal('LAMP-1');
    expect(ebaySku({}, 'MASTER', 42)).to.equal('MASTER');
    expect(ebaySku({}, null, 42)).to.equal('42');
    const listing = ebayListing(item({ catalog: { value: '978-3-16-148410-0', type_id: 2 } }, { sku: 'MASTER', ean: '4006381333931' }));
    expect(listing.sku).to.equal('MASTER');
    expect(listing.offer.sku).to.equal('MASTER');
    expect(listing.inventoryItem.product).to.deep.include({ ean: ['4006381333931'], isbn: ['978-3-16-148410-0'] });
    expect(ebayListing(item({ catalog: { value: '12345', type_id: 4 } })).inventoryItem.product.epid).to.equal('12345');
  });
});
