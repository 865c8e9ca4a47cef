/**
 * The kontor subcommands of the bank domain (bin/cli.ts dispatches to them):
 *   kontor bank import --login L FILE   (a CAMT.053 or MT940 statement, as POST bank/statement/)
 *   kontor payment-provider connect --login L --name N --client-id ID (--client-secret-stdin | --client-secret S) [--base-url U]
 *     (--client-secret-stdin: the secret on standard input, so it is in neither `ps` nor the shell's
 *     history; --client-secret still works for older scripts)
 */
import { readFile } from 'node:fs/promises';
import { allOrdersOf } from '../lib/access';
import { connectProvider, importStatement } from '../lib/bank';
import { accountOf, AdminCommandError, explain, read } from './admin.cli';
import { secretFromStdin } from './stdin-secret';

export const bankUsage = [
  'kontor bank import --login L FILE',
  'kontor payment-provider connect --login L --name N --client-id ID (--client-secret-stdin | --client-secret S) [--base-url U]',
];

/** Runs a bank subcommand; undefined when the command is not one of them. */
export async function runBankCommand(command: string | undefined, sub: string | undefined, rest: string[]): Promise<unknown> {
  if (command === 'bank' && sub === 'import') {
    const v = read(rest, ['login'], [], [], ['FILE']);
    const accountId = await accountOf(String(v.login));
    let bytes: Buffer;
    try {
      bytes = await readFile(String(v.FILE));
    } catch (err) {
      throw new AdminCommandError(`FILE: ${(err as Error).message}`);
    }
    // What POST bank/statement/ answers: the counts as statement, and the matching's job_id when one was queued.
    return explain(async () => {
      const { jobId, ...statement } = await importStatement(allOrdersOf(accountId), bytes);
      return jobId ? { statement, job_id: jobId } : { statement };
    });
  }
  if (command === 'payment-provider' && sub === 'connect') {
    const v = read(rest, ['login', 'name', 'client-id'], ['client-secret', 'base-url'], ['client-secret-stdin']);
    if (v['client-secret-stdin'] && v['client-secret'] !== undefined) throw new AdminCommandError('give --client-secret-stdin or --client-secret, not both');
    const secret = v['client-secret-stdin'] ? await secretFromStdin() : v['client-secret'];
    if (!secret) throw new AdminCommandError('--client-secret-stdin (or --client-secret) is required');
    const accountId = await accountOf(String(v.login));
    return explain(() =>
      connectProvider(accountId, {
        name: String(v.name),
        clientId: String(v['client-id']),
        clientSecret: String(secret),
        ...(v['base-url'] !== undefined ? { baseUrl: String(v['base-url']) } : {}),
      }),
    );
  }
  return undefined;
}
