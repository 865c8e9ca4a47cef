/**
 * Table shopify_inventory_set: what a CIA push last set as an inventory item's `available`
 * quantity at a Shopify store, the compareQuantity of the next push (README "CIA with
 * compare-and-set"). Written by the push after Shopify took it; lowered by the order fetch for the
 * store's sales made after it (each order once), so a sale Kontor has imported is not mistaken
 * for one it has not. Scoped by the portal account (one seller's; a push knows no more of it).
 */
import { db } from '../../db';

/** An item's quantity as Shopify took it (the push's set). */
export interface InventorySet {
  inventoryItemId: string;
  sku: string;
  quantity: number;
}

/** Units of SKUs one store's order took off Shopify's available quantity when it was placed. */
export interface StoreSale {
  orderId: string;
  createdAt: string;
  units: Map<string, number>;
}

export const shopifyInventoryRepository = {
  /**
   * The quantities Kontor knows the store to hold, by inventory item id (items never set absent),
   * with the location each was set at (null: set before it was recorded, at the store's first location).
   */
  async known(portalAccountId: number, inventoryItemIds: string[]): Promise<Map<string, { quantity: number; locationId: string | null }>> {
    if (inventoryItemIds.length === 0) return new Map();
    const rows = await db()('shopify_inventory_set')
      .where({ portal_account_id: portalAccountId })
      .whereIn('inventory_item_id', inventoryItemIds)
      .select('inventory_item_id', 'quantity', 'location_id');
    return new Map(rows.map((r) => [r.inventory_item_id, { quantity: r.quantity, locationId: r.location_id }]));
  },

  /** Shopify took these quantities at `locationId` at `setAt` (its own clock): the sales counted before are behind them. */
  async recordSet(portalAccountId: number, locationId: string, sets: InventorySet[], setAt: string): Promise<void> {
    if (sets.length === 0) return;
    await db()('shopify_inventory_set')
      .insert(
        sets.map((x) => ({
          portal_account_id: portalAccountId,
          inventory_item_id: x.inventoryItemId,
          sku: x.sku,
          quantity: x.quantity,
          location_id: locationId,
          set_at: setAt,
          counted_orders: [],
        })),
      )
      .onConflict(['portal_account_id', 'inventory_item_id'])
      .merge(['sku', 'quantity', 'location_id', 'set_at', 'counted_orders']);
  },

  /**
   * The store's sales placed after the last set of their items, read by the order fetch: their
   * units come off the quantity Kontor knows the store to hold (Shopify took them off when the
   * order was placed), once per order and item. One statement; a sale placed before the set is
   * already in what was set (the push read or compared it).
   */
  async countSales(portalAccountId: number, sales: StoreSale[]): Promise<void> {
    const values = sales.flatMap((sale) => [...sale.units].map(([sku, units]) => ({ order: sale.orderId, created: sale.createdAt, sku, units })));
    if (values.length === 0) return;
    // Summed per item first: an UPDATE ... FROM changes a row once, whatever number of sales match it.
    await db().raw(
      `UPDATE shopify_inventory_set s
          SET quantity = s.quantity - a.units, counted_orders = s.counted_orders || a.orders
         FROM (SELECT c.inventory_item_id, sum(v.units)::int AS units, array_agg(v.order_id) AS orders
                 FROM shopify_inventory_set c
                 JOIN jsonb_to_recordset(?::jsonb) AS v(order_id text, created timestamptz, sku text, units int)
                   ON c.sku = v.sku AND c.set_at < v.created AND NOT (v.order_id = ANY(c.counted_orders))
                WHERE c.portal_account_id = ?
                GROUP BY c.inventory_item_id) a
        WHERE s.portal_account_id = ? AND s.inventory_item_id = a.inventory_item_id`,
      [JSON.stringify(values.map((v) => ({ order_id: v.order, created: v.created, sku: v.sku, units: v.units }))), portalAccountId, portalAccountId],
    );
  },
};
