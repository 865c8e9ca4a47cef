import type { Issue, Item } from '@sp-api-sdk/listings-items-api-2021-08-01';
import type { ListingCheck } from '../portal.type';
import type { CallOptions, SpApiSession } from './sp-api-client';

type ListingData = 'summaries' | 'issues' | 'fulfillmentAvailability';

/**
 * getListingsItem of a SKU in all the account's marketplaces (it takes several: no maxItems, one
 * call answers a summary per marketplace), or in `marketplaceIds` (one, to learn whose its
 * fulfillmentAvailability is: fba-offers.ts amazonFulfilment), with these data sets; null where
 * Amazon answers 404, a SKU it holds no listing of (or has not made one of yet): no error.
 * `reserved`: the caller took the call's token already (SpApiSession.reserve), so it goes by `send`.
 */
export async function readListing(
  s: SpApiSession,
  sku: string,
  includedData: ListingData[],
  reserved = false,
  marketplaceIds: string[] = s.marketplaceIds,
): Promise<Item | null> {
  const run = async (o: CallOptions): Promise<{ data: Item | null; status?: number; headers?: Record<string, unknown> }> => {
    try {
      return await s.listings.getListingsItem({ sellerId: s.creds.sellerId, sku, marketplaceIds, includedData }, o);
    } catch (err) {
      const response = (err as { response?: { status?: number; headers?: Record<string, unknown> } }).response;
      if (response?.status === 404) return { data: null, status: 404, headers: response.headers };
      throw err;
    }
  };
  const path = s.listingPath(sku);
  return reserved ? s.send('get', path, run) : s.call('get', path, run);
}

/**
 * What Amazon made of a listing it accepted for processing (ListingsItemSubmissionResponse
 * ACCEPTED: "The listings submission was accepted for processing"), read from getListingsItem's
 * summaries, issues and fulfillmentAvailability (listingsItems_2021-08-01.json: Item,
 * ItemSummaryByMarketplace, Issue, IssueEnforcements). Decisions (lib/portals/README.md,
 * "Listings checked after Amazon's processing"):
 * - a problem is an issue of the account's marketplaces (or of none named) with severity ERROR,
 *   or with enforcement actions not permanently exempt (NOT_EXEMPT, and EXEMPT_UNTIL_EXPIRY_DATE,
 *   which Amazon enforces at its expiry date); WARNING and INFO issues without such an
 *   enforcement are not;
 * - without such an issue, the marketplace's summary with status BUYABLE is live; so is a
 *   summary without BUYABLE when the offer has nothing to sell (merchant quantity 0, or fulfilled
 *   by Amazon, whose stock Kontor does not send): "not buyable" is then what the seller chose;
 * - no summary of the marketplace (Amazon still processing; a new SKU is a 404 meanwhile), or a
 *   merchant offer with a quantity that is not BUYABLE, is pending: the caller checks again;
 * - an account in several marketplaces is checked in each (one getListingsItem names them all:
 *   a summary per marketplace, issues naming theirs): live when live in every one, else the
 *   first problem, else the first still pending, its summary naming the marketplace.
 */
export function listingCheck(item: Item | null, marketplaceIds: string[], sku: string): ListingCheck {
  const checks = marketplaceIds.map((m) => ({ marketplaceId: m, check: checkIn(item, m, sku) }));
  if (checks.length === 1) return checks[0]!.check;
  // Several marketplaces: live only when live in each; a problem in one is told before one still
  // pending, naming the marketplace (the first such; the details name each).
  for (const state of ['problem', 'pending'] as const) {
    const hit = checks.filter((c) => c.check.state === state);
    if (hit.length > 0)
      return {
        state,
        summary: `${hit[0]!.check.summary} in ${hit[0]!.marketplaceId}`,
        details: [...new Set(hit.flatMap((c) => c.check.details.map((d) => `${c.marketplaceId}: ${d}`)))],
      };
  }
  return { state: 'live', summary: `SKU ${sku} is live in ${marketplaceIds.join(', ')}`, details: checks.flatMap((c) => c.check.details) };
}

/** The listing in one marketplace: its issues (or those naming none) and its summary. */
function checkIn(item: Item | null, marketplaceId: string, sku: string): ListingCheck {
  const ours = (issue: Issue) => !issue.marketplaceIds?.length || issue.marketplaceIds.includes(marketplaceId);
  const enforced = (issue: Issue) => (issue.enforcements?.actions ?? []).length > 0 && issue.enforcements?.exemption?.status !== 'EXEMPT';
  const problems = (item?.issues ?? []).filter((i) => ours(i) && (i.severity === 'ERROR' || enforced(i)));
  const summary = item?.summaries?.find((s) => s.marketplaceId === marketplaceId);
  const status = summary ? `status ${summary.status.length > 0 ? summary.status.join(', ') : 'none'} in ${summary.marketplaceId}` : undefined;
  if (problems.length > 0) {
    const actions = [...new Set(problems.filter(enforced).flatMap((i) => i.enforcements!.actions.map((a) => a.action)))];
    return {
      state: 'problem',
      summary: actions.length > 0 ? `Amazon enforces ${actions.join(', ')} on SKU ${sku}` : `Amazon reports ${problems.length} error(s) on SKU ${sku}`,
      details: [...problems.map(issueLine), ...(status ? [`Amazon's summary: ${status}`] : [])],
    };
  }
  if (!summary) return { state: 'pending', summary: `Amazon shows no listing of SKU ${sku}`, details: [`Amazon's summary: none for ${marketplaceId}`] };
  if (summary.status.includes('BUYABLE')) return { state: 'live', summary: `SKU ${sku} is buyable`, details: [status!] };
  const merchant = item?.fulfillmentAvailability?.find((f) => f.fulfillmentChannelCode === 'DEFAULT');
  if (!merchant || !merchant.quantity) return { state: 'live', summary: `SKU ${sku} has nothing to sell by the seller`, details: [status!] };
  return {
    state: 'pending',
    summary: `SKU ${sku} is not buyable at Amazon`,
    details: [`Amazon's summary: ${status!} (merchant quantity ${merchant.quantity})`],
  };
}

/** One issue as the seller reads it: Amazon's code, severity and message, the attributes, the enforcement. */
function issueLine(i: Issue): string {
  const attributes = i.attributeNames?.length ? ` (attributes: ${i.attributeNames.join(', ')})` : '';
  const e = i.enforcements;
  const enforcement =
    e && e.actions.length > 0
      ? ` [enforcement: ${e.actions.map((a) => a.action).join(', ')}, ${e.exemption.status}${e.exemption.expiryDate ? ` until ${e.exemption.expiryDate}` : ''}]`
      : '';
  return `${i.code} ${i.severity}: ${i.message}${attributes}${enforcement}`;
}
