/**
 * Revisions Kontor made of each listing on a channel's calendar day (table
 * portal_listing_revision, owned here beside portal_listing): eBay revises a listing at most 250
 * times a day, and a count that a restart forgot would spend the day's last revisions on
 * increases. One row per listing, its day and count; a new day starts the count again, so rows
 * do not pile up. Scoped by account; the push holds its target's lock, so one target's
 * reservations never interleave.
 */
import type { Knex } from 'knex';
import { prepared } from '../db';
import type { PushTarget } from '../cia';
import type { RevisionLedger, Revisions } from '../portals';

export interface PortalListingRevisionRow {
  account_id: number;
  portal: string;
  portal_account_id: number;
  listing_id: string;
  day: string;
  revisions: number;
}

// The row type of portal_listing_revision for Knex (declared once here, lib/portal-offer owns the table).
declare module 'knex/types/tables' {
  interface Tables {
    portal_listing_revision: PortalListingRevisionRow;
  }
}

/** One statement: counts a revision of each listing below its ceiling that day, answering every listing's count. */
const reserveSql = `
  WITH ask AS (SELECT * FROM unnest(?::text[], ?::int[]) AS a(listing_id, ceiling)),
  cur AS (
    SELECT r.listing_id, CASE WHEN r.day = ?::date THEN r.revisions ELSE 0 END AS used
    FROM portal_listing_revision r
    WHERE r.account_id = ? AND r.portal = ? AND r.portal_account_id = ? AND r.listing_id IN (SELECT listing_id FROM ask)
    FOR UPDATE),
  granted AS (
    INSERT INTO portal_listing_revision AS r (account_id, portal, portal_account_id, listing_id, day, revisions)
    SELECT ?, ?, ?, a.listing_id, ?::date, 1 FROM ask a LEFT JOIN cur c USING (listing_id) WHERE coalesce(c.used, 0) < a.ceiling
    ON CONFLICT (account_id, portal, portal_account_id, listing_id) DO UPDATE
      SET revisions = CASE WHEN r.day = EXCLUDED.day THEN r.revisions + 1 ELSE 1 END, day = EXCLUDED.day
    RETURNING r.listing_id, r.revisions)
  SELECT a.listing_id, g.listing_id IS NOT NULL AS granted, coalesce(g.revisions, c.used, 0) AS count
  FROM ask a LEFT JOIN cur c USING (listing_id) LEFT JOIN granted g USING (listing_id)`;

const spendSql = `
  INSERT INTO portal_listing_revision AS r (account_id, portal, portal_account_id, listing_id, day, revisions)
  SELECT ?, ?, ?, l, ?::date, ? FROM unnest(?::text[]) AS l
  ON CONFLICT (account_id, portal, portal_account_id, listing_id) DO UPDATE
    SET revisions = CASE WHEN r.day = EXCLUDED.day THEN GREATEST(r.revisions, EXCLUDED.revisions) ELSE EXCLUDED.revisions END, day = EXCLUDED.day`;

/** The ledger of one push target, on the push's transaction. */
export function revisionLedger(trx: Knex.Transaction, accountId: number, target: PushTarget): RevisionLedger {
  const who = [accountId, target.portal, target.portalAccountId];
  return {
    async reserve(day, asks) {
      const unique = [...new Map(asks.map((a) => [a.listing, a])).values()];
      if (unique.length === 0) return new Map();
      const { rows } = (await trx
        .raw(reserveSql, [unique.map((a) => a.listing), unique.map((a) => a.ceiling), day, ...who, ...who, day])
        .options(prepared)) as { rows: { listing_id: string; granted: boolean; count: number }[] };
      return new Map(rows.map((r): [string, Revisions] => [r.listing_id, { granted: r.granted, count: Number(r.count) }]));
    },
    async spend(day, listings, limit) {
      if (listings.length > 0) await trx.raw(spendSql, [...who, day, limit, [...new Set(listings)]]);
    },
  };
}
