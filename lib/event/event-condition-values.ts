/**
 * The value of an = or != condition on a field whose values come from a list, checked by the rule
 * the record itself is checked by (lib/event README, "An = or != value of a listed field"): a value
 * an order (or a customer) refuses is a 400 naming the condition's value, not a handler stored to
 * never run (platform 'ebay', currency 'XYZ'), or with != to run on every record. The rules are
 * the owners' (lib/order order-references.ts, lib/portal-account, lib/customer), not copies.
 */
import type { OrderScope } from '../access';
import { customerGroupIds } from '../customer';
import { invalidField } from '../errors';
import { checkCurrency, checkPaymentMethod, checkPlatform, listedIdInAnyCase } from '../order';
import { checkMentionedPortalAccounts } from '../portal-account';
import type { HandlerCondition } from './event-handler.type';

type ValueRule = (value: string, field: string, maker: OrderScope) => void | Promise<unknown>;

/** By section and field (system/event/condition/): the rule of the record's field. */
const listedValues: Record<string, ValueRule> = {
  // A condition compares case-insensitively (event-condition.ts): a value is checked as the id it names in any case.
  'order.platform': async (value, field) => checkPlatform(await listedIdInAnyCase('platform', value), field),
  'order.currency_id': (value, field) => checkCurrency(value.toUpperCase(), field),
  'order.payment_method_id': async (value, field) => checkPaymentMethod(await listedIdInAnyCase('payment_method_id', value), field),
  // A portal account the maker reaches, as an order's: another seller's or none a 400, for a bound client any other a 403.
  'order.portal_account_id': (value, field, maker) => {
    if (!/^\d{1,9}$/.test(value)) throw invalidField(field, `${field} ${value} is not a portal account id (GET admin/portal_account/)`);
    return checkMentionedPortalAccounts(maker, [{ id: Number(value), field }]);
  },
  // Document 2's colours, as the customer filter takes them; the value is a decimal already (a numeric field).
  'customer.group_id': (value, field) => {
    if (!(customerGroupIds as readonly string[]).includes(String(Number(value)))) {
      throw invalidField(field, `${field} must be one of ${customerGroupIds.join(' ')}`);
    }
  },
};

/**
 * Checks each = or != condition's value (already trimmed, checkConditions) on a listed field;
 * '' (no value) is not checked (event-condition.ts). `at` names a request field.
 */
export async function checkListedValues(maker: OrderScope, section: string, conditions: HandlerCondition[], at: (path: string) => string): Promise<void> {
  for (const [i, c] of conditions.entries()) {
    const rule = listedValues[`${section}.${c.field}`];
    if (rule && (c.operator === '=' || c.operator === '!=') && c.value !== '') await rule(c.value, at(`condition[${i}].value`), maker);
  }
}
