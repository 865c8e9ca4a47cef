/**
 * The contract between lib/auth and lib/event for what a client made with its access: event
 * handlers record the client access whose token created them (event_handler.client_access_id), and
 * lib/event owns them and sits above lib/auth, so it implements this (provideClientAccessHandlers)
 * and each process's entry provides it at startup, as lib/event provides lib/stock's event targets
 * (lib/stock/event-targets.ts). The foreign key's ON DELETE CASCADE stays the backstop for a
 * deletion; it cannot take a deleted handler's names out of the stock items naming it (lib/event
 * README), nor narrow a handler when its access is restricted.
 */
import type { Knex } from 'knex';
import type { Scope } from '../access';

/** Deletes what lib/event made with these client accesses, in the transaction about to delete them. */
export type ClientAccessesGoing = (trx: Knex.Transaction, clientAccessIds: number[]) => Promise<void>;

/** A client access of an account as the seller restricted it: the rights and the portal account (null: all) it holds now. */
export interface NarrowedClientAccess {
  clientAccessId: number;
  accountId: number;
  scope: Scope[];
  portalAccountId: number | null;
}

/** Brings what lib/event made with a client access to its narrowed rights, in the transaction narrowing it. */
export type ClientAccessNarrowed = (trx: Knex.Transaction, access: NarrowedClientAccess) => Promise<void>;

let provided: { going: ClientAccessesGoing; narrowed: ClientAccessNarrowed } | undefined;

/** lib/event gives its implementation (once per process, at startup). */
export function provideClientAccessGoing(hooks: { going: ClientAccessesGoing; narrowed: ClientAccessNarrowed }): void {
  provided = hooks;
}

const notProvided = () => new Error('lib/event has not provided what goes with a client access: call provideClientAccessHandlers (lib/event) at startup');

/**
 * Called by every delete of client_access rows (tokenRepository deleteClientAccesses), with the
 * rows locked and before they go: lib/event deletes the clients' handlers as DELETE
 * admin/event/handler/{id}/ does, so their names leave the items in the same transaction.
 */
export async function clientAccessesGoing(trx: Knex.Transaction, clientAccessIds: number[]): Promise<void> {
  if (clientAccessIds.length === 0) return;
  if (!provided) throw notProvided();
  await provided.going(trx, clientAccessIds);
}

/**
 * Called by the restriction of a client access (client-access.service.ts restrictClientAccess),
 * with its row locked and narrowed: lib/event removes the client's handlers whose action needs a
 * right the access no longer holds and binds the rest to the access's portal account.
 */
export async function clientAccessNarrowed(trx: Knex.Transaction, access: NarrowedClientAccess): Promise<void> {
  if (!provided) throw notProvided();
  await provided.narrowed(trx, access);
}
