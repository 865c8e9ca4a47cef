/**
 * The contract between stock items (lib/stock) and the cross-channel quantity adjustment
 * (lib/cia): everything CIA needs to know about one stock item to decide what quantity each
 * portal should offer. lib/stock implements loadCiaInput; lib/cia only reads it.
 */
import type { Knex } from 'knex';
import type { CiaPortal } from '../portals';

/** Stock_cia_portal_type as stored. */
export interface CiaPortalSetting {
  is_active: boolean;
  /** Caps the offered quantity; -1 ends the offer; null: no cap. */
  max_quantity: number | null;
  /** market_d: the portal accounts to push to; empty means the account's default. */
  portal_account_id: number[];
}

export interface CiaInput {
  accountId: number;
  stockId: number;
  variationType: 'main' | 'sub' | 'none';
  /** The main item of a variant (variation.parent), else null. */
  variationParentId: number | null;
  setType: 'main' | 'sub' | 'none';
  /** Stock ids of the set mains this item is a sub of (set.main[]). */
  setMainIds: number[];
  /**
   * The item's own quantity_available (quantity minus reserved quantities, minus the auction_a
   * listed quantity unless the account switched that off). For a set main: already derived
   * from its subs (min over subs of floor(sub available / quantity in set)).
   */
  quantityAvailable: number;
  /** For a variation main: each variant's stock id and quantity_available (variant values count). */
  variants: { stockId: number; quantityAvailable: number }[];
  /** cia.<portal> settings; a portal absent here is not adjusted. */
  cia: Partial<Record<CiaPortal, CiaPortalSetting>>;
  /** cia.event: the event handler ids (target[]) to notify of a quantity change. */
  eventTargets: string[];
  /** cia.event's max_quantity: caps what its targets are told, -1 tells them 0 (the offer ended); null: no cap. */
  eventMaxQuantity: number | null;
}

/** Implemented in lib/stock (stock-cia.repository.ts); undefined when the item does not exist. */
export type LoadCiaInput = (knex: Knex, accountId: number, stockId: number) => Promise<CiaInput | undefined>;

/** LoadCiaInput for several items at once, by stock id (absent items left out); lib/stock implements it. */
export type LoadCiaInputs = (knex: Knex, accountId: number, stockIds: number[]) => Promise<Map<number, CiaInput>>;
