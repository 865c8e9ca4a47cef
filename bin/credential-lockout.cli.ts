/**
 * The kontor subcommands for a leaked credential (bin/cli.ts dispatches to them; the rules in
 * lib/auth/credential-lockout.service.ts):
 *   kontor client disable --client-id C     its tokens, refresh tokens and client accesses revoked, its secret refused
 *   kontor client enable --client-id C      a new secret, shown once (also rotates an enabled client's secret)
 *   kontor user disable --login L           the login refused, every token of the account revoked
 *   kontor user password --login L --password-stdin   a new password (enables a disabled login), the seller's own tokens revoked
 */
import { disableClient, disableLogin, enableClient, setPassword } from '../lib/auth';
import { AdminCommandError, read } from './admin.cli';
import { secretFromStdin } from './stdin-secret';

export const credentialLockoutUsage = [
  'kontor client disable --client-id C',
  'kontor client enable --client-id C',
  'kontor user disable --login L',
  'kontor user password --login L --password-stdin',
];

/** Runs one of these subcommands; undefined when the command is not one of them. */
export async function runCredentialLockoutCommand(command: string | undefined, sub: string | undefined, rest: string[]): Promise<unknown> {
  if (command === 'client' && sub === 'disable') return disableClient(String(read(rest, ['client-id'], [])['client-id']));
  if (command === 'client' && sub === 'enable') return enableClient(String(read(rest, ['client-id'], [])['client-id']));
  if (command === 'user' && sub === 'disable') return disableLogin(String(read(rest, ['login'], []).login));
  if (command === 'user' && sub === 'password') {
    // Only on standard input: a password given as an option shows in the process list.
    const v = read(rest, ['login'], [], ['password-stdin']);
    if (!v['password-stdin']) throw new AdminCommandError('--password-stdin is required: the new password is read from standard input');
    const password = await secretFromStdin();
    if (password.length < 8 || password.length > 200) throw new AdminCommandError('--password-stdin: the password must be 8 to 200 characters');
    return setPassword(String(v.login), password);
  }
  return undefined;
}
