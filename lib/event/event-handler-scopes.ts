/**
 * The scopes a handler's action needs, besides admin_w (document 1, Authentication 5: "Rights are
 * scopes. A token lacking the scope for the command gets 403"). A handler acts for its maker long
 * after the request: it reads the record into a webhook, a mail or a task and writes order flags.
 * So it is made only by a token that could do the same through the API itself: the read scope of
 * the section's records (the scope of their GET routes: order/ order_r, admin/customer/
 * customer_r, stock/ stock_r) for what sends or copies the record, order_w for order_flag (POST
 * order/{id}/), and task_w for what creates a task (POST task/). One table, read at creation
 * (event-handler.service.ts); README "Rights".
 */
import type { Scope } from '../access';

/** What each section's records are read with (the scope of the section's GET routes). */
const readScope = { order: 'order_r', customer: 'customer_r', stock: 'stock_r' } as const satisfies Record<string, Scope>;

/** Section by action: every scope the action needs (admin_w aside, which the route asks for). */
const table: Record<keyof typeof readScope, Record<string, readonly Scope[]>> = {
  order: {
    notification: [readScope.order],
    mail: [readScope.order],
    task: [readScope.order, 'task_w'],
    order_flag: ['order_w'],
  },
  customer: {
    notification: [readScope.customer],
    mail: [readScope.customer],
    task: [readScope.customer, 'task_w'],
  },
  stock: {
    notification: [readScope.stock],
    mail: [readScope.stock],
    task: [readScope.stock, 'task_w'],
  },
};

/** The scopes an action of a section needs; undefined for a pair the table does not know (refused: no rights are guessed). */
export function handlerScopes(section: string, action: string): readonly Scope[] | undefined {
  const actions = Object.hasOwn(table, section) ? table[section as keyof typeof readScope] : undefined;
  return actions && Object.hasOwn(actions, action) ? actions[action] : undefined;
}
