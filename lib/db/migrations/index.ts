import type { Knex } from 'knex';

interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/**
 * Every migration in order. Listed here rather than found on disk, so the same list works under
 * tsx, compiled JavaScript and tests. A new migration is a file and a line below; never rename one.
 * Each is loaded when it runs: every process reaches lib/db's entry, only `kontor migrate` migrates
 * (37 modules fewer in every other process).
 */
const migrations: string[] = [
  '20261121_0001_foundation',
  '20261121_0002_outbox',
  '20261121_0003_payment_method',
  '20261121_0100_stock',
  '20261121_0100_stock_shop_parameter',
  '20261121_0200_order',
  '20261121_0300_fleet',
  '20261121_0400_admin',
  '20261121_0500_bank',
  '20261122_0600_cia_push_batch',
  '20261122_0601_outbox_notify',
  '20261123_0700_account_person',
  '20261123_0701_refresh_token_chain',
  '20261123_0800_bank_import',
  '20261124_0100_bank_hot_assignment',
  '20261124_0200_order_import',
  '20261124_0300_client_access',
  '20261124_0400_idempotency_key',
  '20261124_0500_webhook_delivery',
  '20261124_0800_change_notices',
  '20261125_0100_order_invoice_number',
  '20261125_0300_outbox_relayed_as',
  '20261126_0100_bank_currency_and_match_reason',
  '20261126_0200_payment_provider_pending',
  '20261126_0400_grant_per_caller',
  '20261126_0600_credentials_bound_to_row',
  '20261126_0700_event_handler_grant',
  '20261126_0900_invoice',
  '20261126_0910_invoice_xrechnung',
  '20261126_1000_ebay_account_deletion',
  '20261126_1100_kaufland_connector',
  '20261126_1200_shopify_connector',
  '20261126_1300_shopify_store',
  '20261127_0100_listing_revisions',
  '20261127_0300_event_handler_secret_sealed',
  '20261127_0500_shopify_inventory_set',
  '20261127_0700_outbox_keyed_due',
  '20261127_0900_cia_variation_main_states',
  '20261127_1300_idempotency_commit_xid',
  '20261127_1500_order_fetch_chain',
  '20261127_1700_bank_reversed_by',
  '20261127_1900_bank_reversal_pending',
  '20261127_2000_task_portal_account',
  '20261127_2100_bank_across_formats',
  '20261127_2200_bank_reversed_on',
  '20261127_2300_bank_across_formats_backfill',
  '20261127_2320_bank_legacy_key_iban',
  '20261127_2350_account_settings_owner',
  '20261127_2355_shopify_inventory_set_location',
  '20261128_0020_portal_listing_markets',
  '20261128_0130_invoice_rounding',
  '20261128_0400_portal_listing_fulfilled_by_channel',
  '20261128_0500_bank_claimed_on',
  '20261128_0510_bank_claimed_on_backfill',
  '20261128_1000_portal_listing_listed_sku',
  '20261128_1100_portal_listing_listed_sku_index',
  '20261128_1200_bank_dutch_tags_backfill',
  '20261128_1500_event_handler_url_password_sealed',
  '20261129_1901_event_handler_client',
  '20261129_1903_order_line_set_parts',
  '20261129_1904_order_paid_by_hand',
  '20261129_2151_order_line_taken_itself_backfill',
  '20261129_2161_portal_listing_fulfilment_read_at',
  '20261129_2171_order_paid_by_hand_amount',
  '20261130_0040_portal_listing_fulfilled_markets',
  '20261130_0060_cia_offered_under',
  '20261130_0070_portal_push_unknown',
  '20261130_0080_stock_set_main_reserved',
  '20261130_0090_webhook_delivery_record',
  '20261130_0150_portal_push_unknown_pushed_again',
  '20261130_0170_portal_listing_marked_whole_read_again',
  '20261130_0171_portal_listing_marked_whole_unread_index',
  '20261130_0180_order_credit_paid_sign',
  '20261201_0300_account_banking_active',
];

/** require, not import(): under tsx an import() stays native and cannot resolve a .ts file. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const load = (file: string): Migration => require(`./${file}`) as Migration;

export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => migrations,
  getMigrationName: (name) => name,
  getMigration: async (name) => {
    if (!migrations.includes(name)) throw new Error(`unknown migration ${name}`);
    return load(name);
  },
};
