/** A client authorized through the consent page, for one portal account or all: its access token. */
import { expect } from 'chai';
import { createClient } from '../../lib/auth/client.service';
import { call, Seller } from './api';
import { authorizeClient } from './authorize';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** A new client named `name`, authorized by the seller for `scope` on one portal account (or all). */
export async function clientToken(seller: Seller, name: string, portalAccount: number | 'all', scope: string): Promise<string> {
  return (await boundClient(seller, name, portalAccount, scope)).token;
}

/** clientToken, with the client's client_id (what keys its own data, e.g. a stock item's app[] entry). */
export async function boundClient(seller: Seller, name: string, portalAccount: number | 'all', scope: string): Promise<{ clientId: string; token: string }> {
  const client = await createClient(name, `https://${name}.example.com/cb`);
  const { code } = await authorizeClient({ clientId: client.client_id, login: seller.login, password: seller.password, query: { scope }, portalAccount });
  const res = await call('token.php', {
    headers: { Authorization: basic(client.client_id, client.client_secret) },
    body: { grant_type: 'authorization_code', code },
  });
  expect(res.status, res.text).to.equal(200);
  return { clientId: client.client_id, token: res.body.access_token as string };
}
