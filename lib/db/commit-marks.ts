/**
 * A statement that the transactions of one API request write just before their COMMIT, in the
 * COMMIT's own message (commit-outcome.ts watchCommits): lib/http marks a request's
 * Idempotency-Key row with the transaction's id, so the row says, atomically with the request's
 * writes, that they committed (lib/http README, Idempotency-Key). Memory of this process only:
 * a request's transactions run in the process that serves it.
 *
 * Found by the request's key, not by its X-Request-Id, which the client chooses: two requests of
 * one id in flight at once in this process (two sellers of one connector counting their ids
 * alike, or a resend beside its first attempt) each have a key of their own, so each request's
 * transactions write its own mark and never another's. The key is the request id itself unless a
 * request in flight here holds that id as its key; then the id with `#` and a number (a sent id
 * has no `#`, server/framework/context.ts). Nothing leaves the process with the number: the jobs
 * a transaction queues carry the request id (publicRequestId). Before, the ids were held
 * process-wide and a request whose id another seller's request held answered a made one, so a
 * seller who guessed another's id changed that seller's requests (lib/http README).
 */
export interface OpenRequest {
  /** The request's key in this process: its transactions are opened with it (transaction(work, key)). */
  readonly key: string;
  /** Every transaction the request opens from now on writes `statement` just before its COMMIT. */
  markCommits(statement: string): void;
  /**
   * Whether a transaction opened with the key committed (transaction(work, key)): from then on a
   * failure of the request is no "nothing was done, send again" (server/framework mount.ts).
   */
  readonly committed: boolean;
  /** The request is over: its transactions are done (the framework's finally). */
  close(): void;
}

interface Handle {
  mark?: string;
  committed?: boolean;
}

const open = new Map<string, Handle>();
const keySeparator = '#';
let made = 0;

/** A request that may open transactions with its key (transaction(work, key)) has started. */
export function openRequest(requestId: string): OpenRequest {
  const key = open.has(requestId) ? `${requestId}${keySeparator}${(made += 1)}` : requestId;
  const handle: Handle = {};
  open.set(key, handle);
  return {
    key,
    markCommits: (statement) => {
      handle.mark = statement;
    },
    get committed() {
      return handle.committed === true;
    },
    close: () => {
      if (open.get(key) === handle) open.delete(key);
    },
  };
}

/** The statement a transaction of the request `key` writes before its COMMIT, if any. */
export function commitMarkOf(key: string): string | undefined {
  return open.get(key)?.mark;
}

/** A transaction of the request `key` committed (or its lost COMMIT was found committed). */
export function noteCommitted(key: string): void {
  const handle = open.get(key);
  if (handle) handle.committed = true;
}

/** The request id of a request's key (openRequest), as the client sent or was answered it; any other id as it is. */
export function publicRequestId(key: string): string {
  const at = key.indexOf(keySeparator);
  return at < 0 ? key : key.slice(0, at);
}
