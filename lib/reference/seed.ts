import type { Knex } from 'knex';

/** The data sets and the admin seed; require, not import(): under tsx an import() stays native and cannot resolve a .ts file (as lib/db/migrations). */
function seedData() {
  /* eslint-disable @typescript-eslint/no-require-imports */
  return {
    countries: require('./data/countries.json') as typeof import('./data/countries.json'),
    currencies: require('./data/currencies.json') as typeof import('./data/currencies.json'),
    paymentMethods: require('./data/payment-methods.json') as typeof import('./data/payment-methods.json'),
    seedAdminReferenceData: (require('./admin-reference.seed') as typeof import('./admin-reference.seed')).seedAdminReferenceData,
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
}

/**
 * Loads reference data from the committed data sets. Idempotent: existing rows are updated in
 * place, so a seed after an upgrade brings names up to date without changing ids. The data sets
 * and the admin seed are required when it runs: every process reaches lib/reference's entry (for
 * the cached tables), only `kontor migrate` seeds, and the parsed sets (the product taxonomy above
 * all) were about 2 MB of heap in every worker.
 */
export async function seedReferenceData(knex: Knex): Promise<void> {
  const { countries, currencies, paymentMethods, seedAdminReferenceData } = seedData();
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
