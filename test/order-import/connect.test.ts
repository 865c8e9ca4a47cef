import { expect } from 'chai';
import crypto from 'node:crypto';
import { config, setConfig } from '../../config';
import { resealCredentials } from '../../bin/credentials-reseal';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { connectPortalAccount } from '../../lib/admin/portal-account-connect.service';
import { providerAccountCredentialsRepository } from '../../lib/bank/provider/provider-account.repository';
import { connectProvider } from '../../lib/bank/provider/provider-account.service';
import { db } from '../../lib/db/knex';
import { queueOrderImports } from '../../lib/order-import/order-import.request';
import { queues } from '../../lib/queue/queue.registry';
import { schedules } from '../../lib/queue/schedules';
import { portalAccountCredentialsRepository } from '../../lib/portal-account/portal-account.repository';
import { portalTargetRepository } from '../../lib/portal-account/portal-target.repository';
import { openCredentials, sealCredentials } from '../../lib/secret/credentials';
import { endpoints } from '../../server/routes';
import * as orderImportMigration from '../../lib/db/migrations/20261124_0200_order_import';
import { JsonConnectorAdapter } from '../../lib/portals/json-connector.adapter';
import { adapterFor } from '../../lib/portals/portal.registry';
import { apiBase, call, newSeller, Seller } from '../support/api';
import { kontor, kontorWithInput } from '../support/cli';
import { channelOrder, jobEnd, jsonAuctionAccount, withImportWorkerAndChannel } from './support';
import type { PortalAccountRow } from '../../lib/portal-account/portal-account.repository';

const secret = 'v^1.1#i^1#r^1#SECRET-REFRESH-TOKEN-42';

async function rawRow(id: number): Promise<PortalAccountRow> {
  return (await db()('portal_account').where({ id }).first())!;
}

async function newAuctionAccount(seller: Seller): Promise<number> {
  const res = await kontor('portal-account', 'create', '--login', seller.login, '--name', 'eBay DE', '--platform', 'auction_a');
  expect(res.code, res.err).to.equal(0);
  const created = JSON.parse(res.out) as { id: number; connector: string };
  // A portal account of auction_a is reached through eBay's API unless connected otherwise.
  expect(created.connector).to.equal('ebay');
  return created.id;
}

describe('connectors: kontor portal-account connect, sealed credentials, the order_import endpoint', () => {
  const channel = withImportWorkerAndChannel();

  it('when support connects a portal account to eBay with the secrets on standard input, then they are sealed at rest and neither printed nor answered by the API', async () => {
    const seller = await newSeller();
    const id = await newAuctionAccount(seller);
    const res = await kontorWithInput(
      JSON.stringify({ client_secret: 'app-secret-9', refresh_token: secret }),
      'portal-account',
      'connect',
      '--login',
      seller.login,
      '--portal-account',
      String(id),
      '--connector',
      'ebay',
      '--client-id',
      'Kontor-App-PRD',
      '--base-url',
      channel.base,
      '--credentials-stdin',
    );
    expect(res.code, res.err).to.equal(0);
    expect(JSON.parse(res.out)).to.deep.equal({
      id,
      name: 'eBay DE',
      platform: 'auction_a',
      connector: 'ebay',
      base_url: channel.base,
      credentials: ['client_id', 'client_secret', 'refresh_token'],
    });
    expect(res.out + res.err)
      .to.not.contain(secret)
      .and.not.contain('app-secret-9');
    const row = await rawRow(id);
    expect(row.connector).to.equal('ebay');
    expect(row.credentials)
      .to.be.a('string')
      .and.match(/^kc2\.test\./);
    expect(String(row.credentials)).to.not.contain(secret).and.not.contain('app-secret-9').and.not.contain('Kontor-App-PRD');
    expect(openCredentials('portal_account', row.credentials as string, id)).to.deep.equal({
      client_id: 'Kontor-App-PRD',
      client_secret: 'app-secret-9',
      refresh_token: secret,
    });
    // What an adapter gets: the opened credentials and the connector.
    const target = await portalTargetRepository.target(db(), seller.id, id);
    expect(target).to.deep.include({ connector: 'ebay', baseUrl: channel.base });
    for (const path of ['admin/portal_account/', `admin/portal_account/${id}/`]) {
      const answer = await call(path, { token: seller.token });
      expect(answer.status).to.equal(200);
      expect(answer.text).to.not.contain(secret).and.not.contain('kc1.').and.not.contain('kc2.').and.not.contain('credentials');
    }
  });

  it('when connect misses a credential of its connector or names a connector of another channel, then it prints one line naming the option and stores nothing', async () => {
    const seller = await newSeller();
    const id = await newAuctionAccount(seller);
    const base = ['portal-account', 'connect', '--login', seller.login, '--portal-account', String(id)];
    const missing = await kontor(...base, '--connector', 'amazon_sp', '--client-id', 'a', '--client-secret', 'b', '--refresh-token', 'c');
    expect(missing.code).to.equal(1);
    expect(missing.err).to.contain('speaks to market_d');
    const noToken = await kontor(...base, '--connector', 'ebay', '--client-id', 'a', '--client-secret', 'b');
    expect(noToken.code).to.equal(1);
    expect(noToken.err).to.contain('--refresh-token is required for --connector ebay');
    expect((await rawRow(id)).credentials).to.equal(null);
  });

  it('when a payment provider account is connected, then its credentials are sealed the same way', async () => {
    const seller = await newSeller();
    const { id } = await connectProvider(seller.id, { name: 'PayPal', clientId: 'pp-client', clientSecret: 'pp-secret-7' });
    const row = (await db()('payment_provider_account').where({ id }).first()) as { credentials: string };
    expect(row.credentials)
      .to.match(/^kc2\./)
      .and.not.contain('pp-secret-7');
    expect(openCredentials('payment_provider_account', row.credentials, id)).to.deep.equal({ client_id: 'pp-client', client_secret: 'pp-secret-7' });
    // Sealed for one table and row, it does not open as another table's.
    expect(() => openCredentials('portal_account', row.credentials, id)).to.throw(/do not open/);
  });

  it('when the migration runs over plaintext credentials, then it seals them, and its down opens them again', async () => {
    const seller = await newSeller();
    // Inside a transaction that is rolled back: PostgreSQL's DDL is transactional, the schema stays as it is.
    await db()
      .transaction(async (trx) => {
        await orderImportMigration.down(trx);
        await trx('portal_account')
          .where({ id: seller.portalAccountId })
          .update({ credentials: JSON.stringify({ client_id: 'old-id', client_secret: 'old-plain-secret' }) });
        await orderImportMigration.up(trx);
        const row = (await trx('portal_account').where({ id: seller.portalAccountId }).first()) as { credentials: string; connector: string };
        expect(row.credentials)
          .to.match(/^kc1\./)
          .and.not.contain('old-plain-secret');
        expect(openCredentials('portal_account', row.credentials)).to.deep.equal({ client_id: 'old-id', client_secret: 'old-plain-secret' });
        expect(row.connector).to.equal(null);
        throw new Error('rollback');
      })
      .catch((err: Error) => {
        if (err.message !== 'rollback') throw err;
      });
    expect((await rawRow(seller.portalAccountId)).credentials).to.equal(null);
  });

  it('when the key is rotated, then credentials sealed with the old one still open, and reseal moves every one to the new key', async () => {
    const seller = await newSeller();
    const id = await jsonAuctionAccount(seller, channel);
    await connectPortalAccount(seller.id, {
      portalAccountId: id,
      connector: 'json',
      baseUrl: channel.base,
      credentials: { client_id: 'c', client_secret: 'rotate-me' },
    });
    const original = config();
    const dev = original.credentialsKey!;
    const next = { id: 'k2', key: crypto.randomBytes(32), builtIn: null };
    try {
      setConfig({ ...original, credentialsKey: next, credentialsOldKeys: new Map([[dev.id, dev.key]]) });
      portalTargetRepository.forget(seller.id, id);
      expect((await portalTargetRepository.target(db(), seller.id, id))!.credentials).to.deep.equal({ client_id: 'c', client_secret: 'rotate-me' });
      const result = await resealCredentials();
      expect(result.key_id).to.equal('k2');
      expect(result.resealed.portal_account).to.be.at.least(1);
      expect((await rawRow(id)).credentials).to.match(/^kc2\.k2\./);
      expect(await resealCredentials()).to.deep.equal({ key_id: 'k2', resealed: { portal_account: 0, payment_provider_account: 0, event_handler: 0 } });
    } finally {
      // Back to the development key for the rest of the suite.
      setConfig({ ...original, credentialsOldKeys: new Map([[next.id, next.key]]) });
      await resealCredentials();
      setConfig(original);
      portalTargetRepository.forget(seller.id, id);
    }
    expect((await rawRow(id)).credentials).to.match(/^kc2\.test\./);
  });

  it('when support runs kontor credentials reseal, then a value sealed for its table only is bound to its row, a row changed since it was read is left as it is, and an argument is refused', async () => {
    const seller = await newSeller();
    const { id } = await connectProvider(seller.id, { name: 'PayPal', clientId: 'pp-client', clientSecret: 'pp-secret-8' });
    const credentials = { client_id: 'pp-client', client_secret: 'pp-secret-8' };
    await db()('payment_provider_account')
      .where({ id })
      .update({ credentials: sealCredentials('payment_provider_account', credentials) });
    const res = await kontor('credentials', 'reseal');
    expect(res.code, res.err).to.equal(0);
    const result = JSON.parse(res.out) as { key_id: string; resealed: Record<string, number> };
    expect(result.key_id).to.equal('test');
    expect(Object.keys(result.resealed)).to.deep.equal(['portal_account', 'payment_provider_account', 'event_handler']);
    expect(result.resealed.payment_provider_account).to.be.at.least(1);
    const row = (await db()('payment_provider_account').where({ id }).first()) as { credentials: string };
    expect(row.credentials).to.match(/^kc2\.test\./);
    expect(openCredentials('payment_provider_account', row.credentials, id)).to.deep.equal(credentials);
    // The owners' guarded writes: a value other than the one read (connected again meanwhile) stays.
    expect(await providerAccountCredentialsRepository.replaceSealed(id, 'kc1.test.read-before', null)).to.equal(0);
    expect(await portalAccountCredentialsRepository.replaceSealed(seller.portalAccountId, 'kc1.test.read-before', null)).to.equal(0);
    expect((await db()('payment_provider_account').where({ id }).first())!.credentials).to.equal(row.credentials);
    const extra = await kontor('credentials', 'reseal', 'now');
    expect(extra.code).to.equal(1);
    expect(extra.err).to.contain('unexpected argument now');
  });

  it('when a portal is reached through a connector, then its own adapter answers for its real connector and the JSON connector with its facts otherwise', () => {
    expect(adapterFor('auction_a', 'ebay')).to.equal(adapterFor('auction_a'));
    const json = adapterFor('auction_a', 'json');
    expect(json).to.be.instanceOf(JsonConnectorAdapter);
    expect(json).to.deep.include({ portal: 'auction_a', maxQuantityBatch: 25, fieldGroup: 'listers', categories: 'global' });
    expect(json.rateBuyer).to.be.a('function');
    expect(typeof json.fetchOrders).to.equal('function');
    expect(adapterFor('market_d', 'json')).to.deep.include({ portal: 'market_d', cia: { namedAccounts: true } });
    // A portal without a real connector keeps its own (JSON) adapter whatever the account's connector.
    expect(adapterFor('market_c', 'ebay')).to.equal(adapterFor('market_c'));
    expect(adapterFor('market_c', 'json')).to.equal(adapterFor('market_c'));
  });

  describe('POST admin/portal_account/{portal_account_id}/order_import/', () => {
    it('when it is called, then 202 with the job id and Location, and the job imports the orders', async () => {
      const seller = await newSeller();
      const id = await jsonAuctionAccount(seller, channel);
      channel.orders.push(channelOrder());
      const res = await call(`admin/portal_account/${id}/order_import/`, {
        token: seller.token,
        body: { order_import: { modified_since: '2026-01-01T00:00:00Z' } },
      });
      expect(res.status, res.text).to.equal(202);
      const jobId = res.body.job_id as string;
      expect(res.headers.get('location')).to.equal(`${config().publicUrl}/v1.1/job/${jobId}/`);
      const job = await jobEnd(seller, jobId);
      expect(job.state, job.error).to.equal('completed');
      expect(job.result).to.deep.include({ since: '2026-01-01T00:00:00.000Z' });
      const asked = channel.received.filter((r) => r.headers['x-portal-account'] === String(id)).at(-1)!.path;
      expect(asked).to.contain('modified_since=2026-01-01T00%3A00%3A00.000Z');
    });

    it('when the token lacks order_w, the portal account is another seller’s, or the body is bad, then 403, 404 and 400 naming the field', async () => {
      const seller = await newSeller();
      const other = await newSeller();
      const id = await jsonAuctionAccount(seller, channel);
      const reader = await newSeller('order_r admin_r');
      expect((await call(`admin/portal_account/${id}/order_import/`, { token: reader.token, body: {} })).status).to.equal(403);
      const foreign = await call(`admin/portal_account/${id}/order_import/`, { token: other.token, body: {} });
      expect(foreign.status).to.equal(404);
      expect(foreign.body.error![0]).to.include({ error: 'not_found', field: 'portal_account_id' });
      const badDate = await call(`admin/portal_account/${id}/order_import/`, { token: seller.token, body: { order_import: { modified_since: 'yesterday' } } });
      expect(badDate.status).to.equal(400);
      expect(badDate.body.error![0]).to.include({ field: 'order_import.modified_since' });
      // The seller's default portal account (no platform) has no channel whose orders Kontor fetches.
      const none = await call(`admin/portal_account/${seller.portalAccountId}/order_import/`, { token: seller.token, body: {} });
      expect(none.status).to.equal(400);
      expect(none.body.error![0]).to.include({ field: 'portal_account_id' });
      expect(JSON.stringify(none.body.error)).to.contain('auction_a, market_d, market_e');
    });

    it('when OPTIONS and openapi.json are read, then the endpoint is declared like the others', async () => {
      const seller = await newSeller();
      const options = await call(`admin/portal_account/1/order_import/`, { token: seller.token, method: 'OPTIONS' });
      expect(options.headers.get('allow')).to.equal('POST, OPTIONS');
      const doc = (await (await fetch(`${await apiBase()}/v1.1/openapi.json`)).json()) as {
        paths: Record<string, Record<string, { security: unknown; responses: Record<string, unknown> }>>;
      };
      const op = doc.paths['/admin/portal_account/{portal_account_id}/order_import/']!.post!;
      expect(op.security).to.deep.equal([{ oauth2: ['order_w'] }]);
      expect(op.responses).to.have.property('202');
      expect(endpoints.some((e) => e.path === 'admin/portal_account/{portal_account_id}/order_import/')).to.equal(true);
    });
  });

  it('when support runs kontor order import, then it prints the job id of an import of that portal account', async () => {
    const seller = await newSeller();
    const id = await jsonAuctionAccount(seller, channel);
    channel.orders.push(channelOrder());
    const res = await kontor('order', 'import', '--login', seller.login, '--portal-account', String(id));
    expect(res.code, res.err).to.equal(0);
    const printed = JSON.parse(res.out) as { job_id: string; portal_account_id: number };
    expect(printed.portal_account_id).to.equal(id);
    const job = await jobEnd(seller, printed.job_id);
    expect(job.state, job.error).to.equal('completed');
  });

  it('when the scheduler ticks twice in one fetch interval, then one fetch per connected account of a channel with a connector (eBay, Kaufland) is queued, ids from the account and the interval', async () => {
    const seller = await newSeller();
    const connected = await jsonAuctionAccount(seller, channel);
    const { id: kaufland } = await createPortalAccount(seller.id, { name: 'Kaufland.de', platform: 'market_e' });
    await connectPortalAccount(seller.id, {
      portalAccountId: kaufland,
      connector: 'kaufland',
      baseUrl: 'http://127.0.0.1:9/v2',
      credentials: { client_key: 'k'.repeat(32), secret_key: 's'.repeat(64), storefront: 'de' },
    });
    const refused = await jsonAuctionAccount(seller, channel, 'Refused');
    await db()('portal_account').where({ id: refused }).update({ order_import_error: 'refused' });
    const schedule = schedules().find((s) => s.name === 'order-import')!;
    const at = new Date(Math.floor(Date.now() / 600_000) * 600_000 + 1000);
    await schedule.enqueue(at);
    await schedule.enqueue(new Date(at.getTime() + 5000));
    const slot = String(Math.floor(at.getTime() / 1000 / 60));
    const all = await queues().get('order_import').getJobs(['waiting', 'active', 'completed', 'delayed']);
    expect(all.filter((j) => j.name === 'order.import_all' && j.id === `order-import-all-${slot}`)).to.have.length(1);
    await queueOrderImports('test-tick');
    await queueOrderImports('test-tick');
    const mine = (await queues().get('order_import').getJobs(['waiting', 'active', 'completed', 'failed', 'delayed'])).filter(
      (j) => j.name === 'order.import' && (j.data as { accountId: number }).accountId === seller.id && (j.data as { tick?: string }).tick === 'test-tick',
    );
    expect(mine.map((j) => j.id).sort()).to.deep.equal([`order-import-${connected}-test-tick`, `order-import-${kaufland}-test-tick`].sort());
  });
});
