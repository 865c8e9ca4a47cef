import { config } from '../../config';
import { log } from '../log';
import type { EventCause } from '../queue';
import { createTaskOnce } from '../task';
import type { EventHandlerRow } from './event-handler.repository';
import type { EventRecord } from './event-record';

/**
 * Chains of events caused by handlers' own actions (README.md, "Chains"): an action that writes
 * the record raises events (order_flag: order changed, packed, ...), which other handlers, or the
 * same one, take. Dispatch runs no handler on an event its own action caused (it is in the chain)
 * and no action that writes once EVENT_CHAIN_MAX_DEPTH actions follow one another; everything
 * else runs at any depth (a notification, a mail or a task changes no record, so ends the chain).
 */

/** The actions whose run writes the record and so raises events of its own. */
const writingActions: ReadonlySet<string> = new Set(['order_flag']);

/** The handlers whose actions caused the event, in order (empty: an API client's, an import's, a bank match's). */
export function chainOf(cause: EventCause | undefined): number[] {
  return Array.isArray(cause?.chain) ? cause.chain.filter((id): id is number => Number.isSafeInteger(id)) : [];
}

/** The cause the events a handler's action raises carry: the event's chain and this handler. */
export const causeAfter = (cause: EventCause | undefined, handlerId: number): EventCause => ({ chain: [...chainOf(cause), handlerId] });

/**
 * Whether the handler's action would change the record as the event left it: an order_flag whose
 * flag has its value already writes nothing (event-run.service.ts). Such a handler skipped in a
 * chain is no news for the seller; one that would write again is.
 */
function wouldWrite(handler: EventHandlerRow, record: EventRecord | undefined): boolean {
  if (handler.action !== 'order_flag') return writingActions.has(handler.action);
  const status = record?.status as Record<string, unknown> | undefined;
  return status !== undefined && status[handler.required.flag!] !== (handler.required.value === 'true');
}

/** Why a chain stops at a handler: `report` when it stops an action that would have changed the record. */
export interface ChainStop {
  reason: string;
  kind: 'own' | 'depth';
  report: boolean;
}

const named = (chain: number[]) => chain.map((id) => `handler ${id}`).join(' → ');

/** Whether the chain the event ends stops at this handler (undefined: it runs). */
export function chainStop(handler: EventHandlerRow, chain: number[], record: EventRecord | undefined): ChainStop | undefined {
  if (chain.includes(handler.id)) {
    // Its own change straight back (the last in the chain) is a handler reacting to itself: no mistake.
    const through = chain[chain.length - 1] !== handler.id;
    return { reason: `caused by this handler's own action (chain: ${named(chain)})`, kind: 'own', report: through && wouldWrite(handler, record) };
  }
  const max = config().eventChainMaxDepth;
  if (chain.length >= max && writingActions.has(handler.action))
    return {
      reason: `caused by a chain of ${chain.length} handlers' actions, the most one chain may have (EVENT_CHAIN_MAX_DEPTH ${max}): not run`,
      kind: 'depth',
      report: wouldWrite(handler, record),
    };
  return undefined;
}

/** What the action would have done, for the seller's task. */
const actionText = (handler: EventHandlerRow) =>
  handler.action === 'order_flag' ? `${handler.required.value === 'true' ? 'set' : 'clear'} ${handler.required.flag}` : handler.action;

/**
 * Tells the seller, once per handler and kind (a task keyed by them), that an action of theirs
 * was not run, and logs it once: a mistake in the handlers repeats on every order it meets.
 */
export async function reportChainStop(
  accountId: number,
  handler: EventHandlerRow,
  stop: ChainStop,
  chain: number[],
  event: { section: string; type: string; recordId: string },
): Promise<void> {
  const where = `${event.section} ${event.recordId}`;
  const text =
    stop.kind === 'own'
      ? `Event handler ${handler.id} (${handler.type}: ${actionText(handler)}) was not run on the ${event.type} event of ${where}: ` +
        `its own action caused that event, through ${named(chain.slice(chain.indexOf(handler.id) + 1)).replace(/handler/g, 'event handler')}, ` +
        `whose action changed it back. These handlers undo each other's changes and would trigger each other for ever; ` +
        `none runs again on a change its own action caused, so which one wins depends on the order they run in. ` +
        `Change or delete one of them (DELETE admin/event/handler/{id}/).`
      : `Event handler ${handler.id} (${handler.type}: ${actionText(handler)}) was not run on the ${event.type} event of ${where}: ` +
        `the event was caused by ${chain.length} handlers' actions in a row (${named(chain).replace(/handler/g, 'event handler')}), ` +
        `the most one chain may have (EVENT_CHAIN_MAX_DEPTH ${config().eventChainMaxDepth}). ` +
        `Events of API clients, channel imports and bank matches start a new chain; to have the action run, let its handler react to an earlier event of the chain.`;
  const taskId = await createTaskOnce(
    accountId,
    {
      title: `Event handler ${handler.id} not run: ${stop.kind === 'own' ? 'handlers trigger each other' : 'chain of handlers too long'}`,
      text,
      priority: 'high',
      ...(event.section === 'order' ? { reference: { section: 'order', id: event.recordId } } : {}),
    },
    `event-chain-${stop.kind}-${handler.id}`,
  );
  if (taskId !== undefined)
    log.warn(
      { account_id: accountId, handler_id: handler.id, chain, record_id: event.recordId, reason: stop.reason },
      'event handler not run: chain of handlers stopped',
    );
}
