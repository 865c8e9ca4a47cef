/**
 * The automatic rating of the first auction portal (document 1, order rule 5) through eBay's
 * Commerce Feedback API, as its contract asks it (commerce_feedback_v1_beta_oas3.json):
 * leaveFeedback's required fields are "listingId ..., transactionId (the transactionId for the
 * order), orderLineItemId (... a concatenation of listing ID and transaction ID, joined by `-`)",
 * and a missing or wrong transaction id is its error 501004. The Fulfillment API's order names
 * neither a transaction id nor an id in that form (LineItem has lineItemId and legacyItemId), so
 * the line items to rate are read from getItemsAwaitingFeedback, which answers each with listingId,
 * transactionId and orderLineItemId: per listing of the order, filtered by the buyer and the
 * seller's role. Sending the Fulfillment lineItemId as orderLineItemId, without a transactionId,
 * left no feedback at eBay.
 *
 * Which awaiting line items are the order's (decision; the Feedback API names no order): those
 * whose transactionId is one of the order's lineItemIds; when none is, the buyer's newest ones of
 * the listing (eBay answers newest first, END_TIME_DESC), as many as the order has lines of it. A
 * repeat buyer's older purchase of the same listing may so be rated before its own shipment: the
 * positive feedback the seller leaves on shipping that one too. Without the buyer's username
 * (eBay drops it with age) only exact matches are rated, never another buyer's purchase.
 */
import type { components as Feedback } from 'ebay-api/lib/types/restful/specs/commerce_feedback_v1_beta_oas3';
import { portalRefused } from '../../errors';
import type { PortalTarget } from '../portal.type';
import { ebayCall, ebayErrorText, type EbayError } from './ebay-http';
import type { EbayOrder } from './ebay-order.mapping';

type AwaitingFeedback = Feedback['schemas']['AwaitingFeedback'];
type LeaveFeedbackRequest = Feedback['schemas']['LeaveFeedbackRequest'];

const feedbackPath = '/commerce/feedback/v1';
/** getItemsAwaitingFeedback's limit: "Minimum: 25 Maximum: 200". */
const awaitingLimit = 200;
/** leaveFeedback's 409 "Feedback already left for this listing.": a retry after a partial success. */
const alreadyLeft = 501008;

/** Positive feedback for each of the order's line items eBay shows awaiting the seller's feedback. */
export async function rateEbayBuyer(target: PortalTarget, order: EbayOrder): Promise<void> {
  const buyer = order.buyer?.username || undefined;
  for (const [listingId, lineItemIds] of linesByListing(order)) {
    const awaiting = await awaitingFeedback(target, listingId, buyer);
    for (const line of theOrders(awaiting, lineItemIds, buyer !== undefined)) await leavePositive(target, line);
  }
}

/** The order's line item ids per listing (legacyItemId). */
function linesByListing(order: EbayOrder): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of order.lineItems ?? []) {
    if (!line.legacyItemId) continue;
    out.set(line.legacyItemId, [...(out.get(line.legacyItemId) ?? []), line.lineItemId ?? '']);
  }
  return out;
}

/** The seller's line items of the listing awaiting feedback for the buyer (one page: a buyer has not 200 of one listing). */
async function awaitingFeedback(target: PortalTarget, listingId: string, buyer: string | undefined): Promise<AwaitingFeedback[]> {
  const filter = [`listingId:${listingId}`, ...(buyer ? [`receiverName:${buyer}`] : []), 'userRole:SELLER'].join(',');
  const answer = await ebayCall<Feedback['schemas']['AwaitingFeedbackResponse']>(target, {
    method: 'GET',
    path: `${feedbackPath}/awaiting_feedback`,
    query: { filter, limit: String(awaitingLimit) },
  });
  return (answer.body.lineItems ?? []).filter((l) => l.listingId === listingId && l.transactionId);
}

/** The awaiting line items that are the order's (the decision above). */
export function theOrders(awaiting: AwaitingFeedback[], lineItemIds: string[], buyerKnown: boolean): AwaitingFeedback[] {
  const exact = awaiting.filter((a) => lineItemIds.includes(a.transactionId!));
  if (exact.length || !buyerKnown) return exact;
  return awaiting.slice(0, lineItemIds.length);
}

async function leavePositive(target: PortalTarget, line: AwaitingFeedback): Promise<void> {
  const body: LeaveFeedbackRequest = {
    listingId: line.listingId,
    transactionId: line.transactionId,
    orderLineItemId: line.orderLineItemId || `${line.listingId}-${line.transactionId}`,
    commentType: 'POSITIVE',
    commentText: 'Thank you for your purchase.',
  };
  const answer = await ebayCall<{ errors?: EbayError[] }>(target, { method: 'POST', path: `${feedbackPath}/feedback`, body, accept: [409] });
  if (answer.status !== 409 || answer.body.errors?.some((e) => e.errorId === alreadyLeft)) return;
  throw portalRefused(
    `auction_a (portal account ${target.portalAccountId}) refused feedback for listing ${line.listingId}: ${ebayErrorText(answer.body.errors) ?? '409'}`,
  );
}
