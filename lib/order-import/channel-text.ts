/**
 * A channel's texts as Kontor can store and answer them (decision, README "Texts Kontor cannot
 * hold"). The channels' contracts restrict no string's characters, and JSON carries any of them
 * escaped: a NUL, which PostgreSQL text cannot hold, and a lone UTF-16 surrogate, which jsonb
 * refuses (channel_state), failed the page's transaction and then the order's own, so the import
 * job failed at every retry and the account's watermark stood still; the other C0 control
 * characters are stored but are no XML 1.0 characters, so GET order/ as XML answered a document
 * no client can parse. A client's request with them is refused (lib/http input-bounds.ts), but a
 * buyer's order must come in: each is replaced, a control character by a space (as a vertical tab
 * between two words), a lone surrogate or a noncharacter (U+FFFE, U+FFFF) by U+FFFD, as a UTF-8
 * decoder shows an unreadable byte. Tab, line feed and carriage return stay.
 */
import type { ChannelOrderPage } from '../portals';

// The control characters are the point of this pattern.
// eslint-disable-next-line no-control-regex
const unheld = /[\u0000-\u0008\u000B\u000C\u000E-\u001F]|[\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

const heldText = (text: string): string => text.replace(unheld, (c) => (c < ' ' ? ' ' : '\uFFFD'));

/** Every string of a channel's value (order, page) with the characters Kontor cannot hold replaced. */
function held<T>(value: T): T {
  if (typeof value === 'string') return heldText(value) as T;
  if (Array.isArray(value)) return value.map(held) as T;
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [heldText(k), held(v)])) as T;
  return value;
}

/** A page of channel orders as Kontor can hold it: the import's one entry for what a channel sends. */
export const heldPage = (page: ChannelOrderPage): ChannelOrderPage => ({ ...page, orders: held(page.orders) });
