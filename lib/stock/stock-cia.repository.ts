/** Reads what the cross-channel quantity adjustment needs about one item (lib/stock/cia-input.ts). */
import type { Knex } from 'knex';
import { CiaPortal, ciaPortals } from '../portals';
import { CiaInput, CiaPortalSetting, LoadCiaInput, LoadCiaInputs } from './cia-input';
import { prepared } from '../db';

interface CiaRow {
  id: number;
  quantity_available: number;
  variation_type: CiaInput['variationType'];
  variation_parent_id: number | null;
  set_type: CiaInput['setType'];
  cia: Record<string, StoredCia> | null;
  set_main_ids: number[];
}

interface StoredCia {
  is_active?: boolean;
  max_quantity?: number | null;
  portal_account_id?: number[];
  target?: string[];
}

/** LoadCiaInput: the item's quantities, links and cia.* settings; undefined when absent. */
export const loadCiaInput: LoadCiaInput = async (knex: Knex, accountId: number, stockId: number): Promise<CiaInput | undefined> =>
  (await loadCiaInputs(knex, accountId, [stockId])).get(stockId);

/**
 * LoadCiaInputs: loadCiaInput for several items in two statements at most (the items with their
 * set mains; the variants of the variation mains among them). Absent items are left out.
 */
export const loadCiaInputs: LoadCiaInputs = async (knex: Knex, accountId: number, stockIds: number[]): Promise<Map<number, CiaInput>> => {
  const result = new Map<number, CiaInput>();
  if (stockIds.length === 0) return result;
  // The set mains come in the same round trip: CIA runs on every sale.
  const rows = await knex('stock')
    .select<CiaRow[]>(
      'id',
      'quantity_available',
      'variation_type',
      'variation_parent_id',
      'set_type',
      knex.raw("data->'cia' AS cia"),
      knex.raw(
        'ARRAY(SELECT main_id FROM stock_set WHERE stock_set.account_id = stock.account_id AND stock_set.sub_id = stock.id ORDER BY main_id) AS set_main_ids',
      ),
    )
    .where('account_id', accountId)
    .whereRaw('id = ANY(?::int[])', [stockIds])
    .options(prepared);
  const mains = rows.filter((r) => r.variation_type === 'main').map((r) => r.id);
  const variants =
    mains.length > 0
      ? await knex('stock')
          .select('id', 'quantity_available', 'variation_parent_id')
          .where('account_id', accountId)
          .whereIn('variation_parent_id', mains)
          .orderBy('id')
      : [];
  for (const row of rows)
    result.set(
      row.id,
      toInput(
        accountId,
        row,
        variants.filter((v) => v.variation_parent_id === row.id),
      ),
    );
  return result;
};

function toInput(accountId: number, row: CiaRow, variants: { id: number; quantity_available: number }[]): CiaInput {
  const cia: Partial<Record<CiaPortal, CiaPortalSetting>> = {};
  for (const portal of ciaPortals) {
    const stored = row.cia?.[portal];
    if (!stored) continue;
    cia[portal] = { is_active: stored.is_active ?? false, max_quantity: stored.max_quantity ?? null, portal_account_id: stored.portal_account_id ?? [] };
  }
  const event = row.cia?.event;
  return {
    accountId,
    stockId: row.id,
    variationType: row.variation_type,
    variationParentId: row.variation_parent_id,
    setType: row.set_type,
    setMainIds: row.set_main_ids,
    quantityAvailable: row.quantity_available,
    variants: variants.map((v) => ({ stockId: v.id, quantityAvailable: v.quantity_available })),
    cia,
    eventTargets: event && event.is_active !== false ? (event.target ?? []) : [],
    // Its targets are told what a portal with these settings is offered (lib/cia eventOffer), not the raw quantity.
    eventMaxQuantity: event?.max_quantity ?? null,
  };
}
