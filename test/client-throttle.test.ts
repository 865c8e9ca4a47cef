import { expect } from 'chai';
import { config, setConfig } from '../config';
import { createClient } from '../lib/auth/client.service';
import { setClock } from '../lib/clock';
import { ApiResponse, call, newSeller, Seller } from './support/api';
import { authorizeClient } from './support/authorize';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

interface Client {
  client_id: string;
  client_secret: string;
}

/** token.php as a client's server sends it, from a client address (behind the loopback proxy). */
const tokenPhp = (client: Client, secret: string, body: Record<string, string>, address: string): Promise<ApiResponse> =>
  call('token.php', { headers: { Authorization: basic(client.client_id, secret), 'X-Forwarded-For': address }, body });

const refresh = (client: Client, secret: string, refreshToken: string, address: string) =>
  tokenPhp(client, secret, { grant_type: 'refresh_token', refresh_token: refreshToken }, address);

const expectThrottled = (res: ApiResponse, windowSeconds: number) => {
  expect(res.status, res.text).to.equal(429);
  expect(res.body.error?.map((e) => e.error)).to.deep.equal(['too_many_login_attempts']);
  expect(Number(res.headers.get('retry-after'))).to.be.within(1, windowSeconds);
};

describe("client throttle at token.php's authorization_code and refresh_token grants (RFC 6749 2.3.1)", () => {
  const original = config();
  const windowSeconds = 900;
  // The start of a throttle window, so a few calls never straddle two.
  const start = Math.floor(Date.UTC(2026, 2, 3, 9) / 1000 / windowSeconds) * windowSeconds * 1000;
  let at = start;
  let seller: Seller;
  let client: Client;
  let refreshToken: string;

  beforeEach(async () => {
    setConfig({ ...original, loginThrottleWindowSeconds: windowSeconds, loginAttemptsPerLoginAndAddress: 3, loginAttemptsPerAddress: 100000 });
    seller = await newSeller();
    client = await createClient('Throttled connector', 'https://connector.example.com/cb');
    const { code } = await authorizeClient({ clientId: client.client_id, login: seller.login, password: seller.password, query: { scope: 'order_r' } });
    const exchanged = await tokenPhp(client, client.client_secret, { grant_type: 'authorization_code', code }, '192.0.2.1');
    expect(exchanged.status, exchanged.text).to.equal(200);
    refreshToken = exchanged.body.refresh_token as string;
    at = start;
    setClock(() => at);
  });
  afterEach(() => {
    setConfig(original);
    setClock(undefined);
  });

  it('when wrong secrets for one client come from one address, then 429 with Retry-After there, even for the right secret; another address refreshes; after the window the address refreshes again', async () => {
    for (let i = 0; i < 3; i++) {
      const wrong = await refresh(client, 'guessed-secret', refreshToken, '203.0.113.17');
      expect(wrong.status).to.equal(401);
      expect(wrong.body.error![0]!.error).to.equal('invalid_client');
    }
    expectThrottled(await refresh(client, 'guessed-secret', refreshToken, '203.0.113.17'), windowSeconds);
    // Refused before the secret is checked: a right guess learns nothing, and a code exchange is refused alike.
    expectThrottled(await refresh(client, client.client_secret, refreshToken, '203.0.113.17'), windowSeconds);
    expectThrottled(await tokenPhp(client, client.client_secret, { grant_type: 'authorization_code', code: 'kac_guess' }, '203.0.113.17'), windowSeconds);

    // The client's own server, elsewhere, is not locked out by foreign guesses.
    const elsewhere = await refresh(client, client.client_secret, refreshToken, '198.51.100.17');
    expect(elsewhere.status, elsewhere.text).to.equal(200);
    expect((await call('order/', { token: elsewhere.body.access_token as string })).status).to.equal(200);

    at = start + windowSeconds * 1000;
    expect((await refresh(client, client.client_secret, refreshToken, '203.0.113.17')).status).to.equal(200);
  });

  it('when wrong secrets for several clients come from one address, then the per-address bound refuses it; successful refreshes never count', async () => {
    setConfig({ ...config(), loginAttemptsPerAddress: 4 });
    for (let i = 0; i < 6; i++) expect((await refresh(client, client.client_secret, refreshToken, '203.0.113.18')).status).to.equal(200);
    const guessed = [
      client,
      await createClient('Another connector', 'https://another.example.com/cb'),
      await createClient('A third', 'https://third.example.com/cb'),
    ];
    // Under each client's own bound (3), over the address's (4).
    const guesses = [0, 1, 2, 1].map((i) => refresh(guessed[i]!, 'guessed-secret', 'krt_made_up', '203.0.113.18'));
    expect((await Promise.all(guesses)).map((g) => g.body.error?.[0]?.error)).to.deep.equal([
      'invalid_client',
      'invalid_client',
      'invalid_client',
      'invalid_client',
    ]);
    expectThrottled(await refresh(client, client.client_secret, refreshToken, '203.0.113.18'), windowSeconds);
    expect((await refresh(client, client.client_secret, refreshToken, '203.0.113.19')).status).to.equal(200);
  });

  it("when a connector's server refreshes the tokens of many sellers who revoked its access, then its other sellers' refreshes and a new seller's code exchange from that address still go through", async () => {
    setConfig({ ...config(), loginAttemptsPerAddress: 4 });
    const connector = '203.0.113.21';
    // Six sellers authorized the connector and revoked the access since (DELETE admin/client_access/{id}/).
    const revoked: string[] = [];
    for (let i = 0; i < 6; i++) {
      const gone = await newSeller();
      const { code } = await authorizeClient({ clientId: client.client_id, login: gone.login, password: gone.password, query: { scope: 'order_r' } });
      const exchanged = await tokenPhp(client, client.client_secret, { grant_type: 'authorization_code', code }, connector);
      expect(exchanged.status, exchanged.text).to.equal(200);
      revoked.push(exchanged.body.refresh_token as string);
      const accesses = (await call('admin/client_access/', { token: gone.token })).body.client_access as { id: number }[];
      expect((await call(`admin/client_access/${accesses[0]!.id}/`, { token: gone.token, method: 'DELETE' })).status).to.equal(200);
    }
    // Its hourly refresh run presents each of them: invalid_grant, the client's secret right.
    for (const token of revoked) {
      const res = await refresh(client, client.client_secret, token, connector);
      expect(res.status, res.text).to.equal(400);
      expect(res.body.error![0]!.error).to.equal('invalid_grant');
    }
    const kept = await refresh(client, client.client_secret, refreshToken, connector);
    expect(kept.status, kept.text).to.equal(200);
    expect((await call('order/', { token: kept.body.access_token as string })).status).to.equal(200);
    const newcomer = await newSeller();
    const { code } = await authorizeClient({ clientId: client.client_id, login: newcomer.login, password: newcomer.password, query: { scope: 'order_r' } });
    const exchanged = await tokenPhp(client, client.client_secret, { grant_type: 'authorization_code', code }, connector);
    expect(exchanged.status, exchanged.text).to.equal(200);
  });

  it('when a client presents refresh tokens it has no right to from its own address, then they are not counted: its secret is not locked out under the lower bound', async () => {
    // A seller revoked the access; the connector still tries its token: invalid_grant, not a guess of the secret.
    for (let i = 0; i < 5; i++) expect((await refresh(client, client.client_secret, 'krt_revoked', '203.0.113.20')).status).to.equal(400);
    expect((await refresh(client, client.client_secret, refreshToken, '203.0.113.20')).status).to.equal(200);
  });
});
