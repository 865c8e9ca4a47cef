/**
 * The sandbox eBay's Inventory API (sell/inventory/v1): inventory items, inventory locations,
 * offers (create, update, publish, withdraw, getOffers) and bulkUpdatePriceQuantity, with the
 * documented rules the adapter depends on (each with its source):
 * - the listing quantity is the lower of the offer's availableQuantity and the item's quantity
 *   (ebay-state.sandbox.ts, listingQuantity);
 * - an auction offer takes no availableQuantity: 25762 "availableQuantity is not applicable for
 *   auction offer" (createOffer/updateOffer/bulkUpdatePriceQuantity error tables);
 * - an offer is published only with the merchantLocationKey of an enabled location of the
 *   seller (EbayOfferDetailsWithKeys.merchantLocationKey: "required before an offer can be
 *   published"; publishOffer error 25002);
 * - one offer per SKU, marketplace and format (createOffer error 25002 "Offer entity already
 *   exists"): an auction and a fixed-price offer of one SKU are two offers;
 * - bulkUpdatePriceQuantity: at most 25 SKUs; offers[] only for published offers of that SKU;
 *   the item's quantity not below its live auctions (error 25759).
 * - a listing is revised at most 250 times a calendar day (bulkUpdatePriceQuantity, updateOffer,
 *   createOrReplaceInventoryItem; ebay-revisions.sandbox.ts).
 * - bulkMigrateListing: 1 to 5 listings; only fixed-price listings with a SKU and business
 *   policies migrate; each becomes an inventory location, item and published offer keeping its
 *   listing id, a multiple-variation listing one item and offer per variation and an inventory
 *   item group (the method's description, "Migration Requirements"; ebay-migrate.sandbox.ts).
 * - a multiple-variation listing ends by withdrawOfferByInventoryItemGroup (every member offer
 *   unpublished); a withdrawOffer of a member offer, or of a variation kept on the group's listing
 *   out of the group, is played but recorded (memberWithdrawals).
 * The request's shape is checked before (ebay-contract.sandbox.ts), and the field rules the
 * contract states only in its descriptions (lengths, enumerations, whole quantities, HTTPS
 * pictures, Content-Language) by ebay-limits.sandbox.ts: 400 25709 naming the field.
 */
import type express from 'express';
import type { SandboxState } from './sandbox.app';
import { mountMigrate } from './ebay-migrate.sandbox';
import { revise } from './ebay-revisions.sandbox';
import { keepForStaleReads, readOffers } from './ebay-stale-reads.sandbox';
import { Body, EbayOfferRecord, error, itemQuantity, key, listingQuantity, refreshListing, setItemQuantity } from './ebay-state.sandbox';
import {
  groupProblem,
  inventoryItemProblem,
  languageProblem,
  limitError,
  memberPicturesProblem,
  offerProblem,
  offerQuantityProblem,
} from './ebay-limits.sandbox';

const inventory = '/sell/inventory/v1';

/**
 * createOrReplaceInventoryItem replaces an item it holds whole ("all fields that are currently
 * defined for the inventory item record are required in that update action"); InventoryItem
 * names the fields eBay refuses to lose: packageWeightAndSize "is required if an inventory item is
 * being updated and shipping package data already exists", conditionDescription "if an inventory
 * item is being updated and a condition description already exists". Each with the call's error
 * of its kind: 25020 "invalid shipping package details", 25021 "invalid item condition
 * information". A field not sent is otherwise gone, as the replacement says; never merged here.
 */
const keptOnReplace: { field: string; errorId: number; message: string }[] = [
  {
    field: 'packageWeightAndSize',
    errorId: 25020,
    message: 'The eBay listing associated with the inventory item, or the unpublished offer has invalid shipping package details.',
  },
  {
    field: 'conditionDescription',
    errorId: 25021,
    message: 'The eBay listing associated with the inventory item, or the unpublished offer has invalid item condition information.',
  },
];

/** The refusal of a replacement that leaves out a field the held item has and eBay requires again, or undefined. */
function replacementProblem(held: Body | undefined, body: Body) {
  const lost = keptOnReplace.find((k) => held?.[k.field] !== undefined && body[k.field] === undefined);
  if (!lost) return undefined;
  return error(
    lost.errorId,
    `${lost.message} ${lost.field} is required when an inventory item is updated and it holds ${lost.field} already: send the item as getInventoryItem answers it.`,
  );
}

/** The offer as getOffers/getOffer answer it. */
const offerView = (o: EbayOfferRecord) => ({
  ...o.body,
  offerId: o.offerId,
  sku: o.sku,
  status: o.status,
  ...(o.listingId ? { listing: { listingId: o.listingId, listingStatus: 'ACTIVE' } } : {}),
});

function mountItems(router: express.Router, state: SandboxState): void {
  const ebay = state.ebay;
  router.put(`${inventory}/inventory_item/:sku`, (req, res) => {
    const account = res.locals.account as string;
    const sku = String(req.params.sku);
    const body = (req.body ?? {}) as Body;
    // 25707, the contract's words. "Alphanumeric" taken with "-", which eBay's own samples use in
    // SKUs (the reading Kontor checks before sending, ebaySkuRefusal in lib/portals/ebay): any other
    // character, or more than 50, is refused for a new item. An item eBay holds already is replaced
    // under its SKU (ours): eBay took that SKU (a Seller Hub listing taken over keeps its SKU,
    // bulkMigrateListing), and the listing it sells under is revised by this call.
    if (!/^[A-Za-z0-9-]{1,50}$/.test(sku) && !ebay.inventory.has(key(account, sku))) {
      res
        .status(400)
        .json(
          error(
            25707,
            'This is an invalid value for a SKU.  Only alphanumeric characters can be used for SKUs, and their length must not exceed 50 characters.',
          ),
        );
      return;
    }
    if (!(body.product as Body | undefined)?.title) {
      res.status(400).json(error(25002, 'A user error has occurred. The title is missing.'));
      return;
    }
    const broken = languageProblem(req.get('Content-Language')) ?? inventoryItemProblem(body);
    if (broken) {
      res.status(400).json(limitError(broken));
      return;
    }
    const dropped = replacementProblem(ebay.inventory.get(key(account, sku)), body);
    if (dropped) {
      res.status(400).json(dropped);
      return;
    }
    // Replacing the item revises its live listings (the call's note on the 250 revisions a day).
    const refusal = revise(ebay, ebay.offersOf(account, sku));
    if (refusal) {
      res.status(400).json(refusal);
      return;
    }
    ebay.inventory.set(key(account, sku), body);
    ebay.locales.set(key(account, sku), String(req.get('Content-Language')));
    const before = state.offers.get(`auction_a|${account}|${sku}`)?.quantity;
    const view = refreshListing(state, account, sku);
    if (ebay.offersOf(account, sku).some((o) => o.status === 'PUBLISHED') && view.quantity !== before) refreshListing(state, account, sku, 'listing');
    res.status(204).end();
  });
  router.get(`${inventory}/inventory_item/:sku`, (req, res) => {
    const item = ebay.inventory.get(key(res.locals.account as string, String(req.params.sku)));
    if (!item) {
      res.status(404).json(error(25702, `The SKU ${String(req.params.sku)} is not available in the system.`));
      return;
    }
    // InventoryItemWithSkuLocaleGroupid.groupIds: "returned if the inventory item is associated with
    // any inventory item group(s)", their keys.
    const account = res.locals.account as string;
    const groupIds = [...ebay.groups]
      .filter(
        ([id, group]) => id.startsWith(`${account}|`) && Array.isArray(group.variantSKUs) && group.variantSKUs.map(String).includes(String(req.params.sku)),
      )
      .map(([id]) => id.slice(account.length + 1));
    // InventoryItemWithSkuLocaleGroupid.locale: "the natural language that was provided in the field
    // values of the request payload" (its Content-Language); read-only, as sku and groupIds.
    const locale = ebay.locales.get(key(account, String(req.params.sku))) ?? 'de_DE';
    res.json({ ...item, sku: String(req.params.sku), locale: locale.replace('-', '_'), ...(groupIds.length ? { groupIds } : {}) });
  });
  router.get(`${inventory}/location`, (_req, res) => {
    const locations = [...ebay.locationsOf(res.locals.account as string).values()];
    res.json({ href: `${inventory}/location`, limit: 100, offset: 0, total: locations.length, locations });
  });
  router.get(`${inventory}/location/:key`, (req, res) => {
    const location = ebay.locationsOf(res.locals.account as string).get(String(req.params.key));
    if (!location) {
      res.status(404).json(error(25804, `Location ${String(req.params.key)} not found.`));
      return;
    }
    res.json(location);
  });
  router.post(`${inventory}/location/:key`, (req, res) => {
    const own = ebay.locationsOf(res.locals.account as string);
    const merchantLocationKey = String(req.params.key);
    if (own.has(merchantLocationKey)) {
      res.status(409).json(error(25803, `${merchantLocationKey} already exists.`));
      return;
    }
    own.set(merchantLocationKey, { merchantLocationStatus: 'ENABLED', ...(req.body as Body), merchantLocationKey });
    res.status(204).end();
  });
}

function mountOffers(router: express.Router, state: SandboxState): void {
  const ebay = state.ebay;
  const own = (req: express.Request, res: express.Response) => {
    const offer = ebay.offers.get(String(req.params.offerId));
    if (offer && offer.account === res.locals.account) return offer;
    res.status(404).json(error(25713, 'This Offer is not available.'));
    return undefined;
  };
  router.get(`${inventory}/offer`, (req, res) => {
    const account = res.locals.account as string;
    const sku = String(req.query.sku ?? '');
    // getOffers' 400 25709 "Invalid value for {fieldName}": a SKU eBay cannot hold ("Max length: 50", the inventory item's sku).
    if (sku.length > 50) {
      res.status(400).json(error(25709, 'Invalid value for sku. A SKU has at most 50 characters.'));
      return;
    }
    const offers = readOffers(ebay, account, sku, ebay.offersOf(account, sku)).filter(
      (o) => (!req.query.marketplace_id || o.body.marketplaceId === req.query.marketplace_id) && (!req.query.format || o.body.format === req.query.format),
    );
    if (!offers.length) {
      res.status(404).json(error(25713, 'This Offer is not available.'));
      return;
    }
    res.json({ href: req.originalUrl, limit: 100, size: offers.length, total: offers.length, offers: offers.map(offerView) });
  });
  router.get(`${inventory}/offer/:offerId`, (req, res) => {
    const offer = own(req, res);
    if (offer) res.json(offerView(readOffers(ebay, offer.account, offer.sku, [offer])[0]!));
  });
  router.post(`${inventory}/offer`, (req, res) => {
    const account = res.locals.account as string;
    const body = (req.body ?? {}) as Body;
    const sku = String(body.sku ?? '');
    if (!ebay.inventory.has(key(account, sku))) {
      res.status(400).json(error(25702, `The SKU ${sku} is not available in the system.`));
      return;
    }
    if (!body.marketplaceId || !body.format) {
      res.status(400).json(error(25709, 'Invalid value for marketplaceId or format.'));
      return;
    }
    const broken = languageProblem(req.get('Content-Language')) ?? offerProblem(body, body.format);
    if (broken) {
      res.status(400).json(limitError(broken));
      return;
    }
    if (body.format === 'AUCTION' && body.availableQuantity !== undefined) {
      res.status(400).json(error(25762, 'availableQuantity is not applicable for auction offer.'));
      return;
    }
    if (ebay.offersOf(account, sku).some((o) => o.body.marketplaceId === body.marketplaceId && o.body.format === body.format)) {
      res.status(400).json(error(25002, `Offer entity already exists for SKU ${sku}, ${String(body.marketplaceId)}, ${String(body.format)}.`));
      return;
    }
    const offerId = String(5000000000 + ebay.next());
    ebay.offers.set(offerId, { offerId, account, sku, body, status: 'UNPUBLISHED' });
    refreshListing(state, account, sku);
    res.status(201).json({ offerId });
  });
  router.put(`${inventory}/offer/:offerId`, (req, res) => {
    const offer = own(req, res);
    if (!offer) return;
    const body = (req.body ?? {}) as Body;
    if (offer.body.format === 'AUCTION' && body.availableQuantity !== undefined) {
      res.status(400).json(error(25762, 'availableQuantity is not applicable for auction offer.'));
      return;
    }
    const broken = languageProblem(req.get('Content-Language')) ?? offerProblem(body, offer.body.format);
    if (broken) {
      res.status(400).json(limitError(broken));
      return;
    }
    const refusal = revise(ebay, [offer]);
    if (refusal) {
      res.status(400).json(refusal);
      return;
    }
    const before = offer.status === 'PUBLISHED' ? listingQuantity(ebay, offer) : undefined;
    offer.body = { ...body, sku: offer.sku, marketplaceId: offer.body.marketplaceId, format: offer.body.format };
    const changed = before !== undefined && listingQuantity(ebay, offer) !== before;
    refreshListing(state, offer.account, offer.sku, changed ? 'listing' : undefined);
    res.status(204).end();
  });
  router.post(`${inventory}/offer/:offerId/publish`, (req, res) => {
    const offer = own(req, res);
    if (!offer) return;
    const location = String(offer.body.merchantLocationKey ?? '');
    const found = location ? ebay.locationsOf(offer.account).get(location) : undefined;
    if (!found || found.merchantLocationStatus !== 'ENABLED') {
      const why = location ? `the inventory location ${location} does not exist or is disabled` : 'the offer has no merchantLocationKey';
      res.status(400).json(error(25002, `A user error has occurred. No <Item.Country> exists: ${why}.`));
      return;
    }
    if (!ebay.inventory.has(key(offer.account, offer.sku))) {
      res.status(400).json(error(25702, `The SKU ${offer.sku} is not available in the system.`));
      return;
    }
    // PublishResponse.listingId: "the newly created eBay listing". A live offer's publish revises
    // its listing; an unpublished one's makes a new listing (an ended listing is not live again).
    // It took the offer's old listing id before: a variant off its main's listing, listed on its
    // own, came back under the main's listing id.
    if (offer.status !== 'PUBLISHED' || !offer.listingId) offer.listingId = String(110000000000 + ebay.next());
    offer.status = 'PUBLISHED';
    refreshListing(state, offer.account, offer.sku, 'listing');
    // PublishResponse: listingId and warnings only (the OAS file); the caller knows its offerId.
    res.json({ listingId: offer.listingId });
  });
  router.post(`${inventory}/offer/:offerId/withdraw`, (req, res) => {
    const offer = own(req, res);
    if (!offer) return;
    if (offer.status !== 'PUBLISHED') {
      res.status(404).json(error(25713, 'This Offer is not available.'));
      return;
    }
    const group = publishedGroupOf(ebay, offer);
    if (group !== undefined) ebay.memberWithdrawals.push({ account: offer.account, offerId: offer.offerId, sku: offer.sku, groupKey: group });
    offer.status = 'UNPUBLISHED';
    refreshListing(state, offer.account, offer.sku, 'end');
    res.json({ listingId: offer.listingId });
  });
}

interface PriceQuantityAnswer {
  sku: string;
  offerId?: string;
  statusCode: number;
  errors?: ReturnType<typeof error>['errors'];
}

/**
 * One SKU of bulkUpdatePriceQuantity: its scripted fault (a fault with reference = the SKU), its
 * checks, then the item's quantity and each named offer's availableQuantity/price; one answer
 * per offer (eBay's responses[]), one for the SKU when it names none. A SKU the seller holds no
 * inventory item of is refused in its own entry (statusCode 400, errors[] 25002): the call "is
 * used by the seller to update the total ship-to-home quantity of one inventory item" and
 * PriceQuantityResponse gives each SKU its statusCode and errors; the call's error table names
 * 25002 "Any User error. {additionalInfo}" for such a refusal (25701 "One or more of the supplied
 * SKU(s) could not be found in the system" is other calls'). It took the quantity before and made
 * an inventory item without a product, which createOffer then took.
 */
function priceQuantity(state: SandboxState, account: string, request: Body): PriceQuantityAnswer[] {
  const ebay = state.ebay;
  const sku = String(request.sku ?? '');
  const offers = (Array.isArray(request.offers) ? request.offers : []) as { offerId?: string; availableQuantity?: number; price?: Body }[];
  const refuse = (status: number, errorId: number, message: string): PriceQuantityAnswer[] => {
    const errors = error(errorId, message).errors;
    return offers.length ? offers.map((o) => ({ sku, offerId: o.offerId, statusCode: status, errors })) : [{ sku, statusCode: status, errors }];
  };
  const fault = state.takeFault('auction_a', account, sku);
  if (fault) return refuse(fault.status, fault.status === 429 ? 2001 : 25001, fault.message);
  const quantity = (request.shipToLocationAvailability as { quantity?: unknown } | undefined)?.quantity;
  if (!sku) return refuse(400, 25604, 'Input error. The sku is required.');
  if (!ebay.inventory.has(key(account, sku)) && !ebay.itemsMadeElsewhere)
    return refuse(400, 25002, `A user error has occurred. No inventory item exists for SKU ${sku}.`);
  if (quantity !== undefined && (typeof quantity !== 'number' || !Number.isInteger(quantity) || quantity < 0))
    return refuse(400, 25604, 'Input error. The quantity must be a whole number of 0 or more, for a SKU.');
  const auctions = ebay.offersOf(account, sku).filter((o) => o.status === 'PUBLISHED' && o.body.format === 'AUCTION').length;
  if (typeof quantity === 'number' && quantity < auctions)
    return refuse(
      400,
      25759,
      'shipToLocationAvailability quantity value should be greater than or equal to auction allocation. Please provide valid quantity or unpublish auction offers of the sku.',
    );
  for (const o of offers) {
    const offer = o.offerId ? ebay.offers.get(o.offerId) : undefined;
    if (!offer || offer.account !== account || offer.sku !== sku)
      return refuse(400, 25713, `This Offer is not available : ${String(o.offerId)} of SKU ${sku}.`);
    if (offer.status !== 'PUBLISHED') return refuse(400, 25713, `This Offer is not available : ${offer.offerId} is not published (use updateOffer).`);
    if (offer.body.format === 'AUCTION' && o.availableQuantity !== undefined)
      return refuse(400, 25762, 'availableQuantity is not applicable for auction offer.');
    if (offerQuantityProblem(o.availableQuantity))
      return refuse(400, 25604, 'Input error. The availableQuantity must be a whole number of 0 or more, for an offer.');
  }
  // Each live listing the entry changes is revised once: its offer named, or every one of the SKU when the item's quantity is set.
  const revised = [...offers.map((o) => ebay.offers.get(o.offerId!)!), ...(typeof quantity === 'number' ? ebay.offersOf(account, sku) : [])];
  const limit = revise(ebay, revised);
  if (limit) return refuse(400, 25002, limit.errors[0]!.message);
  if (typeof quantity === 'number') setItemQuantity(ebay, account, sku, quantity);
  for (const o of offers) {
    const offer = ebay.offers.get(o.offerId!)!;
    keepForStaleReads(offer);
    offer.body = {
      ...offer.body,
      ...(o.availableQuantity !== undefined ? { availableQuantity: o.availableQuantity } : {}),
      ...(o.price ? { pricingSummary: { ...(offer.body.pricingSummary as Body | undefined), price: o.price } } : {}),
    };
  }
  refreshListing(state, account, sku, 'quantity');
  return offers.length ? offers.map((o) => ({ sku, offerId: o.offerId, statusCode: 200 })) : [{ sku, statusCode: 200 }];
}

function mountBulk(router: express.Router, state: SandboxState): void {
  router.post(`${inventory}/bulk_update_price_quantity`, (req, res) => {
    const account = res.locals.account as string;
    const requests = (req.body as { requests?: unknown } | undefined)?.requests;
    state.quantityRequests += 1;
    if (!Array.isArray(requests) || requests.length === 0 || requests.length > 25) {
      res.status(400).json(error(25709, 'The requests container must hold 1 to 25 entries.'));
      return;
    }
    const responses = requests.flatMap((r) => priceQuantity(state, account, (r ?? {}) as Body));
    res.status(responses.every((r) => r.statusCode === 200) ? 200 : 207).json({ responses });
  });
}

/**
 * Inventory item groups (a multiple-variation listing): createOrReplaceInventoryItemGroup keeps
 * the group as sent (its shape, which has no quantity, is the contract gate's: a field the
 * InventoryItemGroup schema lacks is refused there); variantSKUs are required ("the only required
 * elements are the inventoryItemGroupKey ... and the members ... variantSKUs"). Each member keeps
 * its own quantity on its inventory item and offer. publishOfferByInventoryItemGroup publishes
 * every member's offer of the marketplace as one listing (one listingId): refused (25705) for an
 * unknown group, and (25002, the call's "Any User error"; the sandbox's wording) when the group has
 * no title, variesBy, common aspects (InventoryItemGroup.aspects: "required before the first
 * offer of the group is published") or description (the same of InventoryItemGroup.description),
 * when neither the group nor a member's inventory item has an image ("Before any offer can be
 * published, at least one image must exist", InventoryItemGroup.imageUrls), a member has no
 * inventory item or fixed-price offer of that marketplace, or the offers' location is not an
 * enabled one (as publishOffer). A SKU left out of a published
 * group's variantSKUs is removed from its listing (its offer unpublished), unless it has sold on
 * that listing (deleteOffer's note): then it stays published until the listing is withdrawn.
 */
function mountGroups(router: express.Router, state: SandboxState): void {
  const ebay = state.ebay;
  const groupPath = `${inventory}/inventory_item_group/:groupKey`;
  router.put(groupPath, (req, res) => {
    const body = (req.body ?? {}) as Body;
    const skus = body.variantSKUs;
    if (!Array.isArray(skus) || skus.length === 0) {
      res.status(400).json(error(25709, 'Invalid value for variantSKUs. An inventory item group needs its member SKUs.'));
      return;
    }
    const account = res.locals.account as string;
    const groupKey = String(req.params.groupKey);
    // The path parameter's "Max Length: 50" (the call names no error id for it: 25002, "Any User error").
    if (groupKey.length > 50) {
      res.status(400).json(error(25002, `A user error has occurred. The inventoryItemGroupKey ${groupKey} is longer than 50 characters.`));
      return;
    }
    const broken = languageProblem(req.get('Content-Language')) ?? groupProblem(body);
    if (broken) {
      res.status(400).json(limitError(broken));
      return;
    }
    // 25703 "The following SKU is already a member of another group" and 25704 "... already listed
    // as a single SKU listing" (the call's error table): a member SKU of another group of the
    // seller, or with a published fixed-price offer on a listing that is not this group's live one.
    const groupListing = ebay.groupListings.get(key(account, groupKey));
    for (const sku of skus.map(String)) {
      const other = [...ebay.groups].find(
        ([id, group]) =>
          id !== key(account, groupKey) && id.startsWith(`${account}|`) && Array.isArray(group.variantSKUs) && group.variantSKUs.map(String).includes(sku),
      );
      if (other) {
        res
          .status(400)
          .json(error(25703, `The following SKU is already a member of another group. SKU : ${sku} groupId : ${other[0].slice(account.length + 1)}`));
        return;
      }
      const single = ebay.offersOf(account, sku).find((o) => o.status === 'PUBLISHED' && o.body.format === 'FIXED_PRICE' && o.listingId !== groupListing);
      if (single) {
        res
          .status(400)
          .json(error(25704, `The following SKU is already listed as a single SKU listing. SKU : ${sku} Listing ID : ${String(single.listingId)}`));
        return;
      }
    }
    const before = ebay.groups.get(key(account, String(req.params.groupKey)));
    ebay.groups.set(key(account, String(req.params.groupKey)), body);
    // "if changes are made to an inventory item group that is part of a live, multiple-variation
    // eBay listing, these changes automatically update the eBay listing. For example, if a SKU value
    // is removed from the inventory item group, the corresponding product variation will be removed
    // from the eBay listing as well" (createOrReplaceInventoryItemGroup): a member left out of
    // variantSKUs is off the listing, its offer unpublished (the sandbox's reading: the offer stays).
    // Not a variation that has sold on that listing: "the deleteOffer will not remove the product
    // variation from the listing if that variation has one or more sales ... the seller can
    // alternately just set the available quantity of that product variation to 0 ... and then
    // remove that product variation from the inventory item group" (deleteOffer). The sandbox's
    // reading for the group's replacement, which names no refusal: the variation stays on the
    // listing, published at its quantity, out of the group.
    const kept = new Set(skus.map(String));
    const removed = before && Array.isArray(before.variantSKUs) ? before.variantSKUs.map(String).filter((sku) => !kept.has(sku)) : [];
    for (const sku of removed) {
      for (const offer of ebay.offersOf(account, sku)) {
        if (offer.status !== 'PUBLISHED' || offer.body.format !== 'FIXED_PRICE' || hasSold(ebay, offer)) continue;
        offer.status = 'UNPUBLISHED';
        refreshListing(state, account, sku, 'end');
      }
    }
    res.status(204).end();
  });
  router.get(groupPath, (req, res) => {
    const group = ebay.groups.get(key(res.locals.account as string, String(req.params.groupKey)));
    if (!group) {
      res.status(400).json(error(25705, `The Inventory Item Group named ${String(req.params.groupKey)} could not be found or is not available in the system.`));
      return;
    }
    res.json({ ...group, inventoryItemGroupKey: String(req.params.groupKey) });
  });
  // deleteInventoryItemGroup: "deletes the inventory item group" (204); 25705 for an unknown one. Its
  // members' inventory items and offers stay (the call names only the group).
  router.delete(groupPath, (req, res) => {
    const id = key(res.locals.account as string, String(req.params.groupKey));
    if (!ebay.groups.has(id)) {
      res.status(400).json(error(25705, `The Inventory Item Group named ${String(req.params.groupKey)} could not be found or is not available in the system.`));
      return;
    }
    ebay.groups.delete(id);
    ebay.groupListings.delete(id);
    res.status(204).end();
  });
  router.post(`${inventory}/offer/publish_by_inventory_item_group`, (req, res) => {
    const account = res.locals.account as string;
    const body = (req.body ?? {}) as Body;
    const groupKey = String(body.inventoryItemGroupKey ?? '');
    const group = ebay.groups.get(key(account, groupKey));
    if (!group) {
      res.status(400).json(error(25705, `The Inventory Item Group named ${groupKey} could not be found or is not available in the system.`));
      return;
    }
    const specifications = (group.variesBy as { specifications?: unknown[] } | undefined)?.specifications;
    if (!group.title || !Array.isArray(specifications) || specifications.length === 0) {
      res.status(400).json(error(25002, `A user error has occurred. Inventory item group ${groupKey} needs a title and variesBy to be published.`));
      return;
    }
    // InventoryItemGroup.aspects: "not immediately required upon creating an inventory item group,
    // but these aspects will be required before the first offer of the group is published".
    const aspects = group.aspects;
    if (!aspects || typeof aspects !== 'object' || Object.keys(aspects).length === 0) {
      res.status(400).json(error(25002, `A user error has occurred. Inventory item group ${groupKey} needs its common aspects to be published.`));
      return;
    }
    // InventoryItemGroup.description: "not initially required when first creating an inventory item
    // group, but will be required before the first offer of the group is published".
    if (typeof group.description !== 'string' || group.description.trim() === '') {
      res.status(400).json(error(25002, `A user error has occurred. Inventory item group ${groupKey} needs a description to be published.`));
      return;
    }
    // InventoryItemGroup.imageUrls: "Before any offer can be published, at least one image must
    // exist for the offer ... passed in through this imageUrls container, or ... through the
    // product.imageUrls container when creating each inventory item in the group".
    const groupImages = Array.isArray(group.imageUrls) && group.imageUrls.length > 0;
    const imageless = (group.variantSKUs as unknown[]).find((sku) => {
      const images = ((ebay.inventory.get(key(account, String(sku))) as Body | undefined)?.product as Body | undefined)?.imageUrls;
      return !groupImages && !(Array.isArray(images) && images.length > 0);
    });
    if (imageless !== undefined) {
      res.status(400).json(error(25002, `A user error has occurred. SKU ${String(imageless)} of group ${groupKey} has no image, nor has the group.`));
      return;
    }
    const crowded = (group.variantSKUs as unknown[])
      .map((sku) => memberPicturesProblem(String(sku), ebay.inventory.get(key(account, String(sku)))))
      .find(Boolean);
    if (crowded) {
      res.status(400).json(limitError(crowded));
      return;
    }
    const offers: EbayOfferRecord[] = [];
    for (const sku of group.variantSKUs as unknown[]) {
      const offer = ebay.offersOf(account, String(sku)).find((o) => o.body.marketplaceId === body.marketplaceId && o.body.format === 'FIXED_PRICE');
      const location = offer ? ebay.locationsOf(account).get(String(offer.body.merchantLocationKey ?? '')) : undefined;
      if (!ebay.inventory.has(key(account, String(sku))) || !offer || location?.merchantLocationStatus !== 'ENABLED') {
        res
          .status(400)
          .json(
            error(
              25002,
              `A user error has occurred. SKU ${String(sku)} of group ${groupKey} has no inventory item or fixed-price offer with an enabled location on ${String(body.marketplaceId)}.`,
            ),
          );
        return;
      }
      offers.push(offer);
    }
    // PublishResponse.listingId: "the unique identifier of the newly created eBay listing". A group
    // whose listing is live (an offer published on it) is that listing, updated ("changes ... to an
    // inventory item group that is part of a live, multiple-variation eBay listing ...
    // automatically update the eBay listing", createOrReplaceInventoryItemGroup); else the publish
    // creates one, with an id of its own. It took any member offer's listingId before, also an
    // unpublished one's: the id of a withdrawn group's ended listing, or of a variant's ended
    // listing of its own, came back as the new listing's.
    const previous = ebay.groupListings.get(key(account, groupKey));
    const live = previous !== undefined && [...ebay.offers.values()].some((o) => o.account === account && o.status === 'PUBLISHED' && o.listingId === previous);
    const listingId = live ? previous : String(110000000000 + ebay.next());
    ebay.groupListings.set(key(account, groupKey), listingId);
    for (const offer of offers) {
      offer.status = 'PUBLISHED';
      offer.listingId = listingId;
      refreshListing(state, account, offer.sku, 'listing');
    }
    res.json({ listingId });
  });
  // withdrawOfferByInventoryItemGroup ({inventoryItemGroupKey, marketplaceId}, the contract gate
  // checks the shape): "end a multiple-variation eBay listing ... does not delete the inventory item
  // group object ... nor any of the offers ..., but instead all of these offers go into the
  // unpublished state"; 204. Its only documented refusal is 400 25725 "No offer found": answered for
  // an unknown group and for a group with no published member offer on that marketplace (the
  // sandbox's reading: nothing to withdraw is no offer found).
  router.post(`${inventory}/offer/withdraw_by_inventory_item_group`, (req, res) => {
    const account = res.locals.account as string;
    const body = (req.body ?? {}) as Body;
    const groupKey = String(body.inventoryItemGroupKey ?? '');
    const group = ebay.groups.get(key(account, groupKey));
    const members = group ? groupOffers(ebay, account, group).filter((o) => o.status === 'PUBLISHED' && o.body.marketplaceId === body.marketplaceId) : [];
    // The listing ends whole: also a variation kept on it out of the group (it had sold, above).
    const listings = new Set(members.map((o) => o.listingId).filter(Boolean));
    const kept = [...ebay.offers.values()].filter(
      (o) => o.account === account && o.status === 'PUBLISHED' && o.listingId && listings.has(o.listingId) && !members.includes(o),
    );
    const live = [...members, ...kept];
    if (live.length === 0) {
      res.status(400).json(error(25725, `No offer found for inventory item group ${groupKey} on ${String(body.marketplaceId)}.`));
      return;
    }
    for (const offer of live) {
      offer.status = 'UNPUBLISHED';
      refreshListing(state, account, offer.sku, 'end');
    }
    res.status(204).end();
  });
}

/** Whether an offer's listing has sold this SKU (an order line of the SKU on that listing id). */
function hasSold(ebay: SandboxState['ebay'], offer: EbayOfferRecord): boolean {
  for (const { account, order } of ebay.orders.values()) {
    if (account === offer.account && (order.lineItems ?? []).some((l) => l.sku === offer.sku && l.legacyItemId === offer.listingId)) return true;
  }
  return false;
}

/** The offers of a group's member SKUs. */
function groupOffers(ebay: SandboxState['ebay'], account: string, group: Body): EbayOfferRecord[] {
  const skus = Array.isArray(group.variantSKUs) ? group.variantSKUs.map(String) : [];
  return skus.flatMap((sku) => ebay.offersOf(account, sku));
}

/**
 * The published multiple-variation listing (its group's key) an offer is a member of, or is a
 * variation of out of the group (kept there because it sold, mountGroups), else undefined:
 * withdrawOffer "is used to end a single-variation listing" and names
 * withdrawOfferByInventoryItemGroup for a multiple-variation one, but documents no refusal of a
 * member offer, nor what it does to the listing, so the sandbox plays it as before and records it
 * (`memberWithdrawals`).
 */
function publishedGroupOf(ebay: SandboxState['ebay'], offer: EbayOfferRecord): string | undefined {
  if (offer.status !== 'PUBLISHED' || offer.body.format !== 'FIXED_PRICE') return undefined;
  for (const [groupId, group] of ebay.groups) {
    const [account, ...rest] = groupId.split('|');
    if (account !== offer.account) continue;
    const member = Array.isArray(group.variantSKUs) && group.variantSKUs.map(String).includes(offer.sku);
    if (member || (offer.listingId !== undefined && ebay.groupListings.get(groupId) === offer.listingId)) return rest.join('|');
  }
  return undefined;
}

export function mountInventory(router: express.Router, state: SandboxState): void {
  mountMigrate(router, state);
  mountItems(router, state);
  mountGroups(router, state);
  mountOffers(router, state);
  mountBulk(router, state);
}

/** GET /_sandbox/ebay/listings?portal_account=: every offer with what its buyer sees (listingQuantity). */
export function listingsOf(state: SandboxState, account?: string) {
  return [...state.ebay.offers.values()]
    .filter((o) => !account || o.account === account)
    .map((o) => ({
      offerId: o.offerId,
      portal_account: o.account,
      sku: o.sku,
      format: o.body.format,
      status: o.status,
      listingId: o.listingId ?? null,
      availableQuantity: o.body.availableQuantity ?? null,
      itemQuantity: itemQuantity(state.ebay.inventory.get(key(o.account, o.sku))),
      quantity: o.status === 'PUBLISHED' ? listingQuantity(state.ebay, o) : 0,
    }));
}
