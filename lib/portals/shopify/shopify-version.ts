/**
 * What differs in what Kontor sends by Admin API version (SHOPIFY_API_VERSION, config/channel-apps.ts):
 * the one place that decides by version. Only the inventory set differs (lib/portals/README.md
 * "The version"), as Shopify's changelog describes it:
 * - 2026-01 (https://shopify.dev/changelog/compare-and-swap-redesign-for-inventory-set-quantities):
 *   InventoryQuantityInput gets `changeFromQuantity`; compareQuantity and ignoreCompareQuantity are
 *   deprecated, and a changeFromQuantity given (null too) overrides them. The mutation takes the
 *   optional `@idempotent(key:)` directive
 *   (https://shopify.dev/changelog/adding-idempotency-for-inventory-adjustments-and-refund-mutations).
 * - 2026-04 (https://shopify.dev/changelog/finalizing-compare-and-swap-redesign-for-inventory-set-quantities,
 *   https://shopify.dev/changelog/making-idempotency-mandatory-for-inventory-adjustments-and-refund-mutations):
 *   compareQuantity and ignoreCompareQuantity are removed; a set without changeFromQuantity ("the
 *   expected current quantity", or null to opt out) or without the directive is "an error at
 *   runtime"; a stale one answers CHANGE_FROM_QUANTITY_STALE.
 * Kontor speaks the new form from 2026-01 on, where it is already taken, so that the move to
 * 2026-04 and later changes nothing more.
 */
import crypto from 'node:crypto';
import type { ShopifyApiVersion } from '../../../config/channel-apps';

/** The first version that takes changeFromQuantity and @idempotent on inventorySetQuantities. */
export const changeFromQuantitySince: ShopifyApiVersion = '2026-01';

/** Whether the version takes changeFromQuantity and @idempotent (versions are YYYY-MM: compared as text). */
export const speaksChangeFrom = (version: ShopifyApiVersion): boolean => version >= changeFromQuantitySince;

/**
 * The compare part of one quantity of a set: the quantity Kontor expects the store to hold, as
 * compareQuantity before 2026-01 and changeFromQuantity from then on (the same compare: "If the
 * actual quantity doesn't match the value you provide, the mutation will fail"). Kontor never opts
 * out (changeFromQuantity null): every push compares (README "CIA with compare-and-set").
 */
export function quantityCompare(version: ShopifyApiVersion, expected: number): { compareQuantity: number } | { changeFromQuantity: number } {
  return speaksChangeFrom(version) ? { changeFromQuantity: expected } : { compareQuantity: expected };
}

/** The userError codes of a stale compare: either version's (a version falling forward answers the new one). */
export const staleQuantityCodes: ReadonlySet<string> = new Set(['COMPARE_QUANTITY_STALE', 'CHANGE_FROM_QUANTITY_STALE']);

/** The variable declaration and directive an idempotent mutation carries in this version ('' before 2026-01). */
export function idempotentParts(version: ShopifyApiVersion): { variable: string; directive: string } {
  return speaksChangeFrom(version)
    ? { variable: ', $idempotencyKey: String!', directive: ' @idempotent(key: $idempotencyKey)' }
    : { variable: '', directive: '' };
}

/**
 * The variables of an idempotent mutation: from 2026-01 with `idempotencyKey`, a UUID-shaped hash of
 * the document and its variables. **Decision:** derived, not random: "Duplicate requests must reuse
 * the same idempotency key" (shopify.dev, Implementing idempotency): a job retried after a timeout
 * sends the same set and gets Shopify's first answer instead of setting twice; a different set (a
 * stale round's new compare, another batch's reference URI) gets another key.
 */
export function idempotentVariables(version: ShopifyApiVersion, document: string, variables: Record<string, unknown>): Record<string, unknown> {
  if (!speaksChangeFrom(version)) return variables;
  const h = crypto.createHash('sha256').update(document).update('\n').update(JSON.stringify(variables)).digest('hex');
  return { ...variables, idempotencyKey: `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}` };
}
