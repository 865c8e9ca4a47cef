/**
 * A statement that the transactions of one API request write just before their COMMIT, in the
 * COMMIT's own message (commit-outcome.ts watchCommits): lib/http marks a request's
 * Idempotency-Key row with the transaction's id, so the row says, atomically with the request's
 * writes, that they committed (lib/http README, Idempotency-Key). Memory of this process only:
 * a request's transactions run in the process that serves it.
 *
 * Keyed by request id, which a client may choose (X-Request-Id): two requests of the same id in
 * flight at once in this process (two sellers of one connector counting their ids alike) cannot
 * be told apart by their transactions, so while they overlap neither's transactions write a mark
 * (each request then has the protection it had without one: its key's running lock), rather than
 * the one's transaction marking the other's key.
 */
export interface OpenRequest {
  /** Every transaction the request opens from now on writes `statement` just before its COMMIT. */
  markCommits(statement: string): void;
  /** The request is over: its transactions are done (the framework's finally). */
  close(): void;
}

interface Handle {
  mark?: string;
}

const open = new Map<string, Set<Handle>>();

/** A request that may open transactions with its id (transaction(work, requestId)) has started. */
export function openRequest(requestId: string): OpenRequest {
  const handle: Handle = {};
  let handles = open.get(requestId);
  if (!handles) open.set(requestId, (handles = new Set()));
  handles.add(handle);
  const ours = handles;
  return {
    markCommits: (statement) => {
      handle.mark = statement;
    },
    close: () => {
      ours.delete(handle);
      if (ours.size === 0 && open.get(requestId) === ours) open.delete(requestId);
    },
  };
}

/** The statement a transaction of the request writes before its COMMIT, if any (only while the request is alone with its id). */
export function commitMarkOf(requestId: string): string | undefined {
  const handles = open.get(requestId);
  if (!handles || handles.size !== 1) return undefined;
  for (const handle of handles) return handle.mark;
  return undefined;
}
