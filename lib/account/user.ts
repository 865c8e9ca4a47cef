import type { Caller } from '../access';
import { isDeepStrictEqual } from 'node:util';
import { Joi, characters, keysNotWrittenAsThemselves, notWrittenAsItself, readOnly, validate } from '../http';
import type { Warning } from '../errors';
import { transaction } from '../db';
import { domainError, invalidField, notFound } from '../errors';
import type { ErrorItem } from '../errors';
import { accountRepository, AccountRow } from './account.repository';
import { settingsAfterWrite, settingsSeenBy } from './settings-owner';

export const addressType = Joi.object({
  name: Joi.string().allow(''),
  name_2: Joi.string().allow(''),
  street: Joi.string().allow(''),
  street_2: Joi.string().allow(''),
  zip: Joi.string().allow(''),
  city: Joi.string().allow(''),
  province: Joi.string().allow(''),
  country: Joi.string().allow(''),
  country_iso2: Joi.string().length(2).allow(''),
});

/** Admin_user_type: only settings is writable. */
export const userType = Joi.object({
  id: readOnly(Joi.number().integer()),
  scope: readOnly(Joi.array().items(Joi.string())),
  created: readOnly(Joi.string()),
  is_banking_active: readOnly(Joi.boolean()),
  settings: Joi.object().unknown(true),
  email: readOnly(Joi.string()),
  address: readOnly(addressType),
});

export interface UserUpdate {
  settings?: Record<string, unknown>;
}

/**
 * Order_address_type with each of its nine fields, '' where support gave none (as email is
 * answered ''). The address was answered as support stored it, {} for an account without one, so
 * a client found fields document 2 lists (name, name_2, street ... country_iso2) missing.
 */
function addressToApi(address: Record<string, string> | null): Record<string, string> {
  return Object.fromEntries(Object.keys(addressType.describe().keys as object).map((field) => [field, address?.[field] ?? '']));
}

/**
 * The API account as the token may see it: email needs email_r, address account_address_r,
 * is_banking_active the bank scope (true while a payment provider is connected: README). A field
 * left out for lack of a scope gets a warning.
 */
function toApi(row: AccountRow, caller: Caller, warnings: Warning[]) {
  const user: Record<string, unknown> = {
    id: row.id,
    scope: [...caller.scopes],
    created: row.created_at.toISOString().slice(0, 10),
    settings: settingsSeenBy(row.settings, row.settings_owner, caller.oauthClientId),
  };
  const guarded: [string, 'email_r' | 'account_address_r' | 'bank_r', unknown][] = [
    ['is_banking_active', 'bank_r', row.is_banking_active],
    ['email', 'email_r', row.email ?? ''],
    ['address', 'account_address_r', addressToApi(row.address)],
  ];
  for (const [field, scope, value] of guarded) {
    if (caller.scopes.has(scope)) user[field] = value;
    else
      warnings.push({ warning: 'field_needs_scope', description: `${field} is left out: the token lacks scope ${scope}`, code: 200, field: `user.${field}` });
  }
  return user;
}

export async function readUser(caller: Caller, warnings: Warning[]) {
  const row = await accountRepository.get(caller.accountId);
  if (!row) throw notFound('account');
  return toApi(row, caller, warnings);
}

/**
 * The most settings may hold, as UTF-8 JSON text. Document 2 calls settings "free client settings"
 * and gives no size: Kontor's bound. Sent keys are merged into the stored ones, so without one
 * every POST of up to the body limit (10 MiB) added to one account row that GET admin/user/ answers
 * whole, until PostgreSQL's jsonb limit (256 MiB) refused the write.
 */
export const settingsMaxBytes = 65536;

/**
 * Every settings key, at any depth, is an XML element name that reads back as itself
 * (lib/http xml-name.ts writesAsItself), else a 400 naming each such key and nothing is written.
 * Document 2 calls settings "free client settings", and document 1 takes and answers XML as JSON:
 * a key such as "", "a b" or "a:b" was stored, and GET admin/user/ in XML then answered `<>` (no
 * XML at all) or wrote "a b" and "a:b" as `a_b`, one replacing the other, for every XML client of
 * the account (found 2026-11-30). An entry stored before this rule and sent back unchanged is
 * taken (a client writes back what it read with its own key added, README): such keys can be
 * neither removed nor renamed by the API, and refusing them would stop that client for good.
 * Checked here and not by Joi at the edge, since "unchanged" needs the stored settings.
 */
function refuseKeysNotXmlNames(stored: Record<string, unknown>, sent: Record<string, unknown>): void {
  const refused: ErrorItem[] = Object.entries(sent)
    .filter(([key, value]) => !(Object.hasOwn(stored, key) && isDeepStrictEqual(value, stored[key])))
    .flatMap(([key, value]) => keysNotWrittenAsThemselves({ [key]: value }, 'user.settings'))
    .map(({ field, key, parent }) => ({
      error: 'invalid_field',
      description: key === '' ? `${parent} holds a key that ${notWrittenAsItself(key)}` : `${field} ${notWrittenAsItself(key)}`,
      code: 400,
      field,
    }));
  const [first, ...more] = refused;
  if (first) throw domainError('invalid_field', first.description, { field: first.field, as: 'invalid', more });
}

/**
 * POST admin/user/: the keys sent replace the stored ones, each key its writer's (settings-owner.ts:
 * a client changes neither another client's keys nor the seller's, settings.invoice included).
 */
export async function updateUser(caller: Caller, update: UserUpdate): Promise<void> {
  if (!update.settings) return;
  await transaction(async (trx) => {
    const row = await accountRepository.lockSettings(trx, caller.accountId);
    if (!row) throw notFound('account');
    refuseKeysNotXmlNames(row.settings, update.settings!);
    const { settings, owners } = settingsAfterWrite(row.settings, row.settings_owner, update.settings!, caller.oauthClientId);
    const bytes = Buffer.byteLength(JSON.stringify(settings));
    // An account already past the bound (stored before it) may still shrink its settings.
    if (bytes > settingsMaxBytes && bytes > Buffer.byteLength(JSON.stringify(row.settings)))
      throw invalidField('user.settings', `settings may hold at most ${settingsMaxBytes} bytes as JSON; with the keys sent they would hold ${bytes}`);
    await accountRepository.updateSettings(trx, caller.accountId, settings, owners);
  }, caller.requestId);
}

/**
 * The seller's company address (kontor user address): read only through the API (document 2),
 * set by support; invoices print it as the seller. A field not valid is a 400 naming it.
 */
export async function setAccountAddress(accountId: number, address: Record<string, string>): Promise<{ id: number; address: Record<string, string> }> {
  const valid = validate<Record<string, string>>(addressType.keys({ name: characters(255).trim().min(1).required() }), address, 'address');
  await accountRepository.setAddress(accountId, valid);
  return { id: accountId, address: valid };
}
