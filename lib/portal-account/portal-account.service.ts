import { grantReaches, OrderScope } from '../access';
import { listening, onChange } from '../db';
import { DomainError, ErrorItem, invalidField, notFound } from '../errors';
import type { PortalAccountMention } from '../http';
import { portalAccountRepository, PortalAccountRow } from './portal-account.repository';

export type PortalAccountRef = number | 'default';

/** Admin_portal_account_type. */
export function portalAccountToApi(row: PortalAccountRow) {
  return { id: row.id, is_default: row.is_default, name: row.name };
}

/** Finds an account's portal account by id or the word default; 404 when absent or foreign. */
export async function getPortalAccount(accountId: number, ref: PortalAccountRef): Promise<PortalAccountRow> {
  const row = ref === 'default' ? await portalAccountRepository.getDefault(accountId) : await portalAccountRepository.get(accountId, ref);
  if (!row) throw notFound(`portal account ${ref}`, 'portal_account_id');
  return row;
}

/**
 * The portal accounts an access sees (GET admin/portal_account/), each with is_default as document
 * 2 gives it: "the default account of the access". Seller tokens and clients granted all: every
 * one, the seller's default marked. A client bound to one portal account (document 1,
 * Authentication 5): that one alone, as its default, since its requests work in it and naming
 * another is refused; the seller's default would be an account it cannot use.
 */
export async function portalAccountsOf(scope: OrderScope): Promise<PortalAccountRow[]> {
  const rows = await portalAccountRepository.list(scope.accountId);
  const granted = scope.portalAccountGrant;
  if (granted === 'all') return rows;
  return rows.filter((row) => row.id === granted).map((row) => ({ ...row, is_default: true }));
}

/** One portal account an access sees by id or the word default (its default: portalAccountsOf); others 404 as absent. */
export async function portalAccountOf(scope: OrderScope, ref: PortalAccountRef): Promise<PortalAccountRow> {
  const granted = scope.portalAccountGrant;
  if (granted === 'all') return getPortalAccount(scope.accountId, ref);
  const row = ref === 'default' || ref === granted ? await portalAccountRepository.get(scope.accountId, granted) : undefined;
  if (!row) throw notFound(`portal account ${ref}`, 'portal_account_id');
  return { ...row, is_default: true };
}

/*
 * A request without portal_account_id works with the token's portal account, else the seller's
 * default: kept in memory per seller while the process hears change notices (a trigger announces
 * every change of a seller's portal accounts, lib/db/change-notices.ts), so requests do not read it.
 */
const defaults = new Map<number, number | null>();
const defaultsSize = 10000;
let portalNotices = 0;

onChange('portal_account', (accountId) => {
  portalNotices += 1;
  if (accountId === null) defaults.clear();
  else defaults.delete(Number(accountId));
});

async function defaultPortalAccountId(accountId: number): Promise<number | null> {
  const known = defaults.get(accountId);
  if (known !== undefined && listening()) return known;
  const notices = portalNotices;
  const id = (await portalAccountRepository.getDefault(accountId))?.id ?? null;
  if (listening() && notices === portalNotices) {
    if (defaults.size >= defaultsSize) defaults.clear();
    defaults.set(accountId, id);
  }
  return id;
}

/**
 * The portal account a request works with (document 1: every request accepts portal_account_id,
 * overriding the default). `granted` is the portal account the token's authorization is bound to
 * (null: all): such a token works in it only, and naming another is refused like a foreign one
 * (document 1, Authentication 5). An unknown or foreign one is a 400 naming the field.
 */
export async function resolveRequestPortalAccount(accountId: number, ref: PortalAccountRef | undefined, granted: number | null): Promise<number | null> {
  // The word default is the access's default (portalAccountsOf): for a bound token its own.
  if (ref === undefined || (ref === 'default' && granted !== null)) return granted ?? (await defaultPortalAccountId(accountId));
  const row = ref === 'default' ? await portalAccountRepository.getDefault(accountId) : await portalAccountRepository.get(accountId, ref);
  if (!row || (granted !== null && row.id !== granted)) {
    // A bound token is told the same of every id but its own: the answer must not tell it which
    // ids are the seller's other portal accounts and which are none (another seller's or unused).
    const why = granted === null ? 'is not a portal account of this account' : notCovered(granted);
    throw invalidField('portal_account_id', `portal_account_id ${ref} ${why}`, 'unknown_portal_account');
  }
  return row.id;
}

/**
 * Every portal account id a request names must be one of the seller's (else a 400 naming each
 * such field) and reached by the caller's grant (lib/access grantReaches; else a 403
 * portal_account_not_granted naming each field). Seller tokens and cross-account clients reach
 * all of the seller's portal accounts. One query for all of them.
 */
export async function checkMentionedPortalAccounts(scope: OrderScope, mentions: PortalAccountMention[]): Promise<void> {
  const [refusal] = await mentionRefusals(scope, [mentions]);
  if (refusal) throw refusal;
}

/**
 * The refusal of each list of mentions (undefined where every id is fine), in one query for all
 * of them: POST stock/list/ checks each item's fields, and an item naming a portal account it may
 * not fails alone. For the seller's tokens and clients granted all, a list naming another
 * seller's (or no) portal account is a 400; for a client bound to one portal account, a list
 * naming any other id is a 403, the same whether the id is the seller's or not; each names its fields.
 */
export async function mentionRefusals(scope: OrderScope, lists: PortalAccountMention[][]): Promise<(DomainError | undefined)[]> {
  const ids = [...new Set(lists.flat().map((m) => m.id))];
  if (ids.length === 0) return lists.map(() => undefined);
  const own = await portalAccountRepository.ownIds(scope.accountId, ids);
  const granted = scope.portalAccountGrant;
  return lists.map((mentions) => {
    const foreign = mentions
      .filter((m) => !own.has(m.id) && granted === 'all')
      .map((m): ErrorItem => ({
        error: 'unknown_portal_account',
        description: `${m.field} ${m.id} is not a portal account of this account`,
        code: 400,
        field: m.field,
      }));
    // A bound grant is answered alike for the seller's other portal accounts and for ids that are
    // none of the seller's (another seller's, or unused): a 400 for the one and a 403 for the
    // other told it which ids the seller has.
    const outside = mentions
      .filter((m) => !grantReaches(scope, m.id))
      .map((m): ErrorItem => ({
        error: 'portal_account_not_granted',
        description: `${m.field} ${m.id} ${notCovered(granted)}`,
        code: 403,
        field: m.field,
      }));
    const [first, ...more] = foreign.length ? foreign : outside;
    if (!first) return undefined;
    return foreign.length
      ? new DomainError(first.error, first.description, { field: first.field, as: 'invalid', more })
      : new DomainError(first.error, first.description, { field: first.field, more });
  });
}

/** What a token bound to `granted` is told of any portal account id but its own (the same for all). */
const notCovered = (granted: number | 'all'): string => `is not covered by the authorization of this token (it is bound to portal account ${String(granted)})`;

/**
 * The portal account a body field names, else the request's: a 400 naming the field when it is
 * none of this account's (a body's portal_account_id, as in stock/category/ and
 * stock/shop_parameter/).
 */
export async function ownPortalAccountId(accountId: number, named: number | undefined, requestPortalAccountId: number | null, field: string): Promise<number> {
  const portalAccountId = named ?? requestPortalAccountId;
  if (portalAccountId === null || !(await portalAccountRepository.get(accountId, portalAccountId))) {
    throw invalidField(field, `${field} is not a portal account of this account`);
  }
  return portalAccountId;
}
