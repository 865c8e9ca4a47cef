/**
 * One Admin GraphQL call of a Shopify store: POST graphql.json with X-Shopify-Access-Token, the
 * cost-based rate limit honoured from the answers themselves (`extensions.cost.throttleStatus`:
 * a call waits when the store's bucket holds less than it may cost; a THROTTLED answer is waited
 * out within the call when the bucket refills soon, else fails retryable with the wait), and
 * Shopify's errors (a top-level errors array, a 401/403/404 of the store, a mutation's
 * userErrors) mapped to Kontor's retryable and permanent failures.
 */
import { config } from '../../../config';
import { DomainError, portalRefused, portalUnavailable } from '../../errors';
import { portalCalls } from '../../metrics';
import { retryAfterMs } from '../portal-http';
import { mayLandAnswered, mayLandUnanswered, PortalAnswer, portalRequest } from '../portal-request';
import type { PortalTarget } from '../portal.type';
import { ShopifyCredentials, shopifyCredentials } from './shopify-credentials';

export interface ThrottleStatus {
  maximumAvailable: number;
  currentlyAvailable: number;
  restoreRate: number;
}

interface GraphqlError {
  message?: string;
  path?: (string | number)[];
  extensions?: { code?: string; requiredAccess?: string };
}

interface GraphqlAnswer<T> {
  data?: T;
  errors?: GraphqlError[] | string | Record<string, unknown>;
  extensions?: { cost?: { requestedQueryCost?: number; actualQueryCost?: number | null; throttleStatus?: ThrottleStatus } };
}

/** A THROTTLED answer whose bucket refills within this long is waited for within the call; a longer wait fails the job for a retry then. */
const inCallWaitMs = 5000;
const inCallRetries = 3;
/** The cost Kontor assumes of a call before it has seen one (Shopify's own examples cost 10 to 110 points). */
const assumedCost = 100;

/** The last throttle status seen per store (process-local: a worker's calls share it; a fresh process learns it on its first answer). */
const buckets = new Map<string, { status: ThrottleStatus; at: number }>();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long to wait before `cost` points are available in a bucket last seen at `at` (0 when they are). */
export function waitForCostMs(status: ThrottleStatus, at: number, cost: number, now = Date.now()): number {
  const available = Math.min(status.maximumAvailable, status.currentlyAvailable + ((now - at) / 1000) * status.restoreRate);
  const needed = Math.min(cost, status.maximumAvailable) - available;
  return needed <= 0 ? 0 : Math.ceil((needed / Math.max(1, status.restoreRate)) * 1000);
}

const errorText = (errors: GraphqlAnswer<unknown>['errors']): string =>
  Array.isArray(errors) ? errors.map((e) => e.message ?? 'error').join('; ') : typeof errors === 'string' ? errors : JSON.stringify(errors ?? {});

/**
 * A throttled answer: `extensions.code` THROTTLED, or the message alone (SOURCES.md of the contract,
 * "Rate limiting": "A throttled call returns `errors: [{message: "Throttled"}]`"); read only by the
 * code, such an answer was refused for good as any other error, failing the job of a call that
 * only had to wait.
 */
/** A document that changes the store (a mutation): its call failing may still be applied; a query's asks nothing. */
const isMutation = (query: string) => /^\s*mutation\b/.test(query);

const isThrottled = (e: GraphqlError) => e.extensions?.code === 'THROTTLED' || e.message?.trim().toLowerCase() === 'throttled';

/**
 * A call the token's access scopes do not cover: Shopify's ACCESS_DENIED ("Access denied for
 * <field> field. Required access: `write_orders` access scope.", extensions.requiredAccess). Fails
 * for good (asking again with the same token gets the same answer), naming the scopes the token
 * lacks and that connecting the store again grants them: a store connected before Kontor asked a
 * scope (config/channel-apps.ts shopifyScopes) keeps a token without it until then.
 */
export class ShopifyAccessDenied extends DomainError {
  constructor(
    message: string,
    /** The denied root fields (orderCancel). */
    readonly fields: string[],
    /** The scopes any one of which Shopify asks for them (write_orders). */
    readonly scopes: string[],
  ) {
    super('portal_refused', message);
  }
}

/** Shopify's answer when it is an ACCESS_DENIED one: the fields and the scopes it names (backquoted in requiredAccess, else in the message). */
function accessDenied(errors: GraphqlAnswer<unknown>['errors']): { fields: string[]; scopes: string[]; text: string } | undefined {
  const denied = Array.isArray(errors) ? errors.filter((e) => e.extensions?.code === 'ACCESS_DENIED') : [];
  if (!denied.length) return undefined;
  const named = (e: GraphqlError) => [...`${e.extensions?.requiredAccess ?? ''} ${e.message ?? ''}`.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!);
  return {
    fields: [...new Set(denied.map((e) => String(e.path?.[0] ?? /Access denied for (\w+)/.exec(e.message ?? '')?.[1] ?? 'the call')))],
    scopes: [...new Set(denied.flatMap(named))],
    text: denied.map((e) => e.message ?? 'access denied').join('; '),
  };
}

/**
 * Every Admin API document Kontor sends, registered where it is written (`shopifyDocument`):
 * test/portals/shopify-documents.test.ts validates each against Shopify's schema
 * (admin_schema_2025-01.json), also the documents no exchange with the sandbox sends in a test run.
 */
export const shopifyDocuments = new Set<string>();

/** A GraphQL document of the Admin API, registered in `shopifyDocuments`; answers it unchanged. */
export function shopifyDocument(text: string): string {
  shopifyDocuments.add(text);
  return text;
}

/**
 * The documents of a version after 2025-01 only (shopify-version.ts): no schema file of those
 * versions is available, so they are not checked against Shopify's schema; the test checks them
 * against the sandbox's 2025-01 schema amended by the changelog's changes (shopify-versions.sandbox.ts).
 */
export const shopifyLaterDocuments = new Set<string>();

/** A GraphQL document of a version after 2025-01, registered in `shopifyLaterDocuments`; answers it unchanged. */
export function shopifyLaterDocument(text: string): string {
  shopifyLaterDocuments.add(text);
  return text;
}

/** A store of a portal account: its endpoint and token. */
export class ShopifySession {
  readonly creds: ShopifyCredentials;

  constructor(readonly target: PortalTarget) {
    this.creds = shopifyCredentials(target);
  }

  /** The query's data; waits for the bucket, answers Shopify's errors as failures (a query the schema refuses is a permanent one). */
  async call<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
    const store = `${this.target.portalAccountId}|${this.creds.endpoint}`;
    for (let attempt = 0; ; attempt++) {
      const seen = buckets.get(store);
      if (seen) {
        const wait = waitForCostMs(seen.status, seen.at, assumedCost);
        if (wait > 0) await sleep(Math.min(wait, inCallWaitMs));
      }
      let res: PortalAnswer;
      try {
        res = await portalRequest(new URL(this.creds.endpoint), {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'X-Shopify-Access-Token': this.creds.accessToken, 'User-Agent': 'Kontor' },
          body: JSON.stringify({ query, variables }),
          timeoutMs: config().portalTimeoutMs,
        });
      } catch (err) {
        portalCalls.inc({ portal: 'webshop', outcome: 'failed' });
        throw portalUnavailable(
          `webshop (Shopify): ${(err as Error).name === 'TimeoutError' ? 'no answer in time' : (err as Error).message}`,
          undefined,
          mayLandUnanswered(isMutation(query), err),
        );
      }
      const raw = res.text;
      let body: GraphqlAnswer<T>;
      try {
        body = raw ? (JSON.parse(raw) as GraphqlAnswer<T>) : {};
      } catch {
        body = { errors: raw.slice(0, 300) };
      }
      const status = body.extensions?.cost?.throttleStatus;
      if (status) buckets.set(store, { status, at: Date.now() });
      const transient = res.status === 429 || res.status >= 500;
      const throttled = Array.isArray(body.errors) && body.errors.some(isThrottled);
      portalCalls.inc({ portal: 'webshop', outcome: res.ok && !body.errors ? 'ok' : transient || throttled ? 'unavailable' : 'refused' });
      if (throttled || res.status === 429) {
        const wait = status
          ? waitForCostMs(status, Date.now(), body.extensions?.cost?.requestedQueryCost ?? assumedCost)
          : (retryAfterMs(res.headers.get('retry-after')) ?? 1000);
        if (wait <= inCallWaitMs && attempt < inCallRetries) {
          await sleep(Math.max(wait, 50));
          continue;
        }
        throw portalUnavailable(`webshop (Shopify) throttled the call; the bucket refills in ${wait} ms`, wait);
      }
      const message = `webshop (Shopify) answered ${res.status}: ${errorText(body.errors)}`;
      if (transient) throw portalUnavailable(message, retryAfterMs(res.headers.get('retry-after')), mayLandAnswered(isMutation(query), res.status));
      const denied = accessDenied(body.errors);
      if (denied) {
        const lacking = denied.scopes.length ? `the access scope ${denied.scopes.join(' or ')}` : 'an access scope';
        throw new ShopifyAccessDenied(
          `webshop (Shopify) denied ${denied.fields.join(', ')}: the access token of portal account ${this.target.portalAccountId} lacks ${lacking} ` +
            `(Shopify: ${denied.text}); connect the store again (its consent link: POST admin/portal_account/${this.target.portalAccountId}/consent/) to grant it`,
          denied.fields,
          denied.scopes,
        );
      }
      if (res.status === 401 || res.status === 403) throw portalRefused(`${message}; check the access token of portal account ${this.target.portalAccountId}`);
      if (!res.ok || body.errors || body.data === undefined) throw portalRefused(message);
      return body.data;
    }
  }
}

/** A mutation's userErrors as one refusal (Shopify refused the data; sending it again would not help). */
export function refuseUserErrors(what: string, errors: { field?: string[] | null; message: string }[] | undefined): void {
  if (!errors || errors.length === 0) return;
  throw portalRefused(
    `webshop (Shopify) refused ${what}: ${errors.map((e) => `${(e.field ?? []).join('.')}${e.field?.length ? ': ' : ''}${e.message}`).join('; ')}`.slice(
      0,
      1500,
    ),
  );
}
