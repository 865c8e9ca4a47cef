/**
 * kontor: provisioning for support and operators.
 *   kontor migrate
 *   kontor user create --login L --password-stdin   (the password on standard input; --password P still works but shows in `ps`)
 *   kontor client create --name N --redirect-uri U
 *   kontor person create | shipping-group create | portal-account create (see bin/admin.cli.ts)
 *   kontor bank import | payment-provider connect (see bin/bank.cli.ts)
 *   kontor client-access list | revoke (see bin/client-access.cli.ts)
 *   kontor client disable | enable, user disable | password: a leaked credential (see bin/credential-lockout.cli.ts)
 *   kontor portal-account connect (bin/admin.cli.ts) | order import (bin/order-import.cli.ts)
 *   kontor portal-account consent | take-over (bin/portal-connect.cli.ts)
 *   kontor credentials reseal: after a key rotation, every credential sealed again with CREDENTIALS_KEY (bin/credentials-reseal.ts)
 *   kontor doctor: what the configuration leaves unsafe (config/safety.ts); exit code 1 when anything
 * Prints JSON on success; a one-line error and exit code 1 otherwise. `kontor --help` prints the
 * commands, one a line, exit code 0.
 */
import { parseArgs } from 'node:util';
import Joi from 'joi';
import { config } from '../config';
import { startRefusal, unsafeSettings } from '../config/safety';
import { createSeller, LoginTakenError } from '../lib/account';
import { ClientRegistrationError, createClient, LockoutError } from '../lib/auth';
import { closeDb, CellRangeError } from '../lib/db';
import { provideClientAccessHandlers } from '../lib/event';
import { migrateDatabase } from '../lib/migrate';
import { closeRedis } from '../lib/redis';
import { AdminCommandError, adminUsage, read, runAdminCommand } from './admin.cli';
import { bankUsage, runBankCommand } from './bank.cli';
import { clientAccessUsage, runClientAccessCommand } from './client-access.cli';
import { credentialLockoutUsage, runCredentialLockoutCommand } from './credential-lockout.cli';
import { resealCredentials } from './credentials-reseal';
import { orderImportUsage, runOrderImportCommand } from './order-import.cli';
import { portalConnectUsage, runPortalConnectCommand } from './portal-connect.cli';
import { secretFromStdin } from './stdin-secret';

// lib/event's deletion of a client's handlers with its client access (lib/auth/client-access-going.ts): client-access revoke, client and user disable.
provideClientAccessHandlers();

class UsageError extends Error {}

/**
 * Every command, one a line (its continuation lines indented under it), by the thing it acts on
 * (bank, client, ..., user), for --help.
 */
const usage = () => {
  const lines = [
    'kontor migrate',
    'kontor doctor',
    'kontor user create --login L (--password-stdin | --password P)',
    'kontor client create --name N --redirect-uri U',
    'kontor credentials reseal',
    ...credentialLockoutUsage,
    ...adminUsage,
    ...bankUsage,
    ...clientAccessUsage,
    ...orderImportUsage,
    ...portalConnectUsage,
  ];
  const commands: string[][] = [];
  for (const line of lines) {
    if (line.startsWith(' ')) commands[commands.length - 1]!.push(line);
    else commands.push([line]);
  }
  const noun = (command: string[]) => command[0]!.split(' ')[1]!;
  commands.sort((a, b) => noun(a).localeCompare(noun(b)));
  return ['usage:', ...commands.flat().map((line) => `  ${line}`)].join('\n');
};

function options(args: string[], names: string[]): Record<string, string> {
  const { values, positionals } = parseArgs({
    args,
    strict: true,
    allowPositionals: true,
    options: Object.fromEntries(names.map((n) => [n, { type: 'string' as const }])),
  });
  if (positionals.length) throw new UsageError(`unexpected argument ${positionals[0]}`);
  for (const name of names) if (!values[name]) throw new UsageError(`--${name} is required`);
  return values as Record<string, string>;
}

/**
 * kontor user create: --login, and the password from standard input (--password-stdin) or, kept
 * for scripts written before it, --password (visible in the process list while it runs).
 */
async function userOptions(args: string[]): Promise<{ login: string; password: string }> {
  const { values, positionals } = parseArgs({
    args,
    strict: true,
    allowPositionals: true,
    options: { login: { type: 'string' }, password: { type: 'string' }, 'password-stdin': { type: 'boolean' } },
  });
  if (positionals.length) throw new UsageError(`unexpected argument ${positionals[0]}`);
  if (!values.login) throw new UsageError('--login is required');
  if (values['password-stdin'] && values.password !== undefined) throw new UsageError('give --password-stdin or --password, not both');
  const password = values['password-stdin'] ? await secretFromStdin() : values.password;
  if (!password) throw new UsageError('--password-stdin (or --password) is required');
  return { login: values.login, password };
}

function check(schema: Joi.Schema, value: string, name: string): void {
  const { error } = schema.validate(value);
  if (error) throw new UsageError(`--${name}: ${error.message.replace('"value" ', '')}`);
}

async function run(argv: string[]): Promise<unknown> {
  const [command, sub, ...rest] = argv;
  if (command === 'migrate') {
    if (sub !== undefined) throw new UsageError(`unexpected argument ${sub}`);
    // The Procfile's release line: like every Procfile process, no start without CREDENTIALS_KEY in production.
    const refusal = startRefusal(config(), 'release');
    if (refusal) throw new UsageError(refusal.replace(/^kontor /, ''));
    return { migrated: await migrateDatabase(config().databaseUrl) };
  }
  if (command === 'doctor') {
    if (sub !== undefined) throw new UsageError(`unexpected argument ${sub}`);
    const unsafe = unsafeSettings(config());
    // Its findings are the answer; the exit code tells a deployment script whether to go on.
    if (unsafe.length) process.exitCode = 1;
    return { mode: config().env, safe: unsafe.length === 0, unsafe };
  }
  if (command === 'user' && sub === 'create') {
    const { login = '', password = '' } = await userOptions(rest);
    check(Joi.string().pattern(/^[A-Za-z0-9._@-]{3,64}$/), login, 'login');
    check(Joi.string().min(8).max(200), password, 'password');
    await migrateDatabase(config().databaseUrl);
    return createSeller(login, password);
  }
  if (command === 'client' && sub === 'create') {
    const { name = '', 'redirect-uri': redirectUri = '' } = options(rest, ['name', 'redirect-uri']);
    check(Joi.string().min(1).max(200), name, 'name');
    check(Joi.string().uri({ scheme: ['https', 'http'] }), redirectUri, 'redirect-uri');
    await migrateDatabase(config().databaseUrl);
    return createClient(name, redirectUri);
  }
  if (command === 'credentials' && sub === 'reseal') {
    // Parsed as lib/admin's commands are (no option: an argument is refused with their message).
    read(rest, [], []);
    return resealCredentials();
  }
  const lockout = await runCredentialLockoutCommand(command, sub, rest);
  if (lockout !== undefined) return lockout;
  const admin = await runAdminCommand(command, sub, rest);
  if (admin !== undefined) return admin;
  const bank = await runBankCommand(command, sub, rest);
  if (bank !== undefined) return bank;
  const access = await runClientAccessCommand(command, sub, rest);
  if (access !== undefined) return access;
  const orderImport = await runOrderImportCommand(command, sub, rest);
  if (orderImport !== undefined) return orderImport;
  const portalConnect = await runPortalConnectCommand(command, sub, rest);
  if (portalConnect !== undefined) return portalConnect;
  // One line, as every other error (scripts read the first line): the list is `kontor --help`'s.
  throw new UsageError(
    `${command === undefined ? 'no command given' : `unknown command: ${[command, sub].filter(Boolean).join(' ')}`} (kontor --help lists the commands)`,
  );
}

const args = process.argv.slice(2);

if (args[0] === 'help' || args.includes('--help') || args.includes('-h')) {
  // Asked for: the list on standard output, exit code 0.
  process.stdout.write(`${usage()}\n`);
} else {
  runCommand();
}

function runCommand(): void {
  run(args)
    .then((result) => {
      process.stdout.write(`${JSON.stringify(result)}\n`);
      process.exitCode ??= 0;
    })
    .catch((err: Error) => {
      const known =
        err instanceof UsageError ||
        err instanceof AdminCommandError ||
        err instanceof LoginTakenError ||
        err instanceof ClientRegistrationError ||
        err instanceof LockoutError ||
        err instanceof CellRangeError ||
        (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
      process.stderr.write(`kontor: ${known ? err.message : `failed: ${err.message}`}\n`);
      process.exitCode = 1;
    })
    // A revocation is published on Redis: its connection must close for the process to end.
    .finally(() => Promise.all([closeDb(), closeRedis()]));
}
