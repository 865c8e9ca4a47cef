import type { Knex } from 'knex';
import { config } from '../../config';
import type { PortalTarget } from '../portals';
import { openCredentials } from '../secret';

const targets = new Map<string, { target: PortalTarget; until: number }>();

async function readTarget(knex: Knex, accountId: number, portalAccountId: number): Promise<PortalTarget | undefined> {
  const row = await knex('portal_account').where({ account_id: accountId, id: portalAccountId }).first('id', 'connector', 'base_url', 'credentials');
  if (!row) return undefined;
  // The one place portal credentials are opened: the target goes to an adapter and nowhere else.
  const credentials = openCredentials('portal_account', row.credentials, row.id);
  return {
    portalAccountId: row.id,
    ...(row.connector ? { connector: row.connector } : {}),
    baseUrl: row.base_url || config().unconnectedPortalUrl || '',
    credentials,
  };
}

/** What portal calls read of a portal account: the account as a target (lib/portals' adapters take it); scoped by account. */
export const portalTargetRepository = {
  /**
   * The portal account's base URL (when it has none, config's unconnectedPortalUrl: the sandbox
   * outside production, else empty: not connected) and credentials; kept 5 s per
   * process, as every quantity push asks for it.
   */
  async target(knex: Knex, accountId: number, portalAccountId: number): Promise<PortalTarget | undefined> {
    const key = `${accountId}:${portalAccountId}`;
    const cached = targets.get(key);
    if (cached && cached.until > Date.now()) return cached.target;
    const target = await readTarget(knex, accountId, portalAccountId);
    if (target) targets.set(key, { target, until: Date.now() + 5000 });
    if (targets.size > 10000) targets.clear();
    return target;
  },

  /** Drops this process's copy of a portal account's target (its connection changed). */
  forget(accountId: number, portalAccountId: number): void {
    targets.delete(`${accountId}:${portalAccountId}`);
  },
};
