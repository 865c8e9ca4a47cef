/**
 * The rule of quantity_available (document 2, Stock_type: "quantity minus reserved quantities
 * (classically also minus the auction-listed quantity; can be switched off via support); basis for
 * CIA"), one for every item: what the item holds less what it withholds. What it holds is its own
 * quantity, or for a set main with parts what they give (min over them of floor(part available /
 * quantity in the set)); what it withholds is its own quantity_reserved, quantity_reserved_2 and,
 * unless the account switched it off, quantity_auction_a. A set main's reservations were ignored
 * before: a set of a part with 5 and 3 sets reserved had 5 available and was offered 5.
 * Pure, as TypeScript (a batch of quantity changes computes it as it goes, stock-quantity.ts) and
 * as SQL (stored for the filters, stock-available.repository.ts and stock.repository.ts): the two
 * must say the same.
 */

/**
 * The lowest quantity_available stored: the integer column's. What an item withholds reaches
 * 1,500,000,000 (three counts of 500,000,000), so a quantity of -1,000,000,000 (orders), or a set
 * whose parts give -2,000,000,000 (a client's quantities alone reach it), passed it and the write
 * failed (500). Nothing is offered below 0 anyway (lib/cia).
 */
export const lowestAvailable = -2147483648;

/** What an item withholds from what it holds (its own columns). */
export interface Withholding {
  quantity_reserved: number;
  quantity_reserved_2: number;
  quantity_auction_a: number;
}

/** An item's quantity_available when it holds `held` (its quantity, or what its set's parts give). */
export function availableOf(held: number, row: Withholding, auctionASubtracted: boolean): number {
  const withheld = row.quantity_reserved + row.quantity_reserved_2 + (auctionASubtracted ? row.quantity_auction_a : 0);
  return Math.max(lowestAvailable, held - withheld);
}

/** What a set main's parts give: whole sets from each part's available quantity; the fewest. */
export function partsGive(parts: { available: number; quantity: number }[]): number {
  return Math.min(...parts.map((p) => Math.floor(p.available / p.quantity)));
}

/**
 * availableOf as an SQL expression: `held` an integer expression, `column` the row's columns,
 * `subtracted` a boolean expression (the account's is_auction_a_quantity_subtracted). Computed as
 * bigint, so a sum past the column's range is bounded rather than an error.
 */
export function availableSql(held: string, column: (name: keyof Withholding) => string, subtracted: string): string {
  return `GREATEST((${held})::bigint - ${column('quantity_reserved')} - ${column('quantity_reserved_2')}
    - CASE WHEN ${subtracted} THEN ${column('quantity_auction_a')} ELSE 0 END, ${lowestAvailable})::int`;
}

/** partsGive as an SQL aggregate over the parts' rows: `available` and `quantity` their expressions. */
export function partsGiveSql(available: string, quantity: string): string {
  return `MIN(FLOOR((${available})::numeric / (${quantity})))::int`;
}
