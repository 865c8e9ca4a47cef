/**
 * Issue 31, finding 7 (sealed credentials not bound to their row) and finding 1 (a published key
 * in production): a portal account's sealed credentials open only for that row; values sealed in
 * the earlier format still open and the migration binds them; without CREDENTIALS_KEY in
 * production nothing is sealed with a built-in key.
 */
import { expect } from 'chai';
import { config, loadConfig, setConfig } from '../../config';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { connectPortalAccount } from '../../lib/admin/portal-account-connect.service';
import { db } from '../../lib/db/knex';
import * as boundMigration from '../../lib/db/migrations/20261126_0600_credentials_bound_to_row';
import { portalTargetRepository } from '../../lib/portal-account/portal-target.repository';
import { providerAccountRepository } from '../../lib/bank/provider/provider-account.repository';
import { CredentialsError, openCredentials, sealCredentials } from '../../lib/secret/credentials';
import { newSeller } from '../support/api';

const sealedOf = async (id: number) => ((await db()('portal_account').where({ id }).first('credentials')) as { credentials: string | null }).credentials;

async function jsonAccount(sellerId: number, name: string): Promise<number> {
  const { id } = await createPortalAccount(sellerId, { name, platform: 'shop_g' });
  return id;
}

describe('credentials bound to their row (issue 31)', () => {
  it("when a sealed value is copied into another seller's portal account, then it does not open there", async () => {
    const victim = await newSeller();
    const attacker = await newSeller();
    const source = await jsonAccount(victim.id, 'Victim shop');
    const target = await jsonAccount(attacker.id, 'Attacker shop');
    await connectPortalAccount(victim.id, {
      portalAccountId: source,
      connector: 'json',
      baseUrl: 'https://shop.example.com',
      credentials: { client_id: 'c', client_secret: 'victim-secret' },
    });
    await connectPortalAccount(attacker.id, {
      portalAccountId: target,
      connector: 'json',
      baseUrl: 'https://evil.example.com',
      credentials: { client_id: 'x', client_secret: 'y' },
    });
    const sealed = await sealedOf(source);
    expect(sealed).to.match(/^kc2\./);
    await db()('portal_account').where({ id: target }).update({ credentials: sealed });
    portalTargetRepository.forget(attacker.id, target);
    let error: unknown;
    try {
      await portalTargetRepository.target(db(), attacker.id, target);
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(CredentialsError);
    expect(String((error as Error).message)).to.not.contain('victim-secret');
    // A row that cannot open would stop the suite's later reseal and migration runs over every row.
    await db()('portal_account').where({ id: target }).update({ credentials: null });
    portalTargetRepository.forget(victim.id, source);
    expect((await portalTargetRepository.target(db(), victim.id, source))!.credentials).to.deep.equal({ client_id: 'c', client_secret: 'victim-secret' });
  });

  it("when a payment provider account's sealed value is copied into another row, then it does not open there; in its own row it does", async () => {
    const victim = await newSeller();
    const attacker = await newSeller();
    const account = (accountId: number, secret: string) =>
      providerAccountRepository.insert(accountId, {
        name: 'PayPal',
        provider: 'paypal',
        base_url: 'https://api-m.paypal.com',
        credentials: { client_id: 'c', client_secret: secret },
      });
    const source = await account(victim.id, 'victim-secret');
    const target = await account(attacker.id, 'other');
    const sealed = ((await db()('payment_provider_account').where({ id: source }).first('credentials')) as { credentials: string }).credentials;
    expect(sealed).to.match(/^kc2\./);
    expect(openCredentials('payment_provider_account', sealed, source)).to.deep.equal({ client_id: 'c', client_secret: 'victim-secret' });
    expect(() => openCredentials('payment_provider_account', sealed, target)).to.throw(CredentialsError);
  });

  it('when a value was sealed in the earlier format (table only), then it still opens, and the migration binds it to its row', async () => {
    const seller = await newSeller();
    const id = await jsonAccount(seller.id, 'Old shop');
    await db()('portal_account')
      .where({ id })
      .update({ connector: 'json', credentials: sealCredentials('portal_account', { client_id: 'old', client_secret: 'kept' }) });
    expect(await sealedOf(id)).to.match(/^kc1\./);
    portalTargetRepository.forget(seller.id, id);
    expect((await portalTargetRepository.target(db(), seller.id, id))!.credentials).to.deep.equal({ client_id: 'old', client_secret: 'kept' });
    await boundMigration.up(db());
    expect(await sealedOf(id)).to.match(/^kc2\./);
    portalTargetRepository.forget(seller.id, id);
    expect((await portalTargetRepository.target(db(), seller.id, id))!.credentials).to.deep.equal({ client_id: 'old', client_secret: 'kept' });
  });

  it('when production runs without CREDENTIALS_KEY, then nothing is sealed, with a message naming CREDENTIALS_KEY', () => {
    const original = config();
    setConfig({ ...loadConfig({ NODE_ENV: 'production', DATABASE_URL: original.databaseUrl }) });
    try {
      expect(() => sealCredentials('portal_account', { client_secret: 's' }, 1)).to.throw(CredentialsError, 'CREDENTIALS_KEY');
    } finally {
      setConfig(original);
    }
  });
});
