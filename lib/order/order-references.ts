/**
 * The lists an order's reference fields are checked against: platform (document 1's naming table
 * of portal ids), currency_id (GET system/currency/) and payment_method_id (GET
 * system/payment_method/). One rule each, for the order's own fields (order.service.ts
 * checkReferences) and for event-handler conditions on them (lib/event), so a value an order
 * refuses is refused as a condition too, not stored as one that can never hold. Each throws a 400
 * naming `field`.
 */
import { invalidField } from '../errors';
import { portalIds, portalOf } from '../portals';
import { currencyRepository, listPaymentMethods, paymentMethodRepository } from '../reference';

/** Document 2: platform is the portal id the order was created at (FK), one of document 1's naming table. */
export function checkPlatform(platform: string, field: string): void {
  if (portalOf(platform) === null) {
    throw invalidField(field, `${field} ${platform} is not a portal id (one of ${portalIds.join(', ')}; an order of no portal is sent without one)`);
  }
}

/** A currency of GET system/currency/ (upper case: the order's schema upper-cases what a client sends). */
export async function checkCurrency(currencyId: string, field: string): Promise<void> {
  if (!(await currencyRepository.get(currencyId))) {
    throw invalidField(field, `${field} ${currencyId} is not a currency (see GET system/currency/)`, 'unknown_currency');
  }
}

/** A payment method of GET system/payment_method/; answers whether it is prepaid. */
export async function checkPaymentMethod(paymentMethodId: string, field: string): Promise<{ prepaid: boolean }> {
  const method = await paymentMethodRepository.get(paymentMethodId);
  if (!method) throw invalidField(field, `${field} ${paymentMethodId} is not a payment method (see GET system/payment_method/)`, 'unknown_payment_method');
  return { prepaid: method.is_prepaid };
}

/**
 * The platform or payment method id a value names in any case (itself when it names none): an
 * event condition compares case-insensitively (lib/event event-condition.ts), so `Auction_A` or
 * `cod` holds on an order's auction_a or COD and is checked as that id, not refused.
 */
export async function listedIdInAnyCase(field: 'platform' | 'payment_method_id', value: string): Promise<string> {
  const ids = field === 'platform' ? portalIds : (await listPaymentMethods()).map((m) => m.id);
  const folded = value.toLowerCase();
  return ids.find((id) => id.toLowerCase() === folded) ?? value;
}
