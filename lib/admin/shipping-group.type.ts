import { Joi, bool, characters, decimal, integer, text } from '../http';

/** The destinations of Admin_shipping_group_type.ships_to that are flags. */
export const shipsToFlags = ['worldwide', 'europe', 'eu', 'germany', 'switzerland', 'usa', 'canada', 'japan', 'australia'] as const;

/** ISO2 codes separated by semicolons (ships_to.*_more). */
const countryList = () =>
  text(2000)
    .pattern(/^([A-Za-z]{2}(;[A-Za-z]{2})*;?)?$/)
    .messages({ 'string.pattern.base': 'must be ISO 3166-1 alpha-2 codes separated by semicolons' });

/** decimal(8,2) of document 2 (price.first, price.more, cash_surcharge). */
const money = () =>
  decimal(2, 6).custom((value: string) => {
    // 999999.999 has 6 digits before the point but rounds to 1000000.00.
    if (Math.abs(Number(value)) >= 1e6) throw new Error('must be below 1000000 (decimal(8,2))');
    return value;
  });

/** Input of a new shipping group (kontor shipping-group create); the API reads them only. */
export const shippingGroupInput = Joi.object({
  name: characters(255).trim().min(1).required(),
  portal_account_id: integer().min(0).default(0),
  type_id: integer().min(0).max(2147483647).default(0),
  ships_to: Joi.object({
    ...Object.fromEntries(shipsToFlags.map((f) => [f, bool()])),
    eu_more: countryList(),
    europe_more: countryList(),
    worldwide_more: countryList(),
  }).default({}),
  // Document 2 types the prices decimal(8,2): at most 6 digits before the point, as the columns
  // hold; a larger one is a 400 naming the field, not the database's numeric overflow.
  price: Joi.object({ first: money(), more: money() }).default({}),
  cash_surcharge: money(),
  currency: Joi.string().trim().uppercase().length(3).default('EUR'),
});

export interface ShippingGroupInput {
  name: string;
  portal_account_id: number;
  type_id: number;
  ships_to: Record<string, boolean | string>;
  price: { first?: string; more?: string };
  cash_surcharge?: string;
  currency: string;
}
