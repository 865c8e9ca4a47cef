import { expect } from 'chai';
import { AuctionAAdapter } from '../../lib/portals/auction-a.adapter';
import { EbayApplication, ebayConsentGrant, ebayConsentUrl } from '../../lib/portals/ebay/ebay-consent';
import type { PortalTarget } from '../../lib/portals/portal.type';
import { failure } from '../support/failure';
import { sandboxForSuite } from './sandbox-server';

const inventoryScope = 'https://api.ebay.com/oauth/api_scope/sell.inventory';

describe('auction_a consent: the seller grants access through eBay’s authorization-code flow (sandbox eBay)', function () {
  this.timeout(20000);
  let url: string;
  let next = 8_000_000 + (process.pid % 1000) * 100;
  const adapter = new AuctionAAdapter();
  // The consented seller's quantities name SKUs listed outside Kontor: eBay holds their inventory items
  // (03556f8 refuses a quantity of a SKU eBay holds no item of, as BulkPriceQuantity's 25002 does).
  sandboxForSuite((sandbox) => {
    url = sandbox.url;
    sandbox.state.ebay.itemsMadeElsewhere = true;
  }, 'ebay');

  async function application(): Promise<EbayApplication> {
    const res = await fetch(`${url}/_sandbox/ebay/apps`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ ru_name: 'Kontor-Kontor-SBX-abc', accept_url: 'https://kontor.example/ebay/consent' }),
    });
    const keys = (await res.json()) as { client_id: string; client_secret: string; ru_name: string };
    return { clientId: keys.client_id, clientSecret: keys.client_secret, ruName: keys.ru_name, authUrl: url, apiUrl: url };
  }
  /** The seller opens the link and consents as `login`: the accept URL eBay sends the browser to. */
  async function consent(link: string, login: string): Promise<URL> {
    const res = await fetch(`${link}&login=${login}`, { redirect: 'manual' });
    expect(res.status).to.equal(302);
    return new URL(res.headers.get('location')!);
  }

  it('when the seller consents, then the code at the accept URL gives a refresh token and the scopes granted, and the adapter works with them', async () => {
    const app = await application();
    const link = ebayConsentUrl(app, 'pa-42-nonce');
    expect(new URL(link).searchParams.get('redirect_uri')).to.equal('Kontor-Kontor-SBX-abc');
    const accepted = await consent(link, 'lampshop');
    expect(accepted.origin + accepted.pathname).to.equal('https://kontor.example/ebay/consent');
    expect(accepted.searchParams.get('state')).to.equal('pa-42-nonce');
    const granted = await ebayConsentGrant(app, accepted.searchParams.get('code')!);
    expect(granted.scopes.split(' ')).to.include(inventoryScope).and.to.have.length(3);
    expect(Date.parse(granted.refresh_token_expires_at!)).to.be.above(Date.now() + 500 * 86400_000);
    const target: PortalTarget = {
      portalAccountId: next++,
      baseUrl: url,
      credentials: { client_id: app.clientId, client_secret: app.clientSecret, refresh_token: granted.refresh_token, scopes: granted.scopes },
    };
    expect(await adapter.setQuantities(target, [{ stockId: 1, quantity: 2, key: 'k', sku: 'S1', group: {} }], 'k')).to.deep.equal([
      { stockId: 1, outcome: 'accepted' },
    ]);
    // A code is good once.
    const again = await failure(ebayConsentGrant(app, accepted.searchParams.get('code')!));
    expect(again.message).to.match(/invalid_grant.*consent link again/);
  });

  it('when the consent granted fewer scopes, then refreshes ask only for those; asking for more names the scopes, not the client secret', async () => {
    const app = await application();
    const accepted = await consent(ebayConsentUrl(app, 's', [inventoryScope]), 'potshop');
    const granted = await ebayConsentGrant(app, accepted.searchParams.get('code')!, [inventoryScope]);
    const credentials = { client_id: app.clientId, client_secret: app.clientSecret, refresh_token: granted.refresh_token };
    const kept: PortalTarget = { portalAccountId: next++, baseUrl: url, credentials: { ...credentials, scopes: granted.scopes } };
    expect(await adapter.setQuantities(kept, [{ stockId: 1, quantity: 2, key: 'k', sku: 'S1', group: {} }], 'k')).to.deep.equal([
      { stockId: 1, outcome: 'accepted' },
    ]);
    // An account connected before the consent flow kept no scopes: Kontor's three are asked for.
    const old: PortalTarget = { portalAccountId: next++, baseUrl: url, credentials };
    const err = await failure(adapter.setQuantities(old, [{ stockId: 1, quantity: 2, key: 'k', sku: 'S1', group: {} }], 'k'));
    expect(err.id).to.equal('portal_refused');
    expect(err.message).to.match(/invalid_scope.*connect the eBay account again/);
    expect(err.message).to.not.match(/client_secret/);
  });
});
