/** Stock_market_d_type.currency_prices[] (ours): currency_id names a currency of GET system/currency/. */
import { invalidField } from '../errors';
import { currencyRepository } from '../reference';
import type { StockInput } from './stock.type';

/**
 * A 400 `unknown_currency` naming `<field>.market_d.currency_prices[i].currency_id` when it is no
 * currency of the reference, as an order's currency_id: a price in a code no marketplace sells in
 * would be kept and never used, the seller's marketplace of that money still refused for want of it.
 */
export async function checkMarketDCurrencies(input: StockInput, f: (name: string) => string): Promise<void> {
  const prices = ((input.market_d as { currency_prices?: { currency_id: string }[] } | undefined)?.currency_prices ?? []).entries();
  for (const [i, entry] of prices) {
    if (await currencyRepository.get(entry.currency_id)) continue;
    const field = f(`market_d.currency_prices[${i}].currency_id`);
    throw invalidField(field, `${field} ${entry.currency_id} is not a currency (see GET system/currency/)`, 'unknown_currency');
  }
}
