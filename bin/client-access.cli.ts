/**
 * The kontor subcommands of client accesses (bin/cli.ts dispatches to them), for support acting
 * for a seller, as GET admin/client_access/ and DELETE admin/client_access/{id}/ do:
 *   kontor client-access list --login L
 *   kontor client-access revoke --login L --id N
 */
import { listClientAccesses, revokeClientAccess } from '../lib/auth';
import { accountOf, AdminCommandError, explain, read } from './admin.cli';

export const clientAccessUsage = ['kontor client-access list --login L', 'kontor client-access revoke --login L --id N'];

/** Runs a client-access subcommand; undefined when the command is not one of them. */
export async function runClientAccessCommand(command: string | undefined, sub: string | undefined, rest: string[]): Promise<unknown> {
  if (command !== 'client-access') return undefined;
  if (sub === 'list') {
    const v = read(rest, ['login'], []);
    return { client_access: await listClientAccesses({ accountId: await accountOf(String(v.login)), oauthClientId: null }) };
  }
  if (sub === 'revoke') {
    const v = read(rest, ['login', 'id'], []);
    const id = Number(v.id);
    if (!Number.isSafeInteger(id) || id < 1 || id > 2147483647)
      throw new AdminCommandError('--id must be the id of a client access (see kontor client-access list)');
    const accountId = await accountOf(String(v.login));
    await explain(() => revokeClientAccess({ accountId, oauthClientId: null }, id));
    return { revoked: id };
  }
  return undefined;
}
