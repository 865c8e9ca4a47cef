import type { Knex } from 'knex';
import { ciaActiveAt, ciaRepository } from '../cia';
import { db, transaction } from '../db';
import { domainError } from '../errors';
import { queues } from '../queue';
import type { PortalUploadJob } from '../queue';
import type { ListingItem, PortalTarget, RegisteredAdapter, VariationListing } from '../portals';
import { PortalId, str } from '../portals';
import { stockPortalRepository } from '../stock';
import { scheduleListingCheck } from './portal-listing-check.service';
import { ListingKey, portalListingRepository } from './portal-listing.repository';
import { leftListings } from './portal-push.service';

/**
 * A variant's field group in a listing of its main: the main's entry gives what the variant's own
 * entry leaves out (title, description, pictures, category, policies: the listing is the main's),
 * but never what names the main's own product at the portal (decision: each variant is offered
 * under its own SKU with its own quantity, lib/cia "A variation main offers nothing of its own"):
 * its SKU, its fixed quantity, and its product codes (document 2's portal groups: `ean`, `mpn`,
 * market_d's `id` and `id_type`, auction_a's and auction_b's `catalog`, whose value is an EAN,
 * ISBN, MPN, ePID or UPC by its type_id). An adapter falls back from the group's code to the
 * item's own (Kaufland's unit is one EAN); the main's code there made every variant a unit of the
 * main's product, and at eBay every variant's inventory item the main's catalog product.
 *
 * market_d's currency_prices[] are the main's price in other currencies: a variant takes them only
 * when it is offered the main's price (its group's price, else the main's group's, else its item
 * price, equal to the main's group's price, else the main's item price). One offered a price of its
 * own got the main's GBP price beside its own EUR one (29.90 EUR, 17.50 GBP); it is refused before
 * any call, naming its SKU (lib/portals README, market_d). Decision: a variant whose item price is
 * the main's, where the main's group names no price, is offered the main's GBP price too (a seller
 * naming GBP on the main alone, variants priced alike, had every variant refused).
 */
export function variantGroup(main: Pick<ListingItem, 'group' | 'price'>, own: Pick<ListingItem, 'group' | 'price'>): Record<string, unknown> {
  const { sku: _sku, quantity: _quantity, ean: _ean, mpn: _mpn, id: _id, id_type: _idType, catalog: _catalog, ...shared } = main.group;
  const mainPrice = str(main.group, 'price', main.price);
  const ownPrice = str(own.group, 'price', str(main.group, 'price', own.price));
  if (mainPrice === null || ownPrice === null || Number(ownPrice) !== Number(mainPrice)) delete shared.currency_prices;
  return { ...shared, ...own.group };
}

/** The item as a variation listing when it is a variation main with variants, else undefined. */
export async function variationListingOf(job: PortalUploadJob, main: ListingItem): Promise<VariationListing | undefined> {
  const found = await stockPortalRepository.variationOf(db(), job.accountId, job.stockId, job.portal as PortalId, job.listerId);
  if (!found) return undefined;
  // Each variant is offered by its own cia settings (lib/cia), so whether CIA keeps its quantity here is its own.
  const kept = await ciaActiveAt(
    job.accountId,
    { portal: job.portal, portalAccountId: job.portalAccountId },
    found.variants.map((v) => v.stockId),
  );
  const variants = found.variants.map((v) => ({
    ...v,
    group: variantGroup(main, v),
    ciaActive: kept.has(v.stockId),
    ...(main.start ? { start: main.start } : {}),
  }));
  return { main, variesBy: found.variesBy, variants };
}

/**
 * list (and revise) of a variation main: its variants are listed, each under its own SKU with its
 * own quantity, never the main's quantity under the main's SKU. A portal whose contract has a
 * listing of variants (eBay's inventory item group) lists them as one (`listVariations`); every
 * other lists each variant as an offer of its own (Kaufland: a unit is one EAN; Amazon: a listing
 * is one SKU's; Shopify and the JSON dialect: one SKU each). Each variant's listing is recorded
 * under the variant, the multiple-variation listing's id under the main too; then CIA has the
 * last word on each variant's quantity, as after any listing.
 *
 * Offer by offer, each variant's listing is recorded as soon as the portal has it, as a plain
 * item's is: a job that fails on a later variant and is retried (by any portal_upload process)
 * lists the earlier ones again with their recorded id (`listedAs`), which updates that offer
 * instead of making a second one where the portal's create does not deduplicate (Kaufland's
 * POST /units adds a unit per call). The listing of variants as one is a single listing: eBay's
 * calls replace by SKU and group key, and nothing is live before its publish.
 */
export async function listVariation(
  target: PortalTarget,
  adapter: RegisteredAdapter,
  job: PortalUploadJob,
  jobId: string,
  key: ListingKey,
  variation: VariationListing,
): Promise<Record<string, unknown>> {
  const knex = db();
  const listed = new Map<number, string>();
  let grouped: string | null = null;
  let removed: number[] = [];
  if (adapter.listVariations) {
    // A variant's offer may still sell on another main's listing it left (eBay keeps a variation
    // that sold there): the adapter refuses such a variant by these.
    const left = await leftListings(
      knex,
      job.accountId,
      { portal: job.portal, portalAccountId: job.portalAccountId },
      variation.variants.map((v) => v.stockId),
    );
    const variants = variation.variants.map((v) => ({ ...v, leftListings: [...(left.get(v.stockId) ?? [])] }));
    // The group key the main's live listing was made under (eBay's listing is the group's): a main
    // whose SKU the seller changed since is listed again under it, not as a second group.
    const own = await portalListingRepository.listing(knex, key);
    const main = { ...variation.main, listedSku: own?.status === 'listed' ? own.listed_sku : null };
    const made = await adapter.listVariations(target, { ...variation, main, variants }, jobId);
    const portalItemId = made.portalItemId;
    grouped = portalItemId;
    await transaction(async (trx) => {
      await portalListingRepository.saveListing(trx, key, portalItemId, 'listed', null, made.listedSku ?? null);
      for (const v of variation.variants) await recordVariant(trx, adapter, job, jobId, key, v.stockId, portalItemId, made.variantSkus?.get(v.stockId));
      // An item recorded in this listing that is no longer among the main's variants (it left the
      // main, or was deleted) is off it: the group was replaced with the variants' SKUs only, and
      // "if a SKU value is removed from the inventory item group, the corresponding product
      // variation will be removed from the eBay listing as well" (createOrReplaceInventoryItemGroup).
      // Its record read listed under the main's listing id for good before: its offer was
      // neither live nor ended by anything of Kontor's.
      removed = await portalListingRepository.endOutsiders(trx, key, portalItemId, [job.stockId, ...variation.variants.map((v) => v.stockId)]);
    });
    for (const v of variation.variants) {
      listed.set(v.stockId, portalItemId);
      await adjustVariant(job, jobId, v.stockId);
    }
  } else {
    for (const v of variation.variants) {
      const own = await portalListingRepository.listing(knex, { ...key, stockId: v.stockId });
      const listedAs = own?.status === 'listed' ? own.portal_item_id : null;
      let portalItemId: string;
      if (job.action === 'revise') {
        if (!listedAs) continue;
        await adapter.revise(target, v, listedAs, job.reviseValues ?? [], `${jobId}-v${v.stockId}`);
        portalItemId = listedAs;
      } else portalItemId = (await adapter.list(target, { ...v, listedAs }, `${jobId}-v${v.stockId}`)).portalItemId;
      await transaction((trx) => recordVariant(trx, adapter, job, jobId, key, v.stockId, portalItemId));
      listed.set(v.stockId, portalItemId);
      await adjustVariant(job, jobId, v.stockId);
    }
    if (listed.size === 0) throw domainError('no_live_listing', `${job.portal}: no variant of item ${job.stockId} has a live offer to revise`);
  }
  return {
    action: job.action,
    portal: job.portal,
    portal_item_id: grouped,
    variants: [...listed].map(([stockId, portalItemId]) => ({ stock_id: stockId, portal_item_id: portalItemId })),
    ...(removed.length ? { removed } : {}),
  };
}

/** A variant's listing recorded under the variant, with its listing check where the portal has one (the transaction's). */
async function recordVariant(
  trx: Knex.Transaction,
  adapter: RegisteredAdapter,
  job: PortalUploadJob,
  jobId: string,
  key: ListingKey,
  stockId: number,
  portalItemId: string,
  listedSku?: string,
): Promise<void> {
  await portalListingRepository.saveListing(trx, { ...key, stockId }, portalItemId, 'listed', null, listedSku ?? null);
  await scheduleListingCheck(trx, adapter, { ...job, stockId }, `${jobId}-v${stockId}`);
}

/** After a variant's listing (it carried its own quantity): CIA has the last word on it. */
async function adjustVariant(job: PortalUploadJob, jobId: string, stockId: number): Promise<void> {
  await ciaRepository.forgetAck(db(), job.accountId, stockId, job.portal, job.portalAccountId);
  await queues().add('cia.adjust', { accountId: job.accountId, stockId, reason: 'portal listed' }, `cia-listed-${jobId}-v${stockId}`);
}

/**
 * delete of a variation main: besides the main's own listing (from when it was a plain item),
 * each variant's recorded live listing at that portal account ends; answers their stock ids. A
 * portal that listed them as one (`listVariations`: eBay's inventory item group) ends that
 * listing as one (`endVariations`: withdrawOfferByInventoryItemGroup, never withdrawOffer per
 * member, which sell_inventory_v1 has for single-variation listings); every other ends each
 * variant's offer by `end`. `main.listedSku`: the key the main's live listing was made under
 * (eBay withdraws the group by it), read by the caller before it ended the main's record.
 */
export async function endVariants(
  target: PortalTarget,
  adapter: RegisteredAdapter,
  job: PortalUploadJob,
  jobId: string,
  key: ListingKey,
  main: ListingItem | null | undefined,
): Promise<number[]> {
  const knex = db();
  const found = await stockPortalRepository.variationOf(knex, job.accountId, job.stockId, job.portal as PortalId, job.listerId);
  const live: ListingItem[] = [];
  for (const v of found?.variants ?? []) {
    const own = await portalListingRepository.listing(knex, { ...key, stockId: v.stockId });
    if (own?.status === 'listed') live.push({ ...v, listedAs: own.portal_item_id, listedSku: own.listed_sku });
  }
  const grouped = adapter.endVariations && main ? ((await portalListingRepository.listing(knex, key))?.portal_item_id ?? undefined) : undefined;
  // A main all of whose variants left it since it was listed (made plain, moved, deleted) has none
  // to end, while its listing at eBay is up: the group there still holds them (or keeps those that
  // sold, deleteOffer's note) until the main is listed again. Its records under the main's listing
  // id say so; the group is withdrawn for them (before, nothing was sent and the listing stayed live).
  const outside = grouped && live.length === 0 ? await portalListingRepository.listedUnder(knex, key, grouped, [job.stockId]) : [];
  if (live.length === 0 && outside.length === 0) return [];
  const variation =
    adapter.endVariations && main ? ((await variationListingOf(job, main)) ?? (outside.length ? { main, variesBy: [], variants: [] } : undefined)) : undefined;
  if (variation && adapter.endVariations) await adapter.endVariations(target, variation, jobId);
  else for (const v of live) await adapter.end(target, v.stockId, v.listedAs ?? null, `${jobId}-v${v.stockId}`, v);
  return transaction(async (trx) => {
    for (const v of live) await portalListingRepository.saveListing(trx, { ...key, stockId: v.stockId }, null, 'ended');
    // The group's withdrawal ended its whole listing, also a variation of an item that left the
    // main since it was last listed (the group at eBay still holds its SKU): its record ends too.
    const outsiders = grouped ? await portalListingRepository.endOutsiders(trx, key, grouped, [job.stockId, ...live.map((v) => v.stockId)]) : [];
    return [...live.map((v) => v.stockId), ...outsiders];
  });
}
