/**
 * The kontor subcommands support uses to set up a seller (bin/cli.ts dispatches to them):
 *   kontor person create --login L --name N
 *   kontor shipping-group create --login L --name N [--portal-account-id ID] [--type-id N]
 *       [--price-first X] [--price-more X] [--cash-surcharge X] [--currency EUR]
 *       [--ships-to germany,eu,...] [--eu-more AT;BE] [--europe-more CH] [--worldwide-more US]
 *   kontor portal-account create --login L --name N [--platform P] [--default]
 *   kontor portal-account connect --login L --portal-account ID --connector ebay|amazon_sp|kaufland|shopify|json [--base-url U]
 *       [--client-id X --client-secret S --refresh-token T --seller-id X --marketplace-id X]
 *       [--client-key K --secret-key S --storefront de] [--shop-domain S.myshopify.com --access-token T] [--credentials-stdin]
 *     (--credentials-stdin: the credentials as one JSON object on standard input, keys client_id,
 *     client_secret, refresh_token, seller_id, marketplace_id, client_key, secret_key, storefront,
 *     shop_domain, access_token,
 *     so no secret lands in the shell's history)
 *   kontor user address --login L --name N [--name-2 --street --street-2 --zip --city --province --country --country-iso2]
 *     (the seller's company address, Admin_user_type address: read only in the API, shown on invoices)
 * (kontor bank import and payment-provider connect: bank.cli.ts; kontor credentials reseal:
 * credentials-reseal.ts.) Here in bin/, not in lib/admin, with the other subcommands: a CLI file in
 * an entry made every process that imports the domain load it, and what it imports.
 */
import { parseArgs } from 'node:util';
import { accountRepository, setAccountAddress } from '../lib/account';
import { connectPortalAccount, createPerson, createPortalAccount, createShippingGroup } from '../lib/admin';
import { DomainError } from '../lib/errors';

/** A bad argument: printed as one line, exit code 1. */
export class AdminCommandError extends Error {}

export const adminUsage = [
  'kontor person create --login L --name N',
  'kontor shipping-group create --login L --name N [--portal-account-id ID] [--type-id N] [--price-first X] [--price-more X]',
  '    [--cash-surcharge X] [--currency EUR] [--ships-to germany,eu,...] [--eu-more AT;BE] [--europe-more CH] [--worldwide-more US]',
  'kontor portal-account create --login L --name N [--platform P] [--default]',
  'kontor portal-account connect --login L --portal-account ID --connector ebay|amazon_sp|kaufland|shopify|json [--base-url U]',
  '    [--client-id X --client-secret S --refresh-token T --seller-id X --marketplace-id X | --client-key K --secret-key S --storefront de',
  '    | --shop-domain S.myshopify.com --access-token T | --credentials-stdin]',
  'kontor user address --login L --name N [--street S --zip Z --city C --country-iso2 DE ...]',
];

const credentialOptions = [
  'client-id',
  'client-secret',
  'refresh-token',
  'seller-id',
  'marketplace-id',
  'client-key',
  'secret-key',
  'storefront',
  'shop-domain',
  'access-token',
];

/** Standard input as one JSON object of strings (--credentials-stdin). */
async function stdinCredentials(): Promise<Record<string, string>> {
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new AdminCommandError('--credentials-stdin: standard input is not a JSON object');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed) || Object.values(parsed).some((v) => typeof v !== 'string')) {
    throw new AdminCommandError('--credentials-stdin: standard input must be a JSON object of strings');
  }
  const unknown = Object.keys(parsed).filter((k) => !credentialOptions.includes(k.replace(/_/g, '-')));
  if (unknown.length) throw new AdminCommandError(`--credentials-stdin: unknown key ${unknown[0]}`);
  return parsed as Record<string, string>;
}

async function connectCommand(rest: string[]): Promise<unknown> {
  const v = read(rest, ['login', 'portal-account', 'connector'], ['base-url', ...credentialOptions], ['credentials-stdin']);
  const accountId = await accountOf(String(v.login));
  const portalAccountId = Number(v['portal-account']);
  if (!/^\d{1,10}$/.test(String(v['portal-account'])) || portalAccountId < 1 || portalAccountId > 2147483647)
    throw new AdminCommandError('--portal-account must be a portal account id');
  const credentials: Record<string, string> = v['credentials-stdin'] === true ? await stdinCredentials() : {};
  for (const name of credentialOptions) if (typeof v[name] === 'string') credentials[name.replace(/-/g, '_')] = v[name];
  return explain(() =>
    connectPortalAccount(accountId, {
      portalAccountId,
      connector: String(v.connector),
      ...(v['base-url'] !== undefined ? { baseUrl: String(v['base-url']) } : {}),
      credentials,
    }),
  );
}

/** Options, and the positional arguments when `positionals` names them (all required). */
export function read(
  args: string[],
  required: string[],
  optional: string[],
  flags: string[] = [],
  positionals: string[] = [],
): Record<string, string | boolean | undefined> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      strict: true,
      allowPositionals: true,
      options: {
        ...Object.fromEntries([...required, ...optional].map((n) => [n, { type: 'string' as const }])),
        ...Object.fromEntries(flags.map((n) => [n, { type: 'boolean' as const }])),
      },
    });
  } catch (err) {
    throw new AdminCommandError((err as Error).message);
  }
  if (parsed.positionals.length > positionals.length) throw new AdminCommandError(`unexpected argument ${parsed.positionals[positionals.length]}`);
  for (const name of required) if (!parsed.values[name]) throw new AdminCommandError(`--${name} is required`);
  positionals.forEach((name, i) => {
    if (parsed.positionals[i] === undefined) throw new AdminCommandError(`${name} is required`);
  });
  return { ...parsed.values, ...Object.fromEntries(positionals.map((name, i) => [name, parsed.positionals[i]])) };
}

export async function accountOf(login: string): Promise<number> {
  const account = await accountRepository.findByLogin(login);
  if (!account) throw new AdminCommandError(`--login: no seller account ${login}`);
  return account.id;
}

/** A validation failure of the service becomes a one-line message naming the option. */
export async function explain<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof DomainError)
      throw new AdminCommandError(
        err
          .items()
          .map((i) => i.description)
          .join('; '),
      );
    throw err;
  }
}

/** Runs an admin subcommand; undefined when the command is not one of them. */
export async function runAdminCommand(command: string | undefined, sub: string | undefined, rest: string[]): Promise<unknown> {
  if (command === 'person' && sub === 'create') {
    const v = read(rest, ['login', 'name'], []);
    const accountId = await accountOf(String(v.login));
    return explain(() => createPerson(accountId, String(v.name)));
  }
  if (command === 'shipping-group' && sub === 'create') {
    const v = read(
      rest,
      ['login', 'name'],
      ['portal-account-id', 'type-id', 'price-first', 'price-more', 'cash-surcharge', 'currency', 'ships-to', 'eu-more', 'europe-more', 'worldwide-more'],
    );
    const accountId = await accountOf(String(v.login));
    const shipsTo: Record<string, unknown> = {};
    for (const flag of String(v['ships-to'] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean))
      shipsTo[flag] = true;
    for (const more of ['eu', 'europe', 'worldwide']) if (v[`${more}-more`] !== undefined) shipsTo[`${more}_more`] = v[`${more}-more`];
    const price: Record<string, unknown> = {};
    if (v['price-first'] !== undefined) price.first = v['price-first'];
    if (v['price-more'] !== undefined) price.more = v['price-more'];
    const input: Record<string, unknown> = { name: v.name, ships_to: shipsTo, price };
    if (v['portal-account-id'] !== undefined) input.portal_account_id = v['portal-account-id'];
    if (v['type-id'] !== undefined) input.type_id = v['type-id'];
    if (v['cash-surcharge'] !== undefined) input.cash_surcharge = v['cash-surcharge'];
    if (v.currency !== undefined) input.currency = v.currency;
    return explain(() => createShippingGroup(accountId, input));
  }
  if (command === 'portal-account' && sub === 'connect') return connectCommand(rest);
  if (command === 'user' && sub === 'address') {
    const fields = ['name-2', 'street', 'street-2', 'zip', 'city', 'province', 'country', 'country-iso2'];
    const v = read(rest, ['login', 'name'], fields);
    const accountId = await accountOf(String(v.login));
    const address = Object.fromEntries(
      ['name', ...fields].filter((f) => typeof v[f] === 'string').map((f) => [f.replace(/-(\w)/, (_, c: string) => `_${c}`), String(v[f])]),
    );
    return explain(() => setAccountAddress(accountId, address));
  }
  if (command === 'portal-account' && sub === 'create') {
    const v = read(rest, ['login', 'name'], ['platform'], ['default']);
    const accountId = await accountOf(String(v.login));
    return explain(() =>
      createPortalAccount(accountId, {
        name: String(v.name),
        is_default: v.default === true,
        ...(v.platform !== undefined ? { platform: String(v.platform) } : {}),
      }),
    );
  }
  return undefined;
}
