/**
 * The one place where a stock item's auction_a entry (document 2, Stock_auction_a_type) becomes
 * eBay's Inventory API payloads: the inventory item (createOrReplaceInventoryItem) and the offer
 * (createOffer / updateOffer). Shapes follow eBay's Sell Inventory v1 reference, typed with the
 * ebay-api package's OpenAPI types.
 */
import type { components } from 'ebay-api/lib/types/restful/specs/sell_inventory_v1_oas3';
import type { ListingItem, VariationListing } from '../portal.type';

type Schemas = components['schemas'];
/** Product.aspects is a map of aspect name to values in eBay's reference (the generated type says string). */
export type EbayProduct = Omit<Schemas['Product'], 'aspects'> & { aspects?: Record<string, string[]> };
export type EbayInventoryItem = Omit<Schemas['InventoryItem'], 'product'> & { product: EbayProduct };
export type EbayOffer = Schemas['EbayOfferDetailsWithKeys'];
export type EbayAmount = Schemas['Amount'];

/** What list and revise send: the SKU, its inventory item, its offer, and the marketplace's language. */
export interface EbayListing {
  sku: string;
  inventoryItem: EbayInventoryItem;
  offer: EbayOffer;
  /** Content-Language of the inventory item call (the marketplace's locale). */
  language: string;
  /** Why the entry's site_id cannot be listed (siteRefusal); list and revise refuse it before any call. */
  siteRefused?: string;
}

type Group = Record<string, unknown>;

function text(group: Group, key: string): string | undefined {
  const value = group[key];
  if (typeof value === 'string' && value.trim() !== '') return value;
  return typeof value === 'number' ? String(value) : undefined;
}

function sub(group: Group, key: string): Group {
  const value = group[key];
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Group) : {};
}

/** document 2's site ids (77 Germany, 0 USA, ...) to eBay's marketplace, currency and locale. */
const sites: Record<string, { marketplaceId: string; currency: string; language: string }> = {
  '0': { marketplaceId: 'EBAY_US', currency: 'USD', language: 'en-US' },
  '2': { marketplaceId: 'EBAY_CA', currency: 'CAD', language: 'en-CA' },
  '3': { marketplaceId: 'EBAY_GB', currency: 'GBP', language: 'en-GB' },
  '15': { marketplaceId: 'EBAY_AU', currency: 'AUD', language: 'en-AU' },
  '16': { marketplaceId: 'EBAY_AT', currency: 'EUR', language: 'de-AT' },
  '71': { marketplaceId: 'EBAY_FR', currency: 'EUR', language: 'fr-FR' },
  '77': { marketplaceId: 'EBAY_DE', currency: 'EUR', language: 'de-DE' },
  '101': { marketplaceId: 'EBAY_IT', currency: 'EUR', language: 'it-IT' },
  '186': { marketplaceId: 'EBAY_ES', currency: 'EUR', language: 'es-ES' },
  '193': { marketplaceId: 'EBAY_CH', currency: 'CHF', language: 'de-CH' },
};

/**
 * The marketplace of an entry's site_id (77, Germany, when none). An unknown one reads as Germany
 * here, so that what was listed there is still ended and counted there; list and revise refuse it
 * first (siteRefusal).
 */
export function siteOf(group: Group): { marketplaceId: string; currency: string; language: string } {
  return sites[text(group, 'site_id') ?? '77'] ?? sites['77']!;
}

/**
 * Why an entry's site_id cannot be listed, or undefined. Decision: a site_id that is not one of
 * the sites above is refused naming it, not listed in Germany: a seller who set 186 (Spain) by
 * mistake as 168 would otherwise sell in the wrong country and currency without a word.
 */
export function siteRefusal(group: Group): string | undefined {
  const id = text(group, 'site_id');
  if (id === undefined || sites[id]) return undefined;
  return `site_id ${id} is not an eBay site Kontor lists on (${Object.keys(sites).join(', ')}; 77 Germany when none is given)`;
}

/**
 * The SKU Kontor gives an item on eBay: the entry's own sku, else the item's master SKU, else
 * its stock id. The order import finds the item of an eBay line by this SKU.
 */
export function ebaySku(group: Group, masterSku: string | null, stockId: number): string {
  return text(group, 'sku') ?? (masterSku && masterSku.trim() !== '' ? masterSku : String(stockId));
}

/**
 * Why eBay would refuse a SKU as an inventory item's, or undefined: longer than 50 ("Max length:
 * 50"), or a character other than a letter, a digit or "-".
 *
 * The contract's 25707 (createOrReplaceInventoryItem, bulkCreateOrReplaceInventoryItem): "This
 * is an invalid value for a SKU. Only alphanumeric characters can be used for SKUs, and their
 * length must not exceed 50 characters." Kontor's SKUs may hold anything, and one eBay refuses
 * failed the listing only at eBay, after Kontor had sent it. Decision: "-" is let through, the
 * rest refused before any call. eBay's own Inventory API samples use "-" in SKUs (the
 * inventory item group sample's variantSKUs such as "…-GrS", developer.ebay.com
 * createOrReplaceInventoryItemGroup), so its "alphanumeric" does not exclude it, and refusing it
 * would take eBay from every seller whose SKUs are "ABC-1"; nothing published shows eBay taking
 * any other character ("_", ".", "/", a space), so those are refused as the error's text says,
 * for a SKU eBay holds no inventory item of (auction_a's refuseSkus: one it holds, it took).
 */
export function ebaySkuRefusal(sku: string): string | undefined {
  if (sku.length > 50) return `the SKU ${sku} is longer than eBay's 50 characters`;
  const others = [...new Set(sku.replace(/[A-Za-z0-9-]/g, ''))];
  if (others.length === 0) return undefined;
  return `the SKU "${sku}" holds ${others.map((c) => `"${c}"`).join(', ')}, which eBay refuses in a SKU (25707: letters and digits only; Kontor also sends "-"): give the item's auction_a sku (else its sku) only those`;
}

// eBay's condition ids (Trading API numbers, as sellers know them) and the Inventory API's names.
const conditions: Record<string, string> = {
  '1000': 'NEW',
  '1500': 'NEW_OTHER',
  '1750': 'NEW_WITH_DEFECTS',
  '2000': 'MANUFACTURER_REFURBISHED',
  '2500': 'SELLER_REFURBISHED',
  '2750': 'LIKE_NEW',
  '3000': 'USED_EXCELLENT',
  '4000': 'USED_VERY_GOOD',
  '5000': 'USED_GOOD',
  '6000': 'USED_ACCEPTABLE',
  '7000': 'FOR_PARTS_OR_NOT_WORKING',
};
const conditionNames = new Set(Object.values(conditions));

/** condition.id as a number or as the Inventory API's name; undefined when none (eBay then asks for one where the category needs it). */
export function conditionOf(group: Group): string | undefined {
  const id = text(sub(group, 'condition'), 'id');
  if (!id) return undefined;
  return conditions[id] ?? (conditionNames.has(id.toUpperCase()) ? id.toUpperCase() : id);
}

/** Pictures: the gallery picture first, then picture.url[] (document 2: up to 12), without repeats. */
export function picturesOf(group: Group): string[] {
  const picture = sub(group, 'picture');
  const urls = Array.isArray(picture.url) ? picture.url.filter((u): u is string => typeof u === 'string' && u !== '') : [];
  const gallery = text(sub(picture, 'gallery'), 'url');
  return [...new Set(gallery ? [gallery, ...urls] : urls)];
}

/** characteristics.data[] ({type, value}) as eBay's item specifics (aspects: name -> values). */
export function aspectsOf(group: Group): Record<string, string[]> | undefined {
  const data = sub(group, 'characteristics').data;
  if (!Array.isArray(data)) return undefined;
  const aspects: Record<string, string[]> = {};
  for (const entry of data) {
    if (!entry || typeof entry !== 'object') continue;
    const { type, value } = entry as { type?: unknown; value?: unknown };
    if (typeof type !== 'string' || type === '') continue;
    const values = (Array.isArray(value) ? value : [value]).filter((v) => typeof v === 'string' || typeof v === 'number').map(String);
    if (values.length) aspects[type] = [...(aspects[type] ?? []), ...values];
  }
  return Object.keys(aspects).length ? aspects : undefined;
}

/** Product identifiers: the stock barcode as EAN, catalog.value by its type_id (2 ISBN, 3 MPN, 4 EPID, 5 UPC). */
function identifiersOf(group: Group, ean: string | null): Pick<EbayProduct, 'ean' | 'isbn' | 'mpn' | 'epid' | 'upc'> {
  const out: Pick<EbayProduct, 'ean' | 'isbn' | 'mpn' | 'epid' | 'upc'> = {};
  if (ean) out.ean = [ean];
  const catalog = sub(group, 'catalog');
  const value = text(catalog, 'value');
  switch (value ? text(catalog, 'type_id') : undefined) {
    case '1':
      if (!ean) out.ean = [value!];
      break;
    case '2':
      out.isbn = [value!];
      break;
    case '3':
      out.mpn = value;
      break;
    case '4':
      out.epid = value;
      break;
    case '5':
      out.upc = [value!];
      break;
  }
  return out;
}

/** An entry of type_id 1 is an auction; every other type a fixed-price listing. */
export const isAuction = (group: Group): boolean => text(group, 'type_id') === '1';

/** The offer's format of an entry (an auction and a fixed-price offer of one SKU are two offers at eBay). */
export const formatOf = (group: Group): 'AUCTION' | 'FIXED_PRICE' => (isAuction(group) ? 'AUCTION' : 'FIXED_PRICE');

/**
 * The quantity the inventory item carries: the entry's quantity, else what is available. The
 * item is shared by the SKU's auction and fixed-price offers, so an auction entry sets the
 * stock's quantity too (eBay lists an auction with one unit: its offer carries no
 * availableQuantity, error 25762).
 */
function quantityOf(group: Group, item: ListingItem, auction: boolean): number {
  const quantity = group.quantity;
  if (!auction && typeof quantity === 'number' && Number.isInteger(quantity) && quantity >= 0) return quantity;
  return Math.max(0, item.quantityAvailable);
}

/** Product.description's "Max Length: 4000" (sell_inventory_v1_oas3.json). */
export const productDescriptionMax = 4000;

/**
 * The inventory item's product.description: the entry's description, or, when it is longer than
 * the 4000 characters Product.description takes, its text without markup, cut at a word within
 * 4000 with "…" (decision, lib/portals/README.md "Descriptions"). The listing shows the offer's
 * listingDescription (up to 500000, HTML included: "If a listingDescription field is omitted ...
 * the text in this field will be used instead"), which carries the whole description; the
 * product's is the catalogue text eBay also asks for before publishing. Sent whole, a description
 * beyond 4000 (an ordinary HTML listing template) broke the contract's limit on the inventory
 * item, so such an item could be neither listed nor revised.
 */
export function productDescription(description: string): string {
  if (description.length <= productDescriptionMax) return description;
  const plain = description
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (plain.length <= productDescriptionMax) return plain;
  const cut = plain.slice(0, productDescriptionMax - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > productDescriptionMax / 2 ? cut.slice(0, space) : wholeCharacters(cut)}…`;
}

/**
 * A text cut at a length with no space near it, ended on whole characters: not between the two
 * halves of a surrogate pair (an emoji would become a lone surrogate, which JSON carries as an
 * escape eBay shows as garbage) nor inside an HTML entity (`&am`). Lengths stay counted in UTF-16
 * units, as JavaScript and the sandbox count them: never more characters than eBay's, however it
 * counts an emoji.
 */
function wholeCharacters(cut: string): string {
  const pairSafe = /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
  return pairSafe.replace(/&#?[a-zA-Z0-9]{0,31}$/, '');
}

/** The inventory item: product data (title, subtitle, description, pictures, aspects, identifiers), condition, quantity. */
export function inventoryItemOf(item: ListingItem): EbayInventoryItem {
  const g = item.group;
  const auction = isAuction(g);
  const product: EbayProduct = {
    title: text(g, 'name') ?? item.name,
    ...(text(g, 'subtitle') ? { subtitle: text(g, 'subtitle') } : {}),
    ...(text(g, 'description') ? { description: productDescription(text(g, 'description')!) } : {}),
    imageUrls: picturesOf(g),
    ...(aspectsOf(g) || item.specifics?.length ? { aspects: { ...aspectsOf(g), ...specificsOf(item) } } : {}),
    ...identifiersOf(g, item.ean),
  };
  const condition = sub(g, 'condition');
  return {
    product,
    ...(conditionOf(g) ? { condition: conditionOf(g) } : {}),
    ...(text(condition, 'description') ? { conditionDescription: text(condition, 'description') } : {}),
    availability: { shipToLocationAvailability: { quantity: quantityOf(g, item, auction) } },
  };
}

const amount = (value: string | undefined, currency: string): EbayAmount | undefined => (value ? { value, currency } : undefined);

/** The first seller profile id of a kind (seller_profile.payment[] / refund[] / shipping[]). */
function profileId(group: Group, kind: 'payment' | 'refund' | 'shipping'): string | undefined {
  const list = sub(group, 'seller_profile')[kind];
  const first = Array.isArray(list) ? (list[0] as Group | undefined) : undefined;
  return first && typeof first === 'object' ? text(first, 'id') : undefined;
}

/** The offer's listing format, duration and prices: type_id 1 is an auction, everything else fixed price. */
function pricingOf(item: ListingItem, currency: string): Pick<EbayOffer, 'format' | 'listingDuration' | 'pricingSummary'> {
  const g = item.group;
  const price = text(g, 'price') ?? item.price ?? undefined;
  if (isAuction(g)) {
    return {
      format: 'AUCTION',
      listingDuration: `DAYS_${text(g, 'duration') ?? '7'}`,
      pricingSummary: clean({
        auctionStartPrice: amount(text(g, 'start_price') ?? price, currency),
        auctionReservePrice: amount(text(g, 'min_price'), currency),
        // A Buy It Now price beside the start price.
        price: text(g, 'start_price') ? amount(text(g, 'price'), currency) : undefined,
      }),
    };
  }
  // eBay lists fixed-price offers Good 'Til Cancelled only.
  return {
    format: 'FIXED_PRICE',
    listingDuration: 'GTC',
    pricingSummary: clean({ price: amount(price, currency), originalRetailPrice: amount(text(g, 'rrp'), currency) }),
  };
}

/**
 * Listing policies: the seller profiles' ids (eBay business policies) and best offer terms. A
 * best_offer switched off (is_active false) is sent as bestOfferEnabled false: a revise keeps
 * eBay's fields Kontor leaves out (ebay-replacement.ts), so leaving it out kept eBay's best offer on.
 */
function policiesOf(group: Group, currency: string): EbayOffer['listingPolicies'] {
  const bestOffer = sub(group, 'best_offer');
  return clean({
    fulfillmentPolicyId: profileId(group, 'shipping'),
    paymentPolicyId: profileId(group, 'payment'),
    returnPolicyId: profileId(group, 'refund'),
    bestOfferTerms:
      bestOffer.is_active === true
        ? clean({
            bestOfferEnabled: true,
            autoAcceptPrice: amount(text(bestOffer, 'auto_accept_price'), currency),
            autoDeclinePrice: amount(text(bestOffer, 'min_price'), currency),
          })
        : bestOffer.is_active === false
          ? { bestOfferEnabled: false }
          : undefined,
  });
}

/**
 * The offer: marketplace, format, duration, prices, quantity, category, description, policies,
 * tax, location. A fixed-price offer carries the item's quantity as availableQuantity too (a
 * quantity set at both levels is what the listing shows under both readings of eBay's
 * references, SOURCES.md); an auction offer carries none (25762).
 */
export function offerOf(item: ListingItem, sku: string, merchantLocationKey?: string): EbayOffer {
  const g = item.group;
  const site = siteOf(g);
  const vat = text(g, 'vat');
  return clean({
    sku,
    marketplaceId: site.marketplaceId,
    ...pricingOf(item, site.currency),
    availableQuantity: isAuction(g) ? undefined : inventoryItemOf(item).availability!.shipToLocationAvailability!.quantity,
    categoryId: text(g, 'category_1_id'),
    secondaryCategoryId: text(g, 'category_2_id'),
    listingDescription: text(g, 'description'),
    listingPolicies: policiesOf(g, site.currency),
    tax: vat ? { vatPercentage: Number(vat) } : undefined,
    merchantLocationKey,
    // portal_upload's start: eBay's scheduled listing (EbayOfferDetailsWithKeys.listingStartDate).
    listingStartDate: item.start,
  });
}

/**
 * A variant's values of what its main varies by, as aspects: eBay reads each variation's value
 * of a variesBy aspect from its inventory item's aspects (inventory item groups).
 */
function specificsOf(item: ListingItem): Record<string, string[]> {
  return Object.fromEntries((item.specifics ?? []).map((s) => [s.name, [s.value]]));
}

/** InventoryItemGroup.aspects is a map of aspect name to values as Product.aspects is (the generated type says string). */
export type EbayInventoryItemGroup = Omit<Schemas['InventoryItemGroup'], 'aspects'> & { aspects?: Record<string, string[]> };

/**
 * A variation main's inventory item group (createOrReplaceInventoryItemGroup): the listing's
 * title, subtitle, description and pictures from the main, its characteristics as the group's
 * common aspects, the variants' SKUs and what they vary by. No quantity: InventoryItemGroup has
 * none (sell_inventory_v1 InventoryItemGroup); each variant's inventory item and offer carry its
 * own. The common aspects "will be required before the first offer of the group is published"
 * (InventoryItemGroup.aspects; the file types them as a string, the erratum of Product.aspects,
 * SOURCES.md): they were left out, so every group went to publishOfferByInventoryItemGroup
 * without what the contract requires there. Each variant's item keeps them with its own.
 */
export function inventoryItemGroupOf(listing: VariationListing, variantSkus: string[]): EbayInventoryItemGroup {
  const g = listing.main.group;
  const pictures = picturesOf(g);
  return clean({
    title: text(g, 'name') ?? listing.main.name,
    subtitle: text(g, 'subtitle'),
    description: text(g, 'description'),
    imageUrls: pictures.length ? pictures : undefined,
    aspects: aspectsOf(g),
    variantSKUs: variantSkus,
    variesBy: { specifications: listing.variesBy.map((v) => ({ name: v.name, values: v.values })) },
  });
}

/** Both payloads of an item; the merchant location key comes from the portal account. */
export function ebayListing(item: ListingItem, merchantLocationKey?: string): EbayListing {
  const sku = ebaySku(item.group, item.sku, item.stockId);
  const siteRefused = siteRefusal(item.group);
  return {
    sku,
    inventoryItem: inventoryItemOf(item),
    offer: offerOf(item, sku, merchantLocationKey),
    language: siteOf(item.group).language,
    ...(siteRefused ? { siteRefused } : {}),
  };
}

/** Leaves out undefined fields (eBay reads an absent field and an empty one differently). */
function clean<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
