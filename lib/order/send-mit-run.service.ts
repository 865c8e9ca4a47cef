import { allOrdersOf } from '../access';
import { sellerAsSender } from '../account';
import { db } from '../db';
import { invalidField, isPermanent, noLongerExists, Warning } from '../errors';
import { mailAddress, messageIdOf, refusedForGood, sendMail } from '../mail';
import { adapterFor, isShippedByChannelAtPortal, portalOf, PortalId } from '../portals';
import { portalTargetRepository } from '../portal-account';
import type { PortalTarget } from '../portals';
import { outboxRepository } from '../queue';
import type { JobPayloads } from '../queue';
import { channelFulfilmentQuery } from './channel-fulfilment';
import { trackingLinks } from './order.mapper';
import { orderRepository, OrderReadRow, OrderRow } from './order.repository';
import { updateOneOrderIn } from './order.service';
import { inTransitMail } from './send-mit.mail';
import { rateAuctionBuyer } from './send-mit.rating';
import { HoldProgress, isPortalWaiting, nextHoldWait } from './send-mit-hold';

type PlatformStatus = 'ok' | 'partially_ok' | 'error';

/** What a send_mit job has done so far (saved in the job, so a retry redoes only what is left). */
export interface SendMitProgress {
  parts?: { code: string | null; ok: boolean; error?: string }[];
  platformStatus?: PlatformStatus | null;
  orderUpdated?: boolean;
  rating?: { ok: boolean; detail: string } | null;
  mail?: { sent: boolean; to?: string; message_id?: string; error?: string };
  /** The portal's hold the job waits for (send-mit-hold.ts), and what GET job/{id}/ names meanwhile. */
  hold?: HoldProgress;
  waiting?: string;
}

export interface SendMitContext {
  jobId: string;
  /** This try is the job's last: a retryable failure is then recorded instead of thrown. */
  lastAttempt: boolean;
  save(progress: SendMitProgress): Promise<void>;
}

async function targetOf(accountId: number, order: OrderRow): Promise<PortalTarget | undefined> {
  return order.portal_account_id === null ? undefined : portalTargetRepository.target(db(), accountId, order.portal_account_id);
}

/** A cancelled order is not shipped (lib/order/order-plan.ts's rule): send_mit refuses it before any portal hears of it. */
export const cancelledNotShipped = (field: string) =>
  invalidField(field, `${field}: a cancelled order cannot be shipped; unset is_cancelled first`, 'status_conflict');

/**
 * An order the channel ships from its own warehouse (Amazon FBA, eBay's fulfilment program,
 * fulfilled by Kaufland; the import records it) is not shipped by send_mit (decision, README.md):
 * the channel ships it and confirms the shipment itself, so a confirmation from the seller is
 * refused by it (Amazon) or wrongly taken (a second shipment told to the buyer), and the in-transit
 * mail would name a parcel the seller did not send. Refused before any portal or buyer hears of it.
 */
export const shippedByChannel = (field: string) =>
  invalidField(
    field,
    `${field}: the channel ships this order from its own warehouse and confirms its shipment itself; send_mit reports a shipment of the seller's (mark it shipped with POST order/{order_id}/ status.is_shipped if needed)`,
    'status_conflict',
  );

/** The order's id at its channel: the imported channel order id (eBay's orderId), else Kontor's own. */
const channelOrderId = (order: OrderRow): string => order.external_order_id ?? order.id;

/** Reports the shipment to the order's portal, one call per tracking code; ok, partially_ok or error. */
async function reportToPortal(
  run: JobPayloads['order.send_mit'],
  order: OrderReadRow,
  portal: PortalId,
  progress: SendMitProgress,
  ctx: SendMitContext,
): Promise<PlatformStatus> {
  const target = await targetOf(run.accountId, order);
  const codes: (string | null)[] = run.sendMit.code.length ? run.sendMit.code : [null];
  const parts = progress.parts ?? [];
  for (let i = parts.length; i < codes.length; i++) {
    const code = codes[i]!;
    if (!target) {
      parts.push({ code, ok: false, error: 'the order has no portal account' });
      continue;
    }
    // The code's tracking page (shipping.link), for channels that keep a URL per number.
    const trackingUrl = code ? trackingLinks(run.sendMit.deliverer, code)[0] : undefined;
    try {
      await adapterFor(portal, target.connector).markShipped(
        target,
        {
          orderId: channelOrderId(order),
          ...(order.transaction_ids[0] ? { transactionId: order.transaction_ids[0] } : {}),
          ...(run.sendMit.deliverer ? { carrier: run.sendMit.deliverer } : {}),
          ...(code ? { trackingCode: code } : {}),
          ...(trackingUrl ? { trackingUrl } : {}),
          ...(order.external_order_id ? { externalOrderId: order.external_order_id } : {}),
          lines: order.lines.filter((l) => l.transaction_id).map((l) => ({ transactionId: l.transaction_id!, quantity: l.quantity })),
          shipDate: run.sendMit.date,
          package: { index: i, count: codes.length },
        },
        `${ctx.jobId}-ship-${i}`,
      );
      parts.push({ code, ok: true });
      delete progress.hold;
      delete progress.waiting;
    } catch (err) {
      // A hold (the store's, not the call's fault): wait for it without spending a try, the order not shipped.
      if (isPortalWaiting(err)) {
        const { hold, wait } = nextHoldWait(progress.hold, err.message);
        await ctx.save({ ...progress, parts, hold, waiting: wait.message });
        throw wait;
      }
      delete progress.waiting;
      // The channel ships the order itself (it said so only now): nothing of it is the seller's to report (runSendMit).
      if (isShippedByChannelAtPortal(err) && !parts.some((p) => p.ok)) throw err;
      if (!isPermanent(err) && !ctx.lastAttempt) {
        await ctx.save({ ...progress, parts });
        throw err;
      }
      parts.push({ code, ok: false, error: (err as Error).message });
    }
  }
  progress.parts = parts;
  const ok = parts.filter((p) => p.ok).length;
  return ok === parts.length ? 'ok' : ok === 0 ? 'error' : 'partially_ok';
}

/**
 * Why the portal refused the report, as the history says it after the status: the seller reading
 * the order later saw only `portal report: error`, while the reason stood in the job's result,
 * which only a client that polls it sees and which is gone after JOB_RETENTION_SECONDS.
 */
function refusalOf(progress: SendMitProgress): string {
  const reasons = [...new Set((progress.parts ?? []).flatMap((p) => (!p.ok && p.error ? [p.error] : [])))];
  if (!reasons.length) return '';
  const text = reasons.join('; ');
  return ` (${text.length > 300 ? `${text.slice(0, 299)}…` : text})`;
}

/**
 * Marks the order shipped with the shipment's data and writes the history entry, in one
 * transaction that also keeps the step's mark in the job's outbox row (`orderUpdated`), and does
 * nothing when an earlier try of the job kept it. The mark was saved only after the commit: a
 * worker dying between the two, or a save failing there (Postgres dropping the connection), left
 * the retry, which starts from the job's data in Redis, to write the order again: a second
 * history entry and a second order changed event, every handler on it run twice for one send_mit.
 */
async function markOrderShipped(run: JobPayloads['order.send_mit'], status: PlatformStatus | null, jobId: string, progress: SendMitProgress): Promise<void> {
  const { deliverer, code, date } = run.sendMit;
  const warnings: Warning[] = [];
  const entry = `send_mit ${date}: shipped${deliverer ? ` with ${deliverer}` : ''}${code.length ? ` (${code.join(', ')})` : ''}; portal report: ${status ?? 'none (no portal)'}${refusalOf(progress)}`;
  // An order that refuses the update (a domain error) fails the job for good (lib/queue/processors.ts).
  await db().transaction(async (trx) => {
    const kept = (await outboxRepository.lockProgress(trx, jobId)) as SendMitProgress | undefined;
    if (kept?.orderUpdated) return;
    await updateOneOrderIn(
      trx,
      { ...allOrdersOf(run.accountId), portalAccountId: null },
      run.orderId,
      {
        status: { is_shipped: true },
        shipping: {
          date,
          ...(deliverer ? { deliverer } : {}),
          ...(code.length ? { code: code.join(' ') } : {}),
          ...(status ? { platform_status: status } : {}),
        },
      },
      warnings,
    );
    const current = await orderRepository.getForUpdate(trx, allOrdersOf(run.accountId), run.orderId);
    await orderRepository.addHistory(trx, current!.internal_id, [entry]);
    await outboxRepository.saveProgress(trx, jobId, { ...progress, platformStatus: status, orderUpdated: true });
  });
}

/**
 * The channel ships the order from its own warehouse, learnt after the request was taken (the
 * import recorded it meanwhile, or the channel's adapter read it as the shipment was reported):
 * the job fails for good with the request's status_conflict, before the order is marked shipped or
 * the buyer mailed, and the order's history says why nothing was sent (a failed job alone is seen
 * only by the client that polls it).
 */
async function refuseShippedByChannel(run: JobPayloads['order.send_mit'], err: Error): Promise<never> {
  await db().transaction(async (trx) => {
    const current = await orderRepository.getForUpdate(trx, allOrdersOf(run.accountId), run.orderId);
    if (current) await orderRepository.addHistory(trx, current.internal_id, [`send_mit ${run.sendMit.date}: not sent: ${err.message}`]);
  });
  throw err;
}

/** Whether Kontor knows the channel ships the order itself (the import's record, or an Amazon order's FBA flag kept before it). */
async function knownShippedByChannel(accountId: number, order: OrderReadRow): Promise<boolean> {
  if (order.shipping.market_d_fba) return true;
  return db().transaction((trx) => channelFulfilmentQuery().fulfilledByChannel(trx, accountId, order.internal_id));
}

/** The in-transit mail to the buyer, in the seller's name and language, answered to the seller (lib/account sellerAsSender). */
async function sendInTransitMail(run: JobPayloads['order.send_mit'], order: OrderReadRow, ctx: SendMitContext): Promise<NonNullable<SendMitProgress['mail']>> {
  const to = order.customer_email ?? '';
  if (!mailAddress.test(to)) return { sent: false, error: 'the order has no valid customer.email' };
  const { sender, locale, name } = await sellerAsSender(run.accountId);
  const mail = inTransitMail(order, run.sendMit.deliverer, run.sendMit.code, run.sendMit.date, run.sendMit.mailText, { locale, name });
  try {
    // The job's own Message-ID: sent again after a lost 250 or a lost mark, it is one message to the buyer's mailbox (lib/mail README).
    const sent = await sendMail({ messageId: await messageIdOf(`${ctx.jobId}.in-transit`), to, ...mail, ...sender });
    return { sent: true, to, message_id: sent.messageId };
  } catch (err) {
    // A 5xx to the recipient or the message (lib/mail refusedForGood) is recorded at once: another try gets the same answer.
    const refused = refusedForGood(err);
    if (!refused && !ctx.lastAttempt) throw err;
    return { sent: false, to, error: refused ?? (err as Error).message };
  }
}

/**
 * order.send_mit: reports the shipment to the order's portal through its adapter, marks the
 * order shipped (date, carrier, codes, platform_status, history), rates the buyer on auction_a,
 * and sends the in-transit mail when asked. A portal that refuses gives platform_status error;
 * the order is still marked shipped and the mail still follows the request.
 */
export async function runSendMit(run: JobPayloads['order.send_mit'], ctx: SendMitContext): Promise<Record<string, unknown>> {
  const progress: SendMitProgress = { ...(run.progress as SendMitProgress | undefined) };
  const order = await orderRepository.get(allOrdersOf(run.accountId), run.orderId);
  if (!order) throw noLongerExists(`order ${run.orderId}`);
  // Cancelled after the request was taken: the job fails for good before the portal is told the order shipped.
  if (order.is_cancelled && progress.platformStatus === undefined) throw cancelledNotShipped('order_id');
  const portal = portalOf(order.platform);

  if (progress.platformStatus === undefined) {
    // Taken while Kontor did not know the channel ships it: nothing is reported, as at the request.
    if ((progress.parts ?? []).length === 0 && (await knownShippedByChannel(run.accountId, order)))
      await refuseShippedByChannel(run, shippedByChannel('order_id'));
    try {
      progress.platformStatus = portal ? await reportToPortal(run, order, portal, progress, ctx) : null;
    } catch (err) {
      if (isShippedByChannelAtPortal(err)) await refuseShippedByChannel(run, err);
      throw err;
    }
    await ctx.save(progress);
  }
  if (!progress.orderUpdated) {
    await markOrderShipped(run, progress.platformStatus, ctx.jobId, progress);
    progress.orderUpdated = true;
    await ctx.save(progress);
  }
  if (portal === 'auction_a' && progress.platformStatus !== 'error' && progress.rating === undefined) {
    const target = await targetOf(run.accountId, order);
    progress.rating = target ? await rateAuctionBuyer(target, channelOrderId(order), `${ctx.jobId}-rating`) : { ok: false, detail: 'no portal account' };
    await ctx.save(progress);
  }
  if (run.sendMit.isMail && !progress.mail) {
    progress.mail = await sendInTransitMail(run, order, ctx);
    await ctx.save(progress);
  }
  return {
    order_id: order.id,
    platform: order.platform,
    platform_status: progress.platformStatus,
    shipment: progress.parts ?? [],
    is_shipped: true,
    ...(portal === 'auction_a' ? { rating: progress.rating ?? null } : {}),
    mail: progress.mail ?? { sent: false },
  };
}
