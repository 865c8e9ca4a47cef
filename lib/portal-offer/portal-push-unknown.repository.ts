/**
 * Items of a push target whose quantity call had an unknown outcome (table portal_push_unknown,
 * owned here beside the pushes): the channel may still apply that call until `due_at`, after
 * which `portal.push_again` takes them and their latest quantity goes once more (README "A push
 * whose outcome is unknown"). An acknowledgement does not clear them: the late call may land
 * after it. A row taken (`pushed_again_at`) stays as the mark of its episode: a push of the item
 * that fails before it is acknowledged is not marked again. Written only when a push fails or is
 * pushed again. Scoped by account.
 */
import type { Knex } from 'knex';
import type { PushTarget } from '../cia';

export interface PortalPushUnknownRow {
  account_id: number;
  portal: string;
  portal_account_id: number;
  stock_id: number;
  due_at: Date;
  /** When portal.push_again took it (null: not yet). */
  pushed_again_at: Date | null;
}

// The row type of portal_push_unknown for Knex (declared once here, lib/portal-offer owns the table).
declare module 'knex/types/tables' {
  interface Tables {
    portal_push_unknown: PortalPushUnknownRow;
  }
}

export const portalPushUnknownRepository = {
  /**
   * Of these items, those portal.push_again took already (their episode goes on until a push of
   * them is acknowledged, which the caller knows from their state). Read by a push that failed,
   * under the target's lock: no push again takes anything while its call is out. One statement.
   */
  async pushedAgain(trx: Knex.Transaction, accountId: number, target: PushTarget, stockIds: number[]): Promise<Set<number>> {
    if (stockIds.length === 0) return new Set();
    const rows = await trx('portal_push_unknown')
      .where({ account_id: accountId, portal: target.portal, portal_account_id: target.portalAccountId })
      .whereIn('stock_id', stockIds)
      .whereNotNull('pushed_again_at')
      .select('stock_id');
    return new Set(rows.map((r) => r.stock_id));
  },

  /**
   * Marks the items as sent in a call that may land until `dueAt`. An item marked and not taken
   * keeps the later of the two times (a second late call may land after the first); one taken
   * before starts a new episode (the caller passes only items whose episode ended or whose call
   * was sent before the take). One statement; answers how many items it marked.
   */
  async mark(trx: Knex.Transaction, accountId: number, target: PushTarget, stockIds: number[], dueAt: Date): Promise<number> {
    if (stockIds.length === 0) return 0;
    const { rowCount } = (await trx.raw(
      `INSERT INTO portal_push_unknown AS u (account_id, portal, portal_account_id, stock_id, due_at)
       SELECT ?, ?, ?, s, ? FROM (SELECT DISTINCT unnest(?::int[]) AS s) items
       ON CONFLICT (account_id, portal, portal_account_id, stock_id) DO UPDATE
       SET due_at = CASE WHEN u.pushed_again_at IS NULL THEN greatest(u.due_at, EXCLUDED.due_at) ELSE EXCLUDED.due_at END,
           pushed_again_at = NULL`,
      [accountId, target.portal, target.portalAccountId, dueAt.toISOString(), stockIds],
    )) as { rowCount: number | null };
    return rowCount ?? 0;
  },

  /**
   * Takes the target's items whose late calls can no longer land by `dueAt` and were not taken
   * yet, answering them; they stay, taken now. An item a later failure marked beyond `dueAt`
   * stays for that failure's job. One statement.
   */
  async takeDue(trx: Knex.Transaction, accountId: number, target: PushTarget, dueAt: Date): Promise<number[]> {
    const rows = await trx('portal_push_unknown')
      .where({ account_id: accountId, portal: target.portal, portal_account_id: target.portalAccountId })
      .where('due_at', '<=', dueAt)
      .whereNull('pushed_again_at')
      .update({ pushed_again_at: trx.fn.now() })
      .returning('stock_id');
    return rows.map((r) => r.stock_id);
  },
};
