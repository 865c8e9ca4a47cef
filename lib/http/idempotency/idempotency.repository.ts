import type { Knex } from 'knex';
import { db } from '../../db';
import type { Payload } from '../envelope';
import type { KeyHolder } from './holder';

/** An answer as it is replayed: status, the headers that belong to it, the envelope. */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  envelope: Payload;
}

export interface KeyRow {
  fingerprint: string;
  owner: string;
  status: number | null;
  headers: Record<string, string> | null;
  envelope: Payload | null;
  locked_until: Date | null;
  /**
   * Without an answer (status null): the id of the last transaction of the request that holds
   * the key that committed, written within it (commitMark); null while none has. With an answer:
   * the transaction id of a request whose COMMIT answer was lost (its answer says the outcome is unknown).
   */
  commit_xid: string | null;
}

export interface NewClaim extends KeyHolder {
  key: string;
  fingerprint: string;
  owner: string;
  requestId: string;
  now: Date;
  lockedUntil: Date;
  expiresAt: Date;
}

/** The SQLSTATE the commit mark raises when a resend took the key over (commitMark). */
export const keyTakenOverCode = 'KI001';

/** Expired keys of the account swept by each claim, so the table stays the size of a day's keys. */
const sweepBatch = 100;

/** Idempotency keys of a seller account's clients; every statement is scoped by the account id and the client. */
/** The answer on the row of the attempt that holds the key, the key unlocked; commitXid: what the mark becomes. */
function storeAnswer(holder: KeyHolder, key: string, owner: string, answer: StoredAnswer, commitXid: Knex.Raw | null) {
  return db()('idempotency_key')
    .where({ account_id: holder.accountId, client: holder.client, key, owner })
    .update({
      status: answer.status,
      headers: JSON.stringify(answer.headers),
      envelope: JSON.stringify(answer.envelope),
      locked_until: null,
      commit_xid: commitXid,
    });
}

export const idempotencyRepository = {
  /** Deletes expired keys of every account (a claim sweeps only its own account's); answers how many. */
  async deleteExpired(now: Date): Promise<number> {
    return db()('idempotency_key').where('expires_at', '<=', now).delete();
  },

  /**
   * Takes the key for this attempt when it is new, expired, or held by a claim whose lock ran
   * out for the same request (its process died) and that committed nothing (no commitMark: its
   * transactions rolled back, or never began). One statement: of two racing attempts exactly
   * one gets the key; a mark being committed holds the row's lock, and the claim waits for it
   * and sees the mark. Sweeps a batch of the account's other expired keys on the way.
   * Returns whether this attempt holds the key.
   */
  async claim(c: NewClaim): Promise<boolean> {
    const { rows } = await db().raw<{ rows: { owner: string }[] }>(
      `WITH swept AS (
         DELETE FROM idempotency_key WHERE ctid IN (
           SELECT ctid FROM idempotency_key WHERE account_id = :accountId AND expires_at <= :now AND (client, key) <> (:client, :key) LIMIT ${sweepBatch}))
       INSERT INTO idempotency_key (account_id, client, key, fingerprint, owner, request_id, locked_until, created_at, expires_at)
       VALUES (:accountId, :client, :key, :fingerprint, :owner, :requestId, :lockedUntil, :now, :expiresAt)
       ON CONFLICT (account_id, client, key) DO UPDATE SET
         fingerprint = EXCLUDED.fingerprint, owner = EXCLUDED.owner, request_id = EXCLUDED.request_id,
         locked_until = EXCLUDED.locked_until, status = NULL, headers = NULL, envelope = NULL, commit_xid = NULL,
         created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
       WHERE idempotency_key.expires_at <= :now
          OR (idempotency_key.status IS NULL AND idempotency_key.locked_until <= :now AND idempotency_key.fingerprint = EXCLUDED.fingerprint
              AND idempotency_key.commit_xid IS NULL)
       RETURNING owner`,
      { ...c },
    );
    return rows[0]?.owner === c.owner;
  },

  /** The key's row while it has not expired. */
  async find(holder: KeyHolder, key: string, now: Date): Promise<KeyRow | undefined> {
    return db()('idempotency_key')
      .where({ account_id: holder.accountId, client: holder.client, key })
      .andWhere('expires_at', '>', now)
      .first('fingerprint', 'owner', 'status', 'headers', 'envelope', 'locked_until', 'commit_xid');
  },

  /**
   * The statement that marks the key row of attempt `owner` with the transaction's id, written by
   * each transaction of the request just before its COMMIT, in the COMMIT's message (lib/db
   * commit-marks.ts): the row then tells, atomically with the request's writes, that they
   * committed. When the row is no longer this attempt's, it raises `keyTakenOverCode` instead,
   * and PostgreSQL skips the COMMIT after it: the attempt ran past its running lock (a process
   * paused, not dead) and a resend took the key over and runs the request itself, so this
   * attempt's writes must not commit beside the resend's (a fence, as a lease's token is). A DO
   * block, for the RAISE: one plpgsql block per keyed transaction, nothing for other requests.
   * That message is the simple protocol, which takes no bindings: every text is written as hex
   * digits (decode), so nothing a client sent reaches the statement's syntax; the account id is
   * an integer.
   */
  commitMark(holder: KeyHolder, key: string, owner: string): string {
    if (!Number.isSafeInteger(holder.accountId)) throw new Error(`account id ${holder.accountId} is no integer`);
    const text = (value: string) => `convert_from(decode('${Buffer.from(value, 'utf8').toString('hex')}', 'hex'), 'UTF8')`;
    return (
      `DO $mark$ BEGIN UPDATE idempotency_key SET commit_xid = txid_current() WHERE account_id = ${holder.accountId}` +
      ` AND client = ${text(holder.client)} AND key = ${text(key)} AND owner = ${text(owner)}::uuid;` +
      ` IF NOT FOUND THEN RAISE EXCEPTION 'the Idempotency-Key was taken over by a resend' USING ERRCODE = '${keyTakenOverCode}'; END IF; END $mark$`
    );
  },

  /** Stores the answer of the attempt that holds the key (a taken-over attempt stores nothing); its mark has served. */
  async store(holder: KeyHolder, key: string, owner: string, answer: StoredAnswer): Promise<void> {
    await storeAnswer(holder, key, owner, answer, null);
  },

  /**
   * Stores the answer of an attempt whose COMMIT answer was lost (503, outcome unknown) with the
   * transaction's id when known: the key stays taken, never freed, until a resend learns the
   * outcome. A mark the row already shows stays: an earlier transaction of the request
   * committed, and the resend learns that (committed), whatever became of the lost one.
   */
  async storeUnknown(holder: KeyHolder, key: string, owner: string, answer: StoredAnswer, xid: string | null): Promise<void> {
    await storeAnswer(holder, key, owner, answer, db().raw('COALESCE(commit_xid, ?::bigint)', [xid]));
  },

  /**
   * The outcome of a lost COMMIT is known: replaces the unknown answer of attempt `owner` (its
   * transaction committed), once, by one statement; false when another resend did it first.
   */
  async resolveUnknown(holder: KeyHolder, key: string, owner: string, xid: string, answer: StoredAnswer): Promise<boolean> {
    const updated = await db()('idempotency_key')
      .where({ account_id: holder.accountId, client: holder.client, key, owner, commit_xid: xid })
      .update({ status: answer.status, headers: JSON.stringify(answer.headers), envelope: JSON.stringify(answer.envelope), commit_xid: null });
    return updated === 1;
  },

  /**
   * Takes over the key of attempt `owner`, whose transaction rolled back after its COMMIT answer
   * was lost: this attempt runs the request. One statement: of two racing resends one gets it.
   */
  async takeOverUnknown(
    holder: KeyHolder,
    key: string,
    owner: string,
    xid: string,
    c: Pick<NewClaim, 'owner' | 'requestId' | 'lockedUntil'>,
  ): Promise<boolean> {
    const updated = await db()('idempotency_key')
      .where({ account_id: holder.accountId, client: holder.client, key, owner, commit_xid: xid })
      .update({ owner: c.owner, request_id: c.requestId, locked_until: c.lockedUntil, status: null, headers: null, envelope: null, commit_xid: null });
    return updated === 1;
  },

  /**
   * Frees the key (the answer is one the client may retry): the next attempt runs anew. Not when
   * a transaction of the request committed (its mark), nor when the key has an answer already: a
   * resend that came past the running lock of this (slow, not dead) attempt read its mark and
   * stored already_carried_out, clearing the mark (resolveUnknown); freeing the key then let the
   * next resend run the request a second time. Answers whether it freed the key.
   */
  async release(holder: KeyHolder, key: string, owner: string): Promise<boolean> {
    const deleted = await db()('idempotency_key')
      .where({ account_id: holder.accountId, client: holder.client, key, owner })
      .whereNull('commit_xid')
      .whereNull('status')
      .delete();
    return deleted > 0;
  },
};
