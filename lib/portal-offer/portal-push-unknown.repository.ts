/**
 * Items of a push target whose last quantity call had an unknown outcome (table
 * portal_push_unknown, owned here beside the pushes): the channel may still apply that call
 * until `due_at`, after which `portal.push_again` takes them and their latest quantity goes once
 * more (README "A push whose outcome is unknown"). An acknowledgement does not clear them: the
 * late call may land after it. Written only when a push fails. Scoped by account.
 */
import type { Knex } from 'knex';
import type { PushTarget } from '../cia';

export interface PortalPushUnknownRow {
  account_id: number;
  portal: string;
  portal_account_id: number;
  stock_id: number;
  due_at: Date;
}

// The row type of portal_push_unknown for Knex (declared once here, lib/portal-offer owns the table).
declare module 'knex/types/tables' {
  interface Tables {
    portal_push_unknown: PortalPushUnknownRow;
  }
}

export const portalPushUnknownRepository = {
  /**
   * Marks the items as sent in a call that may land until `dueAt`; an item marked already keeps the
   * later of the two times (a second late call may land after the first). One statement.
   */
  async mark(trx: Knex.Transaction, accountId: number, target: PushTarget, stockIds: number[], dueAt: Date): Promise<void> {
    await trx.raw(
      `INSERT INTO portal_push_unknown AS u (account_id, portal, portal_account_id, stock_id, due_at)
       SELECT ?, ?, ?, s, ? FROM (SELECT DISTINCT unnest(?::int[]) AS s) items
       ON CONFLICT (account_id, portal, portal_account_id, stock_id) DO UPDATE SET due_at = greatest(u.due_at, EXCLUDED.due_at)`,
      [accountId, target.portal, target.portalAccountId, dueAt.toISOString(), stockIds],
    );
  },

  /**
   * Takes (removes) the target's items whose late calls can no longer land by `dueAt`, answering
   * them; an item a later failure marked beyond it stays for that failure's job. One statement.
   */
  async takeDue(trx: Knex.Transaction, accountId: number, target: PushTarget, dueAt: Date): Promise<number[]> {
    const rows = await trx('portal_push_unknown')
      .where({ account_id: accountId, portal: target.portal, portal_account_id: target.portalAccountId })
      .where('due_at', '<=', dueAt)
      .delete()
      .returning('stock_id');
    return rows.map((r) => r.stock_id);
  },
};
