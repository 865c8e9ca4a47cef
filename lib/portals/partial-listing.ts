/**
 * A list that some markets of the portal account took and others did not (Amazon: one put per
 * marketplace, lib/portals README "A seller in several marketplaces"): the listing is live in
 * those that took it, so lib/portal-offer records it there before the job fails with the error.
 * Carried on the error the list throws (a refusal, or a 429/5xx that the job's retry finishes).
 */
export interface PartialListing {
  portalItemId: string;
  /** The markets (marketplace ids) that hold the listing now, this job's earlier tries included. */
  markets: string[];
}

const key = Symbol('partialListing');

/** The error, marked as leaving the listing live in these markets. */
export function withPartialListing<E extends Error>(err: E, listing: PartialListing): E {
  return Object.assign(err, { [key]: listing });
}

/** The markets a failed list left the listing live in, if it left it live anywhere. */
export function partialListingOf(err: unknown): PartialListing | undefined {
  return err instanceof Error ? (err as Error & { [key]?: PartialListing })[key] : undefined;
}
