/**
 * The operator's tools for a leaked credential (lib/auth/credential-lockout.service.ts): kontor
 * client disable / enable, user disable / password. A token is refused right after the command
 * (another process: this test's API process, which had the token cached), new tokens are refused,
 * and each command writes an audit line without the secret.
 */
import { expect } from 'chai';
import { createClient } from '../../lib/auth/client.service';
import { disabledPasswordHash } from '../../lib/account';
import { clientDisabledHash } from '../../lib/auth/client.repository';
import { disableClient, disableLogin, setPassword } from '../../lib/auth/credential-lockout.service';
import { db } from '../../lib/db';
import { call, newSeller, Seller, tokenFor } from '../support/api';
import { authorizeClient, openAuthorize, sendForm } from '../support/authorize';
import { untilOneWaitsForALock } from '../support/lock-wait';
import { kontor, kontorWithInput } from '../support/cli';
import { capturedLog } from './log-capture';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

type Client = { client_id: string; client_secret: string };

async function authorized(seller: Seller, client: Client): Promise<{ access: string; refresh: string }> {
  const { code } = await authorizeClient({
    clientId: client.client_id,
    login: seller.login,
    password: seller.password,
    query: { scope: 'stock_r' },
    portalAccount: 'all',
  });
  const res = await call('token.php', {
    headers: { Authorization: basic(client.client_id, client.client_secret) },
    body: { grant_type: 'authorization_code', code },
  });
  expect(res.status, res.text).to.equal(200);
  return { access: res.body.access_token as string, refresh: res.body.refresh_token as string };
}

const refresh = (client: Client, refreshToken: string) =>
  call('token.php', {
    headers: { Authorization: basic(client.client_id, client.client_secret) },
    body: { grant_type: 'refresh_token', refresh_token: refreshToken },
  });
const sellerLogin = (seller: Seller, password = seller.password) =>
  call('token.php', {
    headers: { Authorization: basic(seller.login, password), 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
const errorOf = (res: { body: Record<string, unknown> }) => (res.body.error as { error: string }[])[0]!.error;

describe('kontor client disable / enable, user disable / password (a leaked credential)', () => {
  it('when support disables a client, then its access token (cached) and refresh token are refused at once, new codes are refused, and other clients keep working', async () => {
    const seller = await newSeller();
    const client = await createClient('leaky', 'https://leaky.example.com/cb');
    const other = await createClient('fine', 'https://fine.example.com/cb');
    const tokens = await authorized(seller, client);
    const kept = await authorized(seller, other);
    expect((await call('stock/', { token: tokens.access })).status).to.equal(200);
    const done = await kontor('client', 'disable', '--client-id', client.client_id);
    expect(done.code, done.err).to.equal(0);
    expect(JSON.parse(done.out)).to.deep.equal({ client_id: client.client_id, disabled: true, revoked_access_tokens: 1, revoked_client_accesses: 1 });
    const refused = await call('stock/', { token: tokens.access });
    expect(refused.status).to.equal(401);
    const again = await refresh(client, tokens.refresh);
    expect([again.status, errorOf(again)]).to.deep.equal([401, 'invalid_client']);
    const page = await call(`authorize.php?response_type=code&client_id=${client.client_id}&state=x`, { headers: { Accept: 'text/html' } });
    expect(page.status).to.equal(400);
    expect((await call('stock/', { token: kept.access })).status).to.equal(200);
    expect((await refresh(other, kept.refresh)).status).to.equal(200);
    expect((await kontor('client', 'disable', '--client-id', 'kc_none')).code).to.equal(1);
  });

  it('when support enables it again, then it has a new secret, the old secret stays refused and its old refresh token is gone', async () => {
    const seller = await newSeller();
    const client = await createClient('back', 'https://back.example.com/cb');
    const tokens = await authorized(seller, client);
    expect((await kontor('client', 'disable', '--client-id', client.client_id)).code).to.equal(0);
    const enabled = await kontor('client', 'enable', '--client-id', client.client_id);
    expect(enabled.code, enabled.err).to.equal(0);
    const renewed = { client_id: client.client_id, client_secret: JSON.parse(enabled.out).client_secret as string };
    expect(renewed.client_secret).to.match(/^[\w-]{43}$/);
    expect(errorOf(await refresh(client, tokens.refresh))).to.equal('invalid_client');
    expect(errorOf(await refresh(renewed, tokens.refresh))).to.equal('invalid_grant');
    const fresh = await authorized(seller, renewed);
    expect((await call('stock/', { token: fresh.access })).status).to.equal(200);
  });

  it("when support disables a login, then the seller's tokens and their clients' are refused at once, and the right password is refused like a wrong one", async () => {
    const seller = await newSeller();
    const client = await createClient('erp', 'https://erp.example.com/cb');
    const tokens = await authorized(seller, client);
    expect((await call('stock/', { token: seller.token })).status).to.equal(200);
    expect((await call('stock/', { token: tokens.access })).status).to.equal(200);
    const done = await kontor('user', 'disable', '--login', seller.login);
    expect(done.code, done.err).to.equal(0);
    expect(JSON.parse(done.out)).to.include({ login: seller.login, disabled: true, revoked_access_tokens: 2, revoked_client_accesses: 1 });
    expect((await call('stock/', { token: seller.token })).status).to.equal(401);
    expect((await call('stock/', { token: tokens.access })).status).to.equal(401);
    expect(errorOf(await refresh(client, tokens.refresh))).to.equal('invalid_grant');
    const right = await sellerLogin(seller);
    const wrong = await sellerLogin(seller, 'not-the-password');
    expect([right.status, errorOf(right)]).to.deep.equal([wrong.status, errorOf(wrong)]);
    expect(right.status).to.equal(401);
  });

  it("when support sets a new password, then the seller's own tokens are refused, the old password is, the new one works (a disabled login too), and client accesses stay", async () => {
    const seller = await newSeller();
    const client = await createClient('shop', 'https://shop.example.com/cb');
    const tokens = await authorized(seller, client);
    expect((await kontor('user', 'disable', '--login', seller.login)).code).to.equal(0);
    const again = await authorized({ ...seller, password: seller.password }, client).catch((e: Error) => e);
    expect(again).to.be.instanceOf(Error);
    const done = await kontorWithInput('a-new-password-1\n', 'user', 'password', '--login', seller.login, '--password-stdin');
    expect(done.code, done.err).to.equal(0);
    expect(JSON.parse(done.out)).to.deep.equal({ login: seller.login, revoked_access_tokens: 0 });
    const token = await tokenFor(seller.login, 'a-new-password-1');
    const second = await authorized({ ...seller, password: 'a-new-password-1' }, client);
    expect((await call('stock/', { token })).status).to.equal(200);
    const changed = await kontorWithInput('another-password-2\n', 'user', 'password', '--login', seller.login, '--password-stdin');
    expect(JSON.parse(changed.out)).to.deep.equal({ login: seller.login, revoked_access_tokens: 1 });
    expect((await call('stock/', { token })).status).to.equal(401);
    expect((await sellerLogin(seller, 'a-new-password-1')).status).to.equal(401);
    expect((await call('stock/', { token: second.access })).status).to.equal(200);
    expect(tokens.access).to.not.equal(second.access);
    const shown = await kontor('user', 'password', '--login', seller.login, '--password', 'visible-in-ps');
    expect(shown.code).to.equal(1);
  });

  it('when support disables a login while its password is being checked at token.php, then no token comes of that login', async () => {
    const seller = await newSeller();
    // The test holds the login's row as `user disable` does while it revokes: the login's write waits.
    const support = await db().transaction();
    try {
      await support('account').where({ id: seller.id }).forUpdate().first();
      const login = sellerLogin(seller);
      await untilOneWaitsForALock();
      await support('account')
        .where({ id: seller.id })
        .update({ password_hash: disabledPasswordHash(new Date()) });
      await support.commit();
      const res = await login;
      expect([res.status, errorOf(res)]).to.deep.equal([401, 'invalid_client']);
    } finally {
      if (!support.isCompleted()) await support.rollback();
    }
    expect(await db()('access_token').where({ account_id: seller.id, oauth_client_id: null }).count('* as n').first()).to.deep.equal({ n: '1' });
  });

  it('when support disables a client while it exchanges its refresh token, then no token comes of that exchange', async () => {
    const seller = await newSeller();
    const client = await createClient('racing', 'https://racing.example.com/cb');
    const tokens = await authorized(seller, client);
    const { id } = (await db()('oauth_client').where({ client_id: client.client_id }).first('id')) as { id: number };
    // The test holds the client's row as `client disable` does while it revokes: the exchange's write waits.
    const support = await db().transaction();
    try {
      await support('oauth_client').where({ id }).forUpdate().first();
      const exchange = refresh(client, tokens.refresh);
      await untilOneWaitsForALock();
      await support('oauth_client')
        .where({ id })
        .update({ secret_hash: clientDisabledHash(new Date()) });
      await support.commit();
      const res = await exchange;
      expect([res.status, errorOf(res)]).to.deep.equal([401, 'invalid_client']);
    } finally {
      if (!support.isCompleted()) await support.rollback();
    }
    expect(await db()('access_token').where({ oauth_client_id: id }).count('* as n').first()).to.deep.equal({ n: '1' });
  });

  it('when support disables a login or sets its password between the sign-in on authorize.php and the consent, then the consent gives no code', async () => {
    for (const lockOut of [(s: Seller) => disableLogin(s.login), (s: Seller) => setPassword(s.login, 'changed-meanwhile-4')]) {
      const seller = await newSeller();
      const client = await createClient('late', 'https://late.example.com/cb');
      const page = await openAuthorize({ response_type: 'code', client_id: client.client_id, scope: 'stock_r' });
      const signedIn = await sendForm(page, { login: seller.login, password: seller.password, scope_item: 'stock_r', decision: 'allow' });
      expect(signedIn.status, signedIn.html).to.equal(200);
      expect(signedIn.hidden.consent).to.be.a('string');
      await lockOut(seller);
      const done = await sendForm(signedIn, { portal_account: 'all', decision: 'allow' });
      expect(done.status, done.html).to.not.equal(303);
      expect(done.html).to.contain('This sign-in is no longer valid');
      expect(await db()('authorization_code').where({ account_id: seller.id }).count('* as n').first()).to.deep.equal({ n: '0' });
    }
  });

  it('when a client is disabled or a password set, then one audit line names what was done and never the secret or the password', async () => {
    const seller = await newSeller();
    const client = await createClient('audited', 'https://audited.example.com/cb');
    const { lines, text } = await capturedLog(async () => {
      await disableClient(client.client_id);
      await setPassword(seller.login, 'audited-password-3');
    });
    expect(lines.filter((l) => l.audit).map((l) => l.audit)).to.deep.equal(['client_disabled', 'password_set']);
    expect(lines.find((l) => l.audit === 'client_disabled')).to.include({ client_id: client.client_id, revoked_access_tokens: 0 });
    expect(lines.find((l) => l.audit === 'password_set')).to.include({ login: seller.login, account_id: seller.id });
    expect(text).to.not.contain(client.client_secret);
    expect(text).to.not.contain('audited-password-3');
  });
});
