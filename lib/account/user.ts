import { isDeepStrictEqual } from 'node:util';
import type { Caller } from '../access';
import { Joi, characters, readOnly, validate } from '../http';
import type { Warning } from '../errors';
import { transaction } from '../db';
import { invalidField, notFound } from '../errors';
import { accountRepository, AccountRow } from './account.repository';

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
 * The API account as the token may see it: email needs email_r, address account_address_r,
 * is_banking_active the bank scope. A field left out for lack of a scope gets a warning.
 */
function toApi(row: AccountRow, caller: Caller, warnings: Warning[]) {
  const user: Record<string, unknown> = {
    id: row.id,
    scope: [...caller.scopes],
    created: row.created_at.toISOString().slice(0, 10),
    settings: row.settings,
  };
  const guarded: [string, 'email_r' | 'account_address_r' | 'bank_r', unknown][] = [
    ['is_banking_active', 'bank_r', row.is_banking_active],
    ['email', 'email_r', row.email ?? ''],
    ['address', 'account_address_r', row.address ?? {}],
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
 * settings.invoice is the seller on every invoice (IBAN and BIC buyers pay to, VAT id, contact;
 * lib/invoice). Document 2 makes settings free for clients, but a client with admin_w, even one
 * bound to one portal account, must not put its own IBAN on the invoices of all of them: only the
 * seller's own tokens change it. A client may send it back unchanged (read, add its key, write).
 */
function checkSellerOnly(caller: Caller, stored: Record<string, unknown>, sent: Record<string, unknown>): void {
  if (caller.oauthClientId === null || !('invoice' in sent) || isDeepStrictEqual(sent.invoice, stored.invoice)) return;
  throw invalidField(
    'user.settings.invoice',
    "settings.invoice is the seller's identity on its invoices (IBAN, BIC, tax ids): only the seller's own login changes it; keep the client's settings under another key",
  );
}

/**
 * The most settings may hold, as UTF-8 JSON text. Document 2 calls settings "free client settings"
 * and gives no size: Kontor's bound. Sent keys are merged into the stored ones, so without one
 * every POST of up to the body limit (10 MiB) added to one account row that GET admin/user/ answers
 * whole, until PostgreSQL's jsonb limit (256 MiB) refused the write.
 */
export const settingsMaxBytes = 65536;

/** POST admin/user/: settings is a free object for clients (but invoice); sent keys replace the stored ones. */
export async function updateUser(caller: Caller, update: UserUpdate): Promise<void> {
  if (!update.settings) return;
  await transaction(async (trx) => {
    const row = await trx('account').where({ id: caller.accountId }).forUpdate().first();
    if (!row) throw notFound('account');
    checkSellerOnly(caller, row.settings, update.settings!);
    const settings = { ...row.settings, ...update.settings };
    const bytes = Buffer.byteLength(JSON.stringify(settings));
    // An account already past the bound (stored before it) may still shrink its settings.
    if (bytes > settingsMaxBytes && bytes > Buffer.byteLength(JSON.stringify(row.settings)))
      throw invalidField('user.settings', `settings may hold at most ${settingsMaxBytes} bytes as JSON; with the keys sent they would hold ${bytes}`);
    await accountRepository.updateSettings(trx, caller.accountId, settings);
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
