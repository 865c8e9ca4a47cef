import type { Knex } from 'knex';

/** Writes on portal accounts that only support does (kontor portal-account create). */
export const portalAccountAdminRepository = {
  /** Takes the default flag from the account's current default portal account (one default per account). */
  async clearDefault(trx: Knex.Transaction, accountId: number): Promise<void> {
    await trx('portal_account').where({ account_id: accountId, is_default: true }).update({ is_default: false });
  },
};
