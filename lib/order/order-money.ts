/**
 * Money as exact cents (BigInt): amounts arrive as decimal strings with two places (lib/http/schema
 * decimal) and leave as such, never passing through a float.
 */
import { invalidField } from '../errors';

/** Cents of a decimal string such as '-12.5' or '3.10'. */
export function toCents(value: string): bigint {
  const negative = value.startsWith('-');
  const [whole = '0', fraction = ''] = value.replace('-', '').split('.');
  const cents = BigInt(whole) * 100n + BigInt((fraction + '00').slice(0, 2));
  return negative ? -cents : cents;
}

/** A decimal string with two places. */
export function fromCents(cents: bigint): string {
  const negative = cents < 0n;
  const abs = negative ? -cents : cents;
  return `${negative ? '-' : ''}${abs / 100n}.${(abs % 100n).toString().padStart(2, '0')}`;
}

/** The largest amount numeric(14,2) holds, in cents. */
const maxCents = 10n ** 14n - 1n;

/** 400 naming the field when an amount does not fit numeric(digits,2). */
export function checkAmount(value: string | undefined, field: string, digits = 14): void {
  if (value === undefined) return;
  const max = digits === 14 ? maxCents : 10n ** BigInt(digits) - 1n;
  if (!/^-?\d+\.\d{2}$/.test(value) || toCents(value) > max || toCents(value) < -max) {
    throw invalidField(field, `${field} must be a number of at most ${digits - 2} digits before the decimal point`);
  }
}

/** invoice_amount: the lines (quantity times single price) plus the shipping fee. */
export function invoiceAmount(lines: { quantity: number; price: string | null }[], shippingFee: string | null, field: string): string {
  let total = shippingFee ? toCents(shippingFee) : 0n;
  for (const line of lines) if (line.price) total += BigInt(line.quantity) * toCents(line.price);
  if (total > maxCents || total < -maxCents) throw invalidField(field, `${field}: the invoice amount of these lines is too large`);
  return fromCents(total);
}
