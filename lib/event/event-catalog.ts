/**
 * The event types, actions and conditions of the service (document 1 leaves the lists open and
 * returns them at run time from system/event/type/, action/ and condition/). Adding an entry
 * here publishes it; the emitters (lib/order, lib/customer, lib/cia) write event.emit jobs with
 * the same section and type.
 */
import { mailAddress } from '../mail';

/** System_event_type_type. */
export interface EventType {
  section: string;
  type: string;
}

/**
 * The format a free-text required field must follow. Published beside `required`, whose shape stays
 * document 1's (Events 4: '' free text, a list {key: label}), so a client written against the
 * document reads it as before and one that knows required_format fills the field so it is accepted.
 */
export interface RequiredFormat {
  /** url or email. */
  format: 'url' | 'email';
  /** An ECMAScript regular expression the whole value matches. */
  pattern: string;
  /** The rule in words, including what a pattern cannot say. */
  description: string;
}

/**
 * System_event_action_type: required maps each field to '' (free text) or a list {key: label};
 * required_format names the free-text fields that must be a URL or an e-mail address.
 */
export interface EventAction {
  section: string;
  type: string[];
  action: string;
  required: Record<string, string | Record<string, string>>;
  required_format: Record<string, RequiredFormat>;
}

const urlFormat: RequiredFormat = {
  format: 'url',
  pattern: '^https?://[^\\s/?#]+([/?#]\\S*)?$',
  description:
    'an absolute http:// or https:// URL whose host is a public (global unicast) address or a name resolving only to such (production: not localhost, loopback, private, link-local, CGNAT, multicast, reserved, NAT64, 6to4 or Teredo)',
};

const emailFormat: RequiredFormat = {
  format: 'email',
  pattern: `^(${mailAddress.source.slice(1, -1)}|\\{[a-z0-9_]+(\\.[a-z0-9_]+)*\\})$`,
  description:
    "the record's buyer as the field that holds the address ({customer.email} of an order, {email} of a customer), or one of the account's own addresses (GET admin/user/ email); no other recipient",
};

/** System_event_condition_type. */
export interface EventCondition {
  section: string;
  field: string;
  operator: string[];
}

// paid: the order becomes paid or partly paid (its first payment). paid_in_full: paid_amount
// reaches invoice_amount (lib/order order-paid.ts planPaid), once per crossing: what a seller
// ships on, since `paid` also fires on 5.00 of 40.00.
const orderTypes = ['created', 'paid', 'paid_in_full', 'packed', 'shipped', 'cancelled', 'changed'];

export const eventTypes: EventType[] = [
  ...orderTypes.map((type) => ({ section: 'order', type })),
  { section: 'customer', type: 'created' },
  // Stock item cia.event: a quantity adjustment of the item notifies the handlers named in target[].
  { section: 'stock', type: 'cia' },
];

const typesOf = (section: string) => eventTypes.filter((t) => t.section === section).map((t) => t.type);
const sections = ['order', 'customer', 'stock'];

/** The orders flags an order_flag action may set (document 1, order.status; is_paid only at creation). */
export const orderFlags = ['is_initial_contact', 'is_checkout', 'is_packed', 'is_shipped', 'is_arrived', 'is_cancelled', 'is_parked'] as const;

export const eventActions: EventAction[] = [
  ...sections.map((section) => ({
    section,
    type: typesOf(section),
    action: 'notification',
    required: { url: '', format: { post: 'HTTP POST of a JSON body signed with HMAC-SHA256' }, target_name: '' },
    required_format: { url: urlFormat },
  })),
  ...sections.map((section) => ({
    section,
    type: typesOf(section),
    action: 'mail',
    required: { to: '', subject: '', template: '' },
    required_format: { to: emailFormat },
  })),
  {
    section: 'order',
    type: typesOf('order'),
    action: 'order_flag',
    required: {
      flag: Object.fromEntries(orderFlags.map((f) => [f, f.replace(/^is_/, '').replace('_', ' ')])),
      // Keys must be valid XML element names (no digits first): the list is also answered as XML.
      value: { true: 'set the flag', false: 'clear the flag' },
    },
    required_format: {},
  },
  ...sections.map((section) => ({
    section,
    type: typesOf(section),
    action: 'task',
    required: { title: '', text: '', priority: { low: 'low', normal: 'normal', high: 'high' } },
    required_format: {},
  })),
];

const equality = ['=', '!='];
const comparison = ['=', '!=', '<', '>'];

export const eventConditions: EventCondition[] = [
  { section: 'order', field: 'platform', operator: equality },
  { section: 'order', field: 'payment_method_id', operator: equality },
  { section: 'order', field: 'currency_id', operator: equality },
  { section: 'order', field: 'invoice_amount', operator: comparison },
  { section: 'order', field: 'customer.email', operator: equality },
  { section: 'order', field: 'portal_account_id', operator: equality },
  { section: 'customer', field: 'email', operator: equality },
  { section: 'customer', field: 'group_id', operator: comparison },
  { section: 'stock', field: 'quantity', operator: comparison },
  { section: 'stock', field: 'stock_id', operator: equality },
];

/** The action of a section by name. */
export const findAction = (section: string, action: string) => eventActions.find((a) => a.section === section && a.action === action);
