/**
 * The sandbox eBay's Commerce Feedback API (commerce_feedback_v1_beta_oas3.json) for a seller:
 * getItemsAwaitingFeedback and leaveFeedback, as the contract states them.
 *
 * - Every line item of the account's orders is a transaction awaiting the seller's feedback until
 *   feedback is left for it ("For sellers, only sold items that have not yet received feedback
 *   are included"). Its transactionId is eBay's, which the Fulfillment API's order does not show
 *   (LineItem has lineItemId and legacyItemId): the sandbox gives each line item one of its own,
 *   never its lineItemId, so a client must read it here. orderLineItemId is
 *   "<listingId>-<transactionId>".
 * - awaiting_feedback: `filter` as "name:value" pairs joined by commas (listingId, receiverName,
 *   userRole BUYER or SELLER: 501025 otherwise), `limit` 25 to 200 (default 25), `offset`, `sort`
 *   END_TIME_ASC or END_TIME_DESC (default; 501024 otherwise), newest first by the order's time.
 * - leaveFeedback: "Required fields: commentText, commentType, listingId, transactionId,
 *   orderLineItemId": a listing with no awaiting transaction of the account is 501003, a
 *   transaction not of that listing (or no transactionId) 501004, an orderLineItemId that is not
 *   "<listingId>-<transactionId>" 501004 too (the sandbox's choice: the table has no code of its
 *   own for it); commentText missing 501005, above 500 characters 501013; commentType other than
 *   POSITIVE, NEUTRAL, NEGATIVE 501006, and NEUTRAL or NEGATIVE from the seller 409 501020;
 *   feedback already left for the transaction 409 501008. Answered 200 {feedbackId}.
 */
import type express from 'express';
import type { SandboxState } from './sandbox.app';
import { Body, EbayOrder, error } from './ebay-state.sandbox';

const path = '/commerce/feedback/v1';
const domain = 'API_FEEDBACK';

/** eBay's transaction ids of the sandbox's line items (by the line item object: a reset makes new ones). */
const transactionIds = new WeakMap<object, string>();
let nextTransaction = 2_300_000_000_000;

export interface Transaction {
  listingId: string;
  transactionId: string;
  orderLineItemId: string;
  buyer: string;
  title: string;
  price: { currency: string; value: number };
  time: number;
}

/** The account's sold line items as Feedback API transactions. */
function transactions(state: SandboxState, account: string): Transaction[] {
  return [...state.ebay.orders.values()]
    .filter((o) => o.account === account)
    .flatMap(({ order }) => (order.lineItems ?? []).map((line) => transactionOf(order, line)));
}

function transactionOf(order: EbayOrder, line: NonNullable<EbayOrder['lineItems']>[number]): Transaction {
  let transactionId = transactionIds.get(line);
  if (!transactionId) transactionIds.set(line, (transactionId = String(nextTransaction++)));
  const listingId = line.legacyItemId ?? '';
  const cost = line.lineItemCost ?? { value: '0.00', currency: 'EUR' };
  return {
    listingId,
    transactionId,
    orderLineItemId: `${listingId}-${transactionId}`,
    buyer: order.buyer?.username ?? '',
    title: line.title ?? '',
    price: { currency: cost.currency ?? 'EUR', value: Number(cost.value) / (line.quantity ?? 1) },
    time: Date.parse(order.creationDate ?? '') || 0,
  };
}

const rated = (state: SandboxState, account: string, t: Transaction) =>
  state.ebay.feedback.some((f) => f.account === account && f.body.transactionId === t.transactionId && f.body.listingId === t.listingId);

/** The account's transactions still awaiting its feedback (what getItemsAwaitingFeedback lists), for tests. */
export const awaitingFeedbackOf = (state: SandboxState, account: string): Transaction[] =>
  transactions(state, account).filter((t) => !rated(state, account, t));

/** getItemsAwaitingFeedback's filter ("listingId:123,receiverName:user,userRole:BUYER"), or the error it answers. */
function parseFilter(raw: unknown): Record<string, string> | { error: Body } {
  const filter: Record<string, string> = {};
  for (const part of typeof raw === 'string' && raw !== '' ? raw.split(',') : []) {
    const at = part.indexOf(':');
    filter[at < 0 ? part : part.slice(0, at)] = at < 0 ? '' : part.slice(at + 1);
  }
  if (filter.userRole !== undefined && filter.userRole !== 'BUYER' && filter.userRole !== 'SELLER')
    return { error: error(501025, 'Input user role value is invalid.', domain) };
  return filter;
}

export function mountFeedback(router: express.Router, state: SandboxState): void {
  router.get(`${path}/awaiting_feedback`, (req, res) => {
    const account = res.locals.account as string;
    const filter = parseFilter(req.query.filter);
    if ('error' in filter) return void res.status(400).json(filter.error);
    const sort = String(req.query.sort ?? 'END_TIME_DESC');
    if (sort !== 'END_TIME_DESC' && sort !== 'END_TIME_ASC') return void res.status(400).json(error(501024, 'Input sort value is invalid.', domain));
    const limit = Number(req.query.limit ?? 25);
    const offset = Number(req.query.offset ?? 0);
    if (!Number.isInteger(limit) || limit < 25 || limit > 200 || !Number.isInteger(offset) || offset < 0)
      return void res.status(400).json(error(2004, 'Invalid request: limit is 25 to 200, offset 0 or more.', domain));
    // The seller's role: what its buyers await of it (this sandbox plays no seller's own purchases).
    const asSeller = filter.userRole === 'BUYER' ? [] : awaitingFeedbackOf(state, account);
    const all = asSeller
      .filter(
        (t) => (filter.listingId === undefined || t.listingId === filter.listingId) && (filter.receiverName === undefined || t.buyer === filter.receiverName),
      )
      .sort((a, b) => (sort === 'END_TIME_ASC' ? a.time - b.time : b.time - a.time));
    const page = all.slice(offset, offset + limit);
    res.json({
      itemsAwaitingFeedbackCount: { asSeller: awaitingFeedbackOf(state, account).length, asBuyer: 0 },
      lineItems: page.map((t) => ({
        listingId: t.listingId,
        listingTitle: t.title,
        listingPrice: t.price,
        orderLineItemId: t.orderLineItemId,
        transactionId: t.transactionId,
      })),
      pagination: { count: page.length, limit, offset, total: all.length },
    });
  });

  router.post(`${path}/feedback`, (req, res) => {
    const account = res.locals.account as string;
    const body = (req.body ?? {}) as Body;
    const refuse = (status: number, errorId: number, message: string) =>
      void res.status(status).json(error(errorId, message, domain, status === 409 ? 'BUSINESS' : 'REQUEST'));
    const ofListing = transactions(state, account).filter((t) => t.listingId !== '' && t.listingId === body.listingId);
    if (ofListing.length === 0) return refuse(400, 501003, 'Listing id request parameter is invalid.');
    const t = ofListing.find((x) => x.transactionId === body.transactionId);
    if (!t || body.orderLineItemId !== t.orderLineItemId) return refuse(400, 501004, 'Transaction id request parameter is invalid.');
    if (typeof body.commentText !== 'string' || body.commentText.trim() === '') return refuse(400, 501005, 'Comment text request parameter is invalid.');
    if ([...body.commentText].length > 500) return refuse(400, 501013, 'Comment text is too long, maximum length is 500 characters.');
    if (!['POSITIVE', 'NEUTRAL', 'NEGATIVE'].includes(String(body.commentType))) return refuse(400, 501006, 'Comment type request parameter is invalid.');
    if (body.commentType !== 'POSITIVE') return refuse(409, 501020, 'Seller cannot leave negative or neutral feedback.');
    if (rated(state, account, t)) return refuse(409, 501008, 'Feedback already left for this listing.');
    const feedbackId = String(900000000 + state.ebay.next());
    state.ebay.feedback.push({ account, body, feedbackId });
    // leaveFeedback documents 200 (commerce_feedback_v1_beta_oas3.json), not 201.
    res.status(200).json({ feedbackId });
  });
}
