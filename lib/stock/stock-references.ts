/** The foreign keys of a stock body that name the seller's records, checked before anything is written. */
import type { Knex } from 'knex';
import { checkEventTargets } from './event-targets';
import { checkShopGCategories } from './stock-category';
import { checkCurrencyPrices } from './stock-currency-prices';
import { checkCustomsCountries } from './stock-customs';
import { checkShippingGroups } from './stock-shipping-group';
import type { StockData } from './stock.repository';
import type { StockInput } from './stock.type';

/**
 * Refuses a body whose references name nothing (shipping groups, customs countries, market_d's
 * and market_e's price currencies, shop_g categories, cia.event targets), each a 4xx naming its field under `f` (stock.… or stock[n].…).
 * Called by every write of an item before its first write: a new item of stock/list/ runs
 * without a savepoint, so a refusal must come before anything of it is written (and before its
 * first lock). An update passes the item's stored data, read locked: a shop_g category or
 * cia.event target the item names already is no new reference and is not checked again, so the
 * item's own GET body posts back unchanged after its category or handler went (lib/stock README).
 */
export async function checkStockReferences(
  trx: Knex.Transaction,
  accountId: number,
  input: StockInput,
  f: (name: string) => string,
  stored?: StockData,
): Promise<void> {
  await checkShippingGroups(trx, accountId, input, f);
  await checkCustomsCountries(input, f);
  await checkCurrencyPrices(input, f);
  await checkShopGCategories(trx, accountId, input, f, stored);
  await checkEventTargets(trx, accountId, input, f, stored);
}
