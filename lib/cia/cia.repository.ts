import type { Knex } from 'knex';

/** One row of cia_portal_state. */
export interface CiaStateRow {
  id: string;
  account_id: number;
  stock_id: number;
  portal: string;
  portal_account_id: number;
  desired_quantity: number;
  desired_seq: string;
  acked_quantity: number | null;
  acked_seq: string;
}

/** SQL of the cross-channel quantity adjustment; every query is scoped by the account. */
export const ciaRepository = {
  /** Serialises the adjustments of one item (held until the transaction ends). */
  async lockItem(trx: Knex.Transaction, accountId: number, stockId: number): Promise<void> {
    await trx.raw("SELECT pg_advisory_xact_lock(hashtextextended('cia:' || ? || ':' || ?, 0))", [accountId, stockId]);
  },

  /** Serialises the pushes of one (item, portal, portal account): a push never overtakes another. */
  async lockPush(trx: Knex.Transaction, stateId: string): Promise<void> {
    await trx.raw("SELECT pg_advisory_xact_lock(hashtextextended('cia-push:' || ?, 0))", [stateId]);
  },

  async portalAccounts(knex: Knex, accountId: number): Promise<{ id: number; platform: string | null; is_default: boolean }[]> {
    return knex('portal_account').select('id', 'platform', 'is_default').where({ account_id: accountId }).orderBy('id');
  },

  /**
   * Sets the wanted quantities of an item (one statement); a sequence moves only where the
   * quantity changes. Returns every state written, with `changed`.
   */
  async setDesired(trx: Knex.Transaction, accountId: number, stockId: number, wanted: { portal: string; portalAccountId: number; quantity: number }[]): Promise<(CiaStateRow & { changed: boolean })[]> {
    // One row per key: a statement may not update the same row twice (market_d [5, 5]).
    wanted = [...new Map(wanted.map((w) => [`${w.portal}|${w.portalAccountId}`, w])).values()];
    if (wanted.length === 0) return [];
    const values = wanted.map(() => '(?, ?, ?, ?, ?)').join(', ');
    const bindings = wanted.flatMap((w) => [accountId, stockId, w.portal, w.portalAccountId, w.quantity]);
    const { rows: changed } = await trx.raw(`
      INSERT INTO cia_portal_state (account_id, stock_id, portal, portal_account_id, desired_quantity)
      VALUES ${values}
      ON CONFLICT (account_id, stock_id, portal, portal_account_id) DO UPDATE
        SET desired_quantity = EXCLUDED.desired_quantity,
            desired_seq = cia_portal_state.desired_seq + 1,
            updated_at = now()
        WHERE cia_portal_state.desired_quantity <> EXCLUDED.desired_quantity
      RETURNING id`, bindings) as { rows: { id: string }[] };
    const changedIds = new Set(changed.map((r) => String(r.id)));
    const key = (portal: string, pa: number) => `${portal}|${pa}`;
    const wantedKeys = new Set(wanted.map((w) => key(w.portal, w.portalAccountId)));
    const rows = await trx('cia_portal_state').where({ account_id: accountId, stock_id: stockId }).orderBy('id') as CiaStateRow[];
    return rows.filter((r) => wantedKeys.has(key(r.portal, r.portal_account_id))).map((r) => ({ ...r, changed: changedIds.has(String(r.id)) }));
  },

  /** Every portal state of an item (a deleted item's offers are set to 0). */
  async statesOfItem(knex: Knex, accountId: number, stockId: number): Promise<CiaStateRow[]> {
    return knex('cia_portal_state').where({ account_id: accountId, stock_id: stockId }).orderBy('id');
  },

  /** A state as a push reads it. */
  async state(knex: Knex, accountId: number, stockId: number, portal: string, portalAccountId: number): Promise<CiaStateRow | undefined> {
    return knex('cia_portal_state').where({ account_id: accountId, stock_id: stockId, portal, portal_account_id: portalAccountId }).first();
  },

  /** Records what the portal acknowledged; never moves back to an older sequence. */
  async ack(trx: Knex.Transaction, stateId: string, seq: string, quantity: number): Promise<void> {
    await trx('cia_portal_state').where('id', stateId).where('acked_seq', '<', seq)
      .update({ acked_seq: seq, acked_quantity: quantity, acked_at: trx.fn.now(), last_error: null });
  },

  /**
   * Forgets what a portal acknowledged for an item (a listing just sent its own quantity):
   * the next adjustment pushes the wanted quantity again.
   */
  async forgetAck(knex: Knex, accountId: number, stockId: number, portal: string, portalAccountId: number): Promise<void> {
    await knex('cia_portal_state').where({ account_id: accountId, stock_id: stockId, portal, portal_account_id: portalAccountId })
      .update({ acked_seq: 0, acked_quantity: null, desired_seq: knex.raw('desired_seq + 1') });
  },

  async recordError(knex: Knex, stateId: string, error: string): Promise<void> {
    await knex('cia_portal_state').where('id', stateId).update({ last_error: error.slice(0, 1000) });
  },

  /**
   * Items of every account with an active cia.<portal> or a portal state, in (account, id)
   * order after the given key: the reconcile walks them in pages.
   */
  async itemsToReconcile(knex: Knex, after: { accountId: number; stockId: number }, limit: number): Promise<{ account_id: number; id: number }[]> {
    return knex('stock').select('account_id', 'id')
      .whereRaw('(account_id, id) > (?, ?)', [after.accountId, after.stockId])
      .where((q) => q
        .whereRaw("EXISTS (SELECT 1 FROM jsonb_each(CASE WHEN jsonb_typeof(data -> 'cia') = 'object' THEN data -> 'cia' ELSE '{}'::jsonb END) AS p(portal, setting) WHERE p.setting ->> 'is_active' = 'true')")
        .orWhereExists(knex('cia_portal_state').select(knex.raw('1')).whereRaw('cia_portal_state.account_id = stock.account_id AND cia_portal_state.stock_id = stock.id')))
      .orderBy([{ column: 'account_id' }, { column: 'id' }])
      .limit(limit);
  },
};
