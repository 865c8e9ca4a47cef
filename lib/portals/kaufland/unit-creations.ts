/**
 * POST /units sent for an id_offer, kept in Redis per (portal account, storefront, id_offer) so
 * that a retry in any process knows of it: Kaufland takes no idempotency key, createUnit adds a
 * unit per call, and GET /units "may [show] a delay of up to several minutes between adding a new
 * unit and when it will be available" (seller-api-v2.openapi.json, getUnits). A worker that died
 * after Kaufland made the unit and before Kontor recorded its id_unit (portal_listing), or a call
 * whose answer was lost (a timeout, a 5xx), left its retry with a lookup that found nothing, and
 * the retry made a second unit: the offer stood twice. Recorded here: `sent` before the call, the
 * id_unit as soon as Kaufland answers it, nothing once Kaufland refused the call (4xx: no unit).
 * When Redis cannot answer, the listing goes on as before (the lookup alone), logged.
 */
import { config } from '../../../config';
import { log } from '../../log';
import { redis } from '../../redis';
import { redisReady } from '../portal-rate-limit';

/**
 * How long a POST /units without a known answer holds back another (decision: the contract says
 * "up to several minutes" and names no figure; 10 minutes, which is also the longest Retry-After a
 * portal job waits, lib/queue/job-options.ts). Past it GET /units is taken as showing every unit
 * made, so a lookup that still finds nothing creates the unit.
 */
export const unitListingDelayMs = 10 * 60 * 1000;

/** What Kontor knows of a POST /units of an id_offer in the last unitListingDelayMs. */
export type UnitCreation = { idUnit: number } | { sentAt: number };

const keyOf = (portalAccountId: number, storefront: string, idOffer: string) =>
  `${config().queuePrefix}:kaufland-unit-create:${portalAccountId}:${storefront}:${idOffer}`;

export async function unitCreation(portalAccountId: number, storefront: string, idOffer: string): Promise<UnitCreation | undefined> {
  try {
    await redisReady();
    const raw = await redis().get(keyOf(portalAccountId, storefront, idOffer));
    const parsed = raw ? (JSON.parse(raw) as Partial<{ idUnit: number; sentAt: number }>) : undefined;
    if (typeof parsed?.idUnit === 'number') return { idUnit: parsed.idUnit };
    if (typeof parsed?.sentAt === 'number') return { sentAt: parsed.sentAt };
    return undefined;
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'Kaufland unit creations not readable; the listing relies on GET /units alone');
    return undefined;
  }
}

/** Records the call before it is sent (`sentAt`), its answer (`idUnit`), or its refusal (null: Kaufland made no unit). */
export async function recordUnitCreation(portalAccountId: number, storefront: string, idOffer: string, state: UnitCreation | null): Promise<void> {
  try {
    await redisReady();
    const key = keyOf(portalAccountId, storefront, idOffer);
    if (state) await redis().set(key, JSON.stringify(state), 'PX', unitListingDelayMs);
    else await redis().del(key);
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'Kaufland unit creation not recorded');
  }
}
