import crypto from 'node:crypto';
import { UnrecoverableError } from 'bullmq';
import { config } from '../../config';
import { currentRequestId } from '../log';
import { webhookDeliveries } from '../metrics';
import { assertPublicHost } from './webhook-host';

/**
 * The signature header of a notification: v1=hex(HMAC-SHA256(secret, timestamp + "." + body)).
 * A receiver recomputes it over the raw body with the handler's signing_secret, compares in
 * constant time, and refuses timestamps older than a few minutes (replays).
 */
export function signature(secret: string, timestamp: string, body: string): string {
  return `v1=${crypto.createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** A delivery the receiver refused for good (4xx other than 408 and 429): retrying cannot help. */
const permanent = (status: number) => status >= 400 && status < 500 && status !== 408 && status !== 429;

/**
 * POSTs a notification. 2xx is delivered; 408, 429, 5xx, a timeout or a network error throw so
 * BullMQ retries with backoff; another 4xx fails the run for good. Redirects are not followed.
 */
export async function deliverNotification(url: string, secret: string, payload: Record<string, unknown>, deliveryId: string): Promise<{ status: number }> {
  try {
    await assertPublicHost(new URL(url));
  } catch (err) {
    webhookDeliveries.inc({ outcome: 'refused' });
    throw new UnrecoverableError(`notification refused: ${(err as Error).message}`);
  }
  const body = JSON.stringify(payload);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const requestId = currentRequestId();
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      redirect: 'manual',
      signal: AbortSignal.timeout(config().webhookTimeoutMs),
      headers: {
        'Content-Type': 'application/json; charset=utf-8',
        'User-Agent': 'Kontor-Webhook/1',
        'X-Kontor-Delivery': deliveryId,
        'X-Kontor-Timestamp': timestamp,
        'X-Kontor-Signature': signature(secret, timestamp, body),
        // The API request that caused the event, for the receiver's and our logs.
        ...(requestId ? { 'X-Request-Id': requestId } : {}),
      },
      body,
    });
  } catch (err) {
    webhookDeliveries.inc({ outcome: 'retry' });
    throw new Error(`notification to ${new URL(url).host} failed: ${(err as Error).message}`, { cause: err });
  }
  await res.body?.cancel().catch(() => undefined);
  const delivered = res.status >= 200 && res.status < 300;
  const refused = permanent(res.status) || (res.status >= 300 && res.status < 400);
  webhookDeliveries.inc({ outcome: delivered ? 'delivered' : refused ? 'refused' : 'retry' });
  if (delivered) return { status: res.status };
  const message = `notification to ${new URL(url).host} answered HTTP ${res.status}`;
  if (refused) throw new UnrecoverableError(message);
  throw new Error(message);
}
