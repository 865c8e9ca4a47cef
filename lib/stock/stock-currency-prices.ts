/** currency_prices[] of market_d and market_e (ours): currency_id names a currency of GET system/currency/. */
import { invalidField } from '../errors';
import { currencyRepository } from '../reference';
import type { StockInput } from './stock.type';

/**
 * A 400 `unknown_currency` naming `<field>.<group>.currency_prices[i].currency_id` (market_d,
 * market_e) when it is no currency of the reference, as an order's currency_id: a price in a code
 * no marketplace sells in would be kept and never used, the seller's marketplace of that money
 * still refused for want of it.
 */
export async function checkCurrencyPrices(input: StockInput, f: (name: string) => string): Promise<void> {
  for (const group of ['market_d', 'market_e'] as const) {
    const prices = ((input[group] as { currency_prices?: { currency_id: string }[] } | undefined)?.currency_prices ?? []).entries();
    for (const [i, entry] of prices) {
      if (await currencyRepository.get(entry.currency_id)) continue;
      const field = f(`${group}.currency_prices[${i}].currency_id`);
      throw invalidField(field, `${field} ${entry.currency_id} is not a currency (see GET system/currency/)`, 'unknown_currency');
    }
  }
}
