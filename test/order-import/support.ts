/** The order_import worker and the outbox relay in the test process, and a fake channel speaking the JSON connector's dialect. */
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { connectPortalAccount } from '../../lib/admin/portal-account-connect.service';
import { orderImportProcessors } from '../../lib/order-import/order-import.processor';
import type { ChannelOrder } from '../../lib/portals/channel-order.type';
import { call, Seller } from '../support/api';
import { startQueueWorker } from '../support/queue-worker';
import { waitFor } from '../event/servers';
import { Received, startReceiver } from '../event/servers';

/** The order_import worker and the relay (quick retries); stop() gives the configuration back. */
const startImportWorker = () => startQueueWorker('order_import', orderImportProcessors, 'import');

export interface FakeChannel {
  base: string;
  orders: ChannelOrder[];
  /** When set, every fetch is answered 401 with this message (a revoked refresh token). */
  refuse?: string;
  pageSize: number;
  received: Received[];
  close(): Promise<void>;
}

/** Answers the channel's order pages from its current state (orders, refuse, pageSize). */
async function serve(channel: FakeChannel): Promise<Pick<FakeChannel, 'base' | 'received' | 'close'>> {
  const receiver = await startReceiver((r) => {
    const url = new URL(r.path, 'http://channel');
    if (url.pathname !== '/auction_a/orders') return { status: 404, body: { message: 'no such path' } };
    if (channel.refuse) return { status: 401, body: { message: channel.refuse } };
    const since = Date.parse(url.searchParams.get('modified_since') ?? '');
    const changed = channel.orders.filter((o) => Date.parse(o.modified_at) >= since);
    const from = Number(url.searchParams.get('cursor') ?? '0');
    const next = from + channel.pageSize < changed.length ? String(from + channel.pageSize) : null;
    return { status: 200, body: { orders: changed.slice(from, from + channel.pageSize), next } };
  });
  return { base: receiver.base, received: receiver.received, close: receiver.close };
}

/**
 * For a describe block: the import worker and a fake channel for all its tests, the channel
 * emptied before each (no orders, no refusal, pages of pageSize). The channel is filled in by
 * the before hook.
 */
export function withImportWorkerAndChannel(pageSize = 2): FakeChannel {
  const channel: FakeChannel = { base: '', orders: [], refuse: undefined, pageSize, received: [], close: async () => undefined };
  let worker: { stop(): Promise<void> } | undefined;
  before(async () => {
    worker = await startImportWorker();
    Object.assign(channel, await serve(channel));
  });
  after(async () => {
    await worker?.stop();
    await channel.close();
  });
  beforeEach(() => {
    channel.orders.length = 0;
    channel.refuse = undefined;
    channel.pageSize = pageSize;
  });
  return channel;
}

let sequence = 0;

/** A channel order as an adapter maps it (ChannelOrder), with the fields given merged in. */
export function channelOrder(fields: Partial<ChannelOrder> = {}): ChannelOrder {
  sequence++;
  const id = `CH-${Date.now()}-${sequence}`;
  return {
    external_order_id: id,
    modified_at: new Date().toISOString(),
    created_at: new Date(Date.now() - 3_600_000).toISOString(),
    currency_id: 'EUR',
    customer: {
      username: 'mug_lover_77',
      email: 'buyer@example.com',
      address: { name: 'Jürgen Müller', street: 'Hauptstr. 1', zip: '10115', city: 'Berlin', country_iso2: 'DE' },
    },
    shipping: { fee: '4.90', method: 'DHL Paket', address: { name: 'Anna Müller', street: 'Nebenweg 2', zip: '80331', city: 'München', country_iso2: 'DE' } },
    line: [{ transaction_id: `${id}-L1`, sku: 'SKU-MUG', name: 'Mug', quantity: 2, price: '12.50' }],
    paid_amount: '29.90',
    status: { is_paid: true, is_shipped: false, is_cancelled: false },
    ...fields,
  };
}

/** Changes an order at the channel: a new modified_at, so the next fetch sees it. */
export function change(order: ChannelOrder, fields: Partial<ChannelOrder>): void {
  Object.assign(order, fields, { modified_at: new Date(Date.now() + 1000).toISOString() });
}

/** An auction_a portal account of the seller reached through the JSON connector at the channel's URL. */
export async function jsonAuctionAccount(seller: Seller, channel: FakeChannel, name = 'Auction middleware'): Promise<number> {
  const { id } = await createPortalAccount(seller.id, { name, platform: 'auction_a' });
  await connectPortalAccount(seller.id, { portalAccountId: id, connector: 'json', baseUrl: channel.base, credentials: {} });
  return id;
}

/** POST admin/portal_account/{id}/order_import/ and the job's end state through GET job/{job_id}/. */
export async function importNow(
  seller: Seller,
  portalAccountId: number,
): Promise<{ state: string; result?: Record<string, unknown>; error?: string; attempts: number }> {
  const res = await call(`admin/portal_account/${portalAccountId}/order_import/`, { token: seller.token, body: {} });
  if (res.status !== 202) throw new Error(`order_import answered ${res.status}: ${res.text}`);
  return jobEnd(seller, res.body.job_id as string);
}

export async function jobEnd(seller: Seller, jobId: string): Promise<{ state: string; result?: Record<string, unknown>; error?: string; attempts: number }> {
  return waitFor(async () => {
    const job = (await call(`job/${jobId}/`, { token: seller.token })).body.job as { state: string; attempts: number } | undefined;
    return job && (job.state === 'completed' || job.state === 'failed') ? job : undefined;
  }, `job ${jobId}`);
}
