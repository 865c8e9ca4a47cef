import type { Knex } from 'knex';

/**
 * The record a webhook delivery is about (the event's record id: order, customer or stock id), so
 * that a stock cia delivery a newer one to the same handler about the same item overtook is found
 * and superseded instead of sent again (lib/event README, "Superseded stock notifications"). Filled
 * for the rows there are from the ids their stored bodies carry. The index serves that look-up
 * only (stock cia rows), so the other deliveries pay no index write for it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE webhook_delivery ADD COLUMN record_id text');
  await knex.raw(
    `UPDATE webhook_delivery SET record_id = coalesce(body::jsonb ->> 'stock_id', body::jsonb ->> 'order_id', body::jsonb ->> 'customer_id', body::jsonb ->> 'record_id')`,
  );
  await knex.raw(
    "CREATE INDEX webhook_delivery_stock_record ON webhook_delivery (handler_id, record_id, seq) WHERE section = 'stock' AND type = 'cia'",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS webhook_delivery_stock_record');
  await knex.raw('ALTER TABLE webhook_delivery DROP COLUMN IF EXISTS record_id');
}
