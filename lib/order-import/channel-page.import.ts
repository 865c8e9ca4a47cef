/**
 * The new channel orders of a fetched page into Kontor in one transaction: their keys are
 * claimed in one statement (claim first, as one by one: a second fetcher of the same orders
 * waits for this commit and then finds them taken), and the orders domain creates them
 * set-based (createChannelOrdersIn: numbers, customers, orders, lines, history, events in one
 * statement each, the stock in one batch). An order the orders domain refuses by a rule gives
 * its key back and gets its task; should the page fail as a whole (a refusal only the database
 * finds, a fault), it is rolled back and its orders are imported one by one (importChannelOrder),
 * so the failure stays with its order and the others land.
 */
import type { Knex } from 'knex';
import { allOrdersOf } from '../access';
import { channelSold } from '../cia';
import { inTransaction } from '../db';
import { DomainError, isPermanent } from '../errors';
import { validate } from '../http';
import { log } from '../log';
import { createChannelOrdersIn, orderType, OrderInput } from '../order';
import type { ChannelOrder } from '../portals';
import { variationMainsAmong } from '../stock';
import { stockIdsOfLineSkus } from './line-items';
import { ImportOutcome, importChannelOrder, refuseOne, soldLines, sourceOf, taskForUnlinked } from './channel-order.import';
import { channelState, orderInputOf, sameState, UnlinkedLine, withChannelFulfilment } from './channel-order.mapper';
import { ChannelState, ImportAccountRow, orderImportRepository } from './order-import.repository';

/** What the page's transaction did: created, refused by a rule (key given back), or found taken by another fetcher. */
interface PageDone {
  created: number;
  refused: { order: ChannelOrder; err: DomainError }[];
  taken: ChannelOrder[];
}

interface Mapped {
  order: ChannelOrder;
  input?: OrderInput;
  unlinked: UnlinkedLine[];
  refused?: DomainError;
}

/** Each claimed order as the orders domain's input (validated like a request), its stock found by its SKUs in one go. */
async function mapAll(trx: Knex.Transaction, account: ImportAccountRow, portal: string, orders: ChannelOrder[]): Promise<Mapped[]> {
  const skus = orders.flatMap((o) => o.line.map((l) => l.sku).filter((s): s is string => Boolean(s)));
  const skuIds = await stockIdsOfLineSkus(trx, account, portal, skus);
  const mains = await variationMainsAmong(trx, account.account_id, [...skuIds.values()].flat());
  return orders.map((order) => {
    const { input: wire, unlinked } = orderInputOf(portal, order, skuIds, sourceOf(account, portal, order), mains);
    try {
      return { order, unlinked, input: withChannelFulfilment(validate<OrderInput>(orderType(), wire, 'order'), order, portal) };
    } catch (err) {
      if (err instanceof DomainError && isPermanent(err)) return { order, unlinked, refused: err };
      throw err;
    }
  });
}

async function pageIn(trx: Knex.Transaction, account: ImportAccountRow, portal: string, orders: ChannelOrder[]): Promise<PageDone> {
  const { account_id: accountId, id: portalAccountId } = account;
  const claimed = await orderImportRepository.claimMany(
    trx,
    accountId,
    portalAccountId,
    orders.map((o) => o.external_order_id),
  );
  const mapped = await mapAll(
    trx,
    account,
    portal,
    orders.filter((o) => claimed.has(o.external_order_id)),
  );
  const valid = mapped.filter((m): m is Mapped & { input: OrderInput } => m.input !== undefined);
  const caller = { ...allOrdersOf(accountId), portalAccountId };
  const creates = valid.length
    ? await createChannelOrdersIn(
        trx,
        caller,
        valid.map((m) => m.input),
      )
    : [];
  const saved: Parameters<typeof orderImportRepository.saveMany>[3] = [];
  const refused = mapped.flatMap((m) => (m.refused ? [{ order: m.order, err: m.refused }] : []));
  for (const [i, create] of creates.entries()) {
    const { order, unlinked } = valid[i]!;
    if ('refused' in create) {
      // A refusal that is not the order's data (a conflict of the moment) is not the seller's to mend: one by one, it fails the job for a retry.
      if (!isPermanent(create.refused)) throw create.refused;
      refused.push({ order, err: create.refused });
      continue;
    }
    const { id, internalId } = create.written;
    await taskForUnlinked(trx, accountId, id, sourceOf(account, portal, order), unlinked);
    saved.push({ external_order_id: order.external_order_id, order_id: id, order_internal_id: internalId, channel_state: channelState(order) });
  }
  // What the channel sold of the seller's stock it took off its own offers (lib/cia channelSold).
  const sold = creates.flatMap((create, i) => ('refused' in create ? [] : soldLines(valid[i]!.input)));
  await channelSold(trx, accountId, { portal, portalAccountId }, sold);
  await orderImportRepository.saveMany(trx, accountId, portalAccountId, saved);
  await orderImportRepository.release(
    trx,
    accountId,
    portalAccountId,
    refused.map((r) => r.order.external_order_id),
  );
  return { created: saved.length, refused, taken: orders.filter((o) => !claimed.has(o.external_order_id)) };
}

/**
 * One by one, each in its own transaction: an order that fails does not keep the others out;
 * the first failure is thrown once all were tried (the job fails and is retried, the watermark stays).
 */
async function oneByOne(account: ImportAccountRow, portal: string, orders: ChannelOrder[], outcomes: ImportOutcome[]): Promise<void> {
  let failure: unknown;
  for (const order of orders) {
    try {
      outcomes.push(await importChannelOrder(account, portal, order));
    } catch (err) {
      log.error({ err, portalAccountId: account.id, externalOrderId: order.external_order_id }, 'channel order could not be imported');
      failure ??= err;
    }
  }
  if (failure !== undefined) throw failure;
}

/** Imports the orders of a page that were not known at its read; their outcomes. */
export async function importNewOrders(account: ImportAccountRow, portal: string, orders: ChannelOrder[]): Promise<ImportOutcome[]> {
  const outcomes: ImportOutcome[] = [];
  if (orders.length === 0) return outcomes;
  // A channel order twice in one page: the first copy is created, the second follows one by one.
  const seen = new Set<string>();
  const first = orders.filter((o) => !seen.has(o.external_order_id) && Boolean(seen.add(o.external_order_id)));
  const again = orders.filter((o) => !first.includes(o));
  let done: PageDone;
  try {
    done = await inTransaction((trx) => pageIn(trx, account, portal, first));
  } catch (err) {
    log.warn({ err, portalAccountId: account.id, orders: first.length }, 'page of channel orders failed set-based; imported one by one');
    await oneByOne(account, portal, orders, outcomes);
    return outcomes;
  }
  outcomes.push(...Array<ImportOutcome>(done.created).fill('created'));
  for (const { order, err } of done.refused) {
    await refuseOne(account, portal, order, err);
    outcomes.push('refused');
  }
  // Taken by another fetcher since the page was read (two fetches of the account overlapping):
  // most are what that fetcher just imported, passed over on one read; the rest only change.
  const later = [...done.taken, ...again];
  const known = later.length
    ? await orderImportRepository.knownStates(
        account.account_id,
        account.id,
        later.map((o) => o.external_order_id),
      )
    : new Map<string, ChannelState>();
  const changed = later.filter((o) => {
    const before = known.get(o.external_order_id);
    return !(before && sameState(before, channelState(o)));
  });
  outcomes.push(...Array<ImportOutcome>(later.length - changed.length).fill('unchanged'));
  await oneByOne(account, portal, changed, outcomes);
  return outcomes;
}
