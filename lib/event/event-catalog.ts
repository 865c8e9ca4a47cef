/**
 * The event types, actions and conditions of the service (document 1 leaves the lists open and
 * returns them at run time from system/event/type/, action/ and condition/). Adding an entry
 * here publishes it; the emitters (lib/order, lib/customer, lib/cia) write event.emit jobs with
 * the same section and type.
 */

/** System_event_type_type. */
export interface EventType { section: string; type: string }

/** System_event_action_type: required maps each field to '' (free text) or a list {key: label}. */
export interface EventAction { section: string; type: string[]; action: string; required: Record<string, string | Record<string, string>> }

/** System_event_condition_type. */
export interface EventCondition { section: string; field: string; operator: string[] }

const orderTypes = ['created', 'paid', 'packed', 'shipped', 'cancelled', 'changed'];

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
    section, type: typesOf(section), action: 'notification',
    required: { url: '', format: { post: 'HTTP POST of a JSON body signed with HMAC-SHA256' }, target_name: '' },
  })),
  ...sections.map((section) => ({
    section, type: typesOf(section), action: 'mail',
    required: { to: '', subject: '', template: '' },
  })),
  {
    section: 'order', type: typesOf('order'), action: 'order_flag',
    required: {
      flag: Object.fromEntries(orderFlags.map((f) => [f, f.replace(/^is_/, '').replace('_', ' ')])),
      // Keys must be valid XML element names (no digits first): the list is also answered as XML.
      value: { true: 'set the flag', false: 'clear the flag' },
    },
  },
  ...sections.map((section) => ({
    section, type: typesOf(section), action: 'task',
    required: { title: '', text: '', priority: { low: 'low', normal: 'normal', high: 'high' } },
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
