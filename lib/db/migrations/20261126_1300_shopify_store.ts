import type { Knex } from 'knex';

/**
 * Issue 33: the Shopify store a portal account's webhooks come from. A webhook names its store
 * only by domain (X-Shopify-Shop-Domain) and the domain inside the credentials is sealed, so the
 * domain Shopify answered when the webhooks were subscribed is kept here, indexed, in clear (a
 * store's domain is public). Several portal accounts (of one or more Kontor accounts) may name
 * one store: a delivery reaches each of them.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('shopify_store', (t) => {
    t.integer('portal_account_id').primary().references('portal_account.id').onDelete('CASCADE');
    t.integer('account_id').notNullable().references('account.id').onDelete('CASCADE');
    t.text('shop_domain').notNullable();
    t.timestamp('subscribed_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['shop_domain'], 'shopify_store_shop_domain');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('shopify_store');
}
