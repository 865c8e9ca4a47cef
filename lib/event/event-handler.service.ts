import type { Knex } from 'knex';
import { config } from '../../config';
import { Caller, OrderScope, grantOf } from '../access';
import { inTransaction, transaction } from '../db';
import { DomainError, forbidden, invalidField, notFound, unauthenticated } from '../errors';
import { decimalValue } from './event-condition';
import { checkListedValues } from './event-condition-values';
import { EventAction, eventConditions, eventTypes, findAction, RequiredFormat } from './event-catalog';
import { handlerScopes, narrowedHandlers } from './event-handler-scopes';
import { eventHandlerRepository, EventHandlerRow } from './event-handler.repository';
import type { EventHandlerInput, HandlerCondition } from './event-handler.type';
import { isForbiddenHostLiteral } from './webhook-host';
import { checkMailRecipient } from './mail-recipient';
import { newSigningSecret, signingSecretOf } from './signing-secret';
import { forgetStockTargetsOf } from './stock-event-targets';
import { resolvePathStockId } from '../stock';
import { clientAccessRights, NarrowedClientAccess, provideClientAccessGoing } from '../auth';

const at = (path: string) => `event_handler.${path}`;

/**
 * A notification url's password replaced by *** (the user name stays): it is a credential of the
 * receiver, like the signing secret, so it is answered only where the secret is. Any other url
 * is answered as stored.
 */
function withoutPassword(url: URL): void {
  if (url.password) url.password = '***';
}

/**
 * Each value of a notification url's query replaced by *** (the names stay): many receivers take
 * their credential there (`?token=...`), and a client that did not make the handler has no
 * business reading it; the seller and the handler's maker wrote it. Done on the text, so the rest
 * of the url stays as stored.
 */
function withoutQueryValues(url: URL): void {
  if (!url.search) return;
  url.search = url.search
    .slice(1)
    .split('&')
    .map((part) => (part.includes('=') ? `${part.slice(0, part.indexOf('='))}=***` : part))
    .join('&');
}

/** Who reads a handler: the seller's own token (oauthClientId null) or a client, by the client access its token belongs to. */
export type HandlerReader = Pick<Caller, 'oauthClientId' | 'clientAccessId'>;

/** action.required as `reader` may read it (withSecret: the url's password too). */
function requiredAsRead(row: EventHandlerRow, reader: HandlerReader, withSecret: boolean): Record<string, string> {
  if (row.action !== 'notification' || !row.required.url) return row.required;
  const maker = reader.oauthClientId === null || (row.client_access_id !== null && row.client_access_id === reader.clientAccessId);
  if (withSecret && maker) return row.required;
  try {
    const url = new URL(row.required.url);
    const before = url.href;
    if (!withSecret) withoutPassword(url);
    if (!maker) withoutQueryValues(url);
    return url.href === before ? row.required : { ...row.required, url: url.href };
  } catch {
    return row.required;
  }
}

/**
 * Admin_event_handler_type as `reader` reads it: the signing secret and a url's password only
 * where asked for (one handler, the seller's own tokens); a url's query values only to the seller
 * and the client access that made the handler.
 */
export function eventHandlerToApi(row: EventHandlerRow, reader: HandlerReader, withSecret = false) {
  return {
    id: row.id,
    modified: row.modified.toISOString(),
    type: { id: row.type },
    section: row.section,
    action: { id: row.action, required: requiredAsRead(row, reader, withSecret) },
    condition: row.condition,
    is_active: row.is_active,
    // Ours: why a notification handler stopped delivering (POST .../resume/ starts it again).
    ...(row.paused_at ? { pause: { date: row.paused_at.toISOString(), reason: row.pause_reason ?? '' } } : {}),
    ...(withSecret && row.action === 'notification' ? { signing_secret: signingSecretOf(row) } : {}),
  };
}

/** The section of a handler: as sent, or the only section that has the type. */
function sectionOf(input: EventHandlerInput): string {
  const type = input.type.id;
  if (input.section) {
    if (!eventTypes.some((t) => t.section === input.section)) {
      throw invalidField(at('section'), `${at('section')} ${input.section} is not a section of system/event/type/`);
    }
    if (!eventTypes.some((t) => t.section === input.section && t.type === type)) {
      throw invalidField(at('type.id'), `${at('type.id')} ${type} is not an event type of section ${input.section} (system/event/type/)`);
    }
    return input.section;
  }
  const matches = eventTypes.filter((t) => t.type === type);
  if (matches.length === 0) throw invalidField(at('type.id'), `${at('type.id')} ${type} is not an event type of system/event/type/`);
  if (matches.length > 1) throw invalidField(at('section'), `${at('section')} is required: type ${type} exists in ${matches.map((m) => m.section).join(', ')}`);
  return matches[0]!.section;
}

const isUrl = (value: string) => {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
  } catch {
    return false;
  }
};

/** A value in the format the action list publishes for its field (required_format); 400 otherwise. */
function checkFormat(field: string, value: string, format: RequiredFormat): void {
  if (!new RegExp(format.pattern).test(value) || (format.format === 'url' && !isUrl(value))) {
    throw invalidField(field, `${field} must be ${format.description}`);
  }
  if (format.format === 'url' && isForbiddenHostLiteral(new URL(value))) {
    throw invalidField(field, `${field} must point at a public (global unicast) address, not localhost or a loopback, private or special-use one`);
  }
  // The mask eventHandlerToApi answers in place of a password (withoutPassword): a handler read so and
  // created anew (document 1 has no update) would send *** as the password, and every delivery be refused.
  if (format.format === 'url' && maskedPassword(new URL(value))) {
    throw invalidField(
      field,
      `${field} has the password *** as this client reads it back; send the receiver's password (or read the handler with the seller's own token)`,
    );
  }
  // Likewise the query values a client that did not make the handler reads masked (withoutQueryValues).
  if (format.format === 'url' && maskedQueryValue(new URL(value))) {
    throw invalidField(
      field,
      `${field} has a query value *** as a client that did not make the handler reads it back; send the receiver's values (or read the handler with the seller's own token)`,
    );
  }
}

const maskedQueryValue = (url: URL) => [...url.searchParams.values()].includes('***');

const maskedPassword = (url: URL) => {
  try {
    return decodeURIComponent(url.password) === '***';
  } catch {
    return false;
  }
};

/**
 * Checks action.required against the action's list (document 1: every field given; a list field
 * takes one of its keys; free-text fields anything unless required_format gives their format).
 */
function checkRequired({ action, required: spec, required_format: formats }: EventAction, given: Record<string, string>): Record<string, string> {
  for (const key of Object.keys(given)) {
    // Own fields only: `in` took constructor, toString and the like from the object's prototype.
    if (!Object.hasOwn(spec, key))
      throw invalidField(
        at(`action.required.${key}`),
        `${at(`action.required.${key}`)} is not a field of action ${action}; fields: ${Object.keys(spec).join(', ')}`,
      );
  }
  const out: Record<string, string> = {};
  for (const [key, allowed] of Object.entries(spec)) {
    const field = at(`action.required.${key}`);
    const value = given[key]?.trim();
    if (!value) throw invalidField(field, `${field} is required by action ${action}`);
    if (typeof allowed === 'object' && !Object.hasOwn(allowed, value)) {
      throw invalidField(field, `${field} must be one of ${Object.keys(allowed).join(', ')}`);
    }
    const format = formats[key];
    if (format) checkFormat(field, value, format);
    out[key] = value;
  }
  return out;
}

function checkConditions(section: string, conditions: HandlerCondition[]): HandlerCondition[] {
  if (conditions.length > 1) throw invalidField(at('condition'), `${at('condition')}: at most one condition per handler`);
  return conditions.map((c, i) => {
    const definition = eventConditions.find((d) => d.section === section && d.field === c.field);
    if (!definition) {
      const fields = eventConditions.filter((d) => d.section === section).map((d) => d.field);
      throw invalidField(at(`condition[${i}].field`), `${at(`condition[${i}].field`)} must be one of ${fields.join(', ')} (system/event/condition/)`);
    }
    if (!definition.operator.includes(c.operator)) {
      throw invalidField(at(`condition[${i}].operator`), `${at(`condition[${i}].operator`)} must be one of ${definition.operator.join(' ')} for ${c.field}`);
    }
    // A decimal as amounts are written: Number() would read '' as 0 and take '0x10' or 'Infinity'.
    if (c.operator !== '=' && c.operator !== '!=' && !decimalValue.test(c.value.trim())) {
      throw invalidField(
        at(`condition[${i}].value`),
        `${at(`condition[${i}].value`)} must be a decimal number (such as 12 or -1.5) for operator ${c.operator}`,
      );
    }
    // A numeric field (its definition takes < and >) compared by = or != with text that is no number: = could
    // never hold and != always would, whatever the record says. '' stays "no value" (event-condition.ts).
    if (definition.operator.includes('<') && c.value.trim() !== '' && !decimalValue.test(c.value.trim())) {
      throw invalidField(
        at(`condition[${i}].value`),
        `${at(`condition[${i}].value`)} must be a decimal number (such as 12 or -1.5) or '' (no value): ${c.field} is a number`,
      );
    }
    // Without the spaces around it (as field and operator): ' market_c ' compared as text never held on market_c.
    return { field: c.field, operator: c.operator, value: c.value.trim() };
  });
}

/**
 * A stock condition on stock_id kept as the id it names: document 1 takes {stock_id} as an integer
 * or a prefixed identifier (ID_, EAN_, SKU_, MPN_, MKTDSKU_) "everywhere a stock_id is accepted",
 * and the record a condition compares with holds the numeric id, so SKU_cup was stored and never
 * held. Resolved once, at creation, in the seller's items (decision: as a foreign key, the id named
 * then; README); a value naming no item of the seller, or not an id form, is a 400 naming it. A bare
 * integer and '' (no value) are kept as sent.
 */
async function stockConditionIds(accountId: number, section: string, conditions: HandlerCondition[]): Promise<HandlerCondition[]> {
  return Promise.all(
    conditions.map(async (c, i) => {
      if (section !== 'stock' || c.field !== 'stock_id' || c.value === '' || /^\d+$/.test(c.value)) return c;
      const field = at(`condition[${i}].value`);
      try {
        return { ...c, value: String(await resolvePathStockId(accountId, c.value)) };
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        throw invalidField(
          field,
          `${field} ${c.value} names no stock item of the account (a stock id, or ID_, EAN_, SKU_, MPN_, MKTDSKU_ with its value): ${err.message}`,
        );
      }
    }),
  );
}

/**
 * A handler acts for its maker long after the request, so it is made only with the scopes of what
 * its action does (event-handler-scopes.ts), besides the route's admin_w: else 403
 * insufficient_scope naming what is missing, the framework's answer to a token without an
 * endpoint's scope (lib/errors forbidden). A pair the table does not know is refused too.
 */
function checkActionScopes(caller: Pick<Caller, 'scopes'>, section: string, action: string): void {
  const needed = handlerScopes(section, action);
  if (!needed) throw new Error(`event handler scopes: no entry for action ${action} of section ${section} (lib/event/event-handler-scopes.ts)`);
  const missing = needed.filter((s) => !caller.scopes.has(s));
  if (missing.length) throw forbidden(missing.join(' '));
}

/** Who creates a handler: the caller's account, grant, scopes and client access (null: the seller's own token). */
export type HandlerMaker = Pick<Caller, 'accountId' | 'portalAccountGrant' | 'requestId' | 'scopes' | 'oauthClientId' | 'clientAccessId'>;

/** A client's token whose client access is gone (revoked while the request ran): its handler would outlive the revocation. */
const accessRevoked = () => unauthenticated('invalid_token', 'the client access of this access token was revoked; the client must be authorized again');

/** The insert's foreign key found the client access deleted meanwhile (event_handler.client_access_id). */
const isClientAccessGone = (err: unknown) =>
  (err as { code?: string; constraint?: string }).code === '23503' && /client_access/.test((err as { constraint?: string }).constraint ?? '');

/**
 * POST admin/event/handler/: checks the definition against the catalog and the caller's scopes
 * (checkActionScopes; a client's also against its access as it stands, clientAccessRights), and
 * stores it with the caller's portal-account grant (a bound client's handler acts only on that
 * portal account's records) and client access (a client's handlers go when its access is revoked,
 * and narrow when it is restricted: narrowHandlersOfClientAccess); 400 names what is wrong, also when the
 * account has EVENT_HANDLERS_PER_ACCOUNT already.
 */
export async function createEventHandler(scope: HandlerMaker, input: EventHandlerInput): Promise<EventHandlerRow> {
  const section = sectionOf(input);
  const action = findAction(section, input.action.id);
  if (!action) throw invalidField(at('action.id'), `${at('action.id')} ${input.action.id} is not an action of section ${section} (system/event/action/)`);
  if (!action.type.includes(input.type.id)) {
    throw invalidField(at('action.id'), `${at('action.id')} ${action.action} does not respond to event type ${input.type.id}`);
  }
  checkActionScopes(scope, section, action.action);
  if (scope.oauthClientId !== null && !scope.clientAccessId) throw accessRevoked();
  const required = checkRequired(action, input.action.required);
  if (action.action === 'mail') await checkMailRecipient(scope.accountId, section, required.to!, at('action.required.to'));
  const checked = checkConditions(section, input.condition);
  await checkListedValues(scope, section, checked, at);
  const condition = await stockConditionIds(scope.accountId, section, checked);
  // With the request's id: a COMMIT whose answer is lost can be asked after (lib/db transaction).
  const id = await transaction(async (trx) => {
    // A client's rights as they stand now (its access share-locked until the insert commits): the
    // seller may have restricted it since the token was read, and the restriction narrowed only
    // the handlers written before it.
    let grant = grantOf(scope);
    if (scope.clientAccessId) {
      const held = await clientAccessRights(trx, scope.clientAccessId);
      if (!held) throw accessRevoked();
      checkActionScopes({ scopes: new Set(held.scope) }, section, action.action);
      grant = held.portalAccountId;
    }
    const limit = config().eventHandlersPerAccount;
    if ((await eventHandlerRepository.countForCreate(trx, scope.accountId)) >= limit)
      throw invalidField('event_handler', `event_handler: the account has ${limit} event handlers, the most it may have; delete one first`);
    return eventHandlerRepository.insert(trx, {
      account_id: scope.accountId,
      section,
      type: input.type.id,
      action: action.action,
      required,
      condition,
      signing_secret: newSigningSecret(),
      portal_account_grant: grant,
      client_access_id: scope.clientAccessId ?? null,
    });
  }, scope.requestId).catch((err: unknown) => {
    if (isClientAccessGone(err)) throw accessRevoked();
    throw err;
  });
  return (await eventHandlerRepository.get(scope, id))!;
}

/** One handler the caller sees (a bound client: only its grant's), or 404. */
export async function getEventHandler(scope: OrderScope, id: number): Promise<EventHandlerRow> {
  const row = await eventHandlerRepository.get(scope, id);
  if (!row) throw notFound(`event handler ${id}`, 'event_handler_id');
  return row;
}

/**
 * DELETE admin/event/handler/{id}/; runs already queued skip a deleted handler. A stock cia
 * handler leaves the items' cia.event.target[] in the same transaction (forgetStockTargetsOf), as
 * a foreign key's ON DELETE would. Run again on a deadlock (its item locks meet a stock write's).
 */
export async function deleteEventHandler(scope: OrderScope, id: number): Promise<void> {
  const deleted = await inTransaction(async (trx) => {
    const row = await eventHandlerRepository.delete(trx, scope, id);
    if (row) await forgetStockTargetsOf(trx, row);
    return row !== undefined;
  }, scope.requestId);
  if (!deleted) throw notFound(`event handler ${id}`, 'event_handler_id');
}

/**
 * What goes with a client access (lib/auth client-access-going.ts: revoked, its client or the
 * seller's login disabled, its code or refresh token replayed, expired): the handlers its client
 * made, in the transaction deleting it, as deleteEventHandler deletes one, so a stock cia handler's
 * names leave the items by the same rule (forgetStockTargetsOf). The foreign key's cascade would
 * delete them too, but nothing could then take their names out of the items. Every handler goes
 * before the names are weighed: a target_name two of them carry leaves with both.
 */
async function deleteHandlersOfClientAccesses(trx: Knex.Transaction, clientAccessIds: number[]): Promise<void> {
  const rows = await eventHandlerRepository.deleteOfClientAccesses(trx, clientAccessIds);
  for (const row of rows) await forgetStockTargetsOf(trx, row);
}

/**
 * What a restricted client access changes (lib/auth client-access-going.ts; document 1,
 * Authentication 5: the seller may "restrict active client accesses"), in the transaction
 * narrowing it: the handlers its client made that need a right it no longer holds go, as
 * deleteEventHandler deletes one (a stock cia handler's names leave the items), and those made for
 * all portal accounts are bound to the one the access is bound to now (event-handler-scopes.ts
 * narrowedHandlers decides). Before, they kept the rights checked at their creation: an order_flag
 * handler went on cancelling the orders of a portal account no longer granted.
 */
async function narrowHandlersOfClientAccess(trx: Knex.Transaction, access: NarrowedClientAccess): Promise<void> {
  const handlers = await eventHandlerRepository.lockedOfClientAccess(trx, access.accountId, access.clientAccessId);
  const { remove, bind } = narrowedHandlers(handlers, access);
  for (const row of await eventHandlerRepository.deleteMany(trx, access.accountId, remove)) await forgetStockTargetsOf(trx, row);
  if (access.portalAccountId !== null) await eventHandlerRepository.bind(trx, access.accountId, bind, access.portalAccountId);
}

/** Gives lib/auth what goes with a client access (deleted) and what follows its restriction: call once at a process's start. */
export function provideClientAccessHandlers(): void {
  provideClientAccessGoing({ going: deleteHandlersOfClientAccesses, narrowed: narrowHandlersOfClientAccess });
}
