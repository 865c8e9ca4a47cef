/**
 * kontor order import --login L --portal-account ID [--since ISO-8601]: queues an order import
 * of the portal account, as POST admin/portal_account/{id}/order_import/ does; prints the job id
 * (a worker of the portal_upload process runs it; GET job/{job_id}/ follows it).
 */
import { requestOrderImport } from '../lib/order-import';
import { accountOf, AdminCommandError, explain, read } from './admin.cli';

export const orderImportUsage = ['kontor order import --login L --portal-account ID [--since ISO-8601]'];

export async function runOrderImportCommand(command: string | undefined, sub: string | undefined, rest: string[]): Promise<unknown> {
  if (command !== 'order' || sub !== 'import') return undefined;
  const v = read(rest, ['login', 'portal-account'], ['since']);
  const accountId = await accountOf(String(v.login));
  if (!/^\d{1,10}$/.test(String(v['portal-account'])) || Number(v['portal-account']) > 2147483647)
    throw new AdminCommandError('--portal-account must be a portal account id');
  let since: Date | undefined;
  if (v.since !== undefined) {
    since = new Date(String(v.since));
    if (Number.isNaN(since.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(String(v.since))) throw new AdminCommandError('--since must be an ISO 8601 date-time');
  }
  const portalAccountId = Number(v['portal-account']);
  return explain(async () => ({ job_id: await requestOrderImport({ accountId }, portalAccountId, since), portal_account_id: portalAccountId }));
}
