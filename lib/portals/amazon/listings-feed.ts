import zlib from 'node:zlib';
import { config } from '../../../config';
import { portalUnavailable } from '../../errors';
import { log } from '../../log';
import { redis } from '../../redis';
import { str } from '../portal-http';
import { redisReady } from '../portal-rate-limit';
import type { QuantityOutcome, QuantityUpdate } from '../portal.type';
import { fulfillmentAvailability, sellerSku } from './listing-attributes';
import type { SpApiSession } from './sp-api-client';

/** A JSON_LISTINGS_FEED message (listings-feed-schema-v2): a PATCH of one SKU's fulfillment_availability. */
export interface FeedMessage {
  messageId: number;
  sku: string;
  operationType: 'PATCH';
  productType: string;
  patches: { op: 'replace'; path: string; value: Record<string, unknown>[] }[];
}

/** An issue of the processing report (listings-feed-processing-report-schema-v2). */
interface ReportIssue {
  messageId?: number;
  sku?: string;
  code?: string;
  severity: 'ERROR' | 'WARNING' | 'INFO';
  message: string;
  attributeName?: string;
}

/** The report's summary counts (listings-feed-processing-report-schema-v2, all required). */
interface ReportSummary {
  messagesProcessed: number;
  messagesAccepted: number;
  messagesInvalid: number;
}

/** The processing report as read: its issues, and its summary when it has a readable one. */
interface Report {
  issues: ReportIssue[];
  summary?: ReportSummary;
}

/** The feed submitted for a target and not yet read: kept in Redis so a retry of the same batch reads it instead of sending it again. */
interface PendingFeed {
  feedId: string;
  batchKey: string;
  skus: string[];
}

const contentType = 'application/json; charset=UTF-8';
const finished = ['DONE', 'CANCELLED', 'FATAL'];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const pendingKey = (portalAccountId: number) => `${config().queuePrefix}:spapi-feed:${portalAccountId}`;

async function readPending(portalAccountId: number): Promise<PendingFeed | undefined> {
  try {
    await redisReady();
    const raw = await redis().get(pendingKey(portalAccountId));
    return raw ? (JSON.parse(raw) as PendingFeed) : undefined;
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'pending SP-API feed not readable; the batch is sent again');
    return undefined;
  }
}

async function writePending(portalAccountId: number, feed: PendingFeed | null): Promise<void> {
  try {
    await redisReady();
    if (feed) await redis().set(pendingKey(portalAccountId), JSON.stringify(feed), 'EX', 86400);
    else await redis().del(pendingKey(portalAccountId));
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'pending SP-API feed not recorded');
  }
}

/**
 * The feed's messages, each under the SKU `skuOf` names (the item's own, or its recorded
 * listing's: listings-quantities.ts); FBA offers are left out (Amazon counts what its fulfilment
 * centre holds).
 */
export function feedMessages(
  updates: QuantityUpdate[],
  marketplaceId: string,
  skuOf: (u: QuantityUpdate) => string = (u) => sellerSku(u.group, u.sku, u.stockId),
): { messages: FeedMessage[]; index: Map<number, number> } {
  const messages: FeedMessage[] = [];
  const index = new Map<number, number>();
  updates.forEach((u, i) => {
    if (u.group.is_fba === true) return;
    const messageId = messages.length + 1;
    index.set(messageId, i);
    messages.push({
      messageId,
      sku: skuOf(u),
      operationType: 'PATCH',
      productType: str(u.group, 'category_id', 'PRODUCT')!,
      patches: [{ op: 'replace', path: '/attributes/fulfillment_availability', value: fulfillmentAvailability(u.group, u.quantity, marketplaceId) }],
    });
  });
  return { messages, index };
}

/** createFeedDocument, the upload to its URL, createFeed: answers the feed id. */
async function submit(s: SpApiSession, messages: FeedMessage[]): Promise<string> {
  const doc = await s.call('post', '/feeds/2021-06-30/documents', (o) => s.feeds.createFeedDocument({ body: { contentType } }, o));
  const feed = JSON.stringify({ header: { sellerId: s.creds.sellerId, version: '2.0', issueLocale: 'en_US' }, messages });
  let upload: Response;
  try {
    upload = await fetch(doc.url, {
      method: 'PUT',
      headers: { 'Content-Type': contentType },
      body: feed,
      signal: AbortSignal.timeout(config().portalTimeoutMs),
    });
  } catch (err) {
    throw portalUnavailable(`market_d: the feed document upload failed (${(err as Error).message})`);
  }
  if (!upload.ok) throw portalUnavailable(`market_d: the feed document upload answered ${upload.status}`);
  const created = await s.call('post', '/feeds/2021-06-30/feeds', (o) =>
    // Each of the account's marketplaces on its own (marketplace_id keeps several comma-separated): one element "A,B" is no marketplace id, and Amazon refused the whole feed.
    s.feeds.createFeed({ body: { feedType: 'JSON_LISTINGS_FEED', marketplaceIds: s.marketplaceIds, inputFeedDocumentId: doc.feedDocumentId } }, o),
  );
  return created.feedId;
}

/** Polls getFeed until the feed is DONE, CANCELLED or FATAL, or the wait is over (answers its last status). */
async function poll(s: SpApiSession, feedId: string): Promise<{ status: string; resultFeedDocumentId?: string }> {
  const until = Date.now() + config().marketDFeedWaitMs;
  for (let interval = 150; ; interval = Math.min(5000, Math.round(interval * 1.5))) {
    const feed = await s.call('get', `/feeds/2021-06-30/feeds/${feedId}`, (o) => s.feeds.getFeed({ feedId }, o));
    if (finished.includes(feed.processingStatus) || Date.now() + interval > until)
      return { status: feed.processingStatus, resultFeedDocumentId: feed.resultFeedDocumentId };
    await sleep(interval);
  }
}

/** The processing report's issues and summary (getFeedDocument, then its URL; GZIP when Amazon says so). */
async function report(s: SpApiSession, documentId: string): Promise<Report> {
  const doc = await s.call('get', `/feeds/2021-06-30/documents/${documentId}`, (o) => s.feeds.getFeedDocument({ feedDocumentId: documentId }, o));
  let res: Response;
  try {
    res = await fetch(doc.url, { signal: AbortSignal.timeout(config().portalTimeoutMs) });
  } catch (err) {
    throw portalUnavailable(`market_d: the processing report could not be read (${(err as Error).message})`);
  }
  if (!res.ok) throw portalUnavailable(`market_d: the processing report answered ${res.status}`);
  const raw = Buffer.from(await res.arrayBuffer());
  const text = (doc.compressionAlgorithm === 'GZIP' ? zlib.gunzipSync(raw) : raw).toString('utf8');
  const parsed = JSON.parse(text) as { issues?: ReportIssue[]; summary?: Partial<ReportSummary> };
  const summary = parsed.summary;
  const counted = summary && [summary.messagesProcessed, summary.messagesAccepted, summary.messagesInvalid].every((n) => Number.isInteger(n));
  return { issues: Array.isArray(parsed.issues) ? parsed.issues : [], ...(counted ? { summary: summary as ReportSummary } : {}) };
}

/**
 * Each item's outcome from the report: refused with its ERROR issues, else accepted; a feed-level
 * ERROR refuses every item. `index` names the feed's messages (messageId to the item's place).
 * **Accepted only as far as the summary counts (decision):** the report names the messages it
 * refuses, not those it accepted; only `messagesAccepted` does ("the associated updates are being
 * applied"; messagesInvalid "will not be applied"). When it accepts fewer than the messages it names
 * no error for (some left unprocessed), or has no readable summary, it does not say which went
 * unapplied: those items are answered retry, and the push sends them again (quantities are
 * absolute: the applied ones are set once more, to the same or a newer value). Before, they
 * counted done, and a quantity Amazon never applied was not sent again until it changed.
 */
function outcomes(updates: QuantityUpdate[], index: Map<number, number>, feedId: string, { issues, summary }: Report): QuantityOutcome[] {
  const errors = new Map<number, string[]>();
  const general: string[] = [];
  for (const issue of issues.filter((i) => i.severity === 'ERROR')) {
    const text = `${issue.code ? `${issue.code} ` : ''}${issue.message}`;
    if (issue.messageId === undefined) general.push(text);
    else errors.set(issue.messageId, [...(errors.get(issue.messageId) ?? []), text]);
  }
  const byItem = new Map([...index].map(([messageId, i]) => [i, messageId]));
  const clean = general.length > 0 ? 0 : [...index.keys()].filter((m) => !errors.has(m)).length;
  const unsure =
    clean > 0 && (summary === undefined || summary.messagesAccepted < clean)
      ? `market_d feed ${feedId}: its processing report ${summary ? `accepted ${summary.messagesAccepted} of the ${clean} messages it names no error for (${summary.messagesProcessed} processed)` : 'has no summary'}, and does not say which went unapplied; the quantities go again`
      : undefined;
  return updates.map((u, i) => {
    const messageId = byItem.get(i);
    if (messageId === undefined) return { stockId: u.stockId, outcome: 'accepted' };
    const found = [...general, ...(errors.get(messageId) ?? [])];
    // Not said to be unapplied: it may be applied (a message accepted is being applied).
    if (found.length === 0)
      return unsure ? { stockId: u.stockId, outcome: 'retry', message: unsure, mayHaveLanded: true } : { stockId: u.stockId, outcome: 'accepted' };
    return { stockId: u.stockId, outcome: 'refused', message: `market_d feed ${feedId} refused the quantity of item ${u.stockId}: ${found.join('; ')}` };
  });
}

const retryAll = (updates: QuantityUpdate[], message: string, mayHaveLanded = false): QuantityOutcome[] =>
  updates.map((u) => ({ stockId: u.stockId, outcome: 'retry', message, ...(mayHaveLanded ? { mayHaveLanded } : {}) }));

/**
 * Every item answered retry while a feed of the target is still processing: nothing newer (feed or
 * patch) may overtake it. It may still be applied (its items marked as landing late, lib/portal-offer).
 */
export const stillProcessing = (updates: QuantityUpdate[], feedId: string, account: number, status: string) =>
  retryAll(updates, `market_d feed ${feedId} of portal account ${account} is still ${status}; read again on the next try`, true);

/** A feed's end as getFeed answered it. */
export interface FeedEnd {
  feedId: string;
  status: string;
  resultFeedDocumentId?: string;
}

/**
 * Reads a finished feed into the items' outcomes (items not in it answer accepted); CANCELLED and
 * FATAL send every item again (with the report's reason when there is one).
 */
export async function feedOutcomes(s: SpApiSession, updates: QuantityUpdate[], index: Map<number, number>, feed: FeedEnd): Promise<QuantityOutcome[]> {
  if (feed.status === 'DONE' && feed.resultFeedDocumentId) return outcomes(updates, index, feed.feedId, await report(s, feed.resultFeedDocumentId));
  const reason = feed.resultFeedDocumentId
    ? (await report(s, feed.resultFeedDocumentId).catch((): Report => ({ issues: [] }))).issues
        .map((i) => i.message)
        .join('; ')
        .slice(0, 500)
    : '';
  return retryAll(updates, `market_d feed ${feed.feedId} ended ${feed.status}${reason ? `: ${reason}` : ''}; the quantities go again`);
}

/**
 * The feed of the target that an earlier try submitted and nobody has read yet, polled: finished
 * (then no longer pending), or still processing. Undefined when there is none.
 */
export async function earlierFeed(s: SpApiSession): Promise<(FeedEnd & { batchKey: string; skus: string[]; finished: boolean }) | undefined> {
  const account = s.target.portalAccountId;
  const earlier = await readPending(account);
  if (!earlier) return undefined;
  const feed = await poll(s, earlier.feedId);
  const done = finished.includes(feed.status);
  if (done) await writePending(account, null);
  return { ...earlier, ...feed, feedId: earlier.feedId, finished: done };
}

/**
 * The messages as one JSON_LISTINGS_FEED, polled for MARKET_D_FEED_WAIT_MS; still unfinished then,
 * every item is answered retry and the next try reads the same feed (earlierFeed) instead of
 * sending it again.
 */
export async function sendQuantityFeed(
  s: SpApiSession,
  updates: QuantityUpdate[],
  { messages, index }: { messages: FeedMessage[]; index: Map<number, number> },
  batchKey: string,
): Promise<QuantityOutcome[]> {
  const account = s.target.portalAccountId;
  const feedId = await submit(s, messages);
  await writePending(account, { feedId, batchKey, skus: messages.map((m) => m.sku) });
  const feed = await poll(s, feedId);
  if (!finished.includes(feed.status)) return stillProcessing(updates, feedId, account, feed.status);
  await writePending(account, null);
  return feedOutcomes(s, updates, index, { feedId, ...feed });
}
