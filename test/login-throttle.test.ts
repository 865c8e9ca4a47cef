import { expect } from 'chai';
import crypto from 'node:crypto';
import { config, setConfig } from '../config';
import { createSeller } from '../lib/account';
import { createClient } from '../lib/auth/client.service';
import { setClock } from '../lib/clock';
import { call, newSeller, Seller } from './support/api';
import { openAuthorize, sendForm } from './support/authorize';
import { capturedLog } from './security/log-capture';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** token.php as a seller's software sends it, from a client address (behind the loopback proxy). */
const login = (user: string, password: string, address: string) =>
  call('token.php', {
    headers: { Authorization: basic(user, password), 'Content-Type': 'application/x-www-form-urlencoded', 'X-Forwarded-For': address },
    body: 'grant_type=client_credentials',
  });

/** The login with its i-th character percent-encoded: RFC 6749 2.3.1's form-urlencoding, which token.php decodes too (lib/auth client-credentials.ts). */
const encodedAt = (text: string, i: number) => `${text.slice(0, i)}%${text.charCodeAt(i).toString(16).toUpperCase().padStart(2, '0')}${text.slice(i + 1)}`;

/** A login or password as an RFC 6749 2.3.1 client sends it in Basic (simple-oauth2's default): form-urlencoded ('@' as %40). */
const strict = (text: string) => new URLSearchParams({ a: text }).toString().slice(2);

/** A seller with a login of its own choosing (the suite's newSeller makes seller_<hex>). */
async function sellerNamed(login: string): Promise<{ login: string; password: string }> {
  const password = `pw-${crypto.randomBytes(8).toString('hex')}`;
  await createSeller(login, password);
  return { login, password };
}

describe('login throttle at token.php and authorize.php', () => {
  const original = config();
  const windowSeconds = 900;
  // The start of a throttle window, so a few calls never straddle two.
  const start = Math.floor(Date.UTC(2026, 2, 2, 9) / 1000 / windowSeconds) * windowSeconds * 1000;
  let at = start;
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
    at = start;
    setClock(() => at);
    setConfig({
      ...original,
      loginThrottleWindowSeconds: windowSeconds,
      loginAttemptsPerLoginAndAddress: 3,
      loginAttemptsPerLogin: 6,
      loginAttemptsPerAddress: 100000,
    });
  });
  afterEach(() => {
    setConfig(original);
    setClock(undefined);
  });

  it('when wrong passwords for one login come from one address, then 429 with Retry-After, even for the right password there; another address logs in; after the window the seller logs in again', async () => {
    for (let i = 0; i < 3; i++) {
      const wrong = await login(seller.login, 'wrong-password', '203.0.113.7');
      expect(wrong.status).to.equal(401);
      expect(wrong.body.error![0]!.error).to.equal('invalid_client');
    }
    const throttled = await login(seller.login, 'wrong-password', '203.0.113.7');
    expect(throttled.status).to.equal(429);
    expect(throttled.body.error![0]!.error).to.equal('too_many_login_attempts');
    expect(Number(throttled.headers.get('retry-after'))).to.be.within(1, windowSeconds);
    // The throttle answers before the password is checked: a guess that is right is refused too.
    expect((await login(seller.login.toUpperCase(), seller.password, '203.0.113.7')).status).to.equal(429);

    const elsewhere = await login(seller.login, seller.password, '198.51.100.9');
    expect(elsewhere.status).to.equal(200);
    expect((await call('admin/user/', { token: elsewhere.body.access_token as string })).status).to.equal(200);

    at = start + windowSeconds * 1000;
    expect((await login(seller.login, seller.password, '203.0.113.7')).status).to.equal(200);
  });

  it('when guesses for one login come from many addresses, then the login-wide bound refuses them, but not the address the seller logged in from before', async () => {
    expect((await login(seller.login, seller.password, '192.0.2.10')).status).to.equal(200);
    for (let i = 0; i < 6; i++) expect((await login(seller.login, 'guess', `203.0.113.${20 + i}`)).status).to.equal(401);
    const next = await login(seller.login, 'guess', '203.0.113.99');
    expect(next.status).to.equal(429);
    expect(Number(next.headers.get('retry-after'))).to.be.above(0);
    expect((await login(seller.login, seller.password, '203.0.113.98')).status).to.equal(429);
    // The seller's own address is not locked out by foreign guesses.
    expect((await login(seller.login, seller.password, '192.0.2.10')).status).to.equal(200);
    // Another login is not affected.
    const other = await newSeller();
    expect((await login(other.login, other.password, '203.0.113.99')).status).to.equal(200);
  });

  it('when one address tries many logins, then the per-address bound refuses it; a successful login does not count', async () => {
    setConfig({ ...config(), loginAttemptsPerAddress: 4 });
    expect((await login(seller.login, seller.password, '203.0.113.50')).status).to.equal(200);
    for (let i = 0; i < 4; i++) expect((await login(`nobody_${i}_${seller.login}`, 'guess', '203.0.113.50')).status).to.equal(401);
    const refused = await login(`nobody_x_${seller.login}`, 'guess', '203.0.113.50');
    expect(refused.status).to.equal(429);
    expect(refused.body.error![0]!.error).to.equal('too_many_login_attempts');
    expect((await login(seller.login, seller.password, '203.0.113.51')).status).to.equal(200);
  });

  it('when the login is throttled from an address, then a percent-encoded spelling of it is refused there too (429), even with the right password', async () => {
    for (let i = 0; i < 3; i++) expect((await login(seller.login, 'wrong-password', '203.0.113.7')).status).to.equal(401);
    expect((await login(seller.login, seller.password, '203.0.113.7')).status).to.equal(429);
    const encoded = await login(encodedAt(seller.login, 0), seller.password, '203.0.113.7');
    expect(encoded.status, encoded.text).to.equal(429);
    expect(encoded.body.error![0]!.error).to.equal('too_many_login_attempts');
    // The other way round: guesses in encoded spellings throttle the login as sent.
    const other = await newSeller();
    for (let i = 0; i < 3; i++) expect((await login(encodedAt(other.login, i), 'wrong-password', '203.0.113.8')).status).to.equal(401);
    expect((await login(other.login, other.password, '203.0.113.8')).status).to.equal(429);
  });

  it('when guesses for one login come from many addresses, each in another percent-encoded spelling, then the login-wide bound (6) stops them and the right password after them', async () => {
    const answers: number[] = [];
    for (let i = 0; i < 10; i++) answers.push((await login(encodedAt(seller.login, i % seller.login.length), `guess-${i}`, `203.0.113.${20 + i}`)).status);
    expect(answers).to.deep.equal([401, 401, 401, 401, 401, 401, 429, 429, 429, 429]);
    expect((await login(encodedAt(seller.login, 1), seller.password, '203.0.113.200')).status).to.equal(429);
    expect((await login(seller.login, seller.password, '203.0.113.201')).status).to.equal(429);
  });

  it('when an encoded spelling logs in, then the attempt counts as no failure; failed and refused attempts are logged under the login it decodes to', async () => {
    // Two failures, then a success in an encoded spelling: the login+address count starts anew, so three more failures are answered 401.
    for (let i = 0; i < 2; i++) expect((await login(seller.login, 'wrong-password', '203.0.113.9')).status).to.equal(401);
    expect((await login(encodedAt(seller.login, 2), seller.password, '203.0.113.9')).status).to.equal(200);
    const { lines } = await capturedLog(async () => {
      for (let i = 0; i < 3; i++) expect((await login(encodedAt(seller.login, 0), 'wrong-password', '203.0.113.9')).status).to.equal(401);
      expect((await login(encodedAt(seller.login, 0), 'wrong-password', '203.0.113.9')).status).to.equal(429);
    });
    const logged = lines.filter((l) => l.login_failed === 'token.php').map((l) => ({ login: l.login, msg: l.msg }));
    expect(logged).to.deep.equal([
      ...[0, 1, 2].map(() => ({ login: seller.login, msg: 'login failed' })),
      { login: seller.login, msg: 'login refused by the login throttle' },
    ]);
  });

  it("when a seller's software form-encodes Basic (RFC 6749 2.3.1) and her login has an '@', then guesses from many addresses in that spelling lock her out at none of her addresses, whichever spelling she signed in with there", async () => {
    const her = await sellerNamed(`x_${crypto.randomBytes(4).toString('hex')}@shop.example`);
    expect(strict(her.login)).to.contain('%40');
    // Her office signed in as curl -u sends it, her shop software as simple-oauth2 does.
    expect((await login(her.login, her.password, '192.0.2.10')).status).to.equal(200);
    expect((await login(strict(her.login), strict(her.password), '192.0.2.11')).status).to.equal(200);
    for (let i = 0; i < 6; i++) expect((await login(strict(her.login), `guess-${i}`, `203.0.113.${20 + i}`)).status).to.equal(401);
    // The login-wide bound (6) holds for every spelling: the counts are the account's.
    expect((await login(strict(her.login), 'guess-x', '203.0.113.99')).status).to.equal(429);
    expect((await login(her.login, her.password, '203.0.113.98')).status).to.equal(429);
    // README "A foreign address never locks the seller out where it works", in either spelling.
    const answers = [
      (await login(strict(her.login), strict(her.password), '192.0.2.11')).status,
      (await login(strict(her.login), strict(her.password), '192.0.2.10')).status,
      (await login(her.login, her.password, '192.0.2.11')).status,
      (await login(her.login, her.password, '192.0.2.10')).status,
    ];
    expect(answers).to.deep.equal([200, 200, 200, 200]);
  });

  it("when a login is spelled with a capital dotted I (U+0130), which the account lookup folds to 'i', then its guesses count for the account the lookup finds: no fresh count for its password", async () => {
    const name = `alice_${crypto.randomBytes(4).toString('hex')}`;
    const alice = await sellerNamed(name);
    for (let i = 0; i < 6; i++) expect((await login(name, `guess-${i}`, `203.0.113.${20 + i}`)).status).to.equal(401);
    expect((await login(name, alice.password, '203.0.113.99')).status).to.equal(429);
    const spelled = name.replace('i', '\u0130');
    const answers: number[] = [];
    for (let i = 0; i < 3; i++) answers.push((await login(spelled, `guess-b${i}`, `203.0.113.${120 + i}`)).status);
    answers.push((await login(spelled, alice.password, '203.0.113.199')).status);
    expect(answers).to.deep.equal([429, 429, 429, 429]);
  });

  it('when a login holds letters beyond ASCII (an account made before the login rule), then it signs in in any case spelling, and guesses in one spelling count for the others', async () => {
    const name = `Çiğdem_${crypto.randomBytes(4).toString('hex')}`;
    const her = await sellerNamed(name);
    // Turkish capitals: 'İ' is 'i̇' (two code points) to JavaScript's toLowerCase, 'i' to the account lookup (PostgreSQL's lower()).
    const capitals = name.toUpperCase().replace('I', '\u0130');
    expect((await login(capitals, her.password, '192.0.2.20')).status).to.equal(200);
    expect((await login(name.toLowerCase(), her.password, '192.0.2.21')).status).to.equal(200);
    for (let i = 0; i < 3; i++) expect((await login(name.toLowerCase(), `guess-${i}`, '203.0.113.30')).status).to.equal(401);
    expect((await login(capitals, her.password, '203.0.113.30')).status).to.equal(429);
    expect((await login(capitals, her.password, '192.0.2.20')).status).to.equal(200);
  });

  it('when wrong passwords are entered on the authorize page, then it answers 429 with Retry-After; from another address the seller authorizes', async () => {
    const client = await createClient('Throttled ERP', 'https://erp.example.com/cb');
    const page = await openAuthorize({ response_type: 'code', client_id: client.client_id, scope: 'order_r' });
    const authorize = async (password: string, address: string) => {
      const res = await sendForm(page, { login: seller.login, password, scope_item: 'order_r', decision: 'allow' }, { 'X-Forwarded-For': address });
      return { status: res.status, headers: res.headers, text: async () => res.html, next: res };
    };
    for (let i = 0; i < 3; i++) expect((await authorize('wrong-password', '203.0.113.8')).status).to.equal(400);
    const throttled = await authorize('wrong-password', '203.0.113.8');
    expect(throttled.status).to.equal(429);
    expect(Number(throttled.headers.get('retry-after'))).to.be.within(1, windowSeconds);
    expect(await throttled.text()).to.contain('too many login attempts');
    expect((await authorize(seller.password, '203.0.113.8')).status).to.equal(429);
    const elsewhere = await authorize(seller.password, '198.51.100.10');
    expect(elsewhere.status).to.equal(200);
    const allowed = await sendForm(elsewhere.next, { portal_account: 'all', decision: 'allow' });
    expect(allowed.status).to.equal(303);
    expect(new URL(allowed.headers.get('location')!).searchParams.get('code')).to.be.a('string');
  });
});
