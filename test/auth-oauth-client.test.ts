import crypto from 'node:crypto';
import { expect } from 'chai';
import { AuthorizationCode } from 'simple-oauth2';
import { config, setConfig } from '../config';
import { createClient } from '../lib/auth/client.service';
import { apiBase, call, newSeller, Seller } from './support/api';
import { authorizeClient } from './support/authorize';

/** A standard OAuth 2 client library (simple-oauth2) against the running service: code flow with PKCE, then refresh. */
describe('an integrator with simple-oauth2: authorization code + PKCE + refresh (issue 16)', () => {
  let seller: Seller;
  let client: { client_id: string; client_secret: string };
  let oauth: AuthorizationCode;
  const redirectUri = 'https://integrator.example.com/oauth/callback';
  // Refresh tokens of 20 days: in their last month, so a refresh replaces them (document 1, v1.1.10).
  let saved: ReturnType<typeof config>;
  after(() => setConfig(saved));

  before(async () => {
    saved = config();
    setConfig({ ...saved, refreshTokenTtlSeconds: 20 * 86400 });
    seller = await newSeller();
    client = await createClient('Integrator ERP', redirectUri);
    oauth = new AuthorizationCode({
      client: { id: client.client_id, secret: client.client_secret },
      auth: { tokenHost: await apiBase(), tokenPath: '/v1.1/token.php', authorizePath: '/v1.1/authorize.php' },
    });
  });

  it('when the library builds the authorize URL with an S256 challenge, the seller allows, and the library exchanges and refreshes, then each token works and the old refresh token is spent', async () => {
    const verifier = crypto.randomBytes(32).toString('base64url');
    const challenge = crypto.createHash('sha256').update(verifier).digest('base64url');
    const state = crypto.randomBytes(8).toString('hex');
    // The library passes parameters it does not type (RFC 7636's) through unchanged.
    const pkce = { redirect_uri: redirectUri, scope: ['order_r', 'stock_r'], state, code_challenge: challenge, code_challenge_method: 'S256' };
    const url = oauth.authorizeURL(pkce);

    const { code, location } = await authorizeClient({ clientId: client.client_id, login: seller.login, password: seller.password, url, tick: ['order_r'] });
    expect(location.origin + location.pathname).to.equal(redirectUri);
    expect(location.searchParams.get('state')).to.equal(state);

    const withoutVerifier = await oauth.getToken({ code, redirect_uri: redirectUri }).catch((err: Error) => err);
    expect(withoutVerifier).to.be.instanceOf(Error);

    const { code: code2 } = await authorizeClient({ clientId: client.client_id, login: seller.login, password: seller.password, url, tick: ['order_r'] });
    const exchange = { code: code2, redirect_uri: redirectUri, code_verifier: verifier };
    const token = await oauth.getToken(exchange);
    expect(token.token.scope).to.equal('order_r');
    expect(token.token.token_type).to.equal('Bearer');
    expect(token.expired()).to.equal(false);
    const first = token.token.access_token as string;
    expect((await call('order/', { token: first })).status).to.equal(200);
    expect((await call('stock/', { token: first })).status).to.equal(403);

    const refreshed = await token.refresh();
    expect(refreshed.token.access_token).to.be.a('string').and.not.equal(first);
    expect(refreshed.token.refresh_token).to.be.a('string').and.not.equal(token.token.refresh_token);
    expect(refreshed.token.scope).to.equal('order_r');
    expect((await call('order/', { token: refreshed.token.access_token as string })).status).to.equal(200);

    // The replaced refresh token is spent; presenting it again revokes the whole authorization (RFC 9700).
    const replay = await token.refresh().catch((err: Error & { output?: { statusCode: number; payload: { error: string } } }) => err);
    expect(replay).to.be.instanceOf(Error);
    expect((replay as { output?: { statusCode: number } }).output?.statusCode).to.equal(400);
    expect((await call('order/', { token: refreshed.token.access_token as string })).status).to.equal(401);
  });
});
