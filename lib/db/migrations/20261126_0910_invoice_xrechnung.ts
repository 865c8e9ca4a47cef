import type { Knex } from 'knex';

/** The XRechnung XML archived beside an invoice's PDF and Factur-X XML (lib/invoice, issue 35). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('invoice', (t) => {
    t.text('xrechnung_key');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('invoice', (t) => {
    t.dropColumn('xrechnung_key');
  });
}
