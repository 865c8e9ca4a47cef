import { domainError } from '../errors';

/**
 * Conditional writes (RFC 9110 13.1.1, If-Match). A record's ETag is `"<version>.<digest of the
 * representation>"` (server/framework/respond.ts): If-Match compares the version, so the tag of
 * any read of the record (another select, format or charset) names the state it was read in.
 * Strong comparison: a weak tag (W/"...") never matches; `*` matches any state of a record that
 * exists. A header that is no list of tags matches nothing, so the write is refused with nothing
 * changed rather than done unconditionally.
 */
const entityTag = /^\s*(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"\s*$/;

/** Whether a write under this If-Match may change a record of `version`. */
export function ifMatchAllows(header: string, version: string): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((part) => {
    const tag = entityTag.exec(part);
    if (!tag || tag[1]) return false;
    const opaque = tag[2]!;
    const dot = opaque.indexOf('.');
    return (dot < 0 ? opaque : opaque.slice(0, dot)) === version;
  });
}

/**
 * A conditional write's check, made under the record's row lock the caller holds so that nothing
 * can change it between the check and the write: without If-Match nothing is checked; otherwise
 * 412 record_changed saying `changed`, unless the header names the record's version.
 */
export async function checkIfMatch(ifMatch: string | undefined, versionOf: () => Promise<string>, changed: string): Promise<void> {
  if (ifMatch === undefined || ifMatchAllows(ifMatch, await versionOf())) return;
  throw domainError('record_changed', changed);
}
