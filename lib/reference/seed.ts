import type { Knex } from 'knex';
import countries from './data/countries.json';
import currencies from './data/currencies.json';
import paymentMethods from './data/payment-methods.json';
import { seedAdminReferenceData } from './admin-reference.seed';

/**
 * Loads reference data from the committed data sets. Idempotent: existing rows are updated in
 * place, so a seed after an upgrade brings names up to date without changing ids.
 */
export async function seedReferenceData(knex: Knex): Promise<void> {
  await knex.transaction(async (trx) => {
    await trx('currency').insert(currencies).onConflict('internal_id').merge();
    await trx('country')
      .insert(
        countries.map((c) => ({
          iso2: c.id,
          iso3: c.iso3,
          name_de: c.name.de,
          name_en: c.name.en,
          name_other: c.name.other,
          is_europe: c.is_europe,
          is_eu: c.is_eu,
        })),
      )
      .onConflict('iso2')
      .merge();
    await trx('payment_method').insert(paymentMethods).onConflict('id').merge();
    await seedAdminReferenceData(trx);
  });
}
