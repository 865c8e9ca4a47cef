/**
 * The contract between lib/auth and lib/event for what a client made with its access: event
 * handlers record the client access whose token created them (event_handler.client_access_id), and
 * lib/event owns them and sits above lib/auth, so it implements this (provideClientAccessHandlers)
 * and each process's entry provides it at startup, as lib/event provides lib/stock's event targets
 * (lib/stock/event-targets.ts). The foreign key's ON DELETE CASCADE stays the backstop; it cannot
 * take a deleted handler's names out of the stock items naming it (lib/event README).
 */
import type { Knex } from 'knex';

/** Deletes what lib/event made with these client accesses, in the transaction about to delete them. */
export type ClientAccessesGoing = (trx: Knex.Transaction, clientAccessIds: number[]) => Promise<void>;

let provided: ClientAccessesGoing | undefined;

/** lib/event gives its implementation (once per process, at startup). */
export function provideClientAccessGoing(going: ClientAccessesGoing): void {
  provided = going;
}

/**
 * Called by every delete of client_access rows (tokenRepository deleteClientAccesses), with the
 * rows locked and before they go: lib/event deletes the clients' handlers as DELETE
 * admin/event/handler/{id}/ does, so their names leave the items in the same transaction.
 */
export async function clientAccessesGoing(trx: Knex.Transaction, clientAccessIds: number[]): Promise<void> {
  if (clientAccessIds.length === 0) return;
  if (!provided) throw new Error('lib/event has not provided what goes with a client access: call provideClientAccessHandlers (lib/event) at startup');
  await provided(trx, clientAccessIds);
}
