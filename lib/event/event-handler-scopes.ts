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

/** A handler as its client access's narrowing weighs it. */
export interface HandlerOfAccess {
  id: number;
  section: string;
  action: string;
  portal_account_grant: number | null;
}

/**
 * What a restricted client access (lib/auth restrictClientAccess) changes of the handlers its
 * client made: `remove` those whose action needs a scope the access no longer holds (a pair the
 * table does not know too: no rights are guessed) or that are bound to a portal account the access
 * no longer reaches; `bind` those made for all portal accounts when the access is now bound to one.
 * Decision (README "Rights"): removed, not disabled, as with a revoked access.
 */
export function narrowedHandlers(
  handlers: HandlerOfAccess[],
  access: { scope: readonly Scope[]; portalAccountId: number | null },
): { remove: number[]; bind: number[] } {
  const remove: number[] = [];
  const bind: number[] = [];
  for (const h of handlers) {
    const needed = handlerScopes(h.section, h.action);
    const held = needed !== undefined && needed.every((s) => access.scope.includes(s));
    const reached = access.portalAccountId === null || h.portal_account_grant === null || h.portal_account_grant === access.portalAccountId;
    if (!held || !reached) remove.push(h.id);
    else if (access.portalAccountId !== null && h.portal_account_grant === null) bind.push(h.id);
  }
  return { remove, bind };
}
