import type { Knex } from 'knex';
import type { OrderScope } from '../access';
import { db } from '../db';
import type { HandlerCondition } from './event-handler.type';
import { accountUseRepository } from '../account';
import { whereNeedsResealing } from '../secret';
import { clearSigningSecret, sealSigningSecret, splitUrlPassword, urlPasswordOf, withUrlPassword } from './signing-secret';

export interface EventHandlerRow {
  id: number;
  account_id: number;
  section: string;
  type: string;
  action: string;
  required: Record<string, string>;
  condition: HandlerCondition[];
  is_active: boolean;
  signing_secret: string;
  modified: Date;
  /** Start of the current run of failed webhook attempts; null after a success. */
  failing_since: Date | null;
  /** Set while a notification handler is paused (is_active false): its deliveries are held. */
  paused_at: Date | null;
  pause_reason: string | null;
  /** The portal account the creating client was bound to; null: all (the seller's own tokens, clients granted all). */
  portal_account_grant: number | null;
  /** The client access whose token created it (its revocation deletes the handler: the foreign key's cascade); null: the seller's own tokens, or made before it was recorded. */
  client_access_id: number | null;
}

// The row type of event_handler for Knex (declared once here, lib/event owns the table).
// Its JSON columns are written as JSON text (pg would send an array as a Postgres array); any
// column may be written as SQL (now(), coalesce(...)).
type JsonColumns = 'required' | 'condition';
type EventHandlerWrite = { [K in keyof EventHandlerRow]?: (K extends JsonColumns ? string : EventHandlerRow[K]) | Knex.Raw };
declare module 'knex/types/tables' {
  interface Tables {
    event_handler: Knex.CompositeTableType<EventHandlerRow, EventHandlerWrite, EventHandlerWrite>;
  }
}

/** Handlers that take events (activeFor, typesHandled): active ones, and paused ones (their deliveries are held). */
const dispatchable = (q: Knex.QueryBuilder<EventHandlerRow>) => q.where('is_active', true).orWhereNotNull('paused_at');

/** The key of typesHandled's set. */
export const handledKey = (accountId: number, section: string, type: string) => `${accountId} ${section} ${type}`;

/**
 * The handlers a caller may see: all of the account for the seller and clients granted all; for a
 * client bound to a portal account, only those created under that same grant.
 */
function visibleTo(q: Knex.QueryBuilder, scope: OrderScope): Knex.QueryBuilder {
  q.where('account_id', scope.accountId);
  return scope.portalAccountGrant === 'all' ? q : q.where('portal_account_grant', scope.portalAccountGrant);
}

/**
 * A notification url's password (user:password@, sent as Basic credentials) is a credential of the
 * seller's receiver like the signing secret, yet it stood in clear in event_handler.required
 * beside the sealed secret, readable in any dump, backup or replica (found by the security pass).
 * It is stored sealed in the same value as the secret (url_password), the url kept with the user
 * name alone; every read of a row puts it back, so the service, the seller's GET and the
 * deliveries see the url as the seller wrote it.
 */
function withPassword(row: EventHandlerRow): EventHandlerRow {
  const url = row.required?.url;
  if (typeof url !== 'string' || !url.includes('@') || splitUrlPassword(url)) return row;
  const password = urlPasswordOf(row);
  return password === undefined ? row : { ...row, required: { ...row.required, url: withUrlPassword(url, password) } };
}

/** Event handlers of a seller account; every query is scoped by the account id. */
export const eventHandlerRepository = {
  /** Inserts a handler; `signing_secret` and a url's password in clear, stored sealed (signing-secret.ts). */
  async insert(
    trx: Knex.Transaction,
    row: Omit<EventHandlerRow, 'id' | 'modified' | 'is_active' | 'failing_since' | 'paused_at' | 'pause_reason'>,
  ): Promise<number> {
    const split = typeof row.required.url === 'string' ? splitUrlPassword(row.required.url) : undefined;
    const required = split ? { ...row.required, url: split.url } : row.required;
    // The secret is sealed bound to the row's id, known once the row is in (same transaction: nobody sees it unsealed).
    const [inserted] = await trx('event_handler')
      .insert({ ...row, signing_secret: '', required: JSON.stringify(required), condition: JSON.stringify(row.condition) })
      .returning('id');
    const id = inserted!.id;
    await trx('event_handler')
      .where({ id })
      .update({ signing_secret: sealSigningSecret(row.signing_secret, id, split?.password) });
    return id;
  },

  async list(scope: OrderScope): Promise<EventHandlerRow[]> {
    return ((await visibleTo(db()('event_handler'), scope).orderBy('id')) as EventHandlerRow[]).map(withPassword);
  },

  /** One handler the scope sees (allOrdersOf(account) for the service's own work). */
  async get(scope: OrderScope, id: number): Promise<EventHandlerRow | undefined> {
    const row = (await visibleTo(db()('event_handler'), scope).where({ id }).first()) as EventHandlerRow | undefined;
    return row && withPassword(row);
  },

  /** How many handlers the account has (the cap EVENT_HANDLERS_PER_ACCOUNT); the account's row locked so two creations count in turn. */
  async countForCreate(trx: Knex.Transaction, accountId: number): Promise<number> {
    await accountUseRepository.lock(trx, accountId);
    const [row] = (await trx('event_handler').where({ account_id: accountId }).count({ n: '*' })) as { n: string }[];
    return Number(row?.n ?? 0);
  },

  /** Deletes one handler the scope sees; answers what it was (what the items may name it by), undefined when there is none with that id. */
  async delete(
    trx: Knex.Transaction,
    scope: OrderScope,
    id: number,
  ): Promise<Pick<EventHandlerRow, 'id' | 'account_id' | 'section' | 'type' | 'required'> | undefined> {
    const [row] = await visibleTo(trx('event_handler'), scope).where({ id }).delete().returning(['id', 'account_id', 'section', 'type', 'required']);
    return row;
  },

  /**
   * Deletes the handlers the client accesses made (lib/auth deleting them, client-access-going.ts);
   * answers what they were, as delete does. Not by account: a client's accesses span sellers
   * (`kontor client disable`), and lib/auth chose the ids from its own rows, each of one seller.
   */
  async deleteOfClientAccesses(
    trx: Knex.Transaction,
    clientAccessIds: number[],
  ): Promise<Pick<EventHandlerRow, 'id' | 'account_id' | 'section' | 'type' | 'required'>[]> {
    return trx('event_handler').whereIn('client_access_id', clientAccessIds).delete().returning(['id', 'account_id', 'section', 'type', 'required']);
  },

  /** The handlers one client access of the account made, locked (its restriction weighs them: event-handler-scopes.ts narrowedHandlers). */
  async lockedOfClientAccess(
    trx: Knex.Transaction,
    accountId: number,
    clientAccessId: number,
  ): Promise<Pick<EventHandlerRow, 'id' | 'section' | 'action' | 'portal_account_grant'>[]> {
    return trx('event_handler')
      .where({ account_id: accountId, client_access_id: clientAccessId })
      .orderBy('id')
      .forUpdate()
      .select('id', 'section', 'action', 'portal_account_grant');
  },

  /** Deletes handlers of the account by id; answers what they were, as delete does. */
  async deleteMany(
    trx: Knex.Transaction,
    accountId: number,
    ids: number[],
  ): Promise<Pick<EventHandlerRow, 'id' | 'account_id' | 'section' | 'type' | 'required'>[]> {
    if (ids.length === 0) return [];
    return trx('event_handler').where({ account_id: accountId }).whereIn('id', ids).delete().returning(['id', 'account_id', 'section', 'type', 'required']);
  },

  /** Binds handlers of the account to one portal account (their grant; a bound client's handler acts only on its records). */
  async bind(trx: Knex.Transaction, accountId: number, ids: number[], portalAccountId: number): Promise<void> {
    if (ids.length === 0) return;
    await trx('event_handler').where({ account_id: accountId }).whereIn('id', ids).update({ portal_account_grant: portalAccountId });
  },

  /** The handlers of an account for one event type that take events. */
  async activeFor(accountId: number, section: string, type: string): Promise<EventHandlerRow[]> {
    return (await db()('event_handler').where({ account_id: accountId, section, type }).where(dispatchable).orderBy('id')).map(withPassword);
  },

  /** Of the accounts given, the section and type pairs that have a handler activeFor would find, as `<account> <section> <type>`. */
  async typesHandled(trx: Knex.Transaction, accountIds: number[]): Promise<Set<string>> {
    const rows = await trx('event_handler').distinct('account_id', 'section', 'type').whereIn('account_id', accountIds).where(dispatchable);
    return new Set(rows.map((r) => handledKey(r.account_id, r.section, r.type)));
  },

  /** A failed webhook attempt at `at`: starts the failure clock unless it runs; returns the clock and the pause. */
  async markFailing(trx: Knex.Transaction, id: number, at: Date): Promise<{ failing_since: Date; paused_at: Date | null } | undefined> {
    const [row] = await trx('event_handler')
      .where({ id })
      .update({ failing_since: trx.raw('coalesce(failing_since, ?)', [at]) })
      .returning(['failing_since', 'paused_at']);
    // failing_since is set by the coalesce: never null here.
    return row as { failing_since: Date; paused_at: Date | null } | undefined;
  },

  /** A delivered webhook stops the failure clock. */
  async clearFailing(trx: Knex.Transaction, id: number): Promise<void> {
    await trx('event_handler').where({ id }).whereNotNull('failing_since').update({ failing_since: null });
  },

  /** Pauses a handler (is_active false); false when it was paused already (one pause, one task). */
  async pause(trx: Knex.Transaction, id: number, reason: string): Promise<boolean> {
    const updated = await trx('event_handler')
      .where({ id })
      .whereNull('paused_at')
      .update({ is_active: false, paused_at: trx.fn.now(), pause_reason: reason, modified: trx.fn.now() });
    return updated > 0;
  },

  /** Unpauses a handler of the account (active, failure clock reset); false when it was not paused. */
  async resume(trx: Knex.Transaction, scope: OrderScope, id: number): Promise<boolean> {
    const updated = await visibleTo(trx('event_handler'), scope)
      .where({ id })
      .whereNotNull('paused_at')
      .update({ is_active: true, paused_at: null, pause_reason: null, failing_since: null, modified: trx.fn.now() });
    return updated > 0;
  },
};

/**
 * The signing secrets for `kontor credentials reseal` (lib/admin's rule): the rows not sealed under
 * the current key, not bound to their row, or still in clear; each written only if unchanged.
 */
export const eventHandlerSecretsRepository = {
  async toReseal(keyId: string): Promise<{ id: number; credentials: string }[]> {
    const rows = (await whereNeedsResealing(db()('event_handler').select('id', 'signing_secret').where('action', 'notification'), keyId, 'signing_secret')) as {
      id: number;
      signing_secret: string;
    }[];
    return rows.filter((r) => r.signing_secret !== '').map((r) => ({ id: r.id, credentials: r.signing_secret }));
  },

  async replaceSealed(id: number, read: string, sealed: string | null): Promise<number> {
    if (sealed === null) return 0;
    return db()('event_handler').where({ id, signing_secret: read }).update({ signing_secret: sealed });
  },

  /** A secret still in clear, as the reseal opens it. */
  openLegacy: (stored: string): Record<string, unknown> | undefined => {
    const clear = clearSigningSecret(stored);
    return clear === undefined ? undefined : { signing_secret: clear };
  },
};
