/**
 * The permission scopes (document 1, Authentication 5). A token lacking the scope an endpoint
 * declares gets 403. GET system/scope/ lists them with these titles.
 */
export const scopes = {
  stock_r: { title: 'Read stock', description: 'Read stock items, descriptions, categories, folders and stock history.' },
  stock_w: { title: 'Write stock', description: 'Create, change and delete stock items; trigger CIA and portal uploads.' },
  order_r: { title: 'Read orders', description: 'Read orders and their history.' },
  order_w: { title: 'Write orders', description: 'Create, change and delete orders; send_mit.' },
  customer_r: { title: 'Read customers', description: 'Read customers.' },
  bank_r: { title: 'Read bank', description: 'Read bank transfers and payment-provider payments; see is_banking_active.' },
  bank_w: { title: 'Write bank', description: 'Create bank transfers.' },
  task_r: { title: 'Read tasks', description: 'Read tasks.' },
  task_w: { title: 'Write tasks', description: 'Create and complete tasks.' },
  admin_r: { title: 'Read administration', description: 'Read the API account, users, portal accounts, shipping groups and event handlers.' },
  admin_w: { title: 'Write administration', description: 'Change account settings and event handlers.' },
  email_r: { title: 'Read e-mail address', description: 'Read the email field of the API account.' },
  account_address_r: { title: 'Read account address', description: 'Read the address of the API account.' },
} as const;

export type Scope = keyof typeof scopes;

export const allScopes = Object.keys(scopes) as Scope[];

export function isScope(name: string): name is Scope {
  return Object.prototype.hasOwnProperty.call(scopes, name);
}
