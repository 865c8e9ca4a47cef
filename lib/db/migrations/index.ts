import type { Knex } from 'knex';
import * as foundation from './20261121_0001_foundation';
import * as outbox from './20261121_0002_outbox';
import * as paymentMethod from './20261121_0003_payment_method';
import * as stock from './20261121_0100_stock';
import * as stockShopParameter from './20261121_0100_stock_shop_parameter';
import * as order from './20261121_0200_order';
import * as fleet from './20261121_0300_fleet';
import * as admin from './20261121_0400_admin';
import * as bank from './20261121_0500_bank';
import * as ciaPushBatch from './20261122_0600_cia_push_batch';
import * as outboxNotify from './20261122_0601_outbox_notify';
import * as accountPerson from './20261123_0700_account_person';
import * as refreshTokenChain from './20261123_0701_refresh_token_chain';
import * as bankImport from './20261123_0800_bank_import';
import * as bankHotAssignment from './20261124_0100_bank_hot_assignment';
import * as orderImport from './20261124_0200_order_import';
import * as clientAccess from './20261124_0300_client_access';
import * as idempotencyKey from './20261124_0400_idempotency_key';
import * as webhookDelivery from './20261124_0500_webhook_delivery';
import * as changeNotices from './20261124_0800_change_notices';
import * as orderInvoiceNumber from './20261125_0100_order_invoice_number';
import * as outboxRelayedAs from './20261125_0300_outbox_relayed_as';
import * as bankCurrencyAndMatchReason from './20261126_0100_bank_currency_and_match_reason';
import * as paymentProviderPending from './20261126_0200_payment_provider_pending';
import * as grantPerCaller from './20261126_0400_grant_per_caller';
import * as credentialsBoundToRow from './20261126_0600_credentials_bound_to_row';
import * as eventHandlerGrant from './20261126_0700_event_handler_grant';
import * as invoice from './20261126_0900_invoice';
import * as invoiceXrechnung from './20261126_0910_invoice_xrechnung';
import * as ebayAccountDeletion from './20261126_1000_ebay_account_deletion';
import * as kauflandConnector from './20261126_1100_kaufland_connector';
import * as shopifyConnector from './20261126_1200_shopify_connector';
import * as shopifyStore from './20261126_1300_shopify_store';

interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/**
 * Every migration in order. Listed here rather than found on disk, so the same list works under
 * tsx, compiled JavaScript and tests. A new migration is a file and a line below; never rename one.
 */
const migrations: Record<string, Migration> = {
  '20261121_0001_foundation': foundation,
  '20261121_0002_outbox': outbox,
  '20261121_0003_payment_method': paymentMethod,
  '20261121_0100_stock': stock,
  '20261121_0100_stock_shop_parameter': stockShopParameter,
  '20261121_0200_order': order,
  '20261121_0300_fleet': fleet,
  '20261121_0400_admin': admin,
  '20261121_0500_bank': bank,
  '20261122_0600_cia_push_batch': ciaPushBatch,
  '20261122_0601_outbox_notify': outboxNotify,
  '20261123_0700_account_person': accountPerson,
  '20261123_0701_refresh_token_chain': refreshTokenChain,
  '20261123_0800_bank_import': bankImport,
  '20261124_0100_bank_hot_assignment': bankHotAssignment,
  '20261124_0200_order_import': orderImport,
  '20261124_0300_client_access': clientAccess,
  '20261124_0400_idempotency_key': idempotencyKey,
  '20261124_0500_webhook_delivery': webhookDelivery,
  '20261124_0800_change_notices': changeNotices,
  '20261125_0100_order_invoice_number': orderInvoiceNumber,
  '20261125_0300_outbox_relayed_as': outboxRelayedAs,
  '20261126_0100_bank_currency_and_match_reason': bankCurrencyAndMatchReason,
  '20261126_0200_payment_provider_pending': paymentProviderPending,
  '20261126_0400_grant_per_caller': grantPerCaller,
  '20261126_0600_credentials_bound_to_row': credentialsBoundToRow,
  '20261126_0700_event_handler_grant': eventHandlerGrant,
  '20261126_0900_invoice': invoice,
  '20261126_0910_invoice_xrechnung': invoiceXrechnung,
  '20261126_1000_ebay_account_deletion': ebayAccountDeletion,
  '20261126_1100_kaufland_connector': kauflandConnector,
  '20261126_1200_shopify_connector': shopifyConnector,
  '20261126_1300_shopify_store': shopifyStore,
};

export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations),
  getMigrationName: (name) => name,
  getMigration: async (name) => {
    const migration = migrations[name];
    if (!migration) throw new Error(`unknown migration ${name}`);
    return migration;
  },
};
