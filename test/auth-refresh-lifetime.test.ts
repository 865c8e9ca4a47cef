/**
 * Document 1, Authentication 3 and Versioning (v1.1.10): "Refresh token valid up to 2 years and
 * replaced only from 1 month before expiry"; RFC 6749 6: a new refresh token keeps the scope of
 * the one presented, a narrower scope asked for narrows only the access token.
 */
import { expect } from 'chai';
import { config, setConfig } from '../config';
import { createClient } from '../lib/auth/client.service';
import { call, newSeller, Seller } from './support/api';
import { authorizeClient } from './support/authorize';

const twoYears = 2 * 365 * 24 * 3600;
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('refresh tokens: lifetime and replacement (document 1, v1.1.10; RFC 6749 6)', () => {
  let seller: Seller;
  let client: { client_id: string; client_secret: string };
  let saved: ReturnType<typeof config>;

  before(async () => {
    saved = config();
    seller = await newSeller();
    client = await createClient('Lifetime ERP', 'https://lifetime.example.com/cb');
  });
  afterEach(() => setConfig(saved));

  const refresh = (token: string, scope?: string) =>
    call('token.php', {
      headers: { Authorization: basic(client.client_id, client.client_secret) },
      body: { grant_type: 'refresh_token', refresh_token: token, ...(scope ? { scope } : {}) },
    });

  async function authorized(scope: string): Promise<{ access: string; refresh: string }> {
    const { code } = await authorizeClient({ clientId: client.client_id, login: seller.login, password: seller.password, query: { scope } });
    const res = await call('token.php', {
      headers: { Authorization: basic(client.client_id, client.client_secret) },
      body: { grant_type: 'authorization_code', code },
    });
    expect(res.status, res.text).to.equal(200);
    return { access: res.body.access_token as string, refresh: res.body.refresh_token as string };
  }

  it('when a refresh token of two years is more than a month from its expiry, then each refresh answers a new access token and the same refresh token, which stays good', async () => {
    setConfig({ ...saved, refreshTokenTtlSeconds: twoYears });
    const first = await authorized('order_r');
    const accesses: string[] = [first.access];
    for (let i = 0; i < 3; i += 1) {
      const res = await refresh(first.refresh);
      expect(res.status, res.text).to.equal(200);
      expect(res.body.refresh_token).to.equal(first.refresh);
      expect(res.body.access_token).to.be.a('string').and.not.be.oneOf(accesses);
      accesses.push(res.body.access_token as string);
    }
    // No replay was seen: every access token of the authorization still works.
    for (const access of accesses) expect((await call('order/', { token: access })).status).to.equal(200);
  });

  it('when the refresh token is in its last month, then a refresh replaces it, and the replaced one presented again revokes the authorization', async () => {
    setConfig({ ...saved, refreshTokenTtlSeconds: 20 * 86400 });
    const first = await authorized('order_r');
    const renewed = await refresh(first.refresh);
    expect(renewed.status, renewed.text).to.equal(200);
    const next = renewed.body.refresh_token as string;
    expect(next).to.be.a('string').and.not.equal(first.refresh);
    const replay = await refresh(first.refresh);
    expect(replay.status).to.equal(400);
    expect(replay.body.error![0]!.error).to.equal('invalid_grant');
    expect((await refresh(next)).status).to.equal(400);
    expect((await call('order/', { token: renewed.body.access_token as string })).status).to.equal(401);
  });

  it('when a refresh asks for a narrower scope, then only that access token is narrowed: the next refresh without scope has the whole grant again (kept or replaced)', async () => {
    for (const ttl of [twoYears, 20 * 86400]) {
      setConfig({ ...saved, refreshTokenTtlSeconds: ttl });
      const first = await authorized('order_r stock_r');
      const narrow = await refresh(first.refresh, 'order_r');
      expect(narrow.status, narrow.text).to.equal(200);
      expect(narrow.body.scope).to.equal('order_r');
      expect((await call('stock/', { token: narrow.body.access_token as string })).status).to.equal(403);
      const whole = await refresh(narrow.body.refresh_token as string);
      expect(whole.status, whole.text).to.equal(200);
      expect((whole.body.scope as string).split(' ').sort()).to.deep.equal(['order_r', 'stock_r']);
      expect((await call('stock/', { token: whole.body.access_token as string })).status).to.equal(200);
    }
  });
});
